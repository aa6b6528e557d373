# All dependencies come from Debian's packages (scripts/setup.sh installs them).
find_package(Threads REQUIRED)
find_package(Boost 1.74 REQUIRED COMPONENTS filesystem)   # Process (header-only, needs filesystem), Outcome
find_package(SQLiteCpp REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(fmt REQUIRED)

# cpp-httplib ships in Debian as a header plus a compiled library, without a CMake package.
find_path(HTTPLIB_INCLUDE_DIR httplib.h REQUIRED)
find_library(HTTPLIB_LIBRARY cpp-httplib REQUIRED)
add_library(httplib::httplib UNKNOWN IMPORTED)
set_target_properties(httplib::httplib PROPERTIES
  IMPORTED_LOCATION ${HTTPLIB_LIBRARY}
  INTERFACE_INCLUDE_DIRECTORIES ${HTTPLIB_INCLUDE_DIR}
  INTERFACE_LINK_LIBRARIES Threads::Threads)

if(BUILD_TESTING OR NOT DEFINED BUILD_TESTING)
  find_package(GTest REQUIRED)
  find_package(rapidcheck REQUIRED)
endif()
find_package(benchmark REQUIRED)
