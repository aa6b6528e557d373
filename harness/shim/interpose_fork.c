/* Wrappers of the ways to make a child that skips fork()'s handlers: vfork, clone and _Fork.
 * Such a child starts with the parent's shim state and, for vfork and clone with CLONE_VM, in
 * the parent's very memory; the shim must touch nothing there (docs/syscall-shim.md,
 * "Processes"). Each wrapper only raises kp_foreign_children before the real call: from then on,
 * kp_own_process() asks the kernel for the pid at every point. A process that never made such a
 * child (most jobs) pays no getpid() per point; one that did (Python's subprocess vforks) pays
 * it from its first child on, in the parent too, since the flag lives in the memory both
 * share. A child made by syscall(SYS_clone, ...) or syscall(SYS_vfork) directly goes past
 * these wrappers and is not told apart from its parent. */
#include <sched.h>
#include <stdarg.h>
#include <unistd.h>

#include "interpose.h"
#include "shim.h"

int kp_foreign_children;

KP_REAL(clone, int, (int (*)(void *), void *, int, void *, ...))
KP_REAL(_Fork, pid_t, (void))

KP_EXPORT int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...) {
  __atomic_store_n(&kp_foreign_children, 1, __ATOMIC_RELAXED);
  va_list ap;
  va_start(ap, arg);
  pid_t *parent_tid = va_arg(ap, pid_t *); /* read by the real clone only when flags ask */
  void *tls = va_arg(ap, void *);
  pid_t *child_tid = va_arg(ap, pid_t *);
  va_end(ap);
  return kp_next_clone()(fn, stack, flags, arg, parent_tid, tls, child_tid);
}

KP_EXPORT pid_t _Fork(void) {
  __atomic_store_n(&kp_foreign_children, 1, __ATOMIC_RELAXED);
  return kp_next__Fork()();
}

/* vfork cannot be wrapped by a C function: the child returns first, through the wrapper's
 * frame, on the stack the parent resumes on afterwards. On x86-64 the wrapper is a two-
 * instruction stub that raises the flag and jumps to the real vfork, leaving the caller's
 * return address where the real one expects it; kp_vfork_next is looked up at load
 * (kp_fork_init), and a vfork called before that (from another library's constructor) is
 * served by fork(), which POSIX allows. Elsewhere vfork is not wrapped and every point asks
 * for the pid (kp_foreign_children starts raised). */
#if defined(__x86_64__)
void *kp_vfork_next;
pid_t kp_vfork_as_fork(void) { return fork(); }

__asm__(
    ".text\n"
    ".globl vfork\n"
    ".type vfork, @function\n"
    "vfork:\n"
    "  endbr64\n"
    "  movl $1, kp_foreign_children(%rip)\n"
    "  movq kp_vfork_next(%rip), %rax\n"
    "  testq %rax, %rax\n"
    "  jz kp_vfork_as_fork\n"
    "  jmp *%rax\n"
    ".size vfork, .-vfork\n");

void kp_fork_init(void) { kp_vfork_next = dlsym(RTLD_NEXT, "vfork"); }
#else
void kp_fork_init(void) { kp_foreign_children = 1; }
#endif
