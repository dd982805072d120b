// LLDP encode/decode (see lldp.h).
#include "controller/topology/lldp.h"

#include <fmt/format.h>

#include <charconv>
#include <string_view>

namespace flowlab::controller::topology {

namespace {

constexpr uint8_t kTlvEnd = 0, kTlvChassis = 1, kTlvPort = 2, kTlvTtl = 3;
constexpr uint8_t kChassisLocal = 7, kPortComponent = 2;

void put_tlv(Bytes& out, uint8_t type, ByteSpan value) {
  uint16_t hdr = uint16_t(type) << 9 | uint16_t(value.size());
  out.push_back(uint8_t(hdr >> 8));
  out.push_back(uint8_t(hdr));
  out.insert(out.end(), value.begin(), value.end());
}

}  // namespace

Bytes encode_lldp(const LldpId& id, MacAddr src, uint16_t ttl_s) {
  Bytes f;
  f.reserve(64);
  f.insert(f.end(), kLldpDst.b.begin(), kLldpDst.b.end());
  f.insert(f.end(), src.b.begin(), src.b.end());
  f.push_back(uint8_t(kEthTypeLldp >> 8));
  f.push_back(uint8_t(kEthTypeLldp & 0xff));
  std::string chassis = fmt::format("{:c}dpid:{:016x}", char(kChassisLocal), id.dpid);
  put_tlv(f, kTlvChassis, ByteSpan(reinterpret_cast<const uint8_t*>(chassis.data()), chassis.size()));
  uint8_t port[5] = {kPortComponent, uint8_t(id.port_no >> 24), uint8_t(id.port_no >> 16),
                     uint8_t(id.port_no >> 8), uint8_t(id.port_no)};
  put_tlv(f, kTlvPort, ByteSpan(port, 5));
  uint8_t ttl[2] = {uint8_t(ttl_s >> 8), uint8_t(ttl_s)};
  put_tlv(f, kTlvTtl, ByteSpan(ttl, 2));
  put_tlv(f, kTlvEnd, {});
  while (f.size() < 60) f.push_back(0);  // minimum Ethernet frame without FCS
  return f;
}

Result<LldpId> decode_lldp(ByteSpan frame) {
  if (frame.size() < 14)
    return fail("LLDP: frame of {} bytes is shorter than an Ethernet header", frame.size());
  uint16_t type = uint16_t(frame[12] << 8 | frame[13]);
  if (type != kEthTypeLldp) return fail("LLDP: ethertype {:#06x} is not 0x88cc", type);
  size_t off = 14;
  std::optional<uint64_t> dpid;
  std::optional<uint32_t> port;
  while (true) {
    if (off + 2 > frame.size()) return fail("LLDP: TLV header at offset {} is truncated", off);
    uint16_t hdr = uint16_t(frame[off] << 8 | frame[off + 1]);
    uint8_t t = uint8_t(hdr >> 9);
    size_t len = hdr & 0x1ff;
    off += 2;
    if (off + len > frame.size())
      return fail("LLDP: TLV type {} of {} bytes runs past the frame end", t, len);
    const uint8_t* v = &frame[off];
    if (t == kTlvEnd) break;
    if (t == kTlvChassis) {
      if (len < 1 || v[0] != kChassisLocal) return fail("LLDP: chassis ID is not a locally assigned name");
      std::string_view s(reinterpret_cast<const char*>(v + 1), len - 1);
      if (!s.starts_with("dpid:") || s.size() != 21)
        return fail("LLDP: chassis ID '{}' is not dpid:<16 hex>", s);
      uint64_t d = 0;
      auto [p, ec] = std::from_chars(s.data() + 5, s.data() + s.size(), d, 16);
      if (ec != std::errc() || p != s.data() + s.size()) return fail("LLDP: chassis ID '{}' is not hex", s);
      dpid = d;
    } else if (t == kTlvPort) {
      if (len != 5 || v[0] != kPortComponent) return fail("LLDP: port ID is not a 4-byte port component");
      port = uint32_t(v[1]) << 24 | uint32_t(v[2]) << 16 | uint32_t(v[3]) << 8 | v[4];
    }
    off += len;
  }
  if (!dpid || !port) return fail("LLDP: frame has no {} TLV", dpid ? "port ID" : "chassis ID");
  return LldpId{*dpid, *port};
}

}  // namespace flowlab::controller::topology
