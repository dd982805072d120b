// SyncClient::send_bundle: flow-mods in one ONF bundle (open, adds, commit).
#include <fmt/format.h>

#include <algorithm>

#include "channel/sync_client.h"
#include "openflow/codec.h"
#include "openflow/of13/bundle.h"

namespace flowlab::channel {

Status SyncClient::send_bundle(const NextMessage& next, uint16_t flags, size_t window) {
  using of::BundleCtrlType;
  if (version_ < of::kOf13)
    return fail(
        "{}: bundles need OpenFlow 1.3 (the ONF extension) or 1.4; the switch negotiated version {:#x}",
        peer_, version_);
  const uint32_t id = next_xid();  // any id not open on this connection
  auto control = [&](BundleCtrlType t) {
    return of::make_message(version_, 0, of::encode_bundle_control({id, t, flags, {}}));
  };
  auto expect = [&](const std::vector<of::Message>& r, BundleCtrlType t) -> Status {
    const auto* e = r.empty() ? nullptr : std::get_if<of::ExperimenterMsg>(&r.back().body);
    auto c = e ? of::decode_bundle_control(*e)
               : Result<of::BundleControl, of::BundleError>(unexpected(of::BundleError{}));
    if (!c.ok() || c->type != t || c->bundle_id != id)
      return fail("{}: expected a bundle {} for bundle {}", peer_, of::to_string(t), id);
    return ok_status();
  };
  FLOWLAB_ASSIGN_OR_RETURN(auto opened, transact(control(BundleCtrlType::kOpenRequest)));
  FLOWLAB_TRY(expect(opened, BundleCtrlType::kOpenReply));

  std::vector<uint32_t> add_xids;  // increasing: message k (1-based) is add_xids[k-1]
  auto wrap = [&](Bytes& wire) -> Result<std::optional<uint32_t>> {
    FLOWLAB_ASSIGN_OR_RETURN(std::optional<of::Message> m, next());
    if (!m) return std::optional<uint32_t>();
    m->version = version_;
    m->xid = next_xid();
    if (auto st = of::encode_bundle_add_to(id, flags, *m, wire); !st.ok())
      return fail("cannot encode {} for a bundle: {}", of::to_string(m->type()), st.error().to_string());
    add_xids.push_back(m->xid);
    return std::optional<uint32_t>(m->xid);
  };
  if (Status st = stream_wire_with_barriers(wrap, window); !st.ok()) {
    (void)send(control(BundleCtrlType::kDiscardRequest));  // best effort: the connection's close drops it too
    return fail("{}; bundle discarded, nothing applied", st.error().message);
  }

  FLOWLAB_ASSIGN_OR_RETURN(uint32_t commit_xid, send(control(BundleCtrlType::kCommitRequest)));
  std::string inner;  // the error of the flow-mod that failed, sent before the commit's
  for (;;) {
    FLOWLAB_ASSIGN_OR_RETURN(of::Message m, receive());
    if (m.is<of::ErrorMsg>() && m.xid != commit_xid) {
      auto it = std::lower_bound(add_xids.begin(), add_xids.end(), m.xid);
      if (it != add_xids.end() && *it == m.xid)
        inner = fmt::format("{} (for message {} of {}); ", error_reply(m).message, it - add_xids.begin() + 1,
                            add_xids.size());
      continue;
    }
    if (m.xid != commit_xid) continue;
    if (m.is<of::ErrorMsg>())
      return fail("bundle refused, nothing applied: {}{}", inner, error_reply(m).message);
    return expect({m}, BundleCtrlType::kCommitReply);
  }
}

}  // namespace flowlab::channel
