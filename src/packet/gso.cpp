// Software GSO: one super-frame in, segment `index` out (see gso.h).
//
// Each call re-parses the headers (tens of ns) so segments can be built in any
// order into any buffers; the payload is copied once per segment and, in kFull
// mode, summed once. UFO needs the UDP checksum over the whole datagram: only the
// first fragment (the one carrying the UDP header) pays for it.
#include "packet/gso.h"

#include <cstring>

#include "packet/checksum.h"

namespace flowlab::gso {
namespace {

constexpr uint8_t kTcp = 6;
constexpr uint8_t kUdp = 17;
constexpr uint8_t kTcpFin = 0x01;
constexpr uint8_t kTcpPsh = 0x08;
constexpr uint8_t kTcpCwr = 0x80;

uint16_t rd16(const uint8_t* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }
uint32_t rd32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}
void wr16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}
void wr32(uint8_t* p, uint32_t v) {
  wr16(p, static_cast<uint16_t>(v >> 16));
  wr16(p + 2, static_cast<uint16_t>(v));
}

enum class Kind { kTcp, kUdpL4, kUfo };

struct Plan {
  csum::Layout l;
  Kind kind;
  size_t hdr_end;  // bytes copied in front of every segment
  size_t payload;  // bytes split across segments
  size_t seg;      // payload bytes per segment
  size_t count;
};

bool make_plan(const Packet& in, Plan& p) {
  if (!in.offload.is_gso() || in.offload.gso_size == 0) return false;
  auto l = csum::locate_l4(in.data(), in.size());
  if (!l) return false;
  p.l = *l;
  switch (in.offload.gso_type & ~OffloadInfo::kGsoEcn) {
    case OffloadInfo::kGsoTcpv4:
    case OffloadInfo::kGsoTcpv6:
      if (l->proto != kTcp || l->fragment) return false;
      p.kind = Kind::kTcp;
      break;
    case OffloadInfo::kGsoUdpL4:
      if (l->proto != kUdp || l->fragment) return false;
      p.kind = Kind::kUdpL4;
      break;
    case OffloadInfo::kGsoUdp:
      if (l->proto != kUdp || l->fragment || l->ipv6) return false;
      p.kind = Kind::kUfo;
      break;
    default:
      return false;
  }
  if (p.kind == Kind::kUfo) {
    p.hdr_end = l->l4_off;  // fragments repeat only the IP header
    p.payload = l->l4_len;
    p.seg = in.offload.gso_size & ~size_t(7);
    if (p.seg == 0) return false;
  } else {
    p.hdr_end = l->l4_off + l->l4_hdr_len;
    p.payload = l->l4_len - l->l4_hdr_len;
    p.seg = in.offload.gso_size;
  }
  p.count = p.payload == 0 ? 1 : (p.payload + p.seg - 1) / p.seg;
  return true;
}

void set_ip_length(uint8_t* f, const csum::Layout& l, size_t l4_len) {
  uint8_t* ip = f + l.l3_off;
  if (l.ipv6) {
    wr16(ip + 4, static_cast<uint16_t>(l.l4_off - l.l3_off - 40 + l4_len));
  } else {
    wr16(ip + 2, static_cast<uint16_t>(l.l4_off - l.l3_off + l4_len));
  }
}

void write_l4_csum(Packet& out, const csum::Layout& l, size_t field, size_t l4_len, CsumMode mode) {
  uint8_t* f = out.data();
  uint8_t* c = f + l.l4_off + field;
  uint32_t ph = csum::pseudo_header(f, l, uint32_t(l4_len));
  if (mode == CsumMode::kPartial) {
    wr16(c, csum::fold(ph));
    out.offload.flags = OffloadInfo::kNeedsCsum;
    out.offload.csum_start = static_cast<uint16_t>(l.l4_off);
    out.offload.csum_offset = static_cast<uint16_t>(field);
    return;
  }
  wr16(c, 0);
  uint16_t v = csum::finish(csum::sum_bytes(f + l.l4_off, l4_len, ph));
  if (v == 0 && field == 6) v = 0xffff;
  wr16(c, v);
}

}  // namespace

size_t segment_count(const Packet& in) {
  Plan p;
  return make_plan(in, p) ? p.count : 0;
}

bool build_segment(const Packet& in, size_t index, Packet& out, CsumMode mode) {
  Plan p;
  if (!make_plan(in, p) || index >= p.count) return false;
  size_t off = index * p.seg;
  size_t n = p.payload - off < p.seg ? p.payload - off : p.seg;
  if (p.payload == 0) n = 0;
  bool last = index + 1 == p.count;
  out.reset();
  if (!out.set_size(p.hdr_end + n)) return false;
  out.in_port = in.in_port;
  out.metadata = in.metadata;
  out.tunnel_id = in.tunnel_id;
  uint8_t* f = out.data();
  std::memcpy(f, in.data(), p.hdr_end);
  std::memcpy(f + p.hdr_end, in.data() + p.hdr_end + off, n);
  const csum::Layout& l = p.l;
  uint8_t* ip = f + l.l3_off;
  if (!l.ipv6 && p.kind != Kind::kUfo) wr16(ip + 4, static_cast<uint16_t>(rd16(ip + 4) + index));

  switch (p.kind) {
    case Kind::kTcp: {
      uint8_t* th = f + l.l4_off;
      wr32(th + 4, static_cast<uint32_t>(rd32(th + 4) + off));
      if (!last) th[13] &= static_cast<uint8_t>(~(kTcpFin | kTcpPsh));
      if (index > 0) th[13] &= static_cast<uint8_t>(~kTcpCwr);
      size_t l4 = l.l4_hdr_len + n;
      set_ip_length(f, l, l4);
      write_l4_csum(out, l, 16, l4, mode);
      break;
    }
    case Kind::kUdpL4: {
      size_t l4 = 8 + n;
      wr16(f + l.l4_off + 4, static_cast<uint16_t>(l4));
      set_ip_length(f, l, l4);
      write_l4_csum(out, l, 6, l4, mode);
      break;
    }
    case Kind::kUfo: {
      wr16(ip + 2, static_cast<uint16_t>(l.l4_off - l.l3_off + n));
      uint16_t frag = rd16(ip + 6) & 0x4000;  // keep DF, set MF/offset
      frag = static_cast<uint16_t>(frag | (off / 8) | (last ? 0 : 0x2000));
      wr16(ip + 6, frag);
      if (index == 0) {
        // Checksum over the whole datagram, written into this fragment's UDP header.
        const uint8_t* src = in.data();
        uint32_t s = csum::pseudo_header(src, l, uint32_t(p.payload));
        s = csum::sum_bytes(src + l.l4_off, 6, s);  // UDP header up to the checksum
        s = csum::sum_bytes(src + l.l4_off + 8, p.payload - 8, s);
        uint16_t v = csum::finish(s);
        if (v == 0) v = 0xffff;
        wr16(f + l.l4_off + 6, v);
      }
      out.offload.clear();
      break;
    }
  }
  if (!l.ipv6) csum::set_ipv4_header_checksum(ip);
  if (mode == CsumMode::kFull || p.kind == Kind::kUfo) out.offload.clear();
  out.offload.gso_type = OffloadInfo::kGsoNone;
  out.offload.gso_size = 0;
  out.offload.hdr_len = 0;
  return true;
}

}  // namespace flowlab::gso
