// KernelDatapath (see kernel_datapath.h).
#include "switch/kernel_datapath.h"

#include <cstring>

#include "core/clock.h"
#include "core/log.h"
#include "datapath/classifier.h"
#include "kernel/cache_key.h"
#include "kernel/kernel_port.h"

namespace flowlab::sw {
namespace {

kernel::KernelPort* kport(const SwitchPort& sp) { return dynamic_cast<kernel::KernelPort*>(sp.port.get()); }

uint16_t be16(uint64_t v) { return uint16_t(((v >> 8) & 0xff) | ((v & 0xff) << 8)); }
uint32_t be32(uint64_t v) { return __builtin_bswap32(uint32_t(v)); }

}  // namespace

size_t KernelDatapath::KeyHash::operator()(const fl_key& k) const {
  uint64_t w[4];
  static_assert(sizeof(fl_key) == sizeof w);
  std::memcpy(w, &k, sizeof w);
  uint64_t h = 0;
  for (uint64_t x : w) h = dp::hash_mix(h, x);
  return size_t(h);
}

bool KernelDatapath::KeyEq::operator()(const fl_key& a, const fl_key& b) const {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

KernelDatapath::KernelDatapath(std::unique_ptr<kernel::FastPath> fp, dp::Datapath& dp, SwitchPorts& ports)
    : fp_(std::move(fp)), dp_(dp), ports_(ports) {}

static_assert(FL_MAX_OPS == dp::FastPathDecision::kMaxOps, "one kernel op per decision op");

Result<std::unique_ptr<KernelDatapath>> KernelDatapath::create(std::unique_ptr<kernel::FastPath> fp,
                                                               dp::Datapath& dp, SwitchPorts& ports,
                                                               size_t queues) {
  std::unique_ptr<KernelDatapath> kd(new KernelDatapath(std::move(fp), dp, ports));
  kd->fp_->set_epoch(kd->epoch());
  for (size_t i = 0; i < ports.size(); ++i) {
    SwitchPort& sp = ports.at(i);
    kernel::KernelPort* kp = kport(sp);
    if (!kp) continue;  // a TAP port: served by the slow path only
    int ifx = kp->ifindex();
    if (!kd->upcall_) {
      FLOWLAB_ASSIGN_OR_RETURN(kd->upcall_, kernel::UpcallDevice::open(ifx, queues));
    }
    if (ifx >= int(kd->ifindex_to_port_.size())) kd->ifindex_to_port_.resize(size_t(ifx) + 1, -1);
    kd->ifindex_to_port_[size_t(ifx)] = int(i);
    FLOWLAB_TRY(kd->fp_->attach(ifx, kp->name(), kd->upcall_->ifindex(), uint32_t(i)));
  }
  KernelDatapath* raw = kd.get();
  dp.set_publish_hook([raw](uint64_t) { raw->invalidate(); });
  dp.set_stats_sync_hook([raw] { raw->fold(monotonic_ns()); });
  return kd;
}

KernelDatapath::~KernelDatapath() {
  dp_.set_publish_hook(nullptr);
  dp_.set_stats_sync_hook(nullptr);
  // The program may serve other datapaths (a switch host): this one's entries
  // and counter slots go back.
  std::lock_guard lk(mu_);
  for (auto& [key, e] : entries_) {
    fp_->remove(key);
    fp_->give_slot(e.slot);
  }
  for (Entry& e : retired_) fp_->give_slot(e.slot);
}

bool KernelDatapath::port_usable(uint32_t port_no) const {
  const SwitchPort* sp = ports_.find(port_no);
  return sp && kport(*sp) && sp->config.load(std::memory_order_acquire) == 0;
}

void KernelDatapath::prepare(const PacketBatch& batch, std::vector<Pending>& out) const {
  out.resize(batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    const Packet& p = *batch.pkts[i];
    Pending& pd = out[i];
    const SwitchPort* sp = ports_.find(p.in_port);
    pd.cacheable = sp && kernel::extract_cache_key(p.data(), p.size(), uint32_t(sp->port->ifindex()), pd.key);
    if (pd.cacheable) {
      PacketLayers layers;
      extract_flow_key(p, pd.flow_key, layers);
    }
  }
}

void KernelDatapath::learn(dp::ForwardingContext& ctx, const std::vector<Pending>& pending, uint64_t epoch) {
  std::unique_lock lk(mu_, std::try_to_lock);
  if (!lk.owns_lock()) {
    counters_.install_skipped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  auto usable = [this](uint32_t no) { return port_usable(no); };
  for (const Pending& pd : pending) {
    if (!pd.cacheable) continue;
    if (installed(pd.key, epoch)) continue;  // an earlier packet installed its entry
    auto d = dp::decide_for_fast_path(ctx, pd.flow_key, usable);
    // tcp_flags is outside the kernel key and changes within a connection:
    // a decision that read it stays in the slow path.
    if (!d || d->read_mask.tcp_flags != 0) {
      counters_.uncacheable.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    int mask_id = mask_for(kernel::cache_mask_of(d->read_mask));
    if (mask_id < 0) {
      counters_.install_skipped.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    const fl_key key = kernel::masked_key(pd.key, masks_[size_t(mask_id)], uint16_t(mask_id));
    auto it = entries_.find(key);
    Entry e;
    e.epoch = epoch;
    e.decision = *d;
    e.in_port = pd.key.ifindex < ifindex_to_port_.size() ? ifindex_to_port_[pd.key.ifindex] : -1;
    fl_value v{};
    v.epoch = epoch;
    bool ok = true;
    int last_out = -1;
    for (size_t i = 0; i < d->n_ops; ++i)
      if (d->ops[i].kind == dp::FastPathOp::Kind::kOutput) last_out = int(i);
    for (size_t i = 0; i < d->n_ops && ok; ++i) {
      const dp::FastPathOp& op = d->ops[i];
      fl_op& k = v.ops[v.n_ops++];
      using K = dp::FastPathOp::Kind;
      switch (op.kind) {
        case K::kOutput: {
          SwitchPort* sp = ports_.find(op.port);
          if (!sp) {
            ok = false;
            break;
          }
          // The last output can skip the veth's backlog when its peer is in
          // another namespace; earlier ones are clones (plain redirect).
          kernel::KernelPort* kp = kport(*sp);
          k.kind = int(i) == last_out && kp && kp->veth_peer_elsewhere() ? FL_OP_OUTPUT_PEER : FL_OP_OUTPUT;
          k.arg32 = uint32_t(sp->port->ifindex());
          e.out_ports.push_back(ifindex_to_port_[k.arg32]);
          break;
        }
        case K::kSetEthSrc:
        case K::kSetEthDst:
          k.kind = op.kind == K::kSetEthSrc ? FL_OP_SET_ETH_SRC : FL_OP_SET_ETH_DST;
          for (int b = 0; b < 6; ++b) k.mac[b] = uint8_t(op.value >> (40 - 8 * b));
          break;
        case K::kSetIpv4Src:
        case K::kSetIpv4Dst:
          k.kind = op.kind == K::kSetIpv4Src ? FL_OP_SET_IPV4_SRC : FL_OP_SET_IPV4_DST;
          k.arg32 = be32(op.value);
          break;
        case K::kSetTpSrc:
        case K::kSetTpDst:
          k.kind = op.kind == K::kSetTpSrc ? FL_OP_SET_TP_SRC : FL_OP_SET_TP_DST;
          k.arg16 = be16(op.value);
          break;
        case K::kDecTtl:
          k.kind = FL_OP_DEC_TTL;
          ++v.n_dec_ttl;
          break;
      }
    }
    v.last_out = last_out < 0 ? FL_NO_OUTPUT : uint8_t(last_out);
    if (!ok) {
      counters_.uncacheable.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    auto slot = fp_->take_slot();
    if (!slot) {
      counters_.install_skipped.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    e.slot = *slot;
    v.slot = e.slot;
    if (!fp_->install(key, v).ok()) {
      fp_->give_slot(e.slot);
      counters_.install_skipped.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    counters_.installs.fetch_add(1, std::memory_order_relaxed);
    if (it != entries_.end()) {
      retired_.push_back(std::move(it->second));
      it->second = std::move(e);
    } else {
      entries_.emplace(key, std::move(e));
    }
  }
}

bool KernelDatapath::installed(const fl_key& k, uint64_t epoch) const {
  for (size_t i = 0; i < masks_.size(); ++i) {
    auto it = entries_.find(kernel::masked_key(k, masks_[i], uint16_t(i)));
    if (it != entries_.end() && it->second.epoch == epoch) return true;
  }
  return false;
}

int KernelDatapath::mask_for(const fl_key& m) {
  auto same = [](const fl_key& a, const fl_key& b) { return std::memcmp(&a, &b, sizeof a) == 0; };
  for (size_t i = 0; i < masks_.size(); ++i)
    if (same(masks_[i], m)) return int(i);
  fl_key exact;
  std::memset(&exact, 0xff, sizeof exact);
  exact.mask_id = 0;
  // The last free mask is kept for the exact one, which covers every decision.
  const fl_key& add = masks_.size() + 1 < FL_MAX_MASKS ? m : exact;
  for (size_t i = 0; i < masks_.size(); ++i)
    if (same(masks_[i], add)) return int(i);
  if (masks_.size() < FL_MAX_MASKS && fp_->add_mask(add).ok()) {
    masks_.push_back(add);
    if (same(add, exact) && !same(m, exact))
      log::info("switch", "fast path: megaflow masks full, exact keys from now on");
    return int(masks_.size() - 1);
  }
  for (size_t i = 0; i < masks_.size(); ++i)  // a wider mask is exact too
    if (kernel::mask_covers(masks_[i], m)) return int(i);
  return -1;
}

void KernelDatapath::invalidate() {
  uint64_t e = epoch_.fetch_add(1, std::memory_order_acq_rel) + 1;
  fp_->set_epoch(e);
}

void KernelDatapath::fold_entry(Entry& e, uint64_t now_ns) {
  fl_count c = fp_->read_counter(e.slot);
  uint64_t pk = c.packets - e.folded.packets, by = c.bytes - e.folded.bytes;
  if (pk == 0) return;
  e.folded = c;
  dp::account_fast_path_hits(dp_, e.decision, pk, by, now_ns);
  if (e.in_port >= 0) kport(ports_.at(size_t(e.in_port)))->add_fast_path_rx(pk, by);
  for (int o : e.out_ports)
    if (o >= 0) kport(ports_.at(size_t(o)))->add_fast_path_tx(pk, by);  // outputs are kernel ports
}

void KernelDatapath::retire(Entry& e, uint64_t now_ns) {
  fold_entry(e, now_ns);
  fp_->give_slot(e.slot);  // its counters reset
}

void KernelDatapath::fold(uint64_t now_ns) {
  std::lock_guard lk(mu_);
  const uint64_t cur = epoch();
  for (Entry& e : retired_) retire(e, now_ns);
  retired_.clear();
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->second.epoch != cur) {
      fp_->remove(it->first);
      retire(it->second, now_ns);
      it = entries_.erase(it);
    } else {
      fold_entry(it->second, now_ns);
      ++it;
    }
  }
}

size_t KernelDatapath::entries() const {
  std::lock_guard lk(mu_);
  return entries_.size();
}

}  // namespace flowlab::sw
