// OpenFlow 1.5's OXS statistics (ofp_stats) and the messages that carry them:
// flow-removed, the flow desc and flow stats replies and the aggregate reply,
// to 1.4's fixed counters and back, idle_time beside them (design in of15.h).
#include <fmt/format.h>

#include "openflow/constants.h"
#include "openflow/of15/of15.h"
#include "openflow/of15/wire.h"

namespace flowlab::of::of15 {
namespace {

constexpr size_t kFlowRemoved15Match = 24;  // header + table_id .. cookie
constexpr size_t kFlowRemoved14Match = 48;
constexpr size_t kFlowDesc15Match = 24;  // in one entry
constexpr size_t kFlowStats14Match = 48;

uint8_t oxs_len(Oxs f) { return f == Oxs::kFlowCount ? 4 : 8; }

IdleTime idle_of(const Stats& s) { return IdleTime{s.has_idle(), s.idle_sec, s.idle_nsec}; }

// The idle time `extras` has for entry i (none: not sent).
void put_idle(const Extras* extras, size_t i, Stats& s) {
  if (!extras || i >= extras->idle.size() || !extras->idle[i].present) return;
  s.idle_sec = extras->idle[i].sec;
  s.idle_nsec = extras->idle[i].nsec;
  s.has |= uint8_t(1u << uint8_t(Oxs::kIdleTime));
}

constexpr std::initializer_list<Oxs> kFlowOxs = {Oxs::kDuration, Oxs::kIdleTime, Oxs::kPacketCount,
                                                 Oxs::kByteCount};

}  // namespace

Result<Stats, OfError> decode_stats(ByteSpan wire, size_t at, size_t& used) {
  if (wire.size() < at + 4) return unexpected(bad_len("ofp_stats: header truncated", at));
  const size_t len = load_be16(&wire[at + 2]);
  if (len < 4 || len + pad8(len) > wire.size() - at)
    return unexpected(bad_len(fmt::format("ofp_stats: length {} (+padding) runs past the message", len), at));
  Stats s;
  for (size_t o = at + 4; o < at + len;) {
    if (at + len - o < 4) return unexpected(bad_len("OXS header truncated", o));
    const uint32_t h = load_be32(&wire[o]);
    const size_t flen = h & 0xff;
    if (flen > at + len - o - 4)
      return unexpected(bad_len(fmt::format("OXS 0x{:08x}: length {} runs past ofp_stats", h, flen), o));
    const uint8_t field = uint8_t(h >> 9 & 0x7f);
    const uint8_t* v = &wire[o + 4];
    if (h >> 16 == kOxsClassBasic) {
      const auto f = Oxs(field);
      if (f == Oxs::kDuration || f == Oxs::kIdleTime || f == Oxs::kFlowCount || f == Oxs::kPacketCount ||
          f == Oxs::kByteCount) {
        if (flen != oxs_len(f))
          return unexpected(
              bad_len(fmt::format("OXS field {}: length {} != {}", field, flen, oxs_len(f)), o));
        s.has |= uint8_t(1u << field);
      }
      switch (f) {
        case Oxs::kDuration:
          s.duration_sec = load_be32(v);
          s.duration_nsec = load_be32(v + 4);
          break;
        case Oxs::kFlowCount:
          s.flow_count = load_be32(v);
          break;
        case Oxs::kPacketCount:
          s.packet_count = load_be64(v);
          break;
        case Oxs::kByteCount:
          s.byte_count = load_be64(v);
          break;
        case Oxs::kIdleTime:
          s.idle_sec = load_be32(v);
          s.idle_nsec = load_be32(v + 4);
          break;
        default:  // unknown fields are skipped
          break;
      }
    }
    o += 4 + flen;
  }
  used = len + pad8(len);
  return s;
}

void encode_stats(const Stats& s, std::initializer_list<Oxs> fields, ByteWriter& w) {
  const size_t start = w.size();
  w.u16(0);  // reserved
  w.u16(0);  // length, patched below
  for (Oxs f : fields) {
    if (f == Oxs::kIdleTime && !s.has_idle()) continue;
    w.u32(uint32_t(kOxsClassBasic) << 16 | uint32_t(f) << 9 | oxs_len(f));
    switch (f) {
      case Oxs::kDuration:
        w.u32(s.duration_sec);
        w.u32(s.duration_nsec);
        break;
      case Oxs::kIdleTime:
        w.u32(s.idle_sec);
        w.u32(s.idle_nsec);
        break;
      case Oxs::kFlowCount:
        w.u32(s.flow_count);
        break;
      case Oxs::kPacketCount:
        w.u64(s.packet_count);
        break;
      case Oxs::kByteCount:
        w.u64(s.byte_count);
        break;
    }
  }
  w.patch_u16(start + 2, uint16_t(w.size() - start));
  w.pad_to(start, 8);
}

Result<Bytes, OfError> flow_removed_to14(ByteSpan wire, Extras* extras) {
  const size_t mlen = match_span(wire, kFlowRemoved15Match);
  if (mlen == 0) return unexpected(bad_len("flow_removed: match truncated", kFlowRemoved15Match));
  size_t used = 0;
  auto s = decode_stats(wire, kFlowRemoved15Match + mlen, used);
  if (!s.ok()) return unexpected(std::move(s.error()));
  if (kFlowRemoved15Match + mlen + used != wire.size())
    return unexpected(bad_len("flow_removed: bytes after ofp_stats", kFlowRemoved15Match + mlen + used));
  if (extras) extras->idle = {idle_of(*s)};
  Bytes out(wire.begin(), wire.begin() + kHeaderLen);
  ByteWriter w(out);
  w.u64(load_be64(&wire[16]));  // cookie
  w.u16(load_be16(&wire[10]));  // priority
  w.u8(wire[9]);                // reason
  w.u8(wire[8]);                // table_id
  w.u32(s->duration_sec);
  w.u32(s->duration_nsec);
  w.u16(load_be16(&wire[12]));  // idle_timeout
  w.u16(load_be16(&wire[14]));  // hard_timeout
  w.u64(s->packet_count);
  w.u64(s->byte_count);
  w.bytes(wire.subspan(kFlowRemoved15Match, mlen));
  return checked(std::move(out), kOf14);
}

Result<Bytes, OfError> flow_removed_to15(ByteSpan wire, const Extras* extras) {
  if (wire.size() < kFlowRemoved14Match) return unexpected(bad_len("flow_removed: short", 0));
  Bytes out(wire.begin(), wire.begin() + kHeaderLen);
  ByteWriter w(out);
  w.u8(wire[19]);               // table_id
  w.u8(wire[18]);               // reason
  w.u16(load_be16(&wire[16]));  // priority
  w.u16(load_be16(&wire[28]));  // idle_timeout
  w.u16(load_be16(&wire[30]));  // hard_timeout
  w.u64(load_be64(&wire[8]));   // cookie
  w.bytes(wire.subspan(kFlowRemoved14Match));
  Stats s;
  s.duration_sec = load_be32(&wire[20]);
  s.duration_nsec = load_be32(&wire[24]);
  s.packet_count = load_be64(&wire[32]);
  s.byte_count = load_be64(&wire[40]);
  put_idle(extras, 0, s);
  encode_stats(s, kFlowOxs, w);
  return checked(std::move(out), kOf15);
}

namespace {

// One 1.5 flow-desc or flow-stats entry at `at`: its bytes, its match's
// length and its OXS statistics (read after `fixed` bytes and the match).
struct Entry15 {
  ByteSpan e;
  size_t mlen = 0;
  Stats s;
  size_t used = 0;  // bytes of the ofp_stats
};

Result<Entry15, OfError> read_entry15(ByteSpan wire, size_t at, size_t fixed, std::string_view what) {
  if (wire.size() - at < fixed) return unexpected(bad_len(fmt::format("{}: entry truncated", what), at));
  const size_t len = load_be16(&wire[at]);
  if (len < fixed || len > wire.size() - at)
    return unexpected(bad_len(fmt::format("{}: entry length {} is wrong", what, len), at));
  Entry15 r;
  r.e = wire.subspan(at, len);
  r.mlen = match_span(r.e, fixed);
  if (r.mlen == 0) return unexpected(bad_len(fmt::format("{}: match truncated", what), at + fixed));
  auto s = decode_stats(r.e, fixed + r.mlen, r.used);
  if (!s.ok()) {
    s.error().offset += at;
    return unexpected(std::move(s.error()));
  }
  r.s = *s;
  return r;
}

// One 1.4 flow-stats entry at `at` (what a 1.5 flow desc or flow stats is
// made from): its bytes, its match's length and its counters as OXS stats.
struct Entry14 {
  ByteSpan e;
  size_t mlen = 0;
  Stats s;
};

Result<Entry14, OfError> read_entry14(ByteSpan wire, size_t at) {
  const size_t len = wire.size() - at >= 2 ? load_be16(&wire[at]) : 0;
  if (len < kFlowStats14Match || len > wire.size() - at)
    return unexpected(bad_len("flow stats: entry length is wrong", at));
  Entry14 r;
  r.e = wire.subspan(at, len);
  r.mlen = match_span(r.e, kFlowStats14Match);
  if (r.mlen == 0) return unexpected(bad_len("flow stats: match truncated", at + kFlowStats14Match));
  r.s.duration_sec = load_be32(&r.e[4]);
  r.s.duration_nsec = load_be32(&r.e[8]);
  r.s.packet_count = load_be64(&r.e[32]);
  r.s.byte_count = load_be64(&r.e[40]);
  return r;
}

// Writes an entry's length at `start` once it is whole.
BasicStatus<OfError> end_entry(ByteWriter& w, size_t start, size_t at, std::string_view what) {
  if (w.size() - start > 0xffff) return unexpected(bad_len(fmt::format("{}: entry too long", what), at));
  w.patch_u16(start, uint16_t(w.size() - start));
  return {};
}

}  // namespace

Result<Bytes, OfError> flow_desc_to14(ByteSpan wire, Extras* extras) {
  Bytes out(wire.begin(), wire.begin() + kMultipartBodyOff);
  ByteWriter w(out);
  for (size_t at = kMultipartBodyOff; at < wire.size();) {
    FLOWLAB_ASSIGN_OR_RETURN(Entry15 r, read_entry15(wire, at, kFlowDesc15Match, "flow desc"));
    const ByteSpan e = r.e;
    if (extras) extras->idle.push_back(idle_of(r.s));
    const size_t ins = kFlowDesc15Match + r.mlen + r.used;
    auto instrs = instructions_to14(e.subspan(ins), at + ins);
    if (!instrs.ok()) return unexpected(std::move(instrs.error()));
    const size_t start = w.size();
    w.u16(0);    // length, patched below
    w.u8(e[4]);  // table_id
    w.u8(0);
    w.u32(r.s.duration_sec);
    w.u32(r.s.duration_nsec);
    w.bytes(e.subspan(6, 10));  // priority, idle, hard, flags, importance
    w.u16(0);
    w.u64(load_be64(&e[16]));  // cookie
    w.u64(r.s.packet_count);
    w.u64(r.s.byte_count);
    w.bytes(e.subspan(kFlowDesc15Match, r.mlen));
    w.bytes(*instrs);
    FLOWLAB_TRY(end_entry(w, start, at, "flow desc"));
    at += e.size();
  }
  return checked(std::move(out), kOf14);
}

Result<Bytes, OfError> flow_desc_to15(ByteSpan wire, const Extras* extras) {
  Bytes out(wire.begin(), wire.begin() + kMultipartBodyOff);
  ByteWriter w(out);
  for (size_t at = kMultipartBodyOff, i = 0; at < wire.size(); ++i) {
    FLOWLAB_ASSIGN_OR_RETURN(Entry14 r, read_entry14(wire, at));
    const ByteSpan e = r.e;
    const size_t start = w.size();
    w.u16(0);  // length, patched below
    w.u16(0);
    w.u8(e[2]);  // table_id
    w.u8(0);
    w.bytes(e.subspan(12, 10));  // priority, idle, hard, flags, importance
    w.u64(load_be64(&e[24]));    // cookie
    w.bytes(e.subspan(kFlowStats14Match, r.mlen));
    put_idle(extras, i, r.s);
    encode_stats(r.s, kFlowOxs, w);
    w.bytes(instructions_to15(e.subspan(kFlowStats14Match + r.mlen)));
    FLOWLAB_TRY(end_entry(w, start, at, "flow desc"));
    at += e.size();
  }
  return checked(std::move(out), kOf15);
}

Result<Bytes, OfError> flow_stats_to14(ByteSpan wire, Extras* extras) {
  constexpr size_t kFlowStats15Match = 8;  // length, pad, table_id, reason, priority
  Bytes out(wire.begin(), wire.begin() + kMultipartBodyOff);
  ByteWriter w(out);
  store_be16(&out[8], uint16_t(MultipartType::kFlow));
  if (extras) extras->stats_only = true;
  for (size_t at = kMultipartBodyOff; at < wire.size();) {
    FLOWLAB_ASSIGN_OR_RETURN(Entry15 r, read_entry15(wire, at, kFlowStats15Match, "flow stats"));
    const ByteSpan e = r.e;
    if (kFlowStats15Match + r.mlen + r.used != e.size())
      return unexpected(
          bad_len("flow stats: bytes after ofp_stats", at + kFlowStats15Match + r.mlen + r.used));
    if (extras) extras->idle.push_back(idle_of(r.s));
    const size_t start = w.size();
    w.u16(0);    // length, patched below
    w.u8(e[4]);  // table_id
    w.u8(0);
    w.u32(r.s.duration_sec);
    w.u32(r.s.duration_nsec);
    w.u16(load_be16(&e[6]));  // priority
    w.zeros(8);               // idle, hard, flags, importance
    w.zeros(2);
    w.u64(0);  // cookie
    w.u64(r.s.packet_count);
    w.u64(r.s.byte_count);
    w.bytes(e.subspan(kFlowStats15Match, r.mlen));
    FLOWLAB_TRY(end_entry(w, start, at, "flow stats"));
    at += e.size();
  }
  return checked(std::move(out), kOf14);
}

Result<Bytes, OfError> flow_stats_to15(ByteSpan wire, const Extras* extras) {
  Bytes out(wire.begin(), wire.begin() + kMultipartBodyOff);
  ByteWriter w(out);
  store_be16(&out[8], kMpFlowStats);
  for (size_t at = kMultipartBodyOff, i = 0; at < wire.size(); ++i) {
    FLOWLAB_ASSIGN_OR_RETURN(Entry14 r, read_entry14(wire, at));
    const ByteSpan e = r.e;
    const size_t start = w.size();
    w.u16(0);  // length, patched below
    w.zeros(2);
    w.u8(e[2]);                // table_id
    w.u8(0);                   // reason: OFPFSR_STATS_REQUEST
    w.u16(load_be16(&e[12]));  // priority
    w.bytes(e.subspan(kFlowStats14Match, r.mlen));
    put_idle(extras, i, r.s);
    encode_stats(r.s, kFlowOxs, w);
    FLOWLAB_TRY(end_entry(w, start, at, "flow stats"));
    at += e.size();
  }
  return checked(std::move(out), kOf15);
}

Result<Bytes, OfError> aggregate_to14(ByteSpan wire) {
  size_t used = 0;
  auto s = decode_stats(wire, kMultipartBodyOff, used);
  if (!s.ok()) return unexpected(std::move(s.error()));
  if (kMultipartBodyOff + used != wire.size())
    return unexpected(bad_len("aggregate reply: bytes after ofp_stats", kMultipartBodyOff + used));
  Bytes out(wire.begin(), wire.begin() + kMultipartBodyOff);
  ByteWriter w(out);
  w.u64(s->packet_count);
  w.u64(s->byte_count);
  w.u32(s->flow_count);
  w.zeros(4);
  return checked(std::move(out), kOf14);
}

Result<Bytes, OfError> aggregate_to15(ByteSpan wire) {
  if (wire.size() < kMultipartBodyOff + 20) return unexpected(bad_len("aggregate reply: short", 0));
  Bytes out(wire.begin(), wire.begin() + kMultipartBodyOff);
  ByteWriter w(out);
  Stats s;
  s.packet_count = load_be64(&wire[16]);
  s.byte_count = load_be64(&wire[24]);
  s.flow_count = load_be32(&wire[32]);
  encode_stats(s, {Oxs::kFlowCount, Oxs::kPacketCount, Oxs::kByteCount}, w);
  return checked(std::move(out), kOf15);
}

}  // namespace flowlab::of::of15
