// ClusterNode (node.h).
#include "cluster/node.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "cluster/balance.h"
#include "core/log.h"

namespace flowlab::cluster {

namespace {

using Clock = std::chrono::steady_clock;
using of::ControllerRole;

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

coord::EtcdConfig keepalive_config(coord::EtcdConfig c, int64_t ttl_s) {
  // A keepalive must leave time for a try on the next endpoint within the TTL.
  c.attempt = std::min(c.attempt, std::chrono::milliseconds(ttl_s * 1000 / 3));
  c.timeout = std::min(c.timeout, std::chrono::milliseconds(ttl_s * 1000));
  return c;
}

// The local address this machine uses towards `url`'s host (no packet sent).
std::string local_address_towards(const std::string& url) {
  std::string hp = url;
  if (auto p = hp.find("://"); p != std::string::npos) hp = hp.substr(p + 3);
  if (auto p = hp.find('/'); p != std::string::npos) hp = hp.substr(0, p);
  std::string host;
  uint16_t port = 0;
  if (!split_host_port(hp, host, port)) return "127.0.0.1";
  sockaddr_in dst{};
  dst.sin_family = AF_INET;
  dst.sin_port = htons(port);
  if (inet_pton(AF_INET, host.c_str(), &dst.sin_addr) != 1) return "127.0.0.1";
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) return "127.0.0.1";
  std::string out = "127.0.0.1";
  sockaddr_in me{};
  socklen_t len = sizeof me;
  if (connect(fd, reinterpret_cast<sockaddr*>(&dst), sizeof dst) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&me), &len) == 0) {
    char buf[INET_ADDRSTRLEN];
    if (inet_ntop(AF_INET, &me.sin_addr, buf, sizeof buf)) out = buf;
  }
  close(fd);
  return out;
}

}  // namespace

ClusterNode::ClusterNode(ClusterOptions opts)
    : opts_(std::move(opts)),
      root_(cluster_root(opts_.name)),
      etcd_(opts_.etcd),
      revoker_(opts_.etcd),
      keeper_client_(keepalive_config(opts_.etcd, opts_.lease_ttl_s)) {}

ClusterNode::~ClusterNode() { stop(); }

std::string ClusterNode::advertised_peer(uint16_t port) const {
  std::string host;
  uint16_t ignore = 0;
  split_host_port(opts_.peer, host, ignore, true);
  if (!opts_.advertise.empty())
    host = opts_.advertise;
  else if (host == "0.0.0.0" || host.empty())
    host = local_address_towards(opts_.etcd.endpoints.empty() ? "" : opts_.etcd.endpoints.front());
  return fmt::format("{}:{}", host, port);
}

Status ClusterNode::register_node() {
  FLOWLAB_ASSIGN_OR_RETURN(auto grant, etcd_.lease_grant(opts_.lease_ttl_s));
  NodeRecord rec{opts_.node, grant.id, peer_address_, opts_.rest, now_ms()};
  const std::string key = node_key(root_, opts_.node);
  coord::Txn t;
  t.compare.push_back(coord::Compare::absent(key));
  t.success.push_back(coord::TxnOp::put(key, encode_node(rec), grant.id));
  t.failure.push_back(coord::TxnOp::get(key));
  auto r = etcd_.txn(t);
  if (!r || !r->succeeded) {
    (void)etcd_.lease_revoke(grant.id);
    if (!r) return ::flowlab::unexpected(r.error());
    return fail(
        "node name '{}' is held by a live node in cluster '{}' (its key {} exists); pick another --node",
        opts_.node, opts_.name, key);
  }
  {
    std::lock_guard lock(mu_);
    lease_ = grant.id;
    lease_lost_ = false;
    for (auto& [dpid, l] : local_) {
      l.key.clear();
      l.proclaimed = false;
    }
  }
  log::info("cluster",
            "node {} joined cluster '{}' with lease {:x} (TTL {} s, etcd granted {} s), peer link {}",
            opts_.node, opts_.name, grant.id, opts_.lease_ttl_s, grant.ttl, peer_address_);
  return {};
}

Status ClusterNode::start(controller::Controller& ctl) {
  if (!valid_node_name(opts_.node))
    return fail("--node '{}': a node name is 1-64 of letters, digits, '.', '_' and '-'", opts_.node);
  if (opts_.lease_ttl_s < 1 || opts_.lease_ttl_s > 60) return fail("--lease-ttl: 1 to 60 seconds");
  ctl_ = &ctl;
  peers_ = std::make_unique<PeerLinks>(
      opts_.node,
      [this](const std::string& n, int64_t lease, const std::string& why) { peer_gone(n, lease, why); });
  FLOWLAB_ASSIGN_OR_RETURN(uint16_t port, peers_->start(opts_.peer));
  peer_address_ = advertised_peer(port);
  // A name still held may be this node's previous process, whose lease is
  // about to expire or be revoked by the others: wait one TTL for it.
  auto until = Clock::now() + std::chrono::seconds(opts_.lease_ttl_s) + std::chrono::milliseconds(1500);
  Status st;
  for (;;) {
    st = register_node();
    if (st.ok() || Clock::now() >= until || st.error().message.find("is held by") == std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  if (!st.ok()) {
    peers_->stop();
    return fail("cluster: {}", st.error().message);
  }
  coord::WatchOptions wo;
  wo.prefix = root_;
  watcher_ = std::make_unique<coord::Watcher>(
      opts_.etcd, wo, [this](const coord::WatchUpdate&) { wake(); },
      [](bool connected, const std::string& detail) {
        if (connected)
          log::info("cluster", "watching etcd: {}", detail);
        else
          log::warn("cluster", "etcd watch lost: {}", detail);
      });
  reconciler_ = std::thread([this] { run_reconcile(); });
  keeper_ = std::thread([this] { run_keepalive(); });
  return {};
}

void ClusterNode::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (reconciler_.joinable()) reconciler_.join();
  if (keeper_.joinable()) keeper_.join();
  if (watcher_) watcher_->stop();
  int64_t lease = 0;
  {
    std::lock_guard lock(mu_);
    lease = lease_;
    lease_ = 0;
  }
  // Revoking the lease ends every candidacy at once: the others take over.
  if (lease) {
    auto st = etcd_.lease_revoke(lease);
    if (!st.ok())
      log::warn("cluster", "leaving: revoking lease {:x}: {} (it expires in {} s)", lease, st.error().message,
                opts_.lease_ttl_s);
    else
      log::info("cluster", "node {} left cluster '{}'", opts_.node, opts_.name);
  }
  if (peers_) peers_->stop();
}

void ClusterNode::wake() {
  {
    std::lock_guard lock(mu_);
    dirty_ = true;
  }
  cv_.notify_all();
}

void ClusterNode::switch_up(uint64_t dpid) {
  {
    std::lock_guard lock(mu_);
    auto& l = local_[dpid];
    l.connected = true;
    l.asked = 0;
    l.granted = false;
    l.refused_generation = 0;
    dirty_ = true;
  }
  cv_.notify_all();
}

void ClusterNode::switch_down(uint64_t dpid) {
  bool was_master = false;
  {
    std::lock_guard lock(mu_);
    auto it = local_.find(dpid);
    if (it == local_.end()) return;
    it->second.connected = false;
    was_master = it->second.granted;
    it->second.granted = false;
    dirty_ = true;
  }
  cv_.notify_all();
  if (was_master && on_mastership_) on_mastership_(dpid, false);
}

void ClusterNode::role_result(uint64_t dpid, bool master, uint64_t generation_id) {
  bool changed = false;
  {
    std::lock_guard lock(mu_);
    auto it = local_.find(dpid);
    if (it == local_.end()) return;
    auto& l = it->second;
    changed = l.granted != master || (master && l.granted_generation != generation_id);
    l.granted = master;
    l.granted_generation = master ? generation_id : 0;
    if (!master && l.asked == 1) {
      // Refused (stale) or demoted by a newer master: not asked again with this generation id.
      l.refused_generation = std::max(l.refused_generation, l.asked_generation);
      l.asked = 0;
    }
    dirty_ = true;
  }
  cv_.notify_all();
  if (changed && on_mastership_) on_mastership_(dpid, master);
}

size_t ClusterNode::masters() const {
  std::lock_guard lock(mu_);
  return size_t(
      std::count_if(local_.begin(), local_.end(), [](const auto& kv) { return kv.second.granted; }));
}

int64_t ClusterNode::lease() const {
  std::lock_guard lock(mu_);
  return lease_;
}

void ClusterNode::peer_gone(const std::string& node, int64_t lease, const std::string& why) {
  // The process is gone: its lease would keep its candidacies for a TTL more.
  log::warn("cluster", "node {} {}: revoking its lease {:x} so its switches fail over now", node, why, lease);
  auto st = revoker_.lease_revoke(lease);
  if (!st.ok()) log::warn("cluster", "revoking node {}'s lease {:x}: {}", node, lease, st.error().message);
  wake();
}

void ClusterNode::run_keepalive() {
  const auto ttl = std::chrono::seconds(opts_.lease_ttl_s);
  const auto interval = std::max<std::chrono::milliseconds>(std::chrono::milliseconds(100), ttl / 4);
  auto last_ok = Clock::now();
  for (;;) {
    int64_t lease = 0;
    {
      std::unique_lock lock(mu_);
      if (stopping_) return;
      lease = lease_lost_ ? 0 : lease_;
    }
    bool failed = false;
    if (lease) {
      auto r = keeper_client_.lease_keepalive(lease);
      auto now = Clock::now();
      std::unique_lock lock(mu_);
      if (r && *r > 0) {
        if (unreachable_)
          log::info("cluster", "etcd answers again after {} ms without an answer; elections resume",
                    std::chrono::duration_cast<std::chrono::milliseconds>(now - last_ok).count());
        unreachable_ = false;
        last_ok = now;
      } else if (r) {
        // etcd answered: reachable again, whatever it said of the lease (a
        // node resumed after a stop may have timed out a call first; left
        // set, reconcile() would never join again).
        unreachable_ = false;
        last_ok = now;
        if (lease_ == lease) {
          log::warn("cluster",
                    "this node's lease {:x} is gone (it hung or was cut off for longer than its {} s TTL, or "
                    "another node found it dead): stepping down from every switch, then joining again",
                    lease, opts_.lease_ttl_s);
          lease_lost_ = true;
          dirty_ = true;
          cv_.notify_all();
        }
      } else {
        failed = true;
        if (now - last_ok >= ttl && !unreachable_) {
          unreachable_ = true;
          log::error("cluster",
                     "etcd unreachable for {} s ({}): every switch keeps its master, no elections until etcd "
                     "answers",
                     opts_.lease_ttl_s, r.error().message);
        }
      }
    } else {
      last_ok = Clock::now();
    }
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, failed ? std::chrono::milliseconds(100) : interval, [this] { return stopping_; });
    if (stopping_) return;
  }
}

void ClusterNode::run_reconcile() {
  for (;;) {
    {
      std::unique_lock lock(mu_);
      cv_.wait_for(lock, std::chrono::seconds(1), [this] { return dirty_ || stopping_; });
      if (stopping_) return;
      dirty_ = false;
    }
    reconcile();
  }
}

void ClusterNode::step_down_everywhere(const std::string& why) {
  std::vector<uint64_t> demoted;
  {
    std::lock_guard lock(mu_);
    size_t n = 0;
    for (auto& [dpid, l] : local_) {
      l.key.clear();
      l.proclaimed = false;
      if (l.connected && (l.asked == 1 || l.granted)) {
        ++n;
        uint64_t gen = std::max(l.asked_generation, l.granted_generation);
        if (l.granted) demoted.push_back(dpid);
        l.asked = 2;
        l.asked_generation = gen;
        l.granted = false;
        ctl_->assign_role(dpid, ControllerRole::kSlave, gen);
      }
    }
    log::warn("cluster", "stepping down from {} switch(es): {}", n, why);
  }
  if (on_mastership_)
    for (uint64_t dpid : demoted) on_mastership_(dpid, false);
}

void ClusterNode::ask(uint64_t dpid, Local& l, bool master, uint64_t generation) {
  l.asked = master ? 1 : 2;
  l.asked_generation = generation;
  ctl_->assign_role(dpid, master ? ControllerRole::kMaster : ControllerRole::kSlave, generation);
}

bool ClusterNode::enter(uint64_t dpid, Local& l) {
  const std::string key = candidate_key(root_, dpid, lease_);
  coord::Txn t;
  t.compare.push_back(coord::Compare::absent(key));
  t.success.push_back(coord::TxnOp::put(key, encode_candidate(opts_.node, l.granted, now_ms()), lease_));
  auto r = etcd_.txn(t);
  if (!r) return false;
  l.key = key;
  l.proclaimed = l.granted;
  return true;
}

bool ClusterNode::requeue(uint64_t dpid, Local& l, const Candidate& mine) {
  // One transaction: the key moves to the back, still saying whether the
  // switch granted this node MASTER, so that etcd never shows the switch
  // without the node that serves it.
  const std::string key = requeued_key(root_, dpid, lease_, l.key);
  coord::Txn t;
  t.compare.push_back(
      coord::Compare::create_revision_is(l.key, coord::Compare::Op::kEqual, mine.create_revision));
  t.compare.push_back(coord::Compare::absent(key));
  t.success.push_back(coord::TxnOp::erase(l.key));
  t.success.push_back(coord::TxnOp::put(
      key, encode_candidate(opts_.node, l.granted, l.granted ? mine.since_ms : now_ms()), lease_));
  auto r = etcd_.txn(t);
  if (!r || !r->succeeded) return false;
  l.key = key;
  l.proclaimed = l.granted;
  return true;
}

void ClusterNode::resign(uint64_t dpid, Local& l) {
  (void)dpid;
  if (l.key.empty()) return;
  auto r = etcd_.erase(l.key);
  if (r) {
    l.key.clear();
    l.proclaimed = false;
  }
}

void ClusterNode::reconcile() {
  bool lost = false;
  {
    std::lock_guard lock(mu_);
    if (unreachable_) return;  // no elections while etcd does not answer
    lost = lease_lost_;
  }
  if (lost) {
    step_down_everywhere("this node's lease is gone");
    std::lock_guard lock(mu_);
    lease_ = 0;
    lease_lost_ = false;
  }
  if (lease() == 0) {
    auto st = register_node();
    if (!st.ok()) {
      log::warn("cluster", "joining again: {}", st.error().message);
      return;
    }
  }
  auto r = etcd_.get_prefix(root_);
  if (!r) return;
  ClusterView view = build_view(root_, r->kvs, r->header.revision);
  const int64_t lease = this->lease();
  if (auto me = view.nodes.find(opts_.node); me == view.nodes.end() || me->second.lease != lease) {
    std::lock_guard lock(mu_);
    if (lease_ == lease) {
      log::warn("cluster", "this node's key is gone from etcd (its lease {:x} was revoked or expired)",
                lease);
      lease_lost_ = true;
      dirty_ = true;
    }
    // etcd just answered. A node resumed after a stop may have marked it
    // unreachable meanwhile (its keepalive call timed out); with the lease
    // lost the keepalive no longer calls, so only this can clear the mark,
    // and left set it would keep this node from stepping down for good.
    unreachable_ = false;
    return;
  }
  std::map<std::string, PeerTarget> peers;
  for (const auto& [name, n] : view.nodes) peers[name] = PeerTarget{n.lease, n.peer};
  peers_->set_peers(std::move(peers));
  const auto preferred = preferred_masters(view);

  std::vector<uint64_t> dpids;
  {
    std::lock_guard lock(mu_);
    for (const auto& [dpid, l] : local_) dpids.push_back(dpid);
  }
  for (uint64_t dpid : dpids) {
    Local l;
    {
      std::lock_guard lock(mu_);
      auto it = local_.find(dpid);
      if (it == local_.end()) continue;
      l = it->second;
    }
    const int asked_before = l.asked;
    const uint64_t generation_before = l.asked_generation;
    auto p = preferred.find(dpid);
    reconcile_switch(dpid, l, view, p == preferred.end() ? std::string() : p->second);
    const bool asked_now = l.asked != asked_before || l.asked_generation != generation_before;
    std::lock_guard lock(mu_);
    auto it = local_.find(dpid);
    if (it == local_.end()) continue;
    Local& cur = it->second;  // connected and granted* are the controller's
    cur.key = l.key;
    cur.create_revision = l.create_revision;
    cur.proclaimed = l.proclaimed;
    if (asked_now) {  // else role_result() may have changed it meanwhile
      cur.asked = l.asked;
      cur.asked_generation = l.asked_generation;
    }
    if (!cur.connected && cur.key.empty()) local_.erase(it);
  }
}

void ClusterNode::reconcile_switch(uint64_t dpid, Local& l, const ClusterView& v,
                                   const std::string& preferred) {
  static const std::vector<Candidate> kNone;
  auto sw = v.switches.find(dpid);
  const auto& cands = sw == v.switches.end() ? kNone : sw->second;
  const Candidate* mine = nullptr;
  for (const auto& c : cands)
    if (c.lease == lease_) mine = &c;
  if (!l.connected) {
    if (mine) l.key = mine->key;
    resign(dpid, l);
    l.asked = 0;
    return;
  }
  if (!mine) {
    if (enter(dpid, l)) wake();  // the next pass sees the key and its revision
    return;
  }
  l.key = mine->key;
  l.create_revision = mine->create_revision;
  l.proclaimed = mine->master;
  const Candidate& leader = cands.front();
  const uint64_t gen = uint64_t(leader.create_revision);
  if (leader.lease == lease_) {
    bool other_serving = std::any_of(cands.begin(), cands.end(),
                                     [this](const Candidate& c) { return c.master && c.lease != lease_; });
    bool preferred_waits =
        !preferred.empty() && preferred != opts_.node &&
        std::any_of(cands.begin(), cands.end(), [&](const Candidate& c) { return c.node == preferred; });
    if (preferred_waits && (l.granted || other_serving)) {
      // Hand the switch to the node balance.h gives it: to the back of the
      // queue, still master at the switch until the new leader says "master".
      log::info("cluster", "dpid {:016x}: handing mastership over to node {}", dpid, preferred);
      if (requeue(dpid, l, *mine)) wake();
      return;
    }
    if (!(l.asked == 1 && l.asked_generation == gen) && gen > l.refused_generation) {
      log::info("cluster", "dpid {:016x}: this node leads (generation id {}): asking for MASTER", dpid, gen);
      ask(dpid, l, true, gen);
    }
    if (l.granted && l.granted_generation == gen && !mine->master) {
      coord::Txn t;
      t.compare.push_back(
          coord::Compare::create_revision_is(l.key, coord::Compare::Op::kEqual, mine->create_revision));
      t.success.push_back(coord::TxnOp::put(l.key, encode_candidate(opts_.node, true, now_ms()), lease_));
      if (auto r = etcd_.txn(t); r && r->succeeded) l.proclaimed = true;
    }
    return;
  }
  // Another node leads.
  if (l.asked == 1) {
    // A hand-off: keep serving until the new leader is master at the switch.
    if (!leader.master && l.granted) return;
    log::info("cluster", "dpid {:016x}: node {} leads (generation id {}): stepping down", dpid, leader.node,
              gen);
    ask(dpid, l, false, gen);
  } else if (l.asked == 0) {
    ask(dpid, l, false, gen);
  }
  // The mark goes once the new leader has written its own: until then this
  // node's mark names the switch's master in cluster-status (a demotion the
  // switch announces can reach this node before the leader marks its key).
  if (mine->master && l.asked == 2 && leader.master) {
    coord::Txn t;
    t.compare.push_back(
        coord::Compare::create_revision_is(l.key, coord::Compare::Op::kEqual, mine->create_revision));
    t.success.push_back(coord::TxnOp::put(l.key, encode_candidate(opts_.node, false, now_ms()), lease_));
    if (auto r = etcd_.txn(t); r && r->succeeded) l.proclaimed = false;
  }
}

}  // namespace flowlab::cluster
