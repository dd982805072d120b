// libFuzzer: the controller cluster's keys and values as read back from etcd
// (src/cluster/view.h), then the balance and the status drawn from them, and
// the same lines as the REST flow store's changes (src/cluster/flow_store.h),
// whose OpenFlow messages are decoded as a new master replays them.
// Input: lines "KEY\tVALUE\tLEASE\tCREATE_REVISION"; anything else is a value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cluster/balance.h"
#include "cluster/flow_store.h"
#include "cluster/status.h"
#include "cluster/view.h"
#include "openflow/codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  using namespace flowlab::cluster;
  (void)decode_node(text);
  (void)decode_candidate(text);
  const std::string root = cluster_root("f");
  std::vector<flowlab::coord::KeyValue> kvs;
  size_t pos = 0;
  while (pos < text.size() && kvs.size() < 64) {
    size_t end = text.find('\n', pos);
    std::string_view line = text.substr(pos, end == std::string_view::npos ? text.npos : end - pos);
    pos = end == std::string_view::npos ? text.size() : end + 1;
    flowlab::coord::KeyValue kv;
    size_t f = 0;
    for (int field = 0; field < 4; ++field) {
      size_t tab = line.find('\t', f);
      std::string part(line.substr(f, tab == std::string_view::npos ? line.npos : tab - f));
      if (field == 0) kv.key = root + part;
      if (field == 1) kv.value = part;
      if (field == 2) kv.lease = std::strtoll(part.c_str(), nullptr, 10);
      if (field == 3) kv.create_revision = std::strtoll(part.c_str(), nullptr, 10);
      if (tab == std::string_view::npos) break;
      f = tab + 1;
    }
    kvs.push_back(std::move(kv));
  }
  const std::string flows = flows_root("f");
  for (auto kv : kvs) {
    kv.key = flows + kv.key.substr(root.size());
    if (auto c = decode_change(flows, kv)) (void)flowlab::of::decode_message(c->message);
  }
  auto view = build_view(root, kvs, 1);
  (void)preferred_masters(view);
  (void)status_text(view, "f");
  return 0;
}
