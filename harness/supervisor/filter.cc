// The seccomp filter: which system calls the supervisor is handed (SECCOMP_RET_USER_NOTIF);
// every other call runs untouched, at the cost of the filter alone.
#include "supervisor/filter.h"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <cstddef>
#include <cstdint>

namespace killpoint::supervisor {
namespace {

// Handed over whatever their arguments: they name a file by descriptor, or change a name.
constexpr int kAlways[] = {
    SYS_write,     SYS_pwrite64,  SYS_writev,   SYS_pwritev,         SYS_pwritev2,       SYS_fsync,
    SYS_fdatasync, SYS_sync,      SYS_syncfs,   SYS_truncate,        SYS_ftruncate,      SYS_rename,
    SYS_renameat,  SYS_renameat2, SYS_unlink,   SYS_unlinkat,        SYS_rmdir,          SYS_mkdir,
    SYS_mkdirat,   SYS_link,      SYS_linkat,   SYS_symlink,         SYS_symlinkat,      SYS_close,
    SYS_creat,     SYS_openat2,   SYS_sendfile, SYS_copy_file_range, SYS_io_uring_setup,
};

// Handed over only when an argument has one of the bits: opens that may write (a read-only open
// is most of what a program's start does), msync(MS_SYNC).
struct Conditional {
  int nr;
  int arg;
  uint32_t mask;
};
constexpr uint32_t kWriteOpen = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC;
constexpr Conditional kConditional[] = {
    {SYS_open, 1, kWriteOpen},
    {SYS_openat, 2, kWriteOpen},
    {SYS_msync, 2, MS_SYNC},
};

constexpr uint32_t kArgLow(int i) {
  return static_cast<uint32_t>(offsetof(seccomp_data, args) + 8 * i);  // little-endian: low half
}

}  // namespace

std::vector<sock_filter> BuildFilter() {
  std::vector<sock_filter> f;
  // Another ABI (i386's int 0x80, x32) would pass the numbers below unseen: refused.
  f.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
  f.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0));
  f.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS_VALUE));
  f.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
  f.push_back(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1));  // __X32_SYSCALL_BIT
  f.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS_VALUE));

  // Jumps are filled in once the two returns' places are known.
  std::vector<size_t> to_notify;      // jt of these goes to NOTIFY
  std::vector<size_t> set_to_either;  // jt to NOTIFY, jf to ALLOW
  for (int nr : kAlways) {
    to_notify.push_back(f.size());
    f.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(nr), 0, 0));
  }
  for (const Conditional& c : kConditional) {
    f.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(c.nr), 0, 2));
    f.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kArgLow(c.arg)));
    set_to_either.push_back(f.size());
    f.push_back(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, c.mask, 0, 0));
  }
  size_t allow = f.size();
  f.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  size_t notify = f.size();
  f.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF));
  for (size_t at : to_notify) f[at].jt = static_cast<uint8_t>(notify - at - 1);
  for (size_t at : set_to_either) {
    f[at].jt = static_cast<uint8_t>(notify - at - 1);
    f[at].jf = static_cast<uint8_t>(allow - at - 1);
  }
  return f;
}

}  // namespace killpoint::supervisor
