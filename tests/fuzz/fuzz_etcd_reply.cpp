// libFuzzer: etcd's JSON gateway replies (src/coord/etcd_json.h), every
// decoder and the watch stream splitter. Bad input must be an error value.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "coord/etcd_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  using namespace flowlab::coord;
  (void)decode_range(text);
  (void)decode_put(text);
  (void)decode_delete(text);
  (void)decode_txn(text);
  (void)decode_lease_grant(text);
  (void)decode_lease_keepalive(text);
  (void)decode_lease_list(text);
  (void)decode_watch_message(text);
  (void)decode_member_status(text);
  (void)reply_error(text);
  (void)base64_decode(text);
  std::string buf(text);
  for (const auto& obj : split_json_objects(buf)) (void)decode_watch_message(obj);
  return 0;
}
