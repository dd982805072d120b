// Private helpers shared by the flow-text parser and printer (not a public API):
// the token splitter, per-field value syntax, and error values with a column.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "openflow/message.h"

namespace flowlab::of::text {

// An error at a 0-based offset into the whole text being parsed.
struct TextError {
  std::string what;
  size_t offset = 0;
};
template <typename T>
using TResult = Result<T, TextError>;
inline Unexpected<TextError> text_fail(size_t offset, std::string what) {
  return {TextError{std::move(what), offset}};
}
// `bad flow "TEXT": WHAT at column N` (column is 1-based).
Error wrap_error(std::string_view kind, std::string_view text, const TextError& e);

// One top-level piece of a comma/space separated list ("key=value", "name:arg",
// "name(args)"); `offset` is where it starts in the whole text.
struct Piece {
  std::string_view text;
  size_t offset = 0;
};
// Splits at ',' and blanks outside parentheses; empty pieces are dropped.
// Fails on unbalanced parentheses.
TResult<std::vector<Piece>> split_pieces(std::string_view s, size_t base);

// "key=value" -> key, value (value_offset is where value starts).
struct KeyValue {
  std::string_view key;
  std::string_view value;
  bool has_value = false;
  size_t key_offset = 0;
  size_t value_offset = 0;
};
KeyValue split_key_value(const Piece& p, char sep = '=');

std::string lower(std::string_view s);

// Unsigned integer in decimal or 0x-hex, at most `max`.
std::optional<uint64_t> parse_uint(std::string_view s, uint64_t max = UINT64_MAX);
TResult<uint64_t> parse_uint_at(std::string_view s, size_t offset, uint64_t max, std::string_view what);

bool prints_hex(OxmId id);  // set_field prints 0x.. (metadata, tun_id, ipv6_label, ...)

// Direct text names (OXM, ovs-ofctl and OF1.0 names) of fields whose meaning does not
// depend on the rest of the match. Context-dependent names (nw_src, tp_dst,
// icmp_type, dl_vlan, vlan_tci, nw_tos, ...) are handled by the parser itself.
std::optional<OxmId> field_by_name(std::string_view name);

// Parses "VALUE" or "VALUE/MASK" for a basic field. Masks are accepted only for
// maskable fields; value bits outside the mask are cleared and an all-ones mask
// dropped, as ovs-ofctl does. `offset` is where `s` starts in the whole text.
TResult<OxmField> parse_field(OxmId id, std::string_view s, size_t offset, bool allow_mask);

// Helpers for building basic fields of the right width.
OxmField make_field(OxmId id, uint64_t value);
OxmField make_field_masked(OxmId id, uint64_t value, uint64_t mask);

// Sorts a match into canonical order (basic fields by id, others after).
void canonicalize(Match& m);

// 'hex' prints like C's %#x (0 -> "0").
std::string hex_alt(uint64_t v);

// Value text of one field ("10.0.0.1", "00:11:..", "80", "0x5"); masks in hex.
std::string format_bytes_value(OxmId id, const Bytes& v, bool is_mask);
// Address-like value with its mask, CIDR length when the mask is a prefix.
std::string format_masked_addr(OxmId id, const OxmField& f);

// tcp_flags.cpp: `+syn-ack`, `syn|ack` or VALUE[/MASK]; printed as ovs-ofctl prints it.
TResult<OxmField> parse_tcp_flags(std::string_view s, size_t offset);
std::string format_tcp_flags(const OxmField& f);

// copy_field.cpp: `move:SRC[bits]->DST[bits]` (the argument after "move:") and its text.
TResult<Action> parse_copy_field(std::string_view arg, size_t offset);
std::string format_copy_field(const CopyField& c);

// Action/instruction text starting at `base` in the whole text.
TResult<InstructionList> parse_instructions_at(std::string_view s, size_t base, const Match& match,
                                               uint8_t version);
TResult<ActionList> parse_actions_at(std::string_view s, size_t base, const Match& match, uint8_t version);

}  // namespace flowlab::of::text
