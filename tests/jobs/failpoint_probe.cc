// kp-failpoint-probe: a tiny job for the failpoint client tests. It prints "enabled=0|1", then
// runs its arguments as steps, printing "after STEP" when a step returns:
//   NAME             killpoint::failpoint(NAME)
//   @fork            fork(); the child runs the remaining steps and the parent waits for it
//                    and exits with its status
//   @threads:N:NAME  N threads call killpoint::failpoint(NAME) at once
#include <killpoint/failpoint.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

void Say(const std::string& text) {
  std::printf("%s\n", text.c_str());
  std::fflush(stdout);
}

void RunThreads(const std::string& step) {
  std::size_t colon = step.find(':', 9);
  int count = std::atoi(step.substr(9, colon - 9).c_str());
  std::string name = step.substr(colon + 1);
  std::vector<std::thread> threads;
  for (int i = 0; i < count; ++i) {
    threads.emplace_back([&name] { killpoint::failpoint(name.c_str()); });
  }
  for (std::thread& t : threads) t.join();
}

// In the parent: waits for the child and returns the exit status to pass on.
int WaitForChild(pid_t child) {
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return 99;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

int main(int argc, char** argv) {
  Say(std::string("enabled=") + (killpoint::failpoint_enabled() ? "1" : "0"));
  for (int i = 1; i < argc; ++i) {
    std::string step = argv[i];
    if (step == "@fork") {
      pid_t child = ::fork();
      if (child < 0) return 99;
      if (child > 0) return WaitForChild(child);
      Say("child " + std::to_string(::getpid()));
    } else if (step.rfind("@threads:", 0) == 0) {
      RunThreads(step);
    } else {
      killpoint::failpoint(step.c_str());
    }
    Say("after " + step);
  }
  return 0;
}
