# A CPack pre-build script (CPACK_PRE_BUILD_SCRIPTS in cmake/Install.cmake): the .deb's Depends
# from dpkg-shlibdeps, run on the ELF files of lib/killpoint/ alone, then python3 for the Python
# reference jobs. CPackDeb's own CPACK_DEBIAN_PACKAGE_SHLIBDEPS first runs `file` (through
# `cmake -E env`) on every file of the package, the docs and scenarios among them: a whole
# `cpack -G DEB` took 9.5 s of CPU with it, 4.4 s with this script, which also needs no `file`.
# Runs in the staging folder, as CPackDeb does.
if(NOT CPACK_GENERATOR STREQUAL "DEB")  # cpack -G TGZ, ...: no Depends to fill
  return()
endif()
set(_kp_root "${CPACK_TEMPORARY_DIRECTORY}")
file(GLOB _kp_candidates "${_kp_root}${CPACK_PACKAGING_INSTALL_PREFIX}/lib/killpoint/*")
set(_kp_elves)
foreach(_kp_file IN LISTS _kp_candidates)
  file(READ "${_kp_file}" _kp_magic LIMIT 4 HEX)
  if(_kp_magic STREQUAL "7f454c46")
    file(RELATIVE_PATH _kp_rel "${_kp_root}" "${_kp_file}")
    list(APPEND _kp_elves "${_kp_rel}")
  endif()
endforeach()
if(NOT _kp_elves)
  message(FATAL_ERROR "DebDepends: no ELF file under ${_kp_root}${CPACK_PACKAGING_INSTALL_PREFIX}/lib/killpoint")
endif()
find_program(_kp_shlibdeps dpkg-shlibdeps REQUIRED)  # Debian's dpkg-dev
file(WRITE "${_kp_root}/debian/control" "")  # dpkg-shlibdeps reads it, empty
execute_process(COMMAND ${_kp_shlibdeps} -O ${_kp_elves}
                WORKING_DIRECTORY "${_kp_root}"
                OUTPUT_VARIABLE _kp_out ERROR_VARIABLE _kp_err RESULT_VARIABLE _kp_rc
                OUTPUT_STRIP_TRAILING_WHITESPACE)
file(REMOVE_RECURSE "${_kp_root}/debian")
if(NOT _kp_rc EQUAL 0 OR NOT _kp_out MATCHES "^shlibs:Depends=")
  message(FATAL_ERROR "DebDepends: dpkg-shlibdeps -O ${_kp_elves} failed: ${_kp_err}")
endif()
string(REGEX REPLACE "^shlibs:Depends=" "" _kp_depends "${_kp_out}")
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3, ${_kp_depends}")
