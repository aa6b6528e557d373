# All dependencies come from Debian's packages (scripts/setup.sh installs them).
find_package(Threads REQUIRED)
find_package(Boost 1.74 REQUIRED COMPONENTS filesystem)   # Process (header-only, needs filesystem), Outcome
find_package(SQLiteCpp REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(fmt REQUIRED)

# cpp-httplib ships in Debian as a header plus a compiled library. The library is built with
# OpenSSL, zlib and Brotli support, and those switches change its classes' layout: every user
# must compile with the same defines, which only its pkg-config file carries. Without them the
# client and server corrupt memory (seen as "free(): invalid pointer" in the publish job).
find_package(PkgConfig REQUIRED)
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)
pkg_check_modules(LIBPQ REQUIRED IMPORTED_TARGET libpq)  # the postgres service (docs/services.md)
pkg_check_modules(MARIADB REQUIRED IMPORTED_TARGET libmariadb)  # the mariadb service
pkg_check_modules(LIBRABBITMQ REQUIRED IMPORTED_TARGET librabbitmq)  # the rabbitmq service
pkg_check_modules(HIREDIS REQUIRED IMPORTED_TARGET hiredis)  # the redis service (docs/services.md)
add_library(httplib::httplib INTERFACE IMPORTED)
target_link_libraries(httplib::httplib INTERFACE PkgConfig::HTTPLIB Threads::Threads)

if(BUILD_TESTING OR NOT DEFINED BUILD_TESTING)
  find_package(GTest REQUIRED)
  find_package(rapidcheck REQUIRED)
endif()
find_package(benchmark REQUIRED)
