# `cmake --install` and CPack (docs/installing.md). The layout under the prefix:
#   bin/killpoint                    -> ../lib/killpoint/killpoint (a symlink)
#   lib/killpoint/                   killpoint, killpoint-supervise, libkillpoint_shim.so and the
#                                    reference jobs: killpoint finds the supervisor, the shim and
#                                    {bindir} beside its real path
#   include/killpoint/               failpoint.h and retry.h, the header-only clients
#   lib/cmake/killpoint/             find_package(killpoint): killpoint::failpoint, ::retry
#   share/killpoint/scenarios/       the bundled scenarios (they name jobs as {bindir}/...)
#   share/doc/killpoint/             README.md and docs/
include(GNUInstallDirs)
# `make install` and `cpack` install what is built, without building every target (the tests)
# first: build killpoint, the jobs, the supervisor and the shim before (docs/installing.md).
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)
include(CMakePackageConfigHelpers)

set(KILLPOINT_INSTALL_PKGLIBDIR lib/killpoint)
set(KILLPOINT_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/killpoint)

install(TARGETS killpoint killpoint-supervise kp-settle kp-publish kp-retry kp-catalogue
                kp-sqlite-commit kp-selftest-writer
        RUNTIME DESTINATION ${KILLPOINT_INSTALL_PKGLIBDIR})
install(TARGETS killpoint_shim LIBRARY DESTINATION ${KILLPOINT_INSTALL_PKGLIBDIR})
install(PROGRAMS jobs/python/failpoint_job.py jobs/python/publish_job.py
                 ${KILLPOINT_SERVICE_JOBS}
        DESTINATION ${KILLPOINT_INSTALL_PKGLIBDIR})

# bin/killpoint: a relative symlink, made in the build tree and installed as a link.
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/install-links)
file(CREATE_LINK ../${KILLPOINT_INSTALL_PKGLIBDIR}/killpoint
     ${CMAKE_BINARY_DIR}/install-links/killpoint SYMBOLIC)
install(FILES ${CMAKE_BINARY_DIR}/install-links/killpoint DESTINATION ${CMAKE_INSTALL_BINDIR})

install(FILES jobs/failpoint/killpoint/failpoint.h jobs/retry/killpoint/retry.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/killpoint)
set_target_properties(killpoint_failpoint PROPERTIES EXPORT_NAME failpoint)
set_target_properties(killpoint_retry PROPERTIES EXPORT_NAME retry)
install(TARGETS killpoint_failpoint killpoint_retry EXPORT killpointTargets
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT killpointTargets NAMESPACE killpoint:: DESTINATION ${KILLPOINT_INSTALL_CMAKEDIR})
configure_package_config_file(cmake/killpointConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/killpointConfig.cmake
                              INSTALL_DESTINATION ${KILLPOINT_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/killpointConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES ${CMAKE_BINARY_DIR}/killpointConfig.cmake
              ${CMAKE_BINARY_DIR}/killpointConfigVersion.cmake
        DESTINATION ${KILLPOINT_INSTALL_CMAKEDIR})

install(DIRECTORY scenarios/ DESTINATION ${CMAKE_INSTALL_DATADIR}/killpoint/scenarios)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

# `cpack -G DEB` in the build folder: killpoint_VERSION_ARCH.deb. Depends: what
# dpkg-shlibdeps reads from the binaries (SQLite, cpp-httplib, libpq, fmt, ...), and python3
# for the Python reference jobs, both set by cmake/DebDepends.cmake once the files are staged.
set(CPACK_PACKAGE_NAME killpoint)
set(CPACK_PACKAGE_VENDOR "killpoint")
set(CPACK_PACKAGE_CONTACT "killpoint maintainers <killpoint@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "kills scheduled jobs at chosen points, retries them and checks invariants")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_STRIP_FILES ON)  # the line tables of -g1 stay in the build tree
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)  # DebDepends.cmake runs dpkg-shlibdeps, faster
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3")  # replaced by DebDepends.cmake
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_SOURCE_DIR}/cmake/DebDepends.cmake)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "sqlite3")
include(CPack)
