// HTTP/1.1 request parsing and response text (see http_parse.h).
#include "rest/http_parse.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cctype>
#include <climits>
#include <cstdint>

namespace flowlab::rest {

namespace {

namespace http = boost::beast::http;

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

HttpParsed refused(int status, std::string message) {
  HttpParsed p;
  p.error = HttpRefusal{status, std::move(message)};
  return p;
}

// The path of a request target: origin-form "/a/b?q", absolute-form
// "http://host/a/b", or "*" (OPTIONS); decoded, query and fragment dropped.
std::optional<std::string> target_path(std::string_view t) {
  if (t == "*") return std::string("*");
  if (t.substr(0, 7) == "http://" || t.substr(0, 8) == "https://") {
    size_t slash = t.find('/', t.find("//") + 2);
    t = slash == std::string_view::npos ? std::string_view("/") : t.substr(slash);
  }
  if (t.empty() || t.front() != '/') return std::nullopt;
  t = t.substr(0, t.find_first_of("?#"));
  std::string out;
  out.reserve(t.size());
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] != '%') {
      out.push_back(t[i]);
      continue;
    }
    if (i + 2 >= t.size() || hex_digit(t[i + 1]) < 0 || hex_digit(t[i + 2]) < 0) return std::nullopt;
    char c = char(hex_digit(t[i + 1]) * 16 + hex_digit(t[i + 2]));
    if (c == '\0') return std::nullopt;
    out.push_back(c);
    i += 2;
  }
  return out;
}

std::string_view sv(boost::beast::string_view s) { return {s.data(), s.size()}; }

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

void configure_request_parser(HttpRequestParser& parser, const HttpLimits& limits) {
  parser.eager(true);
  parser.header_limit(uint32_t(std::min<size_t>(limits.max_head, UINT32_MAX)));
  parser.body_limit(limits.max_body);
}

HttpRefusal refusal_of(const boost::system::error_code& ec, const HttpRequestParser& parser,
                       const HttpLimits& limits, std::string_view unparsed) {
  using E = http::error;
  if (ec == E::bad_version) {
    // Beast reads HTTP/1.x only: another well-formed version is 505, not 400.
    std::string_view line = unparsed.substr(0, unparsed.find_first_of("\r\n"));
    std::string_view version = line.substr(line.rfind(' ') + 1);
    if (version.size() == 8 && version.substr(0, 5) == "HTTP/" && std::isdigit(uint8_t(version[5])) &&
        version[6] == '.' && std::isdigit(uint8_t(version[7])))
      return {505, fmt::format("{} is not supported (HTTP/1.0 or 1.1)", version)};
    return {400, "malformed request line: bad HTTP version"};
  }
  if (ec == E::header_limit) return {431, fmt::format("request head over {} bytes", limits.max_head)};
  if (ec == E::body_limit) return {413, fmt::format("request body over {} bytes", limits.max_body)};
  if (ec == E::bad_method) return {400, "malformed request line: bad method"};
  if (ec == E::bad_target) return {400, "malformed request target"};
  if (ec == E::bad_field) return {400, "malformed header field name"};
  if (ec == E::bad_value) return {400, "malformed header field value"};
  if (ec == E::bad_content_length) return {400, "malformed or conflicting Content-Length"};
  if (ec == E::bad_transfer_encoding) {
    const auto& m = parser.get();
    auto te = m.find(http::field::transfer_encoding);
    std::string value = te == m.end() ? std::string() : std::string(sv(te->value()));
    return {501, fmt::format("transfer coding '{}' is not supported (chunked only)", value)};
  }
  if (ec == E::bad_chunk || ec == E::bad_chunk_extension) return {400, "malformed chunk size line"};
  if (ec == E::bad_line_ending) return {400, "malformed line ending (CRLF expected)"};
  return {400, "malformed request: " + ec.message()};
}

std::optional<HttpRefusal> check_request_head(const HttpRequestParser& parser, bool& expect_continue) {
  const auto& m = parser.get();
  expect_continue = false;
  if (m.version() != 10 && m.version() != 11)
    return HttpRefusal{505, fmt::format("HTTP/{}.{} is not supported (HTTP/1.0 or 1.1)", m.version() / 10,
                                        m.version() % 10)};
  if (auto te = m.find(http::field::transfer_encoding); te != m.end() && !m.chunked())
    return HttpRefusal{501,
                       fmt::format("transfer coding '{}' is not supported (chunked only)", sv(te->value()))};
  if (auto e = m.find(http::field::expect); e != m.end()) {
    if (lower(sv(e->value())) != "100-continue")
      return HttpRefusal{417, fmt::format("expectation '{}' is not supported", sv(e->value()))};
    expect_continue = m.version() == 11;
  }
  return std::nullopt;
}

HttpParsed take_request(HttpRequestParser& parser) {
  http::request<http::string_body> m = parser.release();
  auto path = target_path(sv(m.target()));
  if (!path) return refused(400, "malformed request target");
  HttpParsed p;
  p.head_complete = true;
  p.request.method = std::string(sv(m.method_string()));
  p.request.path = std::move(*path);
  p.request.body = std::move(m.body());
  // A message framed by both chunked and Content-Length is suspect (RFC 9112 6.3).
  p.request.keep_alive = m.keep_alive() && !(m.chunked() && m.has_content_length());
  p.complete = true;
  return p;
}

HttpParsed parse_http_request(std::string_view buf, const HttpLimits& limits) {
  // Blank lines before a request are allowed (RFC 9112 2.2).
  size_t pos = 0;
  while (pos < buf.size() && (buf[pos] == '\r' || buf[pos] == '\n')) ++pos;

  HttpRequestParser parser;
  configure_request_parser(parser, limits);
  bool checked_head = false;
  HttpParsed p;
  while (pos < buf.size() && !parser.is_done()) {
    boost::system::error_code ec;
    size_t n = parser.put(boost::asio::const_buffer(buf.data() + pos, buf.size() - pos), ec);
    pos += n;
    if (ec == http::error::need_more) break;
    if (ec) {
      HttpRefusal r = refusal_of(ec, parser, limits, buf.substr(pos));
      return refused(r.status, std::move(r.message));
    }
    if (parser.is_header_done() && !checked_head) {
      checked_head = true;
      if (auto r = check_request_head(parser, p.expect_continue))
        return refused(r->status, std::move(r->message));
      p.head_complete = true;
    }
    if (n == 0) break;
  }
  if (!parser.is_done()) {
    // Beast counts the head's limit only once a line is in; a head without its end
    // past the limit is refused here.
    if (!parser.is_header_done() && buf.size() > limits.max_head)
      return refused(431, fmt::format("request head over {} bytes", limits.max_head));
    return p;
  }
  bool expect_continue = p.expect_continue;
  p = take_request(parser);
  p.expect_continue = expect_continue && !p.error;
  if (p.complete) p.consumed = pos;
  return p;
}

std::string_view http_reason(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 413:
      return "Content Too Large";
    case 417:
      return "Expectation Failed";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return status < 300 ? "OK" : status < 500 ? "Bad Request" : "Internal Server Error";
  }
}

std::string http_response(int status, std::string_view body, bool keep_alive, std::string_view content_type) {
  std::string out = fmt::format("HTTP/1.1 {} {}\r\n", status, http_reason(status));
  if (!body.empty()) out += fmt::format("Content-Type: {}\r\n", content_type);
  out += fmt::format("Content-Length: {}\r\n", body.size());
  if (!keep_alive) out += "Connection: close\r\n";
  out += "\r\n";
  out.append(body);
  return out;
}

}  // namespace flowlab::rest
