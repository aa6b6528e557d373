#include "results/output_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "results/layout.h"
#include "util/atomic_file.h"

namespace killpoint {

Result<OutputLock> OutputLock::Take(const std::filesystem::path& out, const std::string& command) {
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec)
    return Error::BadInput("cannot create output folder " + out.string() + ": " + ec.message());
  std::filesystem::path file = LockFile(out);
  // O_NOFOLLOW: a symlink planted at the lock's name is refused, never followed.
  int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    return Error::BadInput("cannot lock output folder " + out.string() + ": " + file.string() +
                           ": " + std::strerror(errno));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    ::close(fd);
    if (err != EWOULDBLOCK) {
      return Error::BadInput("cannot lock output folder " + out.string() + ": " +
                             std::strerror(err));
    }
    auto holder = ReadFile(file);
    std::string who = holder && !holder.value().empty() ? holder.value() : "another process\n";
    while (!who.empty() && who.back() == '\n') who.pop_back();
    return Error::BadInput(out.string() + " is being written by " + who +
                           ": wait for it to end, or give this command another --out");
  }
  char when[32] = "";
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  if (::gmtime_r(&now, &utc)) std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &utc);
  std::string holder =
      command + " (pid " + std::to_string(::getpid()) + ", started " + when + ")\n";
  // The note is for the user; without it a second command is refused all the same.
  if (::ftruncate(fd, 0) == 0) (void)!::pwrite(fd, holder.data(), holder.size(), 0);
  return OutputLock(fd);
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

}  // namespace killpoint
