// The jobs' HTTP client (jobs/common/http_client.h): against the fake downstream (cpp-httplib's
// server, as the harness's downstream is), a listener that never answers, a closed port, and
// answers parsed byte by byte.
#include "common/http_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "fake_downstream.h"
#include "loopback.h"

namespace killpoint::jobs::http {
namespace {

using namespace std::chrono_literals;
using testing::FakeDownstream;

Endpoint To(const std::string& url) { return ParseBaseUrl(url).value(); }

TEST(HttpClient, PostsJsonWithItsHeadersAndReadsTheAnswer) {
  FakeDownstream downstream;
  Outcome first = Post(To(downstream.url()), "/publish", {{"Idempotency-Key", "k 1/é"}},
                       R"({"key": "k 1/é", "biz_date": "2026-11-01"})", 2000ms);
  ASSERT_TRUE(first) << first.error;
  EXPECT_EQ(first->status, 200);
  EXPECT_NE(first->body.find("\"deduplicated\":false"), std::string::npos) << first->body;
  Outcome again = Post(To(downstream.url()), "/publish", {{"Idempotency-Key", "k 1/é"}},
                       R"({"key": "k 1/é", "biz_date": "2026-11-01"})", 2000ms);
  ASSERT_TRUE(again) << again.error;
  EXPECT_NE(again->body.find("\"deduplicated\":true"), std::string::npos) << again->body;
  ASSERT_EQ(downstream.requests().size(), 2u);
  EXPECT_EQ(downstream.requests()[0].method_and_path, "POST /publish");
  EXPECT_EQ(downstream.requests()[0].idempotency_key, "k 1/é");
  EXPECT_EQ(downstream.requests()[0].body["biz_date"], "2026-11-01");
}

TEST(HttpClient, GetsWithAnEncodedQuery) {
  FakeDownstream downstream;
  downstream.AddDelivery("a&b=c d");
  Outcome count = Request(To(downstream.url()), "GET",
                          "/deliveries?key=" + EncodeQueryValue("a&b=c d"), {}, "", 2000ms);
  ASSERT_TRUE(count) << count.error;
  EXPECT_EQ(count->status, 200);
  EXPECT_NE(count->body.find("\"count\":1"), std::string::npos) << count->body;
}

TEST(HttpClient, AServerErrorIsAnAnswerWithItsStatus) {
  FakeDownstream downstream(FakeDownstream::Mode::kFail);
  Outcome failed = Post(To(downstream.url()), "/publish", {}, "{}", 2000ms);
  ASSERT_TRUE(failed) << failed.error;
  EXPECT_EQ(failed->status, 500);
}

TEST(HttpClient, NoAnswerWithinTheTimeoutIsAnError) {
  testing::LoopbackListener silent;  // accepts (the kernel's backlog) and never answers
  auto start = std::chrono::steady_clock::now();
  Outcome none = Post(To("http://" + silent.address()), "/publish", {}, "{}", 200ms);
  EXPECT_FALSE(none);
  EXPECT_EQ(none.error, "no answer within 200 ms");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST(HttpClient, AClosedPortIsAConnectError) {
  int port;
  {
    testing::LoopbackListener gone;
    port = gone.port();
  }
  Outcome none = Post(To("http://127.0.0.1:" + std::to_string(port)), "/publish", {}, "{}", 500ms);
  EXPECT_FALSE(none);
  EXPECT_EQ(none.error, "connect: Connection refused");
}

TEST(HttpAnswer, IsWholeByItsLengthItsChunksOrTheClose) {
  EXPECT_FALSE(ParseAnswer("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nabc", false));
  EXPECT_FALSE(ParseAnswer("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nabc", true));
  EXPECT_EQ(ParseAnswer("HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\nabc", false)->body, "abc");
  EXPECT_EQ(ParseAnswer("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", false)->status, 404);
  std::string chunked =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n";
  EXPECT_FALSE(ParseAnswer(chunked, true));
  EXPECT_EQ(ParseAnswer(chunked + "0\r\n\r\n", false)->body, "abcde");
  EXPECT_FALSE(ParseAnswer("HTTP/1.1 200 OK\r\n\r\nuntil close", false));
  EXPECT_EQ(ParseAnswer("HTTP/1.1 200 OK\r\n\r\nuntil close", true)->body, "until close");
  EXPECT_FALSE(ParseAnswer("SSH-2.0-OpenSSH\r\n\r\n", true));
  EXPECT_FALSE(ParseAnswer("HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n", true));
  EXPECT_FALSE(ParseAnswer("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", true));
}

TEST(HttpAnswer, QueryValuesKeepOnlyUnreservedCharacters) {
  EXPECT_EQ(EncodeQueryValue("2026-11-01_a.b~"), "2026-11-01_a.b~");
  EXPECT_EQ(EncodeQueryValue("a&b=c d/é"), "a%26b%3Dc%20d%2F%C3%A9");
}

}  // namespace
}  // namespace killpoint::jobs::http
