#include "channel/peer_uid.h"

#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace killpoint {
namespace {

std::string Errno(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

}  // namespace

Result<uid_t> LoopbackPeerUid(const sockaddr_in& peer, const sockaddr_in& local) {
  int nl = ::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (nl < 0) return Error::Harness(Errno("peer uid: netlink socket"));
  struct {
    nlmsghdr header;
    inet_diag_req_v2 request;
  } query{};
  query.header.nlmsg_len = sizeof query;
  query.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  query.header.nlmsg_flags = NLM_F_REQUEST;
  query.request.sdiag_family = AF_INET;
  query.request.sdiag_protocol = IPPROTO_TCP;
  query.request.idiag_states = ~0U;
  // The peer's own socket: its source is the peer's address, its destination ours.
  query.request.id.idiag_sport = peer.sin_port;
  query.request.id.idiag_dport = local.sin_port;
  query.request.id.idiag_src[0] = peer.sin_addr.s_addr;
  query.request.id.idiag_dst[0] = local.sin_addr.s_addr;
  query.request.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
  query.request.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (::sendto(nl, &query, sizeof query, 0, reinterpret_cast<sockaddr*>(&kernel), sizeof kernel) <
      0) {
    std::string why = Errno("peer uid: netlink send");
    ::close(nl);
    return Error::Harness(why);
  }
  alignas(nlmsghdr) char buffer[8192];
  ssize_t n;
  do {
    n = ::recv(nl, buffer, sizeof buffer, 0);
  } while (n < 0 && errno == EINTR);
  ::close(nl);
  if (n < 0) return Error::Harness(Errno("peer uid: netlink receive"));
  for (auto* h = reinterpret_cast<nlmsghdr*>(buffer); NLMSG_OK(h, static_cast<unsigned>(n));
       h = NLMSG_NEXT(h, n)) {
    if (h->nlmsg_type == NLMSG_ERROR) {
      auto* e = static_cast<nlmsgerr*>(NLMSG_DATA(h));
      return Error::Harness(std::string("peer uid: the kernel knows no such connection (") +
                            std::strerror(-e->error) + ")");
    }
    if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY) {
      return static_cast<uid_t>(static_cast<inet_diag_msg*>(NLMSG_DATA(h))->idiag_uid);
    }
  }
  return Error::Harness("peer uid: no answer from the kernel");
}

Result<uid_t> PeerUidOf(int fd) {
  sockaddr_in peer{}, local{};
  socklen_t peer_len = sizeof peer, local_len = sizeof local;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_len) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_len) != 0)
    return Error::Harness(Errno("peer uid: socket addresses"));
  if (peer.sin_family != AF_INET || local.sin_family != AF_INET)
    return Error::Harness("peer uid: not an IPv4 connection");
  return LoopbackPeerUid(peer, local);
}

bool PeerUidsKnowable() {
  static const bool knowable = [] {
    int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int client = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    bool ok = listener >= 0 && client >= 0 &&
              ::bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
              ::listen(listener, 1) == 0 &&
              ::getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len) == 0 &&
              ::connect(client, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    int accepted = ok ? ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC) : -1;
    Result<uid_t> uid = accepted >= 0 ? PeerUidOf(accepted) : Error::Harness("no connection");
    for (int fd : {accepted, client, listener}) {
      if (fd >= 0) ::close(fd);
    }
    bool works = uid && uid.value() == ::geteuid();
    if (!works) {
      std::fprintf(stderr,
                   "killpoint: this kernel does not say who owns a loopback connection "
                   "(NETLINK_SOCK_DIAG: %s): the control channel and the downstream serve any "
                   "local user here\n",
                   uid ? "another owner" : uid.error().message.c_str());
    }
    return works;
  }();
  return knowable;
}

}  // namespace killpoint
