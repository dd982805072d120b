// OpenFlow 1.5 flow monitoring: the request is 1.4's; in the reply's full
// updates (INITIAL .. MODIFIED) the instructions are translated as a
// flow-mod's are (meter action <-> meter instruction). Abbreviated and
// paused updates pass as they are; malformed lengths are copied for the 1.4
// decoder to report.
#include "openflow/of15/of15.h"
#include "openflow/of15/wire.h"

namespace flowlab::of::of15 {
namespace {

constexpr size_t kUpdateFullMatch = 24;  // length .. cookie
constexpr uint16_t kLastFullEvent = 3;   // OFPFME_MODIFIED

// Each full update of the reply with its instructions run through `translate`.
template <typename Translate>
Result<Bytes, OfError> translate_updates(ByteSpan wire, uint8_t version, Translate translate) {
  Bytes out(wire.begin(), wire.begin() + kMultipartBodyOff);
  ByteWriter w(out);
  for (size_t at = kMultipartBodyOff; at < wire.size();) {
    const size_t len = wire.size() - at >= 4 ? load_be16(&wire[at]) : 0;
    const size_t mlen = len >= kUpdateFullMatch && len <= wire.size() - at
                            ? match_span(wire.subspan(at, len), kUpdateFullMatch)
                            : 0;
    if (len < 4 || len > wire.size() - at || load_be16(&wire[at + 2]) > kLastFullEvent || mlen == 0) {
      w.bytes(wire.subspan(at, std::min(std::max<size_t>(len, 4), wire.size() - at)));
      at += std::max<size_t>(len, 4);
      continue;
    }
    const size_t ins = kUpdateFullMatch + mlen;
    auto instrs = translate(wire.subspan(at + ins, len - ins), at + ins);
    if (!instrs.ok()) return unexpected(std::move(instrs.error()));
    const size_t start = w.size();
    w.bytes(wire.subspan(at, ins));
    w.bytes(*instrs);
    if (w.size() - start > 0xffff) return unexpected(bad_len("flow update: too long", at));
    w.patch_u16(start, uint16_t(w.size() - start));
    at += len;
  }
  return checked(std::move(out), version);
}

}  // namespace

Result<Bytes, OfError> flow_monitor_reply_to14(ByteSpan wire) {
  return translate_updates(wire, kOf14,
                           [](ByteSpan instrs, size_t base) { return instructions_to14(instrs, base); });
}

Result<Bytes, OfError> flow_monitor_reply_to15(ByteSpan wire) {
  return translate_updates(wire, kOf15, [](ByteSpan instrs, size_t) -> Result<Bytes, OfError> {
    return instructions_to15(instrs);
  });
}

}  // namespace flowlab::of::of15
