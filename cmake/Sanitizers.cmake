# KILLPOINT_SANITIZE=address,undefined or thread: instruments every C++ target (the harness,
# the tests, the reference jobs). The syscall shim (C) never is: it is preloaded into jobs that
# are not instrumented (Python, sh, sqlite3), which have no sanitizer runtime to resolve its
# calls against. The runtimes are linked statically: a job built with a dynamic libasan would
# abort under LD_PRELOAD ("ASan runtime does not come first in initial library list"),
# because the preloaded shim is loaded before the runtime. docs/hardening.md says more.
set(KILLPOINT_SANITIZE "" CACHE STRING "Sanitizers for the C++ code, e.g. address,undefined or thread")

if(KILLPOINT_SANITIZE)
  set(_kp_san_compile -fsanitize=${KILLPOINT_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  set(_kp_san_link -fsanitize=${KILLPOINT_SANITIZE})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    if(KILLPOINT_SANITIZE MATCHES "address")
      list(APPEND _kp_san_link -static-libasan)
    endif()
    if(KILLPOINT_SANITIZE MATCHES "thread")
      list(APPEND _kp_san_link -static-libtsan)
    endif()
    if(KILLPOINT_SANITIZE MATCHES "undefined")
      list(APPEND _kp_san_link -static-libubsan)
    endif()
  endif()
  # GCC's flow analysis changes under the sanitizers' instrumentation and -O1, and its
  # -Wmaybe-uninitialized then fires inside libstdc++'s <regex> (std::function in a regex
  # state, parallel_e2e_test.cc): a false positive the plain build, where it stays an error,
  # does not have. Still printed here, no longer fatal (docs/hardening.md).
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    list(APPEND _kp_san_compile -Wno-error=maybe-uninitialized)
  endif()
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${_kp_san_compile}>")
  add_link_options("$<$<LINK_LANGUAGE:CXX>:${_kp_san_link}>")
  message(STATUS "killpoint: C++ code built with -fsanitize=${KILLPOINT_SANITIZE}")
endif()
