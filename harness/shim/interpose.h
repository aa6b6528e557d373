/* Shared by the wrappers (interpose_fd.c, interpose_path.c).
 *
 * The next definition (normally libc's) of an interposed function, looked up with
 * dlsym(RTLD_NEXT) at its first use and cached: safe before the constructor has run, and
 * from any thread (two threads may both look it up; they find the same pointer).
 *
 * KP_REAL(write, ssize_t, (int, const void *, size_t)) defines kp_next_write(), which
 * returns the function, and exits 70 with a message if there is none. */
#ifndef KILLPOINT_SHIM_INTERPOSE_H_
#define KILLPOINT_SHIM_INTERPOSE_H_

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>

#include "channel.h"
#include "shim.h"

#define KP_REAL(name, ret, params)                                   \
  typedef ret(*kp_fn_##name) params;                                 \
  static kp_fn_##name kp_next_##name(void) {                         \
    static kp_fn_##name cached;                                      \
    kp_fn_##name fn = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);    \
    if (fn == NULL) {                                                \
      fn = (kp_fn_##name)dlsym(RTLD_NEXT, #name);                    \
      if (fn == NULL) kp_fatal("no next definition of %s()", #name); \
      __atomic_store_n(&cached, fn, __ATOMIC_RELEASE);               \
    }                                                                \
    return fn;                                                       \
  }

/* The body of a wrapper around one operation that is a crash point or not: `setup` arms
 * kp_p_ (a kp_point) when it is one; `call` is the real operation; `then` runs once the point
 * is done and the channel free, with the result in kp_r_ (KP_AROUND: nothing). The guard is
 * held throughout, and errno is left exactly as the real operation left it. */
#define KP_AROUND_THEN(ret_type, setup, call, then) \
  do {                                              \
    int kp_err_ = errno;                            \
    kp_guard_enter();                               \
    kp_point kp_p_;                                 \
    kp_point_init(&kp_p_);                          \
    setup;                                          \
    kp_point_hit(&kp_p_);                           \
    errno = kp_err_;                                \
    ret_type kp_r_ = call;                          \
    kp_err_ = errno;                                \
    kp_point_done(&kp_p_, 0);                       \
    then;                                           \
    kp_guard_leave();                               \
    errno = kp_err_;                                \
    return kp_r_;                                   \
  } while (0)
#define KP_AROUND(ret_type, setup, call) KP_AROUND_THEN(ret_type, setup, call, (void)0)

#endif /* KILLPOINT_SHIM_INTERPOSE_H_ */
