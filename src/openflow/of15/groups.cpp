// OpenFlow 1.5's group-mod and group desc (buckets with ids and properties)
// to 1.3/1.4's buckets (weight, watch_port, watch_group) and back (design in
// of15.h).
#include <fmt/format.h>

#include "openflow/constants.h"
#include "openflow/of15/of15.h"
#include "openflow/of15/wire.h"

namespace flowlab::of::of15 {
namespace {

constexpr size_t kGroupMod15Buckets = 24;  // header + command .. command_bucket_id
constexpr size_t kGroupMod14Buckets = 16;
constexpr size_t kGroupDesc15Buckets = 16;  // in one entry
constexpr size_t kGroupDesc14Buckets = 8;
constexpr size_t kBucket15Len = 8;  // len, action_array_len, bucket_id
constexpr size_t kBucket14Len = 16;
constexpr uint16_t kPropWeight = 0, kPropWatchPort = 1, kPropWatchGroup = 2;
constexpr uint16_t kInsertBucket = 3, kRemoveBucket = 5;
constexpr uint8_t kSelect = 1;
constexpr uint32_t kAny = 0xffffffff;

OfError bad_property(std::string msg, size_t at) {
  return OfError{ErrorType::kBadProperty, 0 /* OFPBPC_BAD_TYPE */, at, std::move(msg)};
}

// 1.5 buckets -> 1.3 buckets; `base` is the offset of `b` in the message; `ids` gets the bucket ids.
BasicStatus<OfError> buckets_to14(ByteSpan b, size_t base, uint8_t group_type, ByteWriter& w,
                                  std::vector<std::optional<uint32_t>>* ids) {
  for (size_t at = 0; at < b.size();) {
    if (b.size() - at < kBucket15Len) return unexpected(bad_len("bucket: header truncated", base + at));
    const size_t len = load_be16(&b[at]);
    const size_t alen = load_be16(&b[at + 2]);
    if (len < kBucket15Len || len > b.size() - at || alen > len - kBucket15Len)
      return unexpected(OfError::make(
          GroupModFailedCode::kBadBucket,
          fmt::format("bucket: length {} / action_array_len {} are wrong", len, alen), base + at));
    if (load_be32(&b[at + 4]) > kBucketMax)
      return unexpected(OfError::make(GroupModFailedCode::kBadBucket,
                                      fmt::format("bucket_id 0x{:x} is reserved", load_be32(&b[at + 4])),
                                      base + at + 4));
    if (ids) ids->push_back(load_be32(&b[at + 4]));
    auto translated = actions_to14(b.subspan(at + kBucket15Len, alen), base + at + kBucket15Len);
    if (!translated.ok()) return unexpected(std::move(translated.error()));
    const ByteSpan actions(*translated);
    if (kBucket14Len + actions.size() > 0xffff) return unexpected(bad_len("bucket too long", base + at));
    uint16_t weight = group_type == kSelect ? 1 : 0;
    uint32_t watch_port = kAny, watch_group = kAny;
    for (size_t p = at + kBucket15Len + alen; p < at + len;) {
      if (at + len - p < 4) return unexpected(bad_len("bucket property: truncated", base + p));
      const uint16_t type = load_be16(&b[p]);
      const size_t plen = load_be16(&b[p + 2]);
      if (plen < 4 || plen > at + len - p) return unexpected(bad_len("bucket property: length", base + p));
      if (type > kPropWatchGroup)
        return unexpected(
            bad_property(fmt::format("bucket property type {} is not supported", type), base + p));
      if (plen != 8)
        return unexpected(bad_len(fmt::format("bucket property length {} != 8", plen), base + p));
      if (type == kPropWeight) weight = load_be16(&b[p + 4]);
      if (type == kPropWatchPort) watch_port = load_be32(&b[p + 4]);
      if (type == kPropWatchGroup) watch_group = load_be32(&b[p + 4]);
      p += plen;
    }
    w.u16(uint16_t(kBucket14Len + actions.size()));
    w.u16(weight);
    w.u32(watch_port);
    w.u32(watch_group);
    w.zeros(4);
    w.bytes(actions);
    at += len;
  }
  return {};
}

// 1.3 buckets (as the 1.4 encoder wrote them) -> 1.5 buckets, with the ids in
// `ids` (a bucket without one: its index).
BasicStatus<OfError> buckets_to15(ByteSpan b, uint8_t group_type, ByteWriter& w,
                                  const std::vector<std::optional<uint32_t>>* ids) {
  for (size_t at = 0, i = 0; at < b.size(); ++i) {
    const uint32_t id = ids && i < ids->size() && (*ids)[i] ? *(*ids)[i] : uint32_t(i);
    const size_t len = b.size() - at >= 2 ? load_be16(&b[at]) : 0;
    if (len < kBucket14Len || len > b.size() - at) return unexpected(bad_len("bucket: length is wrong", at));
    const Bytes actions = actions_to15(b.subspan(at + kBucket14Len, len - kBucket14Len));
    const uint16_t weight = load_be16(&b[at + 2]);
    const uint32_t watch_port = load_be32(&b[at + 4]), watch_group = load_be32(&b[at + 8]);
    const size_t start = w.size();
    w.u16(0);
    w.u16(uint16_t(actions.size()));
    w.u32(id);
    w.bytes(actions);
    auto prop = [&](uint16_t type, uint32_t v, bool wide) {
      w.u16(type);
      w.u16(8);
      if (wide) {
        w.u32(v);
      } else {
        w.u16(uint16_t(v));
        w.zeros(2);
      }
    };
    if (group_type == kSelect) prop(kPropWeight, weight, false);
    if (watch_port != kAny) prop(kPropWatchPort, watch_port, true);
    if (watch_group != kAny) prop(kPropWatchGroup, watch_group, true);
    if (w.size() - start > 0xffff) return unexpected(bad_len("bucket too long", at));
    w.patch_u16(start, uint16_t(w.size() - start));
    at += len;
  }
  return {};
}

}  // namespace

Result<Bytes, OfError> group_mod_to14(ByteSpan wire, Extras* extras) {
  if (wire.size() < kGroupMod15Buckets) return unexpected(bad_len("group_mod: need 24 bytes", 0));
  const uint16_t command = load_be16(&wire[8]);
  if (command > kRemoveBucket || command == kRemoveBucket - 1)
    return unexpected(OfError::make(GroupModFailedCode::kBadCommand,
                                    fmt::format("group_mod: unknown command {}", command), 8));
  const size_t blen = load_be16(&wire[16]);
  if (blen > wire.size() - kGroupMod15Buckets)
    return unexpected(bad_len(fmt::format("group_mod: bucket_array_len {} runs past the message", blen), 16));
  if (kGroupMod15Buckets + blen != wire.size())
    return unexpected(
        bad_property("group_mod: group properties are not supported", kGroupMod15Buckets + blen));
  const bool edit = command == kInsertBucket || command == kRemoveBucket;
  if (edit && !extras)  // 1.4's wire alone cannot say it (a forwarded request, a bundled message)
    return unexpected(OfError::make(GroupModFailedCode::kBadCommand,
                                    "group_mod: insert/remove bucket has no OpenFlow 1.4 form", 8));
  Bytes out(wire.begin(), wire.begin() + kGroupMod14Buckets);
  if (edit) store_be16(&out[8], 1);  // OFPGC_MODIFY on 1.4's wire; the extras say what it is
  ByteWriter w(out);
  std::vector<std::optional<uint32_t>> ids;
  auto ok = buckets_to14(wire.subspan(kGroupMod15Buckets, blen), kGroupMod15Buckets, wire[10], w, &ids);
  if (!ok.ok()) return unexpected(std::move(ok.error()));
  if (extras) {
    extras->group_command = command;
    extras->command_bucket_id = load_be32(&wire[20]);
    extras->bucket_ids = {std::move(ids)};
  }
  return checked(std::move(out), kOf14);
}

Result<Bytes, OfError> group_mod_to15(ByteSpan wire, const Extras* extras) {
  if (wire.size() < kGroupMod14Buckets) return unexpected(bad_len("group_mod: short", 0));
  Bytes out(wire.begin(), wire.begin() + kGroupMod14Buckets);
  if (extras && extras->group_command) store_be16(&out[8], extras->group_command);
  ByteWriter w(out);
  w.u16(0);  // bucket_array_len, patched below
  w.zeros(2);
  w.u32(extras ? extras->command_bucket_id : kBucketAll);
  const auto* ids = extras && !extras->bucket_ids.empty() ? &extras->bucket_ids[0] : nullptr;
  auto ok = buckets_to15(wire.subspan(kGroupMod14Buckets), wire[10], w, ids);
  if (!ok.ok()) return unexpected(std::move(ok.error()));
  w.patch_u16(16, uint16_t(out.size() - kGroupMod15Buckets));
  return checked(std::move(out), kOf15);
}

Result<Bytes, OfError> group_desc_to14(ByteSpan wire, Extras* extras) {
  Bytes out(wire.begin(), wire.begin() + kMultipartBodyOff);
  ByteWriter w(out);
  for (size_t at = kMultipartBodyOff; at < wire.size();) {
    if (wire.size() - at < kGroupDesc15Buckets) return unexpected(bad_len("group desc: entry truncated", at));
    const size_t len = load_be16(&wire[at]);
    const size_t blen = load_be16(&wire[at + 8]);
    if (len < kGroupDesc15Buckets || len > wire.size() - at || blen > len - kGroupDesc15Buckets)
      return unexpected(
          bad_len(fmt::format("group desc: entry length {} / bucket_array_len {}", len, blen), at));
    if (kGroupDesc15Buckets + blen != len)
      return unexpected(
          bad_property("group desc: group properties are not supported", at + kGroupDesc15Buckets + blen));
    const size_t start = w.size();
    w.bytes(wire.subspan(at, kGroupDesc14Buckets));
    std::vector<std::optional<uint32_t>> ids;
    auto ok = buckets_to14(wire.subspan(at + kGroupDesc15Buckets, blen), at + kGroupDesc15Buckets,
                           wire[at + 2], w, &ids);
    if (!ok.ok()) return unexpected(std::move(ok.error()));
    if (extras) extras->bucket_ids.push_back(std::move(ids));
    if (w.size() - start > 0xffff) return unexpected(bad_len("group desc: entry too long", at));
    w.patch_u16(start, uint16_t(w.size() - start));
    at += len;
  }
  return checked(std::move(out), kOf14);
}

Result<Bytes, OfError> group_desc_to15(ByteSpan wire, const Extras* extras) {
  Bytes out(wire.begin(), wire.begin() + kMultipartBodyOff);
  ByteWriter w(out);
  for (size_t at = kMultipartBodyOff, g = 0; at < wire.size(); ++g) {
    const size_t len = wire.size() - at >= 2 ? load_be16(&wire[at]) : 0;
    if (len < kGroupDesc14Buckets || len > wire.size() - at)
      return unexpected(bad_len("group desc: entry length is wrong", at));
    const size_t start = w.size();
    w.bytes(wire.subspan(at, kGroupDesc14Buckets));
    w.u16(0);  // bucket_array_len, patched below
    w.zeros(6);
    const auto* ids = extras && g < extras->bucket_ids.size() ? &extras->bucket_ids[g] : nullptr;
    auto ok =
        buckets_to15(wire.subspan(at + kGroupDesc14Buckets, len - kGroupDesc14Buckets), wire[at + 2], w, ids);
    if (!ok.ok()) return unexpected(std::move(ok.error()));
    if (w.size() - start > 0xffff) return unexpected(bad_len("group desc: entry too long", at));
    w.patch_u16(start, uint16_t(w.size() - start));
    w.patch_u16(start + 8, uint16_t(w.size() - start - kGroupDesc15Buckets));
    at += len;
  }
  return checked(std::move(out), kOf15);
}

}  // namespace flowlab::of::of15
