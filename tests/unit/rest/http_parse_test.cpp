// HTTP/1.1 request parsing (http_parse.h): what curl and Python's requests send,
// split at every byte; bodies by length and chunked; 100-continue; the refusals
// with their statuses; the response text.
#include "rest/http_parse.h"

#include <gtest/gtest.h>

namespace flowlab::rest {
namespace {

TEST(HttpParse, CurlPostWithBody) {
  std::string req =
      "POST /stats/flowentry/add HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: curl/7.88.1\r\n"
      "Accept: */*\r\nContent-Length: 11\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\n"
      "{\"dpid\": 1}";
  auto p = parse_http_request(req);
  ASSERT_FALSE(p.error) << p.error->message;
  ASSERT_TRUE(p.complete);
  EXPECT_EQ(p.request.method, "POST");
  EXPECT_EQ(p.request.path, "/stats/flowentry/add");
  EXPECT_EQ(p.request.body, "{\"dpid\": 1}");
  EXPECT_TRUE(p.request.keep_alive);
  EXPECT_EQ(p.consumed, req.size());
}

TEST(HttpParse, EveryPrefixNeedsMoreAndNoneIsAnError) {
  std::string req = "PUT /a%20b?x=1 HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc";
  for (size_t n = 0; n < req.size(); ++n) {
    auto p = parse_http_request(std::string_view(req).substr(0, n));
    EXPECT_FALSE(p.error) << n;
    EXPECT_FALSE(p.complete) << n;
  }
  auto p = parse_http_request(req);
  ASSERT_TRUE(p.complete);
  EXPECT_EQ(p.request.path, "/a b") << "decoded, the query dropped";
  EXPECT_EQ(p.request.body, "abc");
}

TEST(HttpParse, PipelinedRequestsAreTakenOneAtATime) {
  std::string two = "GET /stats/switches HTTP/1.1\r\n\r\nGET /v1/stats HTTP/1.1\r\nConnection: close\r\n\r\n";
  auto a = parse_http_request(two);
  ASSERT_TRUE(a.complete);
  EXPECT_EQ(a.request.path, "/stats/switches");
  auto b = parse_http_request(std::string_view(two).substr(a.consumed));
  ASSERT_TRUE(b.complete);
  EXPECT_EQ(b.request.path, "/v1/stats");
  EXPECT_FALSE(b.request.keep_alive);
  EXPECT_EQ(a.consumed + b.consumed, two.size());
}

TEST(HttpParse, ChunkedBodyWithExtensionsAndTrailers) {
  std::string req =
      "POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\n{\"a\"\r\n3\r\n: 1\r\n1\r\n}\r\n0\r\n"
      "Trailer-Field: y\r\n\r\n";
  for (size_t n = 0; n < req.size(); ++n) {
    auto p = parse_http_request(std::string_view(req).substr(0, n));
    EXPECT_FALSE(p.error) << n << ": " << p.error->message;
    EXPECT_FALSE(p.complete) << n;
  }
  auto p = parse_http_request(req);
  ASSERT_TRUE(p.complete);
  EXPECT_EQ(p.request.body, "{\"a\": 1}");
  EXPECT_EQ(p.consumed, req.size());
}

TEST(HttpParse, ExpectContinueIsReportedOnceTheHeadIsIn) {
  auto p = parse_http_request("POST /x HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2000\r\n\r\n");
  EXPECT_TRUE(p.head_complete);
  EXPECT_TRUE(p.expect_continue);
  EXPECT_FALSE(p.complete);
  EXPECT_FALSE(p.error);
}

TEST(HttpParse, AbsoluteFormAndHttp10) {
  auto p = parse_http_request("GET http://127.0.0.1:8080/stats/switches?x HTTP/1.0\r\n\r\n");
  ASSERT_TRUE(p.complete);
  EXPECT_EQ(p.request.path, "/stats/switches");
  EXPECT_FALSE(p.request.keep_alive) << "HTTP/1.0 closes unless asked";
  auto k = parse_http_request("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n");
  ASSERT_TRUE(k.complete);
  EXPECT_TRUE(k.request.keep_alive);
}

TEST(HttpParse, RefusalsCarryTheirStatus) {
  struct Case {
    std::string req;
    int status;
    std::string says;
  };
  const Case cases[] = {
      {"GARBAGE\r\n\r\n", 400, "request line"},
      {"GET /x HTTP/1.1 extra\r\n\r\n", 400, "request line"},
      {"G(T /x HTTP/1.1\r\n\r\n", 400, "method"},
      {"GET x HTTP/1.1\r\n\r\n", 400, "target"},
      {"GET /%zz HTTP/1.1\r\n\r\n", 400, "target"},
      {"GET /%00 HTTP/1.1\r\n\r\n", 400, "target"},
      {"GET /x HTTP/2.0\r\n\r\n", 505, "HTTP/2.0"},
      {"GET /x HTXP/1.1\r\n\r\n", 400, "version"},
      {"GET /x HTTP/1.1\r\nNo colon here\r\n\r\n", 400, "header"},
      {"POST /x HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400, "Content-Length"},
      {"POST /x HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400, "conflicting"},
      {"POST /x HTTP/1.1\r\nContent-Length: 2000000\r\n\r\n", 413, "body over"},
      {"POST /x HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "gzip"},
      {"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400, "chunk size"},
      {"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXY\r\n", 400, "chunk"},
      {"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n200000\r\n", 413, "body over"},
      {"POST /x HTTP/1.1\r\nExpect: 200-ok\r\n\r\n", 417, "200-ok"},
      {"GET /x HTTP/1.1\r\nX: " + std::string(20000, 'a'), 431, "head over"},
  };
  for (const auto& c : cases) {
    auto p = parse_http_request(c.req);
    ASSERT_TRUE(p.error) << c.req;
    EXPECT_EQ(p.error->status, c.status) << c.req;
    EXPECT_NE(p.error->message.find(c.says), std::string::npos) << c.req << " -> " << p.error->message;
  }
}

TEST(HttpParse, AFoldedHeaderLineIsJoinedNotRefused) {
  // RFC 9112 5.2: a server may replace obs-fold by a space instead of refusing it.
  auto p = parse_http_request("GET /x HTTP/1.1\r\nA: b\r\n  folded\r\n\r\n");
  ASSERT_FALSE(p.error) << p.error->message;
  EXPECT_TRUE(p.complete);
  EXPECT_EQ(p.request.path, "/x");
}

TEST(HttpParse, ResponseText) {
  EXPECT_EQ(http_response(404, "{}", true),
            "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
  EXPECT_EQ(http_response(200, "", false),
            "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
}

}  // namespace
}  // namespace flowlab::rest
