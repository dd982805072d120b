// FrameBuilder: serializes the layers in order, then fills next-protocol fields,
// lengths and checksums from the inside out.
#include "packet/builder.h"

#include <array>

#include "packet/csum_incremental.h"

namespace flowlab {

using namespace hdr;

FrameBuilder& FrameBuilder::eth(MacAddr dst, MacAddr src) {
  Layer l{Kind::kEth};
  l.m1 = dst;
  l.m2 = src;
  layers_.push_back(l);
  return *this;
}
FrameBuilder& FrameBuilder::eth_type(uint16_t type) {
  Layer l{Kind::kEthType};
  l.a = type;
  layers_.push_back(l);
  return *this;
}
FrameBuilder& FrameBuilder::vlan(uint16_t vid, uint8_t pcp, uint16_t tpid) {
  Layer l{Kind::kVlan};
  l.a = vid;
  l.b = pcp;
  l.c = tpid;
  layers_.push_back(l);
  return *this;
}
FrameBuilder& FrameBuilder::mpls(uint32_t label, uint8_t tc, uint8_t ttl) {
  Layer l{Kind::kMpls};
  l.a = label;
  l.b = tc;
  l.c = ttl;
  layers_.push_back(l);
  return *this;
}
FrameBuilder& FrameBuilder::arp(uint16_t op, MacAddr sha, Ipv4Addr spa, MacAddr tha, Ipv4Addr tpa) {
  Layer l{Kind::kArp};
  l.a = op;
  l.m1 = sha;
  l.b = spa.v;
  l.m2 = tha;
  l.c = tpa.v;
  layers_.push_back(l);
  return *this;
}
FrameBuilder& FrameBuilder::ipv4(Ipv4Addr src, Ipv4Addr dst, uint8_t ttl, uint8_t tos) {
  Layer l{Kind::kIpv4};
  l.a = src.v;
  l.b = dst.v;
  l.c = ttl;
  l.d = tos;
  layers_.push_back(l);
  return *this;
}
FrameBuilder& FrameBuilder::ipv6(const Ipv6Addr& src, const Ipv6Addr& dst, uint8_t hop_limit, uint8_t tclass,
                                 uint32_t flabel) {
  Layer l{Kind::kIpv6};
  l.v6a = src;
  l.v6b = dst;
  l.a = hop_limit;
  l.b = tclass;
  l.c = flabel;
  layers_.push_back(l);
  return *this;
}
FrameBuilder& FrameBuilder::tcp(uint16_t sport, uint16_t dport, uint8_t flags, uint32_t seq) {
  Layer l{Kind::kTcp};
  l.a = sport;
  l.b = dport;
  l.c = flags;
  l.d = seq;
  layers_.push_back(l);
  return *this;
}
FrameBuilder& FrameBuilder::udp(uint16_t sport, uint16_t dport) {
  Layer l{Kind::kUdp};
  l.a = sport;
  l.b = dport;
  layers_.push_back(l);
  return *this;
}
FrameBuilder& FrameBuilder::sctp(uint16_t sport, uint16_t dport) {
  Layer l{Kind::kSctp};
  l.a = sport;
  l.b = dport;
  layers_.push_back(l);
  return *this;
}
FrameBuilder& FrameBuilder::icmp(uint8_t type, uint8_t code, uint16_t id, uint16_t seq) {
  Layer l{Kind::kIcmp};
  l.a = type;
  l.b = code;
  l.c = id;
  l.d = seq;
  layers_.push_back(l);
  return *this;
}
FrameBuilder& FrameBuilder::nd(uint8_t type, const Ipv6Addr& target, MacAddr ll) {
  Layer l{Kind::kNd};
  l.a = type;
  l.v6a = target;
  l.m1 = ll;
  layers_.push_back(l);
  return *this;
}
FrameBuilder& FrameBuilder::payload(size_t n, uint8_t fill) {
  Layer l{Kind::kPayload};
  l.data.assign(n, fill);
  layers_.push_back(l);
  return *this;
}
FrameBuilder& FrameBuilder::payload(ByteSpan bytes) {
  Layer l{Kind::kPayload};
  l.data.assign(bytes.begin(), bytes.end());
  layers_.push_back(l);
  return *this;
}
FrameBuilder& FrameBuilder::partial_csum() {
  partial_ = true;
  return *this;
}

namespace {

uint32_t pseudo_sum(const uint8_t* f, size_t l3, bool v6, uint8_t proto, size_t l4len) {
  uint32_t s = 0;
  if (v6) {
    s = incsum::accumulate(f + l3 + kIpv6SrcOff, 32);
    s = incsum::accumulate(nullptr, 0, s + uint32_t(l4len >> 16) + uint32_t(l4len & 0xffff) + proto);
  } else {
    s = incsum::accumulate(f + l3 + kIpv4SrcOff, 8);
    s += proto + uint32_t(l4len);
  }
  return s;
}

std::array<uint32_t, 256> make_crc32c_table() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
    t[i] = c;
  }
  return t;
}

}  // namespace

uint16_t l4_checksum(const uint8_t* f, size_t len, size_t l3, size_t l4, bool v6, uint8_t proto) {
  size_t l4len = len - l4;
  uint32_t s = proto == kProtoIcmp ? 0 : pseudo_sum(f, l3, v6, proto, l4len);
  size_t coff = proto == kProtoTcp ? kTcpCsumOff : proto == kProtoUdp ? kUdpCsumOff : kIcmpCsumOff;
  s = incsum::accumulate(f + l4, coff, s);
  s = incsum::accumulate(f + l4 + coff + 2, l4len - coff - 2, s);
  uint16_t c = incsum::finish(s);
  if (proto == kProtoUdp && c == 0) c = 0xffff;
  return c;
}

uint16_t ipv4_header_checksum(const uint8_t* f, size_t l3) {
  size_t ihl = ipv4_ihl_bytes(f + l3);
  uint32_t s = incsum::accumulate(f + l3, kIpv4CsumOff);
  s = incsum::accumulate(f + l3 + kIpv4CsumOff + 2, ihl - kIpv4CsumOff - 2, s);
  return incsum::finish(s);
}

uint32_t crc32c(const uint8_t* p, size_t n) {
  static const std::array<uint32_t, 256> table = make_crc32c_table();
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; ++i) c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
  return ~c;
}

Bytes FrameBuilder::build() const { return build(nullptr); }

Bytes FrameBuilder::build(OffloadInfo* off) const {
  Bytes f;
  f.reserve(256);
  std::vector<size_t> at(layers_.size());
  std::vector<size_t> type_field(layers_.size(), SIZE_MAX);  // ethertype slot a layer fills
  size_t l3 = SIZE_MAX, l4 = SIZE_MAX;
  bool v6 = false;
  uint8_t l4proto = 0;
  size_t pending_type = SIZE_MAX;  // ethertype field waiting for the next layer
  size_t ip_proto_field = SIZE_MAX;
  auto set_type = [&](uint16_t t) {
    if (pending_type != SIZE_MAX) store_be16(&f[pending_type], t);
    pending_type = SIZE_MAX;
  };
  auto set_proto = [&](uint8_t p) {
    if (ip_proto_field != SIZE_MAX) f[ip_proto_field] = p;
    l4proto = p;
  };
  size_t last_mpls = SIZE_MAX;
  for (size_t i = 0; i < layers_.size(); ++i) {
    const Layer& L = layers_[i];
    at[i] = f.size();
    ByteWriter w(f);
    switch (L.kind) {
      case Kind::kEth:
        w.bytes(L.m1.b.data(), 6);
        w.bytes(L.m2.b.data(), 6);
        pending_type = f.size();
        w.u16(0);
        break;
      case Kind::kEthType:
        set_type(uint16_t(L.a));
        break;
      case Kind::kVlan: {
        // The TPID goes in the pending ethertype slot; the TCI follows it.
        set_type(uint16_t(L.c));
        w.u16(uint16_t(L.b << kVlanPcpShift | (L.a & kVlanVidMask)));
        pending_type = f.size();
        w.u16(0);
        break;
      }
      case Kind::kMpls:
        if (last_mpls == SIZE_MAX) set_type(kEthTypeMpls);
        last_mpls = f.size();
        w.u32(make_mpls(L.a, uint8_t(L.b), false, uint8_t(L.c)));
        break;
      case Kind::kArp:
        set_type(kEthTypeArp);
        l3 = f.size();
        w.u16(1);
        w.u16(kEthTypeIpv4);
        w.u8(6);
        w.u8(4);
        w.u16(uint16_t(L.a));
        w.bytes(L.m1.b.data(), 6);
        w.u32(L.b);
        w.bytes(L.m2.b.data(), 6);
        w.u32(L.c);
        break;
      case Kind::kIpv4:
        set_type(kEthTypeIpv4);
        l3 = f.size();
        w.u8(0x45);
        w.u8(uint8_t(L.d));
        w.u16(0);
        w.u16(0x1234);
        w.u16(0);
        w.u8(uint8_t(L.c));
        ip_proto_field = f.size();
        w.u8(0);
        w.u16(0);
        w.u32(L.a);
        w.u32(L.b);
        break;
      case Kind::kIpv6:
        set_type(kEthTypeIpv6);
        l3 = f.size();
        v6 = true;
        w.u32(6u << 28 | (L.b & 0xff) << 20 | (L.c & 0xfffff));
        w.u16(0);
        ip_proto_field = f.size();
        w.u8(kProtoNoNext);
        w.u8(uint8_t(L.a));
        w.bytes(L.v6a.b.data(), 16);
        w.bytes(L.v6b.b.data(), 16);
        break;
      case Kind::kTcp:
        set_proto(kProtoTcp);
        l4 = f.size();
        w.u16(uint16_t(L.a));
        w.u16(uint16_t(L.b));
        w.u32(L.d);
        w.u32(0);
        w.u8(5 << 4);
        w.u8(uint8_t(L.c));
        w.u16(65535);
        w.u16(0);
        w.u16(0);
        break;
      case Kind::kUdp:
        set_proto(kProtoUdp);
        l4 = f.size();
        w.u16(uint16_t(L.a));
        w.u16(uint16_t(L.b));
        w.u16(0);
        w.u16(0);
        break;
      case Kind::kSctp:
        set_proto(kProtoSctp);
        l4 = f.size();
        w.u16(uint16_t(L.a));
        w.u16(uint16_t(L.b));
        w.u32(0x01020304);
        w.u32(0);
        break;
      case Kind::kIcmp:
        set_proto(v6 ? kProtoIcmpv6 : kProtoIcmp);
        l4 = f.size();
        w.u8(uint8_t(L.a));
        w.u8(uint8_t(L.b));
        w.u16(0);
        w.u16(uint16_t(L.c));
        w.u16(uint16_t(L.d));
        break;
      case Kind::kNd:
        set_proto(kProtoIcmpv6);
        l4 = f.size();
        w.u8(uint8_t(L.a));
        w.u8(0);
        w.u16(0);
        w.u32(L.a == kNdNeighborAdvert ? 0x60000000u : 0);
        w.bytes(L.v6a.b.data(), 16);
        w.u8(L.a == kNdNeighborSolicit ? kNdOptSll : kNdOptTll);
        w.u8(1);
        w.bytes(L.m1.b.data(), 6);
        break;
      case Kind::kPayload:
        w.bytes(L.data);
        break;
    }
  }
  if (last_mpls != SIZE_MAX) f[last_mpls + 2] |= 1;  // bottom of stack
  size_t len = f.size();
  if (l3 != SIZE_MAX && l4 != SIZE_MAX) {
    uint8_t* p = f.data();
    size_t l4len = len - l4;
    if (v6) {
      store_be16(p + l3 + kIpv6PayloadLenOff, uint16_t(len - l3 - kIpv6Len));
    }
    if (l4proto == kProtoUdp) store_be16(p + l4 + kUdpLenOff, uint16_t(l4len));
    size_t coff = l4proto == kProtoTcp    ? kTcpCsumOff
                  : l4proto == kProtoUdp  ? kUdpCsumOff
                  : l4proto == kProtoSctp ? kSctpCsumOff
                                          : kIcmpCsumOff;
    if (l4proto == kProtoSctp) {
      uint32_t c = crc32c(p + l4, l4len);
      p[l4 + coff] = uint8_t(c);
      p[l4 + coff + 1] = uint8_t(c >> 8);
      p[l4 + coff + 2] = uint8_t(c >> 16);
      p[l4 + coff + 3] = uint8_t(c >> 24);
    } else if (partial_ && (l4proto == kProtoTcp || l4proto == kProtoUdp)) {
      store_be16(p + l4 + coff, incsum::fold(pseudo_sum(p, l3, v6, l4proto, l4len)));
      if (off) {
        off->flags = OffloadInfo::kNeedsCsum;
        off->csum_start = uint16_t(l4);
        off->csum_offset = uint16_t(coff);
      }
    } else {
      store_be16(p + l4 + coff, l4_checksum(p, len, l3, l4, v6, l4proto));
    }
  }
  if (l3 != SIZE_MAX) {
    for (const Layer& L : layers_) {
      if (L.kind != Kind::kIpv4) continue;
      store_be16(&f[l3 + kIpv4TotLenOff], uint16_t(len - l3));
      store_be16(&f[l3 + kIpv4CsumOff], ipv4_header_checksum(f.data(), l3));
      break;
    }
  }
  return f;
}

void FrameBuilder::build_into(Packet& pkt) const {
  OffloadInfo off;
  Bytes f = build(&off);
  pkt.assign(f.data(), f.size());
  pkt.offload = off;
}

}  // namespace flowlab
