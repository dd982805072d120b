// libFuzzer target for the REST server's HTTP/1.1 request parser
// (src/rest/http_parse.h): any bytes parse into requests, need more, or are
// refused with a 4xx/5xx status (never a crash or a hang). Every complete request
// consumes at least one byte and no more than it was given, so a connection's
// buffer always moves on; the bytes taken are parsed again one prefix at a time
// to the same request. Each request is also parsed the way the server reads it
// (http_server.cpp: one parser fed the bytes as they arrive, in pieces whose size
// the input's first byte sets, what it did not take kept for the next feed) and
// must come out the same (or, for a head near its limit, be refused 431).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "rest/http_parse.h"

namespace {

using namespace flowlab;  // NOLINT(google-build-using-namespace)

// The server's way to one request: blank lines skipped, then one parser fed
// `piece` bytes more at a time; need more (complete and error unset) if `buf` ends first.
rest::HttpParsed parse_in_pieces(std::string_view buf, size_t piece, const rest::HttpLimits& limits) {
  rest::HttpParsed p;
  size_t fed = 0;
  while (fed < buf.size() && (buf[fed] == '\r' || buf[fed] == '\n')) ++fed;
  rest::HttpRequestParser parser;
  rest::configure_request_parser(parser, limits);
  std::string pending;
  bool checked_head = false;
  while (!parser.is_done()) {
    if (fed == buf.size()) return p;
    size_t n = std::min(piece, buf.size() - fed);
    pending.append(buf.substr(fed, n));
    fed += n;
    for (;;) {
      boost::system::error_code ec;
      size_t used = parser.put(boost::asio::buffer(pending), ec);
      pending.erase(0, used);
      if (ec == boost::beast::http::error::need_more) break;
      if (ec) {
        p.error = rest::refusal_of(ec, parser, limits, pending);
        return p;
      }
      if (parser.is_header_done() && !checked_head) {
        checked_head = true;
        bool expect_continue = false;
        if (auto r = rest::check_request_head(parser, expect_continue)) {
          p.error = r;
          return p;
        }
      }
      if (used == 0 || parser.is_done()) break;
    }
  }
  return rest::take_request(parser);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view buf(reinterpret_cast<const char*>(data), size);
  rest::HttpLimits limits{2048, 4096};
  const size_t piece = size ? 1 + data[0] % 64 : 1;
  while (!buf.empty()) {
    rest::HttpParsed p = rest::parse_http_request(buf, limits);
    if (p.error) {
      if (p.error->status < 400 || p.error->status > 599 || p.error->message.empty()) std::abort();
      return 0;
    }
    if (!p.complete) return 0;
    if (p.consumed == 0 || p.consumed > buf.size()) std::abort();
    if (p.request.body.size() > limits.max_body || p.request.path.empty()) std::abort();
    rest::HttpParsed again = rest::parse_http_request(buf.substr(0, p.consumed), limits);
    if (!again.complete || again.request.body != p.request.body || again.request.path != p.request.path)
      std::abort();
    rest::HttpParsed pieces = parse_in_pieces(buf.substr(0, p.consumed), piece, limits);
    // Near the head's limit Beast's count depends on where its input began: fed
    // in pieces it may refuse (431) a head the whole buffer got through with.
    bool head_limit = pieces.error && pieces.error->status == 431 && p.consumed > limits.max_head;
    if (!head_limit &&
        (!pieces.complete || pieces.request.body != p.request.body || pieces.request.path != p.request.path ||
         pieces.request.method != p.request.method || pieces.request.keep_alive != p.request.keep_alive))
      std::abort();
    (void)rest::http_response(p.request.body.size() % 600, p.request.body, p.request.keep_alive);
    buf.remove_prefix(p.consumed);
  }
  return 0;
}
