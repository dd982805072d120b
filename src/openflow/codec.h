// Encoding and decoding of whole OpenFlow messages, dispatching on the version byte.
//
// decode_message() takes exactly one message (header included, as framed by
// StreamFramer) and never reads past it; every malformed input returns an
// OfError with the OFPT_ERROR type/code a switch would answer with and the byte
// offset of the problem. encode_message() writes the message in msg.version's
// wire format; a message or field that version cannot express is an error.
#pragma once

#include <cstdint>
#include <string>

#include "core/bytes.h"
#include "core/result.h"
#include "openflow/errors.h"
#include "openflow/message.h"

namespace flowlab::of {

Result<Message, OfError> decode_message(ByteSpan wire);
Result<Bytes, OfError> encode_message(const Message& msg);
// The same, appended to `out` (a sender batching many messages in one
// buffer); on an error `out` is left as it was.
BasicStatus<OfError> encode_message_to(const Message& msg, Bytes& out);

// Version-specific entry points (used by decode/encode_message and tests).
Result<Message, OfError> decode_of13(ByteSpan wire);
Result<Bytes, OfError> encode_of13(const Message& msg);
BasicStatus<OfError> encode_of13_to(const Message& msg, Bytes& out);
// OF1.4 onto the shared model (openflow/of14/bridge.cpp).
Result<Message, OfError> decode_of14(ByteSpan wire);
Result<Bytes, OfError> encode_of14(const Message& msg);
BasicStatus<OfError> encode_of14_to(const Message& msg, Bytes& out);
// OF1.5 through OF1.4's codec, wire to wire (openflow/of15/codec.cpp).
Result<Message, OfError> decode_of15(ByteSpan wire);
Result<Bytes, OfError> encode_of15(const Message& msg);
BasicStatus<OfError> encode_of15_to(const Message& msg, Bytes& out);
// One whole message's wire between 1.5 (version 6) and 1.4 (version 5).
Result<Bytes, OfError> of15_wire_to_of14(ByteSpan wire);
Result<Bytes, OfError> of14_wire_to_of15(ByteSpan wire);
Result<Message, OfError> decode_of10(ByteSpan wire);
Result<Bytes, OfError> encode_of10(const Message& msg);
BasicStatus<OfError> encode_of10_to(const Message& msg, Bytes& out);

// Sub-structure codecs of OF1.3 (exposed for the flow-text printer, tests and fuzzing).
Result<Match, OfError> decode_oxm_match(ByteSpan body);  // the OXM TLV list only
void encode_oxm_match(const Match& m, ByteWriter& w);    // the OXM TLV list only

// Builds the OFPT_ERROR reply to `request` (first 64 bytes of it as data) in the
// request's version, translating the error numbering for OF1.0.
Message make_error_reply(const OfError& err, ByteSpan request);

// ---- version negotiation ----
// The bitmap of versions we speak (bit n = wire version n).
uint32_t version_bitmap(std::initializer_list<uint8_t> versions);
Message make_hello(uint8_t highest_version, uint32_t bitmap, uint32_t xid = 0);
// Per OF1.3 6.3.1: with bitmaps on both sides the highest common bit; otherwise
// min(our highest, their header version) if we support it. 0 = incompatible.
uint8_t negotiate_version(uint32_t our_bitmap, const Message& their_hello);

}  // namespace flowlab::of
