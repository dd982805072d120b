// Version dispatch for the codecs, OFPT_ERROR replies and version negotiation
// (OF1.3 §6.3.1: hello version bitmaps, else the lower of the two header versions).
#include "openflow/codec.h"

#include <algorithm>

namespace flowlab::of {

Result<Message, OfError> decode_message(ByteSpan wire) {
  if (wire.size() < kHeaderLen)
    return unexpected(
        OfError::make(BadRequestCode::kBadLen, "message shorter than the 8-byte OpenFlow header"));
  switch (wire[0]) {
    case kOf10:
      return decode_of10(wire);
    case kOf13:
      return decode_of13(wire);
    case kOf14:
      return decode_of14(wire);
    case kOf15:
      return decode_of15(wire);
    default:
      return unexpected(OfError::make(BadRequestCode::kBadVersion,
                                      "unsupported OpenFlow version " + std::to_string(wire[0])));
  }
}

Result<Bytes, OfError> encode_message(const Message& msg) {
  switch (msg.version) {
    case kOf10:
      return encode_of10(msg);
    case kOf13:
      return encode_of13(msg);
    case kOf14:
      return encode_of14(msg);
    case kOf15:
      return encode_of15(msg);
    default:
      return unexpected(OfError::make(BadRequestCode::kBadVersion,
                                      "cannot encode OpenFlow version " + std::to_string(msg.version)));
  }
}

BasicStatus<OfError> encode_message_to(const Message& msg, Bytes& out) {
  switch (msg.version) {
    case kOf10:
      return encode_of10_to(msg, out);
    case kOf13:
      return encode_of13_to(msg, out);
    case kOf14:
      return encode_of14_to(msg, out);
    case kOf15:
      return encode_of15_to(msg, out);
    default:
      return unexpected(OfError::make(BadRequestCode::kBadVersion,
                                      "cannot encode OpenFlow version " + std::to_string(msg.version)));
  }
}

Message make_error_reply(const OfError& err, ByteSpan request) {
  uint8_t version = !request.empty() && (request[0] == kOf10 || request[0] == kOf14 || request[0] == kOf15)
                        ? request[0]
                        : kOf13;
  uint32_t xid = request.size() >= kHeaderLen ? load_be32(&request[4]) : 0;
  ErrorMsg e;
  if (version == kOf10) {
    error_to_of10(err.type, err.code, e.type, e.code);
  } else {
    e.type = static_cast<uint16_t>(err.type);
    e.code = err.code;
  }
  size_t n = std::min<size_t>(request.size(), 64);
  e.data.assign(request.begin(), request.begin() + static_cast<std::ptrdiff_t>(n));
  return make_message(version, xid, std::move(e));
}

uint32_t version_bitmap(std::initializer_list<uint8_t> versions) {
  uint32_t bm = 0;
  for (uint8_t v : versions)
    if (v < 32) bm |= uint32_t{1} << v;
  return bm;
}

Message make_hello(uint8_t highest_version, uint32_t bitmap, uint32_t xid) {
  Hello h;
  // OF1.0 hellos carry no elements; from OF1.3 on, announce every version we speak.
  if (highest_version >= kOf13 && bitmap != 0) {
    HelloElement el;
    el.type = static_cast<uint16_t>(HelloElemType::kVersionBitmap);
    el.bitmaps.push_back(bitmap);
    h.elements.push_back(std::move(el));
  }
  return make_message(highest_version, xid, std::move(h));
}

namespace {
int highest_bit(uint64_t bm) {
  for (int i = 63; i >= 0; --i)
    if (bm >> i & 1) return i;
  return -1;
}
}  // namespace

uint8_t negotiate_version(uint32_t our_bitmap, const Message& their_hello) {
  if (their_hello.is<Hello>()) {
    for (const HelloElement& el : their_hello.as<Hello>().elements) {
      if (el.type != static_cast<uint16_t>(HelloElemType::kVersionBitmap) || el.bitmaps.empty()) continue;
      // Only the first word can hold versions we speak (bits 0..31).
      int v = highest_bit(our_bitmap & el.bitmaps[0]);
      return v > 0 ? static_cast<uint8_t>(v) : 0;
    }
  }
  int ours = highest_bit(our_bitmap);
  if (ours <= 0) return 0;
  int v = std::min<int>(ours, their_hello.version);
  return v > 0 && (our_bitmap >> v & 1) ? static_cast<uint8_t>(v) : 0;
}

}  // namespace flowlab::of
