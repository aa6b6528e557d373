// The reference jobs' HTTP client for their calls to the downstream (docs/reference-jobs.md):
// one request per connection (`Connection: close`), blocking, every step bounded by a timeout.
// Plain POSIX sockets rather than cpp-httplib: a job starts thousands of times in a run, and
// loading libcpp-httplib, which brings OpenSSL, zlib and brotli with it, cost about 12 ms of
// each start's 27 on our machine (docs/decisions.md, "The reference jobs speak HTTP over plain
// sockets"). No TLS, no redirects, no keep-alive: the downstream is on loopback.
#ifndef KILLPOINT_JOBS_COMMON_HTTP_CLIENT_H_
#define KILLPOINT_JOBS_COMMON_HTTP_CLIENT_H_

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace killpoint::jobs::http {

struct Endpoint {
  std::string host;
  int port = 80;

  std::string Url() const { return "http://" + host + ":" + std::to_string(port); }
};

// Accepts http://HOST[:PORT] with an optional trailing '/'; nullopt for anything else.
std::optional<Endpoint> ParseBaseUrl(const std::string& url);

using Headers = std::vector<std::pair<std::string, std::string>>;

struct Answer {
  int status = 0;
  std::string body;
};

// An answer, or why there is none ("connect: Connection refused", "no answer within 300 ms").
struct Outcome {
  std::optional<Answer> answer;
  std::string error;

  explicit operator bool() const { return answer.has_value(); }
  const Answer* operator->() const { return &*answer; }
};

// METHOD target HTTP/1.1 to `to`; `target` is the path with its query, already encoded. A body,
// when not empty, goes as application/json. `timeout` bounds the connect, each send and each
// wait for the answer's next bytes.
Outcome Request(const Endpoint& to, const std::string& method, const std::string& target,
                const Headers& headers, const std::string& body, std::chrono::milliseconds timeout);

inline Outcome Post(const Endpoint& to, const std::string& path, const Headers& headers,
                    const std::string& json, std::chrono::milliseconds timeout) {
  return Request(to, "POST", path, headers, json, timeout);
}

// A query value percent-encoded as RFC 3986 leaves unreserved characters.
std::string EncodeQueryValue(const std::string& value);

// The answer in what came off the wire: nullopt when it is not HTTP/1.x with a status, or its
// body is not whole yet: shorter than its Content-Length or its chunks say, or, with neither,
// the server has not `closed` the connection.
std::optional<Answer> ParseAnswer(const std::string& wire, bool closed);

}  // namespace killpoint::jobs::http

#endif  // KILLPOINT_JOBS_COMMON_HTTP_CLIENT_H_
