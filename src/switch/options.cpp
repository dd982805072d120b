// Parsers and checks for the switch's options (see options.h).
#include "switch/options.h"

#include <net/if.h>
#include <unistd.h>

#include <charconv>
#include <set>

#include "openflow/constants.h"

namespace flowlab::sw {
namespace {

template <typename T>
bool parse_uint(std::string_view s, T& out, int base = 10) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc() && p == s.data() + s.size();
}

bool valid_ifname(std::string_view n) {
  if (n.empty() || n.size() >= IFNAMSIZ) return false;
  for (char c : n)
    if (c == '/' || c == ':' || c == '=' || c == ' ' || c == '\0') return false;
  return true;
}

}  // namespace

// `IFNAME[=N]` / `tap:NAME[=N]`; `option` names the flag in error messages.
static Result<PortSpec> parse_interface_spec(std::string_view option, std::string_view s) {
  PortSpec p;
  std::string_view name = s;
  if (auto eq = s.rfind('='); eq != std::string_view::npos) {
    name = s.substr(0, eq);
    std::string_view num = s.substr(eq + 1);
    uint32_t n = 0;
    if (!parse_uint(num, n) || n == 0 || n >= 0xff00)
      return fail("{} {}: port number '{}' must be 1..65279", option, s, num);
    p.port_no = n;
  }
  if (name.starts_with("tap:")) {
    p.tap = true;
    name.remove_prefix(4);
  }
  if (!valid_ifname(name))
    return fail("{} {}: '{}' is not an interface name (1..15 chars, no '/', ':', '=')", option, s, name);
  p.ifname = std::string(name);
  return p;
}

Result<PortSpec> parse_port_spec(std::string_view s) { return parse_interface_spec("--port", s); }

Result<PortSpec> parse_local_port_spec(std::string_view s) {
  FLOWLAB_ASSIGN_OR_RETURN(PortSpec p, parse_interface_spec("--local", s));
  if (p.port_no != 0) return fail("--local {}: the LOCAL port takes no number (it is always LOCAL)", s);
  p.port_no = of::port::kLocal;
  return p;
}

static Result<uint16_t> parse_tcp_port(std::string_view whole, std::string_view num) {
  uint32_t n = 0;
  if (!parse_uint(num, n) || n > 65535) return fail("'{}': TCP port '{}' must be 0..65535", whole, num);
  return uint16_t(n);
}

Result<ChannelTarget> parse_controller_target(std::string_view s) {
  ChannelTarget t;
  t.text = std::string(s);
  if (!s.starts_with("tcp:") && !s.starts_with("ssl:"))
    return fail("--controller {}: expected tcp:HOST[:PORT] or ssl:HOST[:PORT] (e.g. tcp:127.0.0.1:6653)", s);
  t.tls = s.starts_with("ssl:");
  std::string_view rest = s.substr(4);
  std::string_view host = rest, port;
  if (rest.starts_with('[')) {  // [v6]:port
    auto close = rest.find(']');
    if (close == std::string_view::npos) return fail("--controller {}: unterminated '['", s);
    host = rest.substr(1, close - 1);
    if (close + 1 < rest.size()) {
      if (rest[close + 1] != ':') return fail("--controller {}: expected ':' after ']'", s);
      port = rest.substr(close + 2);
    }
  } else if (auto c = rest.rfind(':'); c != std::string_view::npos) {
    host = rest.substr(0, c);
    port = rest.substr(c + 1);
  }
  if (host.empty()) return fail("--controller {}: missing host", s);
  t.host = std::string(host);
  if (!port.empty()) {
    auto p = parse_tcp_port(s, port);
    if (!p.ok()) return fail("--controller {}", p.error().message);
    if (*p == 0) return fail("--controller {}: TCP port 0 is not a controller port", s);
    t.port = *p;
  }
  return t;
}

Result<ChannelTarget> parse_listen_target(std::string_view s) {
  ChannelTarget t;
  t.passive = true;
  t.text = std::string(s);
  t.host = "0.0.0.0";
  if (!s.starts_with("ptcp:")) return fail("--listen {}: expected ptcp:PORT[:HOST] (e.g. ptcp:6634)", s);
  std::string_view rest = s.substr(5);
  std::string_view port = rest;
  if (auto c = rest.find(':'); c != std::string_view::npos) {
    port = rest.substr(0, c);
    std::string_view host = rest.substr(c + 1);
    if (host.starts_with('[') && host.ends_with(']')) host = host.substr(1, host.size() - 2);
    if (host.empty()) return fail("--listen {}: empty host", s);
    t.host = std::string(host);
  }
  if (port.empty()) return fail("--listen {}: missing port", s);
  auto p = parse_tcp_port(s, port);
  if (!p.ok()) return fail("--listen {}", p.error().message);
  t.port = *p;
  return t;
}

Result<uint64_t> parse_dpid(std::string_view s) {
  uint64_t v = 0;
  bool ok = false;
  if (s.starts_with("0x") || s.starts_with("0X")) {
    std::string_view h = s.substr(2);
    ok = h.size() <= 16 && parse_uint(h, v, 16);
  } else if (s.size() == 16) {  // ovs style: 16 hex digits
    ok = parse_uint(s, v, 16);
  } else {
    ok = parse_uint(s, v, 10);
  }
  if (!ok) return fail("--dpid {}: expected a 64-bit number (decimal, 0xHEX or 16 hex digits)", s);
  return v;
}

Result<FailMode> parse_fail_mode(std::string_view s) {
  if (s == "secure") return FailMode::kSecure;
  if (s == "standalone") return FailMode::kStandalone;
  return fail("--fail-mode {}: expected 'secure' or 'standalone'", s);
}

std::string_view to_string(FailMode m) { return m == FailMode::kSecure ? "secure" : "standalone"; }

Result<DatapathKind> parse_datapath(std::string_view s) {
  if (s == "tc") return DatapathKind::kTc;
  if (s == "af-packet") return DatapathKind::kAfPacket;
  if (s == "auto") return DatapathKind::kAuto;
  return fail("--datapath {}: expected 'tc', 'af-packet' or 'auto'", s);
}

std::string_view to_string(DatapathKind k) {
  return k == DatapathKind::kTc ? "tc" : k == DatapathKind::kAfPacket ? "af-packet" : "auto";
}

Result<uint32_t> parse_protocols(std::string_view s) {
  uint32_t bitmap = 0;
  while (!s.empty()) {
    auto c = s.find(',');
    std::string_view item = s.substr(0, c);
    if (item == "OpenFlow15" || item == "of15" || item == "1.5")
      bitmap |= 1u << 6;
    else if (item == "OpenFlow14" || item == "of14" || item == "1.4")
      bitmap |= 1u << 5;
    else if (item == "OpenFlow13" || item == "of13" || item == "1.3")
      bitmap |= 1u << 4;
    else if (item == "OpenFlow10" || item == "of10" || item == "1.0")
      bitmap |= 1u << 1;
    else
      return fail(
          "--protocols: unsupported protocol '{}' (supported: OpenFlow15, OpenFlow14, OpenFlow13, "
          "OpenFlow10)",
          item);
    if (c == std::string_view::npos) break;
    s.remove_prefix(c + 1);
  }
  if (bitmap == 0)
    return fail("--protocols: empty list (supported: OpenFlow15, OpenFlow14, OpenFlow13, OpenFlow10)");
  return bitmap;
}

Status assign_port_numbers(std::vector<PortSpec>& ports) {
  if (ports.empty()) return fail("no --port given: a switch needs at least one port");
  std::set<uint32_t> used;
  std::set<std::string> names;
  for (const auto& p : ports) {
    if (!names.insert(p.ifname).second) return fail("--port {}: interface given twice", p.ifname);
    if (p.port_no == 0) continue;
    if (!used.insert(p.port_no).second)
      return fail("--port {}={}: OpenFlow port number {} is already taken", p.ifname, p.port_no, p.port_no);
  }
  uint32_t next = 1;
  for (auto& p : ports) {
    if (p.port_no != 0) continue;
    while (used.count(next)) ++next;
    p.port_no = next;
    used.insert(next);
  }
  return ok_status();
}

// A port's interface exists (a TAP is created at start, so it need not);
// `option` names the flag in the error.
static Status check_interface(std::string_view option, const PortSpec& p) {
  if (p.tap || if_nametoindex(p.ifname.c_str()) != 0) return ok_status();
  return fail("{} {}: no such network interface", option, p.ifname);
}

Status validate_options(SwitchOptions& opts) {
  FLOWLAB_TRY(assign_port_numbers(opts.ports));
  for (const auto& p : opts.ports) FLOWLAB_TRY(check_interface("--port", p));
  if (const auto& l = opts.local_port) {
    for (const auto& p : opts.ports)
      if (p.ifname == l->ifname) return fail("--local {}: the interface is also a --port", l->ifname);
    FLOWLAB_TRY(check_interface("--local", *l));
  }
  if (opts.threads == 0 || opts.threads > 64) return fail("--threads {}: must be 1..64", opts.threads);
  for (const auto& c : opts.controllers) {
    if (!c.tls) continue;
    if (opts.cert_file.empty() || opts.key_file.empty() || opts.ca_file.empty())
      return fail("--controller {}: TLS needs --cert, --key and --ca", c.text);
    for (const auto* f : {&opts.cert_file, &opts.key_file, &opts.ca_file})
      if (access(f->c_str(), R_OK) != 0) return fail("--controller {}: cannot read {}", c.text, *f);
  }
  std::set<uint16_t> lports;
  for (const auto& l : opts.listeners)
    if (l.port != 0 && !lports.insert(l.port).second)
      return fail("--listen {}: TCP port {} given twice", l.text, l.port);
  return ok_status();
}

}  // namespace flowlab::sw
