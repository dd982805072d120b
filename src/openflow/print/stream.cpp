// ofp-parse / ofp-print: decode a buffer of concatenated OpenFlow messages and
// print each; the first malformed one stops the walk with an error that names
// the message (index and type) and the byte offset of the problem.
#include <fmt/format.h>

#include "openflow/codec.h"
#include "openflow/of10/names.h"
#include "openflow/print/print.h"

namespace flowlab::of {
namespace {

std::string type_name(uint8_t version, uint8_t type) {
  if (version == kOf10) {
    if (const char* name = of10::type_name(type)) return name;
  } else if (version == kOf13 && type <= static_cast<uint8_t>(MsgType::kMeterMod)) {
    return std::string(to_string(static_cast<MsgType>(type)));
  }
  return fmt::format("type {}", type);
}

}  // namespace

Status format_message_stream(ByteSpan data, std::string& out) {
  size_t off = 0;
  for (size_t index = 1; off < data.size(); ++index) {
    size_t left = data.size() - off;
    if (left < kHeaderLen)
      return fail("message {} at byte offset {}: truncated header ({} bytes, need 8)", index, off, left);
    uint8_t version = data[off];
    uint8_t type = data[off + 1];
    uint16_t len = load_be16(&data[off + 2]);
    std::string name = type_name(version, type);
    if (len < kHeaderLen)
      return fail("message {} ({}) at byte offset {}: header length {} < 8", index, name, off, len);
    if (len > left)
      return fail("message {} ({}) at byte offset {}: header length {} but only {} bytes left", index, name,
                  off, len, left);
    auto m = decode_message(data.subspan(off, len));
    if (!m.ok())
      return fail("message {} ({}) at byte offset {}: {}", index, name, off + m.error().offset,
                  m.error().to_string());
    out += format_message(*m);
    off += len;
  }
  if (data.empty()) return fail("no OpenFlow message: the input is empty");
  return ok_status();
}

}  // namespace flowlab::of
