// HTTP/1.1 requests as the REST API's clients send them (curl, Python's
// requests, Ryu scripts), parsed by Boost.Beast's request parser, and the
// responses written back. The server (http_server.cpp) reads into a parser set
// up by configure_request_parser and judges it with check_request_head,
// refusal_of and take_request; parse_http_request runs the same four over a
// buffer and is what fuzz_http_request fuzzes. Pure functions, no sockets.
//
// What is taken: origin-form and absolute-form targets (the query and fragment
// are dropped, %XX decoded), HTTP/1.0 and 1.1, Content-Length or chunked bodies,
// `Expect: 100-continue` (curl sends it for bodies over 1 KB), `Connection:
// close|keep-alive`, several requests in one read (pipelining), folded header
// lines (joined, RFC 9112 5.2). What is refused, each with its status: a malformed
// request line, header or chunk (400), a head over the limit (431), a body over
// the limit (413), another transfer coding (501), another expectation (417),
// another HTTP version (505).
#pragma once

#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace flowlab::rest {

struct HttpRequest {
  std::string method;  // "GET", as sent (methods are case-sensitive)
  std::string path;    // "/stats/flow/1": decoded, without query or fragment
  std::string body;
  bool keep_alive = true;  // HTTP/1.1 unless "Connection: close"; 1.0 only if asked
};

struct HttpLimits {
  size_t max_head = 16 * 1024;  // request line and headers
  size_t max_body = 1 << 20;
};

struct HttpRefusal {
  int status = 400;
  std::string message;
};

struct HttpParsed {
  bool head_complete = false;    // the head is in: a 100 Continue may be sent
  bool expect_continue = false;  // the client waits for one before its body
  bool complete = false;         // the whole request is in: `request` and `consumed` are set
  size_t consumed = 0;           // bytes of the buffer the request took
  HttpRequest request;
  std::optional<HttpRefusal> error;  // the request cannot be taken; answer it and close
};

using HttpRequestParser = boost::beast::http::request_parser<boost::beast::http::string_body>;

// Sets `parser`'s head and body limits (and eager body parsing).
void configure_request_parser(HttpRequestParser& parser, const HttpLimits& limits);
// Once the parser's head is in: what Beast takes and flowlab refuses (another
// HTTP version, another transfer coding, another expectation). Sets
// `expect_continue` when the client waits for a 100 Continue before its body.
std::optional<HttpRefusal> check_request_head(const HttpRequestParser& parser, bool& expect_continue);
// A Beast parse error as the status and words a client is answered with.
// `unparsed` is the connection's bytes from where the parser stopped (a bad
// version is told apart from a malformed one there).
HttpRefusal refusal_of(const boost::system::error_code& ec, const HttpRequestParser& parser,
                       const HttpLimits& limits, std::string_view unparsed);
// The parser's complete request (is_done()): its path decoded, or a refusal.
// Sets `complete` and `request`, or `error`; `consumed` is left to the caller.
HttpParsed take_request(HttpRequestParser& parser);

// Parses the first request in `buf` (what the connection has read so far).
HttpParsed parse_http_request(std::string_view buf, const HttpLimits& limits = {});

// "HTTP/1.1 404 Not Found" with Content-Length (and Content-Type, application/json
// unless told, when there is a body), "Connection: close" unless keep_alive.
std::string http_response(int status, std::string_view body, bool keep_alive,
                          std::string_view content_type = "application/json");
std::string_view http_reason(int status);

}  // namespace flowlab::rest
