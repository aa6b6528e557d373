#include "fake_controller.h"

#include <signal.h>
#include <unistd.h>

#include <sstream>

namespace killpoint::testing {

FakeController::FakeController(std::string kill_at)
    : kill_at_(std::move(kill_at)), accept_thread_([this] { AcceptLoop(); }) {}

FakeController::~FakeController() {
  listener_.Wake();
  accept_thread_.join();
}

std::vector<std::string> FakeController::hits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hits_;
}

void FakeController::AcceptLoop() {
  // Waits for jobs until the destructor's Wake().
  while (std::optional<Connection> connection = listener_.Accept(std::chrono::milliseconds(-1))) {
    connections_.emplace_back(
        [this, c = std::move(*connection)]() mutable { Serve(std::move(c)); });
  }
  for (std::thread& t : connections_) t.join();
}

void FakeController::Serve(Connection connection) {
  // Ends at EOF (the job exited or was killed), or after a minute of silence.
  while (std::optional<std::string> line = connection.ReadLine(std::chrono::minutes(1))) {
    std::string answer = Answer(*line);
    if (!answer.empty()) connection.Send(answer);
  }
}

std::string FakeController::Answer(const std::string& line) {
  std::istringstream in(line);
  std::string verb, name;
  pid_t pid = 0;
  if (!(in >> verb >> name >> pid) || verb != "HIT" || pid <= 0) return "ERROR bad request\n";
  {
    std::lock_guard<std::mutex> lock(mu_);
    hits_.push_back(name);
  }
  if (name != kill_at_) return "CONTINUE\n";
  pid_t group = ::getpgid(pid);
  if (group > 0 && group != ::getpgrp()) ::kill(-group, SIGKILL);
  return "";
}

}  // namespace killpoint::testing
