// OpenFlow 1.4 ports: ofp_port with properties, port-mod with properties,
// and the property lists both carry (layouts in of14.h).
#include <fmt/format.h>

#include "openflow/of14/of14.h"
#include "openflow/of14/wire.h"

namespace flowlab::of::of14 {
namespace {

constexpr size_t kPortLen = 40;         // ofp_port without properties
constexpr size_t kEthPropLen = 32;      // ofp_port_desc_prop_ethernet
constexpr size_t kModEthPropLen = 8;    // ofp_port_mod_prop_ethernet
constexpr size_t kPortModBodyLen = 24;  // ofp_port_mod after the header, without properties

OfError bad_property(std::string msg, size_t at) {
  return OfError{static_cast<ErrorType>(kErrBadProperty), 1 /* OFPBPC_BAD_LEN */, at, std::move(msg)};
}

size_t padded(size_t n) { return (n + 7) / 8 * 8; }

// Walks a property list: calls f(type, body_with_header, offset_in_list) for each.
template <typename F>
bool walk_props(ByteSpan props, std::string& why, F&& f) {
  size_t o = 0;
  while (o < props.size()) {
    if (props.size() - o < 4) {
      why = fmt::format("property at {}: {} bytes left, a header needs 4", o, props.size() - o);
      return false;
    }
    const uint16_t type = load_be16(&props[o]);
    const uint16_t len = load_be16(&props[o + 2]);
    if (len < 4 || padded(len) > props.size() - o) {
      why = fmt::format("property type {} at {}: length {} does not fit in {} bytes", type, o, len,
                        props.size() - o);
      return false;
    }
    if (!f(type, props.subspan(o, padded(len)), o)) return false;
    o += padded(len);
  }
  return true;
}

}  // namespace

bool properties_ok(ByteSpan props, std::string& why) {
  return walk_props(props, why, [](uint16_t, ByteSpan, size_t) { return true; });
}

Result<Port, OfError> decode_port(ByteSpan wire, size_t at, size_t& consumed) {
  if (wire.size() - at < kPortLen)
    return unexpected(
        bad_len(fmt::format("ofp_port: need {} bytes, have {}", kPortLen, wire.size() - at), at));
  const uint16_t len = load_be16(&wire[at + 4]);
  if (len < kPortLen || len > wire.size() - at || len % 8)
    return unexpected(bad_len(fmt::format("ofp_port: length {} (at least {}, a multiple of 8, at most {})",
                                          len, kPortLen, wire.size() - at),
                              at + 4));
  ByteReader r(wire.subspan(at, len));
  Port p;
  r.u32(p.desc.port_no);
  r.skip(4);  // length, pad
  r.copy(p.desc.hw_addr.b.data(), 6);
  r.skip(2);
  r.str(16, p.desc.name);
  // The name is NUL-terminated in its 16 bytes: a sender that filled all 16 is
  // read as its first 15, what a name can be on the wire (and as OVS reads it).
  if (p.desc.name.size() > 15) p.desc.name.resize(15);
  r.u32(p.desc.config);
  r.u32(p.desc.state);
  p.ethernet = false;
  std::string why;
  bool dup = false;
  const ByteSpan props = wire.subspan(at + kPortLen, len - kPortLen);
  bool ok = walk_props(props, why, [&](uint16_t type, ByteSpan prop, size_t) {
    if (type != kPortPropEthernet) {
      p.other_props.insert(p.other_props.end(), prop.begin(), prop.end());
      return true;
    }
    if (p.ethernet) {
      dup = true;
      why = "two ethernet properties";
      return false;
    }
    if (load_be16(&prop[2]) != kEthPropLen) {
      why = fmt::format("ethernet property length {} != {}", load_be16(&prop[2]), kEthPropLen);
      return false;
    }
    ByteReader e(prop.subspan(8));
    e.u32(p.desc.curr);
    e.u32(p.desc.advertised);
    e.u32(p.desc.supported);
    e.u32(p.desc.peer);
    e.u32(p.desc.curr_speed);
    e.u32(p.desc.max_speed);
    p.ethernet = true;
    return true;
  });
  if (!ok) {
    if (dup)
      return unexpected(
          OfError{static_cast<ErrorType>(kErrBadProperty), 5 /* OFPBPC_EPERM */, at, "ofp_port: " + why});
    return unexpected(bad_property("ofp_port: " + why, at + kPortLen));
  }
  consumed = len;
  return p;
}

void encode_port(const Port& p, Bytes& out) {
  ByteWriter w(out);
  const size_t len = kPortLen + (p.ethernet ? kEthPropLen : 0) + p.other_props.size();
  w.u32(p.desc.port_no);
  w.u16(uint16_t(len));
  w.zeros(2);
  w.bytes(ByteSpan(p.desc.hw_addr.b.data(), 6));
  w.zeros(2);
  w.str(p.desc.name, 16);
  w.u32(p.desc.config);
  w.u32(p.desc.state);
  if (p.ethernet) {
    w.u16(kPortPropEthernet);
    w.u16(uint16_t(kEthPropLen));
    w.zeros(4);
    w.u32(p.desc.curr);
    w.u32(p.desc.advertised);
    w.u32(p.desc.supported);
    w.u32(p.desc.peer);
    w.u32(p.desc.curr_speed);
    w.u32(p.desc.max_speed);
  }
  w.bytes(p.other_props);
}

Result<PortMod, OfError> decode_port_mod(ByteSpan body, size_t at) {
  if (body.size() < kPortModBodyLen)
    return unexpected(
        bad_len(fmt::format("port_mod: body needs {} bytes, have {}", kPortModBodyLen, body.size()), at));
  ByteReader r(body);
  PortMod m;
  r.u32(m.mod.port_no);
  r.skip(4);
  r.copy(m.mod.hw_addr.b.data(), 6);
  r.skip(2);
  r.u32(m.mod.config);
  r.u32(m.mod.mask);
  m.ethernet = false;
  std::string why;
  bool ok = walk_props(body.subspan(kPortModBodyLen), why, [&](uint16_t type, ByteSpan prop, size_t) {
    if (type != kPortPropEthernet) {
      m.other_props.insert(m.other_props.end(), prop.begin(), prop.end());
      return true;
    }
    if (m.ethernet || load_be16(&prop[2]) != kModEthPropLen) {
      why = m.ethernet
                ? "two ethernet properties"
                : fmt::format("ethernet property length {} != {}", load_be16(&prop[2]), kModEthPropLen);
      return false;
    }
    m.mod.advertise = load_be32(&prop[4]);
    m.ethernet = true;
    return true;
  });
  if (!ok) return unexpected(bad_property("port_mod: " + why, at + kPortModBodyLen));
  return m;
}

void encode_port_mod(const PortMod& p, Bytes& out) {
  ByteWriter w(out);
  w.u32(p.mod.port_no);
  w.zeros(4);
  w.bytes(ByteSpan(p.mod.hw_addr.b.data(), 6));
  w.zeros(2);
  w.u32(p.mod.config);
  w.u32(p.mod.mask);
  if (p.ethernet) {
    w.u16(kPortPropEthernet);
    w.u16(uint16_t(kModEthPropLen));
    w.u32(p.mod.advertise);
  }
  w.bytes(p.other_props);
}

}  // namespace flowlab::of::of14
