// ovs-ofctl text for groups, meters and packet-outs:
//   group_id=1,type=select,bucket=weight:10,watch_port:1,actions=output:1,bucket=output:2
// (OF1.5: bucket=bucket_id:N,..., and command_bucket_id=first|last|all|N for
// insert-buckets / remove-buckets)
//   meter=1,kbps,burst,stats,bands=type=drop,rate=1000,burst_size=100
//   in_port=1,packet=0123...,actions=output:2
#include <fmt/format.h>

#include "openflow/text/flow_text.h"
#include "openflow/text/internal.h"

namespace flowlab::of {
namespace {

using text::KeyValue;
using text::Piece;
using text::text_fail;
using text::TextError;
using text::TResult;

// Offsets of top-level occurrences of `kw` that start a piece.
std::vector<size_t> find_keyword(std::string_view s, std::string_view kw) {
  std::vector<size_t> at;
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(')
      ++depth;
    else if (s[i] == ')')
      --depth;
    if (depth == 0 && (i == 0 || s[i - 1] == ',' || s[i - 1] == ' ') && s.substr(i, kw.size()) == kw)
      at.push_back(i);
  }
  return at;
}

std::string_view trim_sep(std::string_view s) {
  while (!s.empty() && (s.back() == ',' || s.back() == ' ')) s.remove_suffix(1);
  return s;
}

TResult<Bucket> parse_bucket(std::string_view s, size_t base) {
  Bucket b;
  auto pieces = text::split_pieces(s, base);
  if (!pieces.ok()) return unexpected(pieces.error());
  size_t actions_from = s.size();
  for (const Piece& p : *pieces) {
    size_t sep = p.text.find_first_of(":=");
    std::string_view key = p.text.substr(0, sep);
    std::string_view val = sep == std::string_view::npos ? std::string_view{} : p.text.substr(sep + 1);
    size_t voff = p.offset + (sep == std::string_view::npos ? p.text.size() : sep + 1);
    if (key == "bucket_id") {
      auto v = text::parse_uint_at(val, voff, bucket::kMax, "bucket_id");
      if (!v.ok()) return unexpected(v.error());
      b.bucket_id = uint32_t(*v);
    } else if (key == "weight") {
      auto v = text::parse_uint_at(val, voff, 0xffff, "weight");
      if (!v.ok()) return unexpected(v.error());
      b.weight = uint16_t(*v);
    } else if (key == "watch_port") {
      auto v = parse_port(val);
      if (!v.ok()) return text_fail(voff, v.error().message);
      b.watch_port = *v;
    } else if (key == "watch_group") {
      auto v = text::parse_uint_at(val, voff, 0xffffffff, "watch_group");
      if (!v.ok()) return unexpected(v.error());
      b.watch_group = uint32_t(*v);
    } else if (key == "actions" && sep != std::string_view::npos && p.text[sep] == '=') {
      actions_from = voff - base;
      break;
    } else {
      actions_from = p.offset - base;
      break;
    }
  }
  if (actions_from < s.size()) {
    auto acts = text::parse_actions_at(s.substr(actions_from), base + actions_from, {}, kOf13);
    if (!acts.ok()) return unexpected(acts.error());
    b.actions = std::move(*acts);
  }
  return b;
}

TResult<GroupMod> group_mod(std::string_view text, GroupModCommand cmd) {
  GroupMod gm;
  gm.command = cmd;
  auto buckets = find_keyword(text, "bucket=");
  std::string_view head = text.substr(0, buckets.empty() ? text.size() : buckets[0]);
  auto pieces = text::split_pieces(head, 0);
  if (!pieces.ok()) return unexpected(pieces.error());
  bool have_id = false;
  for (const Piece& p : *pieces) {
    KeyValue kv = text::split_key_value(p);
    if (kv.key == "group_id") {
      if (kv.value == "all" || kv.value == "ALL") {
        gm.group_id = group::kAll;
      } else {
        auto v = text::parse_uint_at(kv.value, kv.value_offset, 0xffffffff, "group_id");
        if (!v.ok()) return unexpected(v.error());
        gm.group_id = uint32_t(*v);
      }
      have_id = true;
    } else if (kv.key == "command_bucket_id") {  // OF1.5 insert-buckets / remove-buckets
      const std::string v = text::lower(kv.value);
      if (v == "first") {
        gm.command_bucket_id = bucket::kFirst;
      } else if (v == "last") {
        gm.command_bucket_id = bucket::kLast;
      } else if (v == "all") {
        gm.command_bucket_id = bucket::kAll;
      } else {
        auto id = text::parse_uint_at(kv.value, kv.value_offset, bucket::kMax, "command_bucket_id");
        if (!id.ok()) return unexpected(id.error());
        gm.command_bucket_id = uint32_t(*id);
      }
    } else if (kv.key == "type") {
      std::string t = text::lower(kv.value);
      if (t == "all")
        gm.type = GroupType::kAll;
      else if (t == "select")
        gm.type = GroupType::kSelect;
      else if (t == "indirect")
        gm.type = GroupType::kIndirect;
      else if (t == "ff" || t == "fast_failover")
        gm.type = GroupType::kFastFailover;
      else
        return text_fail(kv.value_offset,
                         fmt::format("unknown group type '{}' (all, select, indirect, ff)", kv.value));
    } else {
      return text_fail(kv.key_offset, fmt::format("unknown group parameter '{}'", kv.key));
    }
  }
  if (!have_id && cmd != GroupModCommand::kDelete) return text_fail(0, "must specify group_id=N");
  if (!have_id) gm.group_id = group::kAll;
  for (size_t i = 0; i < buckets.size(); ++i) {
    size_t start = buckets[i] + 7;
    size_t end = i + 1 < buckets.size() ? buckets[i + 1] : text.size();
    auto b = parse_bucket(trim_sep(text.substr(start, end - start)), start);
    if (!b.ok()) return unexpected(b.error());
    if (gm.type == GroupType::kSelect && b->weight == 0) b->weight = 1;
    gm.buckets.push_back(std::move(*b));
  }
  return gm;
}

TResult<MeterMod> meter_mod(std::string_view text, MeterModCommand cmd) {
  MeterMod mm;
  mm.command = cmd;
  auto bands_at = find_keyword(text, "bands=");
  std::string_view head = text.substr(0, bands_at.empty() ? text.size() : bands_at[0]);
  auto pieces = text::split_pieces(head, 0);
  if (!pieces.ok()) return unexpected(pieces.error());
  bool have_id = false;
  for (const Piece& p : *pieces) {
    KeyValue kv = text::split_key_value(p);
    if (kv.key == "meter" || kv.key == "meter_id") {
      if (kv.value == "all" || kv.value == "ALL") {
        mm.meter_id = meter::kAll;
      } else {
        auto v = text::parse_uint_at(kv.value, kv.value_offset, 0xffffffff, "meter");
        if (!v.ok()) return unexpected(v.error());
        mm.meter_id = uint32_t(*v);
      }
      have_id = true;
    } else if (kv.key == "kbps" && !kv.has_value) {
      mm.flags |= meter_flags::kKbps;
    } else if (kv.key == "pktps" && !kv.has_value) {
      mm.flags |= meter_flags::kPktps;
    } else if (kv.key == "burst" && !kv.has_value) {
      mm.flags |= meter_flags::kBurst;
    } else if (kv.key == "stats" && !kv.has_value) {
      mm.flags |= meter_flags::kStats;
    } else {
      return text_fail(kv.key_offset, fmt::format("unknown meter parameter '{}'", kv.key));
    }
  }
  if (!have_id && cmd != MeterModCommand::kDelete) return text_fail(0, "must specify meter=N");
  if (!have_id) mm.meter_id = meter::kAll;
  if ((mm.flags & (meter_flags::kKbps | meter_flags::kPktps)) == 0 && cmd != MeterModCommand::kDelete)
    mm.flags |= meter_flags::kKbps;
  if (bands_at.empty()) return mm;
  size_t start = bands_at[0] + 6;
  auto bp = text::split_pieces(text.substr(start), start);
  if (!bp.ok()) return unexpected(bp.error());
  for (const Piece& p : *bp) {
    KeyValue kv = text::split_key_value(p);
    if (kv.key == "type") {
      MeterBand b;
      std::string t = text::lower(kv.value);
      if (t == "drop")
        b.type = MeterBandType::kDrop;
      else if (t == "dscp_remark")
        b.type = MeterBandType::kDscpRemark;
      else
        return text_fail(kv.value_offset,
                         fmt::format("unknown band type '{}' (drop, dscp_remark)", kv.value));
      mm.bands.push_back(b);
      continue;
    }
    if (mm.bands.empty())
      return text_fail(kv.key_offset, "a band must start with type=drop or type=dscp_remark");
    MeterBand& b = mm.bands.back();
    if (kv.key == "rate" || kv.key == "burst_size") {
      auto v = text::parse_uint_at(kv.value, kv.value_offset, 0xffffffff, kv.key);
      if (!v.ok()) return unexpected(v.error());
      (kv.key == "rate" ? b.rate : b.burst_size) = uint32_t(*v);
    } else if (kv.key == "prec_level") {
      auto v = text::parse_uint_at(kv.value, kv.value_offset, 255, kv.key);
      if (!v.ok()) return unexpected(v.error());
      b.prec_level = uint8_t(*v);
    } else {
      return text_fail(kv.key_offset, fmt::format("unknown band parameter '{}'", kv.key));
    }
  }
  return mm;
}

TResult<PacketOut> packet_out(std::string_view text, uint8_t version) {
  PacketOut po;
  auto acts = find_keyword(text, "actions=");
  std::string_view head = text.substr(0, acts.empty() ? text.size() : acts[0]);
  auto pieces = text::split_pieces(head, 0);
  if (!pieces.ok()) return unexpected(pieces.error());
  for (const Piece& p : *pieces) {
    KeyValue kv = text::split_key_value(p);
    if (kv.key == "in_port") {
      auto v = parse_port(kv.value);
      if (!v.ok()) return text_fail(kv.value_offset, v.error().message);
      po.in_port = *v;
    } else if (kv.key == "packet") {
      if (!from_hex(kv.value, po.data))
        return text_fail(kv.value_offset, "packet must be an even number of hex digits");
    } else if (kv.key == "buffer_id") {
      auto v = text::parse_uint_at(kv.value, kv.value_offset, 0xffffffff, "buffer_id");
      if (!v.ok()) return unexpected(v.error());
      po.buffer_id = uint32_t(*v);
    } else {
      return text_fail(kv.key_offset, fmt::format("unknown packet-out parameter '{}'", kv.key));
    }
  }
  if (acts.empty()) return text_fail(text.size(), "must specify actions=...");
  size_t start = acts[0] + 8;
  auto a = text::parse_actions_at(text.substr(start), start, {}, version);
  if (!a.ok()) return unexpected(a.error());
  po.actions = std::move(*a);
  return po;
}

}  // namespace

Result<GroupMod> parse_group_mod(std::string_view text, GroupModCommand cmd) {
  auto r = group_mod(text, cmd);
  if (!r.ok()) return unexpected(text::wrap_error("group", text, r.error()));
  return std::move(*r);
}

Result<MeterMod> parse_meter_mod(std::string_view text, MeterModCommand cmd) {
  auto r = meter_mod(text, cmd);
  if (!r.ok()) return unexpected(text::wrap_error("meter", text, r.error()));
  return std::move(*r);
}

Result<PacketOut> parse_packet_out(std::string_view text, uint8_t version) {
  auto r = packet_out(text, version);
  if (!r.ok()) return unexpected(text::wrap_error("packet-out", text, r.error()));
  return std::move(*r);
}

}  // namespace flowlab::of
