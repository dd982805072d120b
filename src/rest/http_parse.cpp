// HTTP/1.1 request parsing and response text (see http_parse.h).
#include "rest/http_parse.h"

#include <fmt/format.h>

#include <cctype>
#include <vector>

namespace flowlab::rest {

namespace {

bool is_tchar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_token(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_tchar(c)) return false;
  return true;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The next line of `s` from `pos` (without its CRLF or LF), or nullopt if the
// line is not complete yet. `pos` moves past the line end.
std::optional<std::string_view> next_line(std::string_view s, size_t& pos) {
  size_t nl = s.find('\n', pos);
  if (nl == std::string_view::npos) return std::nullopt;
  std::string_view line = s.substr(pos, nl - pos);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  pos = nl + 1;
  return line;
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

// A chunked body from `pos`: true when complete (the body in `out`, `pos` past the
// last CRLF), false when more bytes are needed; an error for a malformed chunk.
std::optional<HttpRefusal> parse_chunked(std::string_view s, size_t& pos, size_t max_body, std::string& out,
                                         bool& complete) {
  complete = false;
  for (;;) {
    size_t at = pos;
    auto line = next_line(s, at);
    if (!line)
      return s.size() - pos > 1024 ? std::optional<HttpRefusal>({400, "chunk size line too long"})
                                   : std::nullopt;
    std::string_view size_text = trim(line->substr(0, line->find(';')));
    if (size_text.empty() || size_text.size() > 8) return HttpRefusal{400, "bad chunk size"};
    size_t size = 0;
    for (char c : size_text) {
      int d = hex_digit(c);
      if (d < 0) return HttpRefusal{400, "bad chunk size"};
      size = size * 16 + size_t(d);
    }
    if (size == 0) {
      // Trailer fields (ignored) up to an empty line.
      for (;;) {
        auto trailer = next_line(s, at);
        if (!trailer)
          return s.size() - at > 16 * 1024 ? std::optional<HttpRefusal>({431, "trailers too long"})
                                           : std::nullopt;
        if (trailer->empty()) break;
      }
      pos = at;
      complete = true;
      return std::nullopt;
    }
    if (out.size() + size > max_body)
      return HttpRefusal{413, fmt::format("request body over {} bytes", max_body)};
    if (s.size() - at < size + 1) return std::nullopt;  // data and at least the LF
    std::string_view data = s.substr(at, size);
    at += size;
    if (s.substr(at, 2) == "\r\n") {
      at += 2;
    } else if (s[at] == '\n') {
      at += 1;
    } else if (s[at] == '\r' && s.size() - at < 2) {
      return std::nullopt;
    } else {
      return HttpRefusal{400, "chunk data not followed by CRLF"};
    }
    out.append(data);
    pos = at;
  }
}

}  // namespace

HttpParsed parse_http_request(std::string_view buf, const HttpLimits& limits) {
  // Blank lines before a request are allowed (RFC 9112 2.2).
  size_t pos = 0;
  while (pos < buf.size() && (buf[pos] == '\r' || buf[pos] == '\n')) ++pos;
  size_t head_start = pos;
  auto request_line = next_line(buf, pos);
  std::vector<std::string_view> fields;
  bool head_done = false;
  if (request_line) {
    while (auto line = next_line(buf, pos)) {
      if (line->empty()) {
        head_done = true;
        break;
      }
      fields.push_back(*line);
    }
  }
  if (!head_done) {
    if (buf.size() - head_start > limits.max_head)
      return refused(431, fmt::format("request head over {} bytes", limits.max_head));
    return {};
  }
  if (pos - head_start > limits.max_head)
    return refused(431, fmt::format("request head over {} bytes", limits.max_head));

  HttpParsed p;
  HttpRequest& r = p.request;
  // Request line: METHOD SP TARGET SP HTTP/1.x
  std::string_view rl = *request_line;
  size_t sp1 = rl.find(' '), sp2 = sp1 == std::string_view::npos ? sp1 : rl.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || rl.find(' ', sp2 + 1) != std::string_view::npos)
    return refused(400, "malformed request line");
  std::string_view method = rl.substr(0, sp1), target = rl.substr(sp1 + 1, sp2 - sp1 - 1),
                   version = rl.substr(sp2 + 1);
  if (!is_token(method)) return refused(400, "malformed method");
  if (version.substr(0, 5) != "HTTP/" || version.size() != 8 || version[6] != '.' ||
      !std::isdigit(static_cast<unsigned char>(version[5])) ||
      !std::isdigit(static_cast<unsigned char>(version[7])))
    return refused(400, "malformed HTTP version");
  if (version != "HTTP/1.1" && version != "HTTP/1.0")
    return refused(505, fmt::format("{} is not supported (HTTP/1.0 or 1.1)", version));
  auto path = target_path(target);
  if (!path) return refused(400, "malformed request target");
  r.method = std::string(method);
  r.path = std::move(*path);
  bool http10 = version == "HTTP/1.0";
  r.keep_alive = !http10;

  // Header fields.
  std::optional<size_t> content_length;
  bool chunked = false;
  for (std::string_view f : fields) {
    if (f.front() == ' ' || f.front() == '\t') return refused(400, "folded header lines are not accepted");
    size_t colon = f.find(':');
    if (colon == std::string_view::npos || !is_token(f.substr(0, colon)))
      return refused(400, "malformed header");
    std::string name = lower(f.substr(0, colon));
    std::string_view value = trim(f.substr(colon + 1));
    if (name == "content-length") {
      if (value.empty() || value.size() > 12 ||
          value.find_first_not_of("0123456789") != std::string_view::npos)
        return refused(400, "malformed Content-Length");
      size_t n = std::stoull(std::string(value));
      if (content_length && *content_length != n) return refused(400, "conflicting Content-Length headers");
      content_length = n;
    } else if (name == "transfer-encoding") {
      std::string v = lower(value);
      size_t last = v.rfind(',');
      std::string_view coding = trim(std::string_view(v).substr(last == std::string::npos ? 0 : last + 1));
      if (coding != "chunked")
        return refused(501, fmt::format("transfer coding '{}' is not supported", value));
      chunked = true;
    } else if (name == "connection") {
      std::string v = lower(value);
      if (v.find("close") != std::string::npos) r.keep_alive = false;
      if (http10 && v.find("keep-alive") != std::string::npos) r.keep_alive = true;
    } else if (name == "expect") {
      if (lower(value) != "100-continue")
        return refused(417, fmt::format("expectation '{}' is not supported", value));
      p.expect_continue = !http10;
    }
  }
  if (chunked) {
    r.keep_alive = r.keep_alive && !content_length;  // both: the framing is suspect (RFC 9112 6.3)
  } else if (content_length && *content_length > limits.max_body) {
    return refused(413, fmt::format("request body over {} bytes", limits.max_body));
  }
  p.head_complete = true;

  // Body.
  if (chunked) {
    bool complete = false;
    if (auto err = parse_chunked(buf, pos, limits.max_body, r.body, complete))
      return refused(err->status, err->message);
    if (!complete) return p;
  } else if (content_length) {
    if (buf.size() - pos < *content_length) return p;
    r.body = std::string(buf.substr(pos, *content_length));
    pos += *content_length;
  }
  p.complete = true;
  p.consumed = pos;
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
