// The downstream's HTTP transport alone (downstream/http_server.h), with a handler of the test's
// own and a raw loopback client: what reaches the handler, in which order the pipelined requests
// of a connection and their after_written run, and what becomes of a request refused on its
// headers or a reply that is no answer. The service on it is tested in downstream_*_test.cc.
#include "downstream/http_server.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "raw_client.h"

namespace killpoint {
namespace {

using std::chrono::milliseconds;

// What came back on `fd` until the server closed it or `limit` passed.
std::string ReceiveUntilClosed(int fd, milliseconds limit) {
  std::string got;
  auto deadline = std::chrono::steady_clock::now() + limit;
  char buf[4096];
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 20) <= 0) continue;
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  return got;
}

// A server whose handler records each request and what it was asked to answer.
struct Recorder {
  explicit Recorder(HttpServer::Handler reply) {
    auto s = HttpServer::Listen({}, [this, reply](const HttpRequest& req) {
      {
        std::lock_guard lock(mu);
        seen.push_back(req);
        order.push_back("handle " + req.path);
      }
      return reply(req);
    });
    EXPECT_TRUE(s);
    server = std::move(s.value());
  }
  void Note(const std::string& what) {
    std::lock_guard lock(mu);
    order.push_back(what);
  }
  // Sends `text` on a fresh connection, half-closes it and returns every byte of the answers.
  std::string Exchange(const std::string& text) {
    int fd = testing::ConnectLoopback(server->port());
    EXPECT_GE(fd, 0);
    testing::SendAll(fd, text);
    ::shutdown(fd, SHUT_WR);
    std::string got = ReceiveUntilClosed(fd, milliseconds(10'000));
    ::close(fd);
    return got;
  }

  std::mutex mu;
  std::vector<HttpRequest> seen;
  std::vector<std::string> order;
  std::unique_ptr<HttpServer> server;  // last: stopped before what its handler uses goes
};

TEST(HttpServer, TheHandlerSeesTheRequestDecodedAndItsReplyIsTheAnswer) {
  Recorder r([](const HttpRequest& req) {
    return HttpReply{201, R"({"k":")" + req.Param("k") + R"("})"};
  });
  std::string got = r.Exchange(
      "POST /x?k=a%2Fb+c&k=second&flag HTTP/1.1\r\nHost: h\r\nX-Instance: 2\r\n"
      "Content-Length: 4\r\nConnection: close\r\n\r\nbody");
  EXPECT_EQ(got.rfind("HTTP/1.1 201", 0), 0u) << got;
  EXPECT_NE(got.find("Content-Type: application/json"), std::string::npos) << got;
  EXPECT_NE(got.find(R"({"k":"a/b c"})"), std::string::npos) << got;
  std::lock_guard lock(r.mu);
  ASSERT_EQ(r.seen.size(), 1u);
  const HttpRequest& req = r.seen[0];
  EXPECT_EQ(req.method, "POST");
  EXPECT_EQ(req.path, "/x");
  EXPECT_EQ(req.Param("k"), "a/b c");  // the first of a name
  EXPECT_EQ(req.Param("flag"), "");
  EXPECT_EQ(req.Param("absent"), "");
  EXPECT_EQ(req.Header("x-instance"), "2");  // without case
  EXPECT_EQ(req.Header("X-Absent"), "");
  EXPECT_EQ(req.body, "body");
  EXPECT_EQ(req.refused, 0);
  EXPECT_EQ(req.peer.sin_family, AF_INET);
}

// Pipelined requests, in one write: each is handled, answered and its after_written run before
// the next reaches the handler.
TEST(HttpServer, PipelinedRequestsRunOneAfterAnotherWithTheirAfterWritten) {
  Recorder* self = nullptr;
  Recorder r([&self](const HttpRequest& req) {
    HttpReply reply{200, "{}"};
    reply.after_written = [&self, path = req.path] { self->Note("written " + path); };
    return reply;
  });
  self = &r;
  std::string got = r.Exchange(
      "GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n"
      "GET /c HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  size_t answers = 0;
  for (size_t at = 0; (at = got.find("HTTP/1.1 200", at)) != std::string::npos; ++at) ++answers;
  EXPECT_EQ(answers, 3u) << got;
  std::lock_guard lock(r.mu);
  EXPECT_EQ(r.order, (std::vector<std::string>{"handle /a", "written /a", "handle /b", "written /b",
                                               "handle /c", "written /c"}));
}

TEST(HttpServer, ARequestRefusedOnItsHeadersReachesTheHandlerUnreadAndEndsItsConnection) {
  Recorder r([](const HttpRequest& req) {
    HttpReply reply{req.refused == 0 ? 200 : req.refused, "{}"};
    reply.close = req.refused != 0;
    return reply;
  });
  std::string chunked = r.Exchange(
      "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nbody\r\n0\r\n\r\n"
      "GET /after HTTP/1.1\r\nHost: h\r\n\r\n");
  EXPECT_EQ(chunked.rfind("HTTP/1.1 411", 0), 0u) << chunked;
  EXPECT_EQ(chunked.find("HTTP/1.1 200"), std::string::npos) << chunked;  // closed: no /after
  std::string huge = r.Exchange("POST /h HTTP/1.1\r\nHost: h\r\nContent-Length: " +
                                std::to_string(kMaxDownstreamRequestBytes + 1) + "\r\n\r\nxx");
  EXPECT_EQ(huge.rfind("HTTP/1.1 413", 0), 0u) << huge;
  std::lock_guard lock(r.mu);
  ASSERT_EQ(r.seen.size(), 2u);
  EXPECT_EQ(r.seen[0].refused, 411);
  EXPECT_EQ(r.seen[0].body, "");
  EXPECT_EQ(r.seen[1].refused, 413);
  EXPECT_EQ(r.seen[1].body, "");
}

// A reply that is no answer (a held or killed request) closes the connection with nothing
// written, and its after_written never runs.
TEST(HttpServer, AReplyThatIsNoAnswerClosesTheConnectionSilently) {
  Recorder* self = nullptr;
  Recorder r([&self](const HttpRequest&) {
    HttpReply reply;
    reply.answer = false;
    reply.after_written = [&self] { self->Note("written"); };
    return reply;
  });
  self = &r;
  EXPECT_EQ(r.Exchange("GET /held HTTP/1.1\r\nHost: h\r\n\r\n"), "");
  std::lock_guard lock(r.mu);
  EXPECT_EQ(r.order, (std::vector<std::string>{"handle /held"}));
}

TEST(HttpServer, ATextThatIsNoHttpIsAnswered400WithoutTheHandler) {
  Recorder r([](const HttpRequest&) { return HttpReply{200, "{}"}; });
  std::string got = r.Exchange("HELLO\r\n\r\n");
  EXPECT_EQ(got.rfind("HTTP/1.1 400", 0), 0u) << got;
  std::lock_guard lock(r.mu);
  EXPECT_TRUE(r.seen.empty());
}

}  // namespace
}  // namespace killpoint
