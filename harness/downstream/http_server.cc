#include "downstream/http_server.h"

#include <strings.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <cctype>
#include <optional>
#include <thread>

#include "downstream/handler_pool.h"

namespace killpoint {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

// The most request line and headers a request may have (Beast's default).
constexpr uint32_t kMaxDownstreamHeaderBytes = 8192;
// Handler threads at most; a request beyond them waits for one (each connection has at most one
// request in a handler, so only as many connections as this sending at once would wait).
constexpr size_t kMaxHandlerThreads = 256;

// "%41+b" -> "A b": a query parameter as the client meant it.
std::string UrlDecode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%' && i + 2 < text.size() &&
               std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
               std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// Method, path and query from a request's start line.
void ReadTarget(const http::request<http::string_body>& message, HttpRequest& req) {
  req.method = std::string(message.method_string());
  std::string_view target(message.target().data(), message.target().size());
  size_t query = target.find('?');
  req.path = std::string(target.substr(0, query));
  if (query == std::string_view::npos) return;
  std::string_view rest = target.substr(query + 1);
  while (!rest.empty()) {
    std::string_view pair = rest.substr(0, rest.find('&'));
    rest.remove_prefix(std::min(rest.size(), pair.size() + 1));
    size_t eq = pair.find('=');
    std::string name = UrlDecode(pair.substr(0, eq));
    std::string value = eq == std::string_view::npos ? "" : UrlDecode(pair.substr(eq + 1));
    req.params.emplace(std::move(name), std::move(value));  // keeps the first
  }
}

class BeastServer : public HttpServer {
 public:
  BeastServer(DownstreamLimits limits, Handler handler)
      : limits_(limits),
        handler_(std::move(handler)),
        ioc_(std::make_unique<net::io_context>()),
        pool_(kMaxHandlerThreads) {
    acceptor_.emplace(*ioc_);
    retry_.emplace(*ioc_);
  }

  ~BeastServer() override {
    ioc_->stop();
    if (io_thread_.joinable()) io_thread_.join();
    pool_.Shutdown();  // the tasks left, and the sessions they own, go first
    // Then the handlers ioc_ never ran, and the sessions they own.
    acceptor_.reset();
    retry_.reset();
    ioc_.reset();
  }

  Status Listen() {
    beast::error_code ec;
    tcp::endpoint at(net::ip::make_address_v4("127.0.0.1"), 0);
    acceptor_->open(at.protocol(), ec);
    if (!ec) acceptor_->bind(at, ec);
    if (!ec) acceptor_->listen(net::socket_base::max_listen_connections, ec);
    if (ec) return Error::Harness("downstream: cannot listen on 127.0.0.1: " + ec.message());
    port_ = acceptor_->local_endpoint().port();
    Accept();
    io_thread_ = std::thread([this] { ioc_->run(); });
    return Ok();
  }

  int port() const override { return port_; }

 private:
  class Session;
  void Accept();

  const DownstreamLimits limits_;
  const Handler handler_;
  std::atomic<size_t> open_{0};  // connections open now
  int port_ = -1;
  // The destructor resets these three, ioc_ last, before any other member goes.
  std::unique_ptr<net::io_context> ioc_;
  std::optional<tcp::acceptor> acceptor_;   // io thread only (and Listen, before it starts)
  std::optional<net::steady_timer> retry_;  // io thread only: the pause after a failed accept
  std::thread io_thread_;                   // runs ioc_ until the destructor stops it
  // Declared last, shut down first (the destructor does, after the io thread has stopped).
  HandlerPool pool_;
};

// One connection. Its socket, buffer and parser are touched by one thread at a time: the io
// thread while it reads or writes, never while its request is with a handler (the request is a
// copy, and the io thread starts nothing on the connection until the handler's reply comes
// back). Owned by whatever operation or task is pending for it; closed when the last goes.
class BeastServer::Session : public std::enable_shared_from_this<Session> {
 public:
  Session(BeastServer* d, tcp::socket socket) : d_(d), stream_(std::move(socket)) {
    ++d_->open_;
    socklen_t length = sizeof peer_;
    if (::getpeername(stream_.socket().native_handle(), reinterpret_cast<sockaddr*>(&peer_),
                      &length) != 0)
      peer_ = {};
    length = sizeof local_;
    if (::getsockname(stream_.socket().native_handle(), reinterpret_cast<sockaddr*>(&local_),
                      &length) != 0)
      local_ = {};
  }
  ~Session() { --d_->open_; }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Reads the next request's start line and headers, within the header timeout.
  void ReadHeader() {
    parser_.emplace();
    parser_->header_limit(kMaxDownstreamHeaderBytes);
    parser_->body_limit(kMaxDownstreamRequestBytes);
    stream_.expires_after(d_->limits_.header_timeout);
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->OnHeader(ec); });
  }

 private:
  void OnHeader(beast::error_code ec) {
    if (ec == http::error::bad_content_length || ec == http::error::body_limit) return Hand(413);
    if (ec) return Malformed(ec);
    if (parser_->chunked() || parser_->get().count(http::field::transfer_encoding) != 0)
      return Hand(411);
    if (parser_->is_done()) return Hand(0);
    stream_.expires_after(d_->limits_.body_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, size_t) {
                       if (ec == http::error::body_limit) return self->Hand(413);
                       if (ec) return self->Malformed(ec);
                       self->Hand(0);
                     });
  }

  // A request that did not read whole: a client gone, too slow (the timeouts) or that never
  // sent one is closed, nothing recorded; one that is not HTTP is answered 400 and closed.
  void Malformed(beast::error_code ec) {
    bool not_http = ec.category() == http::make_error_code(http::error::bad_target).category();
    bool gone = !not_http || ec == http::error::end_of_stream || ec == http::error::partial_message;
    if (gone) return Close();
    HttpReply reply;
    reply.status = 400;
    reply.body = R"({"error":"not an HTTP/1.1 request"})";
    reply.close = true;
    Write(std::move(reply));
  }

  // Hands the request to a handler thread; `refused` (411, 413) when its body is left unread.
  void Hand(int refused) {
    stream_.expires_never();
    auto req = std::make_shared<HttpRequest>();
    const http::request<http::string_body>& message = parser_->get();
    ReadTarget(message, *req);
    for (const auto& field : message.base())
      req->headers.emplace_back(field.name_string(), field.value());
    req->refused = refused;
    keep_alive_ = refused == 0 && message.keep_alive();
    if (refused == 0) req->body = parser_->release().body();
    req->peer = peer_;
    req->local = local_;
    d_->pool_.Enqueue([self = shared_from_this(), req] {
      auto reply = std::make_shared<HttpReply>(self->d_->handler_(*req));
      net::post(*self->d_->ioc_, [self, reply] { self->Write(std::move(*reply)); });
    });
  }

  void Write(HttpReply reply) {
    if (!reply.answer) return Close();
    after_written_ = std::move(reply.after_written);
    keep_alive_ = keep_alive_ && !reply.close;
    response_ = {};
    response_.version(11);
    response_.result(static_cast<unsigned>(reply.status));
    if (!reply.body.empty()) response_.set(http::field::content_type, "application/json");
    response_.body() = std::move(reply.body);
    response_.keep_alive(keep_alive_);
    response_.prepare_payload();
    stream_.expires_after(kDownstreamWriteTimeout);
    http::async_write(
        stream_, response_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->OnWritten(ec); });
  }

  // The answer is on the socket: after_written runs (on a handler thread: it may block), and
  // only then is the next request read.
  void OnWritten(beast::error_code ec) {
    stream_.expires_never();
    if (ec) {
      after_written_ = nullptr;  // not when the write failed: nobody is left to be answered
      return Close();
    }
    if (!after_written_) return Next();
    d_->pool_.Enqueue([self = shared_from_this()] {
      self->after_written_();
      self->after_written_ = nullptr;
      net::post(*self->d_->ioc_, [self] { self->Next(); });
    });
  }

  void Next() {
    if (!keep_alive_) return Close();
    ReadHeader();
  }

  void Close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  BeastServer* d_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;  // what came after one request (pipelined) waits here
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> response_;
  std::function<void()> after_written_;
  sockaddr_in peer_{};
  sockaddr_in local_{};
  bool keep_alive_ = false;
};

// Accepts for ever (until the destructor stops ioc_); a connection beyond max_connections is
// closed at once. A failed accept (no file descriptor left) is tried again 50 ms later.
void BeastServer::Accept() {
  acceptor_->async_accept([this](beast::error_code ec, tcp::socket socket) {
    if (ec == net::error::operation_aborted) return;
    if (ec) {
      retry_->expires_after(std::chrono::milliseconds(50));
      retry_->async_wait([this](beast::error_code wait) {
        if (!wait) Accept();
      });
      return;
    }
    if (open_.load() >= limits_.max_connections) {
      beast::error_code ignored;
      socket.close(ignored);
    } else {
      std::make_shared<Session>(this, std::move(socket))->ReadHeader();
    }
    Accept();
  });
}

}  // namespace

std::string HttpRequest::Header(std::string_view name) const {
  for (const auto& [n, value] : headers) {
    if (n.size() == name.size() && ::strncasecmp(n.data(), name.data(), n.size()) == 0)
      return value;
  }
  return "";
}

std::string HttpRequest::Param(const char* name) const {
  auto it = params.find(name);
  return it == params.end() ? "" : it->second;
}

Result<std::unique_ptr<HttpServer>> HttpServer::Listen(DownstreamLimits limits, Handler handler) {
  auto server = std::make_unique<BeastServer>(limits, std::move(handler));
  if (Status listening = server->Listen(); !listening) return listening.error();
  return std::unique_ptr<HttpServer>(std::move(server));
}

}  // namespace killpoint
