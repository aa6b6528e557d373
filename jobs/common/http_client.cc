#include "common/http_client.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

namespace killpoint::jobs::http {
namespace {

constexpr std::size_t kMaxAnswer = 16 << 20;

// Closes the socket however the request ends.
class Socket {
 public:
  explicit Socket(int fd) : fd_(fd) {}
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket() {
    if (fd_ >= 0) close(fd_);
  }
  int fd() const { return fd_; }

 private:
  int fd_;
};

std::string Errno(const char* step) { return std::string(step) + ": " + std::strerror(errno); }

// Waits until fd is ready for `events`; false on timeout (errno ETIMEDOUT) or error.
bool Ready(int fd, short events, std::chrono::milliseconds timeout) {
  pollfd p{fd, events, 0};
  int n;
  do {
    n = poll(&p, 1, static_cast<int>(timeout.count()));
  } while (n < 0 && errno == EINTR);
  if (n == 0) errno = ETIMEDOUT;
  return n > 0;
}

std::optional<int> ParsePort(const std::string& text) {
  if (text.empty() || text.size() > 5) return std::nullopt;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  }
  int port = std::stoi(text);
  if (port < 1 || port > 65535) return std::nullopt;
  return port;
}

// A connected non-blocking socket, or -1 with the reason in *error.
int Connect(const Endpoint& to, std::chrono::milliseconds timeout, std::string* error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  int rc = getaddrinfo(to.host.c_str(), std::to_string(to.port).c_str(), &hints, &found);
  if (rc != 0) {
    *error = "resolve " + to.host + ": " + gai_strerror(rc);
    return -1;
  }
  int connected = -1;
  for (addrinfo* a = found; a != nullptr && connected < 0; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      *error = Errno("socket");
      continue;
    }
    int soerr = 0;
    socklen_t len = sizeof soerr;
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0 ||
        (errno == EINPROGRESS && Ready(fd, POLLOUT, timeout) &&
         getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == 0 && (errno = soerr) == 0)) {
      connected = fd;
    } else {
      *error = errno == ETIMEDOUT
                   ? "connect: no connection within " + std::to_string(timeout.count()) + " ms"
                   : Errno("connect");
      close(fd);
    }
  }
  freeaddrinfo(found);
  return connected;
}

bool SendAll(int fd, const std::string& data, std::chrono::milliseconds timeout,
             std::string* error) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN && Ready(fd, POLLOUT, timeout)) {
      continue;
    } else {
      *error = errno == ETIMEDOUT ? "send: blocked for " + std::to_string(timeout.count()) + " ms"
                                  : Errno("send");
      return false;
    }
  }
  return true;
}

bool EqualsNoCase(const std::string& a, const char* b) {
  std::size_t n = std::strlen(b);
  if (a.size() != n) return false;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
  }
  return true;
}

std::string Trim(const std::string& s) {
  std::size_t b = s.find_first_not_of(" \t");
  std::size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// A chunked body decoded; nullopt while its last chunk has not come.
std::optional<std::string> Unchunk(const std::string& raw) {
  std::string body;
  std::size_t at = 0;
  for (;;) {
    std::size_t eol = raw.find("\r\n", at);
    if (eol == std::string::npos) return std::nullopt;
    std::size_t size = 0;
    try {
      size = std::stoul(raw.substr(at, eol - at), nullptr, 16);
    } catch (...) {
      return std::nullopt;
    }
    at = eol + 2;
    if (size == 0) return body;
    if (raw.size() < at + size + 2) return std::nullopt;
    body.append(raw, at, size);
    at += size + 2;
  }
}

}  // namespace

std::optional<Endpoint> ParseBaseUrl(const std::string& url) {
  const std::string scheme = "http://";
  if (url.rfind(scheme, 0) != 0) return std::nullopt;
  std::string rest = url.substr(scheme.size());
  if (!rest.empty() && rest.back() == '/') rest.pop_back();
  if (rest.empty() || rest.find_first_of("/?#@[]") != std::string::npos) return std::nullopt;
  Endpoint endpoint;
  std::size_t colon = rest.find(':');
  endpoint.host = rest.substr(0, colon);
  if (endpoint.host.empty()) return std::nullopt;
  if (colon == std::string::npos) return endpoint;
  std::optional<int> port = ParsePort(rest.substr(colon + 1));
  if (!port) return std::nullopt;
  endpoint.port = *port;
  return endpoint;
}

std::string EncodeQueryValue(const std::string& value) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::optional<Answer> ParseAnswer(const std::string& wire, bool closed) {
  std::size_t head_end = wire.find("\r\n\r\n");
  if (head_end == std::string::npos || wire.rfind("HTTP/1.", 0) != 0) return std::nullopt;
  std::size_t line_end = wire.find("\r\n");
  std::size_t space = wire.find(' ');
  if (space == std::string::npos || space + 4 > line_end) return std::nullopt;
  Answer answer;
  for (std::size_t i = space + 1; i < space + 4; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(wire[i]))) return std::nullopt;
    answer.status = answer.status * 10 + (wire[i] - '0');
  }
  std::optional<std::size_t> length;
  bool chunked = false;
  for (std::size_t at = line_end + 2; at < head_end;) {
    std::size_t eol = wire.find("\r\n", at);
    std::string line = wire.substr(at, eol - at);
    at = eol + 2;
    std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = Trim(line.substr(0, colon));
    std::string value = Trim(line.substr(colon + 1));
    if (EqualsNoCase(name, "content-length")) {
      if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos ||
          value.size() > 9) {
        return std::nullopt;
      }
      length = std::stoul(value);
    } else if (EqualsNoCase(name, "transfer-encoding")) {
      chunked = value.find("chunked") != std::string::npos;
    }
  }
  std::string rest = wire.substr(head_end + 4);
  if (chunked) {
    std::optional<std::string> body = Unchunk(rest);
    if (!body) return std::nullopt;
    answer.body = std::move(*body);
  } else if (length) {
    if (rest.size() < *length) return std::nullopt;
    answer.body = rest.substr(0, *length);
  } else if (closed) {
    answer.body = std::move(rest);
  } else {
    return std::nullopt;
  }
  return answer;
}

Outcome Request(const Endpoint& to, const std::string& method, const std::string& target,
                const Headers& headers, const std::string& body,
                std::chrono::milliseconds timeout) {
  Outcome out;
  Socket socket(Connect(to, timeout, &out.error));
  if (socket.fd() < 0) return out;
  std::string request = method + " " + target + " HTTP/1.1\r\nHost: " + to.host + ":" +
                        std::to_string(to.port) + "\r\nConnection: close\r\n";
  for (const auto& [name, value] : headers) request += name + ": " + value + "\r\n";
  if (!body.empty() || method == "POST") {
    request +=
        "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  }
  request += "\r\n" + body;
  if (!SendAll(socket.fd(), request, timeout, &out.error)) return out;
  std::string wire;
  char buffer[16384];
  for (;;) {
    ssize_t n = recv(socket.fd(), buffer, sizeof buffer, 0);
    if (n > 0) {
      wire.append(buffer, static_cast<std::size_t>(n));
      if (wire.size() > kMaxAnswer) {
        out.error = "answer larger than " + std::to_string(kMaxAnswer) + " bytes";
        return out;
      }
      if (ParseAnswer(wire, /*closed=*/false)) break;  // whole by its length or chunks
    } else if (n == 0) {
      break;
    } else if (errno == EINTR || (errno == EAGAIN && Ready(socket.fd(), POLLIN, timeout))) {
      continue;
    } else {
      out.error = errno == ETIMEDOUT ? "no answer within " + std::to_string(timeout.count()) + " ms"
                                     : Errno("recv");
      return out;
    }
  }
  out.answer = ParseAnswer(wire, /*closed=*/true);
  if (!out.answer) {
    out.error = wire.empty()
                    ? "connection closed without an answer"
                    : "an answer cut short or not HTTP (" + std::to_string(wire.size()) + " bytes)";
  }
  return out;
}

}  // namespace killpoint::jobs::http
