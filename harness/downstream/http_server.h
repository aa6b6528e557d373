// The downstream's HTTP/1.1 transport on Boost.Beast over Boost.Asio (issue 34): one thread runs
// the io_context and does every accept, read and write, asynchronously, so that idle keep-alive
// connections cost a socket each and no thread. A complete request goes to a HandlerPool thread
// (its handler may block: points, kDelay, holds); its reply comes back to the io thread to be
// written; its after_written runs on a pool thread again, and only then is the connection's
// next request read: pipelined requests are handled and answered in order.
//
// It knows nothing of what the requests mean: the downstream service (downstream.cc) is its
// handler. A request whose body is too long or chunked reaches the handler too, unread and
// marked `refused`, so that the service records the refusal.
#pragma once

#include <netinet/in.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "downstream/downstream.h"  // DownstreamLimits, kMaxDownstreamRequestBytes
#include "util/result.h"

namespace killpoint {

// One request as its handler sees it.
struct HttpRequest {
  std::string method;
  std::string path;                           // the target without its query
  std::map<std::string, std::string> params;  // the query's, decoded; the first of a name
  std::vector<std::pair<std::string, std::string>> headers;  // as sent, in order
  std::string body;
  sockaddr_in peer{};   // the client's address, taken when its connection was accepted
  sockaddr_in local{};  // ours
  int refused = 0;      // 411 or 413: refused on its headers, the body unread; else 0

  // The first header of that name, compared without case; "" when there is none.
  std::string Header(std::string_view name) const;
  // The query parameter of that name; "" when there is none.
  std::string Param(const char* name) const;
};

// What a handler answers.
struct HttpReply {
  int status = 200;
  std::string body;    // JSON when not empty
  bool answer = true;  // false: the connection is closed unanswered (a held or killed request)
  bool close = false;  // the connection ends after the answer (a body left unread)
  // Runs on a handler thread once the answer is on the socket (not when the write failed:
  // then it is only destroyed), before the connection's next request is read.
  std::function<void()> after_written = {};
};

class HttpServer {
 public:
  // Called on a handler thread, one request of a connection at a time; it may block.
  using Handler = std::function<HttpReply(const HttpRequest&)>;

  // Listens on 127.0.0.1 with an ephemeral port and serves until destroyed.
  static Result<std::unique_ptr<HttpServer>> Listen(DownstreamLimits limits, Handler handler);
  // Stops the io thread, lets the running handlers end (the caller must first let go of any it
  // holds), and destroys every connection with what it owns (replies not written yet, their
  // after_written) before it returns.
  virtual ~HttpServer() = default;

  virtual int port() const = 0;
};

}  // namespace killpoint
