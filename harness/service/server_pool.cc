#include "service/server_pool.h"

#include "service/service_kinds.h"

namespace killpoint {

Result<HostedServer> HostedServer::Start(const std::string& name, const std::string& kind,
                                         const std::filesystem::path& root,
                                         const ServerMarks& marks, bool fast) {
  HostedServer out{std::make_unique<ServerThread>(), nullptr};
  Result<std::unique_ptr<RunningService>> started = Error::Harness("not started");
  out.thread->Run([&] { started = StartService(name, kind, root, marks, fast); });
  if (!started) return started.error();
  out.service = std::move(started.value());
  return out;
}

ServerPool::~ServerPool() {
  for (auto& [key, servers] : idle_) {
    for (HostedServer& s : servers) s.service.reset();  // before its thread ends
  }
}

Result<HostedServer> ServerPool::Borrow(const std::string& name, const std::string& kind,
                                        const std::filesystem::path& root, const ServerMarks& marks,
                                        bool fast) {
  {
    std::lock_guard lock(mu_);
    auto it = idle_.find(Key{kind, root, fast});
    if (it != idle_.end() && !it->second.empty()) {
      HostedServer s = std::move(it->second.back());
      it->second.pop_back();
      return s;
    }
  }
  auto started = HostedServer::Start(name, kind, root, marks, fast);
  if (started) {
    std::lock_guard lock(mu_);
    ++started_;
  }
  return started;
}

void ServerPool::Return(const std::string& kind, const std::filesystem::path& root, bool fast,
                        HostedServer server) {
  std::lock_guard lock(mu_);
  idle_[Key{kind, root, fast}].push_back(std::move(server));
}

int ServerPool::started() const {
  std::lock_guard lock(mu_);
  return started_;
}

}  // namespace killpoint
