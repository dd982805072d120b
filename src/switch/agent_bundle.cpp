// The agent's bundles (ONF extension for OF1.3, openflow/of13/bundle.h, and
// OF1.4's standard bundles, which the codec hands over as the same messages):
// open, add, close, commit, discard.
//
// A bundle belongs to the connection that opened it and dies with it. Adds
// are checked as they arrive (the inner message decodes, is a flow-mod, has
// the add's xid, carries no buffer id; the bundle is open and has the same
// flags) and prepared (Datapath::prepare_flow_mod: the checks that do not
// depend on the tables, an add's entry built), so the commit, which the
// client waits for, has only the tables' part left; the wire bytes are kept
// too, for an error to quote. Nothing reaches the tables before commit. A
// commit applies the flow-mods in order through Datapath::commit_flow_mods:
// all of them, published as one version, or, when one fails (a check made at
// add time fails here, at its place), none (its error goes out with the inner
// xid, then OFPBFC_MSG_FAILED for the commit). Either way the bundle is gone
// after it. Every bundle is atomic and ordered here, so both flags are
// accepted.
#include <fmt/format.h>

#include "core/clock.h"
#include "core/log.h"
#include "openflow/codec.h"
#include "openflow/of13/flowlab_trace.h"
#include "switch/agent.h"

namespace flowlab::sw {

using of::BundleCtrlType;
using of::BundleFailedCode;

constexpr size_t kBundleCommitLogged = 10'000;  // flow-mods: bigger commits log at info

void Agent::send_bundle_error(Peer& p, BundleFailedCode code, ByteSpan raw, std::string_view why) {
  ++counters_.errors_sent;
  log::debug("switch", "{}: bundle error {}: {}", p.name, of::to_string(code), why);
  of::Message m = of::make_bundle_error(code, raw);
  m.version = p.version;  // OF1.4: sent as OFPET_BUNDLE_FAILED (codec.h)
  p.send(std::move(m));
}

void Agent::drop_bundles(Peer& p) {
  for (const auto& [id, b] : p.bundles) bundle_bytes_ -= b.bytes;
  p.bundles.clear();
}

void Agent::on_experimenter(Peer& p, const of::Message& m, ByteSpan raw) {
  const auto& e = m.as<of::ExperimenterMsg>();
  if (p.version == of::kOf13 && e.experimenter == of::kFlowlabExperimenter) return on_trace(p, m, raw);
  // OF1.4's standard bundle messages arrive here as the ONF extension's (codec.h).
  if (p.version < of::kOf13 || e.experimenter != of::kOnfExperimenter) {
    send_error(p,
               of::OfError::make(of::BadRequestCode::kBadExperimenter,
                                 fmt::format("experimenter {:#x} is not supported", e.experimenter)),
               raw);
    return;
  }
  if (of::is_bundle_control(e)) {
    auto c = of::decode_bundle_control(e);
    if (!c.ok()) return send_bundle_error(p, c.error().code, raw, c.error().message);
    on_bundle_control(p, m.xid, *c, raw);
  } else if (of::is_bundle_add(e)) {
    auto a = of::decode_bundle_add_view(e);
    if (!a.ok()) return send_bundle_error(p, a.error().code, raw, a.error().message);
    on_bundle_add(p, m.xid, *a, raw);
  } else {
    send_error(p,
               of::OfError::make(of::BadRequestCode::kBadExpType,
                                 fmt::format("ONF experimenter type {} is not supported", e.exp_type)),
               raw);
  }
}

void Agent::on_bundle_control(Peer& p, uint32_t xid, const of::BundleControl& c, ByteSpan raw) {
  auto answer = [&](BundleCtrlType t) {
    of::BundleControl r;
    r.bundle_id = c.bundle_id;
    r.type = t;
    r.flags = c.flags;
    reply(p, xid, of::encode_bundle_control(r));
  };
  auto it = p.bundles.find(c.bundle_id);
  switch (c.type) {
    case BundleCtrlType::kOpenRequest:
      if (it != p.bundles.end())
        return send_bundle_error(p, BundleFailedCode::kBundleExist, raw, "bundle is already open");
      if (p.bundles.size() >= kMaxBundlesPerPeer)
        return send_bundle_error(p, BundleFailedCode::kOutOfBundles, raw, "too many open bundles");
      p.bundles[c.bundle_id].flags = c.flags;
      return answer(BundleCtrlType::kOpenReply);
    case BundleCtrlType::kCloseRequest:
      if (it == p.bundles.end()) return send_bundle_error(p, BundleFailedCode::kBadId, raw, "no such bundle");
      if (it->second.closed)
        return send_bundle_error(p, BundleFailedCode::kBundleClosed, raw, "bundle is already closed");
      if (it->second.flags != c.flags)
        return send_bundle_error(p, BundleFailedCode::kBadFlags, raw, "flags differ from the open's");
      it->second.closed = true;
      return answer(BundleCtrlType::kCloseReply);
    case BundleCtrlType::kCommitRequest:
      if (it == p.bundles.end()) return send_bundle_error(p, BundleFailedCode::kBadId, raw, "no such bundle");
      if (it->second.flags != c.flags)
        return send_bundle_error(p, BundleFailedCode::kBadFlags, raw, "flags differ from the open's");
      if (!writable(p, raw)) return;
      commit_bundle(p, xid, c.bundle_id, it->second, raw);
      return;
    case BundleCtrlType::kDiscardRequest:
      if (it == p.bundles.end()) return send_bundle_error(p, BundleFailedCode::kBadId, raw, "no such bundle");
      bundle_bytes_ -= it->second.bytes;
      p.bundles.erase(it);
      return answer(BundleCtrlType::kDiscardReply);
    default:
      return send_bundle_error(p, BundleFailedCode::kBadType, raw,
                               fmt::format("{} is not a request", of::to_string(c.type)));
  }
}

void Agent::on_bundle_add(Peer& p, uint32_t xid, const of::BundleAddView& a, ByteSpan raw) {
  if (!writable(p, raw)) return;
  auto it = p.bundles.find(a.bundle_id);
  if (it == p.bundles.end()) {  // an add opens the bundle it names (OF1.4 7.3.9.2)
    if (p.bundles.size() >= kMaxBundlesPerPeer)
      return send_bundle_error(p, BundleFailedCode::kOutOfBundles, raw, "too many open bundles");
    it = p.bundles.emplace(a.bundle_id, Peer::Bundle{a.flags, false, {}, {}, 0}).first;
  }
  Peer::Bundle& b = it->second;
  if (b.closed) return send_bundle_error(p, BundleFailedCode::kBundleClosed, raw, "bundle is closed");
  if (b.flags != a.flags)
    return send_bundle_error(p, BundleFailedCode::kBadFlags, raw, "flags differ from the bundle's");
  if (load_be32(&a.message[4]) != xid)
    return send_bundle_error(p, BundleFailedCode::kMsgBadXid, raw, "inner xid differs from the add's");
  // At 1.5 the codec hands the inner message over as its 1.4 wire (version 5).
  const uint8_t inner_version = p.version == of::kOf15 ? of::kOf14 : p.version;
  if (a.message[0] != inner_version)
    return send_bundle_error(
        p, BundleFailedCode::kMsgUnsup, raw,
        fmt::format("inner message version {} is not the connection's {}", a.message[0], p.version));
  auto inner = of::decode_message(a.message);
  if (!inner.ok()) return send_error(p, inner.error(), a.message);
  if (!inner->is<of::FlowMod>())
    return send_bundle_error(p, BundleFailedCode::kMsgUnsup, raw,
                             fmt::format("{} in a bundle: only flow-mods are", of::to_string(inner->type())));
  if (inner->as<of::FlowMod>().buffer_id != of::kNoBuffer)
    return send_bundle_error(p, BundleFailedCode::kMsgUnsup, raw, "a bundled flow-mod cannot name a buffer");
  const size_t bytes = a.message.size() + kPreparedFlowModBytes;
  if (b.bytes + bytes > kMaxBundleBytes || bundle_bytes_ + bytes > kMaxBundleBytesTotal)
    return send_bundle_error(p, BundleFailedCode::kMsgTooMany, raw, "bundle memory limit reached");
  b.wire.insert(b.wire.end(), a.message.begin(), a.message.end());
  b.mods.push_back(dp_.prepare_flow_mod(std::move(inner->as<of::FlowMod>())));
  b.bytes += bytes;
  bundle_bytes_ += bytes;
}

void Agent::commit_bundle(Peer& p, uint32_t xid, uint32_t id, Peer::Bundle& b, ByteSpan raw) {
  const size_t count = b.mods.size();
  const uint64_t t0 = monotonic_ns(), cpu0 = thread_cpu_ns();
  auto r = dp_.commit_flow_mods(b.mods, t0);
  const uint64_t took = monotonic_ns() - t0, cpu = thread_cpu_ns() - cpu0;
  of::BundleControl done;
  done.bundle_id = id;
  done.type = BundleCtrlType::kCommitReply;
  done.flags = b.flags;
  Bytes failed;  // the failing flow-mod's wire bytes, quoted by its error; b dies below
  if (!r.ok()) {
    ByteSpan wire(b.wire);
    size_t at = 0;
    for (size_t i = 0; i < r.error().index; ++i) at += load_be16(&wire[at + 2]);
    const ByteSpan m = wire.subspan(at, load_be16(&wire[at + 2]));
    failed.assign(m.begin(), m.end());
  }
  bundle_bytes_ -= b.bytes;
  p.bundles.erase(id);  // b is gone
  if (!r.ok()) {
    ++counters_.bundles_failed;
    log::info("switch", "{}: bundle {} refused, nothing applied: flow-mod {} of {}: {}", p.name, id,
              r.error().index + 1, count, r.error().error.to_string());
    send_error(p, r.error().error, failed);
    send_bundle_error(p, BundleFailedCode::kMsgFailed, raw, "a flow-mod of the bundle failed");
    return;
  }
  ++counters_.bundles_committed;
  // A big commit is worth a line: how long the client waited, and the CPU it took.
  const log::Level lv = count >= kBundleCommitLogged ? log::Level::kInfo : log::Level::kDebug;
  if (log::level() <= lv)
    log::write(lv, "switch",
               fmt::format("{}: bundle {} committed: {} flow-mods in {:.1f} ms ({:.1f} ms CPU)", p.name, id,
                           count, double(took) / 1e6, double(cpu) / 1e6));
  send_flow_removed(*r);
  send_table_status();
  reply(p, xid, of::encode_bundle_control(done));
}

}  // namespace flowlab::sw
