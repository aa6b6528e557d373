#include "service/server_launch.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <thread>

namespace killpoint {
namespace {

namespace fs = std::filesystem;
constexpr std::chrono::seconds kCopyPatience{120};
// Generous: a loaded 2-core machine may take seconds to start a server.
constexpr std::chrono::seconds kStartPatience{60};
constexpr int kStartTries = 3;
constexpr std::chrono::milliseconds kStartPoll{20};

// Waits until the server answers, or has exited, or kStartPatience passed.
bool WaitAccepting(ServerProcess& server, const std::function<bool()>& accepting) {
  auto deadline = std::chrono::steady_clock::now() + kStartPatience;
  while (std::chrono::steady_clock::now() < deadline) {
    if (accepting()) return true;
    if (!server.Running()) return false;
    std::this_thread::sleep_for(kStartPoll);
  }
  return accepting();
}

std::string NewPassword() {
  constexpr std::string_view kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::string out;
  while (out.size() < 32) {
    unsigned char bytes[64];
    ssize_t n = ::getrandom(bytes, sizeof bytes, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) std::abort();  // no randomness from the kernel: no safe password either
    // 62 letters and digits: bytes of 248 and above would favour the first eight; dropped.
    for (ssize_t i = 0; i < n && out.size() < 32; ++i) {
      if (bytes[i] < 248) out += kAlphabet[bytes[i] % kAlphabet.size()];
    }
  }
  return out;
}

}  // namespace

const std::string& ServerPassword() {
  static const std::string password = NewPassword();
  return password;
}

Status WriteServerFile(const fs::path& path, const std::string& text, fs::perms mode) {
  // Inside a server's folder (MakeServerFolder: 0700), so no other user sees it meanwhile.
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Error::Harness("cannot write " + path.string());
  std::error_code ec;
  fs::permissions(path, mode, ec);
  if (ec) return Error::Harness("chmod " + path.string() + ": " + ec.message());
  return GiveToServerUser(path);
}

Result<fs::path> MakeServerFolder(const fs::path& root, const std::string& name) {
  std::error_code ec;
  fs::create_directories(root, ec);
  std::string templ = (root / ("service-" + name + "-XXXXXX")).string();
  if (!::mkdtemp(templ.data())) {
    return Error::Harness("cannot create a folder for service " + name + " in " + root.string() +
                          ": " + std::strerror(errno));
  }
  if (Status s = GiveToServerUser(templ); !s) return s.error();
  return fs::path(templ);
}

std::map<std::string, std::string> ServerEnvironment(const ServerMarks& marks) {
  std::map<std::string, std::string> env = marks.env;
  env["PATH"] = "/usr/sbin:/usr/bin:/sbin:/bin";
  env["LC_ALL"] = "C";
  return env;
}

Result<fs::path> ServerTemplate(const std::string& kind, const fs::path& root,
                                const std::function<Status(const fs::path& data)>& fill) {
  static std::mutex mu;
  static std::map<std::pair<std::string, fs::path>, fs::path> templates;  // its data folder
  std::lock_guard<std::mutex> lock(mu);
  auto known = templates.find({kind, root});
  if (known != templates.end() && fs::exists(known->second)) return known->second;
  auto dir = MakeServerFolder(root, kind + "-template");
  if (!dir) return dir.error();
  fs::path data = dir.value() / "data";
  if (Status s = fill(data); !s) return s.error();
  templates[{kind, root}] = data;
  return data;
}

Status CopyServerTemplate(const fs::path& data, const fs::path& dir, const ServerMarks& marks) {
  ServerCommand copy{{"/bin/cp", "-a", data.string(), (dir / "data").string()},
                     ServerEnvironment(marks),
                     dir / "copy.log",
                     marks.cgroup_procs_fd};
  if (Status s = RunServerTool(copy, kCopyPatience); !s) {
    return Error::Harness("copying the template: " + s.error().message);
  }
  return Ok();
}

Result<std::unique_ptr<ServerProcess>> StartOnPickedPort(
    const std::string& kind, const std::function<ServerCommand(int port)>& command_for,
    const std::function<bool(int port)>& accepting, int& port) {
  std::string last;
  for (int attempt = 0; attempt < kStartTries; ++attempt) {
    auto picked = PickLoopbackPort();
    if (!picked) return picked.error();
    port = picked.value();
    auto server = StartServer(command_for(port));
    if (!server) return server.error();
    if (WaitAccepting(*server.value(), [&] { return accepting(port); })) {
      return std::move(server.value());
    }
    last = server.value()->LogTail();
    server.value()->Stop(SIGKILL, std::chrono::milliseconds(0));
  }
  return Error::Harness(kind + " did not start (" + std::to_string(kStartTries) + " tries, " +
                        std::to_string(kStartPatience.count()) + " s each): " + last);
}

Result<std::unique_ptr<ServerProcess>> StartOnPort(const std::string& kind,
                                                   const ServerCommand& command,
                                                   const std::function<bool()>& accepting) {
  auto server = StartServer(command);
  if (!server) return server.error();
  if (WaitAccepting(*server.value(), accepting)) return std::move(server.value());
  std::string last = server.value()->LogTail();
  server.value()->Stop(SIGKILL, std::chrono::milliseconds(0));
  return Error::Harness(kind + " did not start again after its kill: " + last);
}

}  // namespace killpoint
