// Parsing of OVS-style connection strings (see endpoint.h).
#include "channel/endpoint.h"

#include <charconv>

namespace flowlab::channel {
namespace {

bool parse_port(std::string_view s, uint16_t& out) {
  unsigned v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v > 65535) return false;
  out = uint16_t(v);
  return true;
}

}  // namespace

std::string Endpoint::to_string() const {
  std::string scheme = std::string(passive ? "p" : "") + (tls ? "ssl" : "tcp");
  if (passive) return fmt::format("{}:{}:{}", scheme, port, host);
  if (host.find(':') != std::string::npos) return fmt::format("{}:[{}]:{}", scheme, host, port);
  return fmt::format("{}:{}:{}", scheme, host, port);
}

Result<Endpoint> parse_endpoint(std::string_view s) {
  Endpoint ep;
  auto colon = s.find(':');
  if (colon == std::string_view::npos)
    return fail(
        "bad connection string '{}': expected tcp:HOST:PORT, ssl:HOST:PORT, ptcp:PORT[:IP] or pssl:PORT[:IP]",
        s);
  std::string_view scheme = s.substr(0, colon), rest = s.substr(colon + 1);
  if (scheme == "tcp" || scheme == "ssl") {
    ep.tls = scheme == "ssl";
    std::string_view host, port;
    if (!rest.empty() && rest[0] == '[') {  // [v6]:port
      auto close = rest.find(']');
      if (close == std::string_view::npos || close + 1 >= rest.size() || rest[close + 1] != ':')
        return fail("bad connection string '{}': expected {}:[IPV6]:PORT", s, scheme);
      host = rest.substr(1, close - 1);
      port = rest.substr(close + 2);
    } else {
      auto c = rest.rfind(':');
      if (c == std::string_view::npos)
        return fail("bad connection string '{}': missing port (expected {}:HOST:PORT)", s, scheme);
      host = rest.substr(0, c);
      port = rest.substr(c + 1);
    }
    if (host.empty()) return fail("bad connection string '{}': empty host", s);
    if (!parse_port(port, ep.port) || ep.port == 0)
      return fail("bad connection string '{}': port '{}' is not 1-65535", s, port);
    ep.host = std::string(host);
    return ep;
  }
  if (scheme == "ptcp" || scheme == "pssl") {
    ep.passive = true;
    ep.tls = scheme == "pssl";
    auto c = rest.find(':');
    std::string_view port = rest.substr(0, c);
    ep.host = c == std::string_view::npos ? "0.0.0.0" : std::string(rest.substr(c + 1));
    if (!ep.host.empty() && ep.host.front() == '[' && ep.host.back() == ']')
      ep.host = ep.host.substr(1, ep.host.size() - 2);
    if (ep.host.empty()) return fail("bad connection string '{}': empty bind address", s);
    if (!parse_port(port, ep.port))
      return fail("bad connection string '{}': port '{}' is not 0-65535", s, port);
    return ep;
  }
  return fail("bad connection string '{}': unknown scheme '{}' (tcp, ssl, ptcp, pssl)", s, scheme);
}

}  // namespace flowlab::channel
