// Private helpers shared by the OF1.3 codec files (of13_*.cpp); not a public API.
//
// Decoding works on a Cursor: a bounds-checked ByteReader over a sub-span of the
// message plus the offset of that sub-span in the message, so every OfError
// carries the byte offset of the problem counted from the message's first byte.
// Variable-length structures (actions, instructions, buckets, bands, properties)
// are decoded from a sub-cursor limited to their declared length, so a bad inner
// length can never make the decoder read another structure's bytes.
#pragma once

#include <string>

#include "core/bytes.h"
#include "core/result.h"
#include "openflow/codec.h"
#include "openflow/errors.h"
#include "openflow/message.h"

namespace flowlab::of::of13 {

using DecodeStatus = BasicStatus<OfError>;

class Cursor {
 public:
  Cursor(ByteSpan s, size_t base) : r_(s), base_(base) {}

  ByteReader& r() { return r_; }
  size_t at() const { return base_ + r_.offset(); }
  size_t remaining() const { return r_.remaining(); }
  bool empty() const { return r_.empty(); }
  ByteSpan rest() const { return r_.rest(); }
  // Takes the next n bytes as their own cursor (caller checked n <= remaining()).
  Cursor take(size_t n) {
    size_t off = at();
    ByteSpan s;
    r_.bytes(n, s);
    return Cursor(s, off);
  }

 private:
  ByteReader r_;
  size_t base_;
};

// OFPBRC_BAD_LEN at the cursor's position: "<what>: need N bytes, have M".
inline OfError short_error(const Cursor& c, std::string_view what, size_t need) {
  return OfError::make(
      BadRequestCode::kBadLen,
      std::string(what) + ": need " + std::to_string(need) + " bytes, have " + std::to_string(c.remaining()),
      c.at());
}

// Bytes of padding that bring `len` to a multiple of 8.
// A body whose remaining bytes do not fit the structure `what` (OFPBRC_BAD_LEN).
inline OfError bad_len(const Cursor& c, std::string_view what) {
  return OfError::make(BadRequestCode::kBadLen,
                       fmt::format("{}: {} bytes do not fit the structure", what, c.remaining()), c.at());
}

inline size_t pad8(size_t len) { return (8 - len % 8) % 8; }

// ---- of13_match.cpp ----
// ofp_match (type OXM, length, TLVs, padding to 8).
Result<Match, OfError> decode_match(Cursor& c);
void encode_match(const Match& m, ByteWriter& w);
// One OXM TLV (header + payload).
Result<OxmField, OfError> decode_oxm(Cursor& c);
void encode_oxm(const OxmField& f, ByteWriter& w);

// ---- of13_actions.cpp ----
Result<ActionList, OfError> decode_actions(Cursor c);  // consumes the whole cursor
Result<InstructionList, OfError> decode_instructions(Cursor c);
BasicStatus<OfError> encode_actions(const ActionList& a, ByteWriter& w);
BasicStatus<OfError> encode_instructions(const InstructionList& i, ByteWriter& w);

// ---- of13_structs.cpp ----
Result<PortDesc, OfError> decode_port(Cursor& c);  // 64-byte ofp_port
void encode_port(const PortDesc& p, ByteWriter& w);
Result<std::vector<Bucket>, OfError> decode_buckets(Cursor c);
BasicStatus<OfError> encode_buckets(const std::vector<Bucket>& b, ByteWriter& w);
Result<std::vector<MeterBand>, OfError> decode_bands(Cursor c);
BasicStatus<OfError> encode_bands(const std::vector<MeterBand>& b, ByteWriter& w);
Result<std::vector<TableFeatures>, OfError> decode_table_features(Cursor c);
void encode_table_features(const std::vector<TableFeatures>& t, ByteWriter& w);

// ---- of13_multipart.cpp ----
Result<MultipartRequest, OfError> decode_multipart_request(Cursor& c);
Result<MultipartReply, OfError> decode_multipart_reply(Cursor& c);
BasicStatus<OfError> encode_multipart_request(const MultipartRequest& m, ByteWriter& w);
BasicStatus<OfError> encode_multipart_reply(const MultipartReply& m, ByteWriter& w);

}  // namespace flowlab::of::of13
