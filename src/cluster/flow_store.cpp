// FlowStore (flow_store.h): REST's changes in etcd, replayed by each new master.
#include "cluster/flow_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <nlohmann/json.hpp>

#include "core/log.h"
#include "openflow/codec.h"

namespace flowlab::cluster {

namespace {

std::string dpid_prefix(std::string_view root, uint64_t dpid) {
  return fmt::format("{}{:016x}/", root, dpid);
}

// A clear: every flow of every table, whatever its cookie.
bool is_clear(const of::MessageBody& body) {
  const auto* fm = std::get_if<of::FlowMod>(&body);
  return fm && fm->command == of::FlowModCommand::kDelete && fm->table_id == of::table::kAll &&
         fm->match.empty() && fm->cookie_mask == 0 && fm->out_port == of::port::kAny &&
         fm->out_group == of::group::kAny;
}

}  // namespace

std::string flows_root(std::string_view cluster_name) {
  return fmt::format("/flowlab/cluster-flows/{}/", cluster_name);
}

std::string encode_change(std::string_view node, bool replay, ByteSpan message) {
  nlohmann::json j = {{"node", node}, {"replay", replay}, {"message", to_hex(message)}};
  return j.dump();
}

std::optional<StoredChange> decode_change(std::string_view root, const coord::KeyValue& kv) {
  std::string_view key = kv.key;
  if (key.substr(0, root.size()) != root) return std::nullopt;
  key.remove_prefix(root.size());
  const size_t slash = key.find('/');
  if (slash != 16 || key.size() == 17) return std::nullopt;
  StoredChange c;
  auto [end, ec] = std::from_chars(key.data(), key.data() + 16, c.dpid, 16);
  if (ec != std::errc() || end != key.data() + 16) return std::nullopt;
  auto j = nlohmann::json::parse(kv.value, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  auto node = j.find("node"), replay = j.find("replay"), message = j.find("message");
  if (node == j.end() || !node->is_string() || replay == j.end() || !replay->is_boolean() ||
      message == j.end() || !message->is_string())
    return std::nullopt;
  c.node = node->get<std::string>();
  c.replay = replay->get<bool>();
  if (!from_hex(message->get<std::string>(), c.message) || c.message.empty()) return std::nullopt;
  c.revision = kv.create_revision;
  return c;
}

FlowStore::FlowStore(coord::EtcdConfig etcd, std::string cluster_name, std::string node,
                     rest::SwitchAccess& inner)
    : root_(flows_root(cluster_name)),
      node_(std::move(node)),
      inner_(inner),
      etcd_config_(etcd),
      writer_(etcd),
      reader_(etcd),
      next_id_(uint64_t(std::chrono::system_clock::now().time_since_epoch().count())) {}

FlowStore::~FlowStore() { stop(); }

void FlowStore::start() {
  auto on_update = [this](const coord::WatchUpdate& u) {
    for (const auto& e : u.events) {
      if (e.type != coord::WatchEvent::Type::kPut || e.kv.version != 1) continue;  // new keys only
      if (auto c = decode_change(root_, e.kv))
        push({c->dpid, std::move(*c)});
      else
        log::warn("cluster", "flow store: skipping a malformed change at {}", e.kv.key);
    }
    if (u.compacted) replay_mastered();  // events were lost
  };
  // A watch from "now" misses what was stored before its stream existed:
  // each (re)connection reads the log again (the replay skips what was applied).
  auto on_state = [this](bool connected, const std::string&) {
    if (connected) replay_mastered();
  };
  coord::WatchOptions wo;
  wo.prefix = root_;
  watcher_ = std::make_unique<coord::Watcher>(etcd_config_, wo, on_update, on_state);
  worker_ = std::thread([this] { run(); });
}

void FlowStore::replay_mastered() {
  std::lock_guard lock(mu_);
  for (uint64_t dpid : master_) jobs_.push_back({dpid, std::nullopt});
  cv_.notify_all();
}

void FlowStore::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (watcher_) watcher_->stop();
  if (worker_.joinable()) worker_.join();
}

void FlowStore::push(Job job) {
  {
    std::lock_guard lock(mu_);
    jobs_.push_back(std::move(job));
  }
  cv_.notify_all();
}

void FlowStore::on_mastership(uint64_t dpid, bool master) {
  std::lock_guard lock(mu_);
  if (master) {
    master_.insert(dpid);
    applied_.erase(dpid);  // a new mastership replays the whole log
    jobs_.push_back({dpid, std::nullopt});
  } else {
    master_.erase(dpid);
    applied_.erase(dpid);
  }
  cv_.notify_all();
}

rest::HttpStatus FlowStore::modify(uint64_t dpid, of::MessageBody body) {
  auto sw = inner_.find(dpid);
  if (!sw) return rest::http_fail(404, fmt::format("no switch with dpid {} is connected", dpid));
  of::Message m;
  m.version = sw->version;
  m.body = body;
  auto wire = of::encode_message(m);
  if (!wire.ok()) return rest::http_fail(400, wire.error().message);
  const bool clear = is_clear(body);
  bool master = false;
  {
    std::lock_guard wlock(write_mu_);
    const std::string prefix = dpid_prefix(root_, dpid);
    if (clear) {
      if (auto d = writer_.erase_prefix(prefix); !d.ok())
        return rest::http_fail(503, fmt::format("etcd: {} (nothing was changed)", d.error().message));
    }
    const std::string key = fmt::format("{}{}-{:016x}", prefix, node_, ++next_id_);
    auto put = writer_.put(key, encode_change(node_, !clear, *wire));
    if (!put.ok())
      return rest::http_fail(
          503, fmt::format("etcd: {} (the change was not stored, nothing was sent)", put.error().message));
    std::lock_guard lock(mu_);
    master = master_.count(dpid) > 0;
    if (master) sent_here_.insert(put->header.revision);
  }
  if (!master) return {};  // the master sends it when the watch delivers it
  return inner_.modify(dpid, std::move(body));
}

void FlowStore::run() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    if (job.change)
      apply(*job.change);
    else
      replay(job.dpid);
  }
}

void FlowStore::replay(uint64_t dpid) {
  {
    std::lock_guard lock(mu_);
    if (!master_.count(dpid)) return;
  }
  // Under write_mu_: a change modify() is storing right now is either in
  // this read and marked sent_here_, or after it (the watch brings it).
  std::unique_lock wlock(write_mu_);
  auto r = reader_.get_prefix(dpid_prefix(root_, dpid));
  std::set<int64_t> sent_here;
  {
    std::lock_guard lock(mu_);
    sent_here = sent_here_;
  }
  wlock.unlock();
  if (!r.ok()) {
    // Not lost: a later mastership or a compaction reads the log again.
    log::warn("cluster", "dpid {:016x}: reading its stored flows: {}", dpid, r.error().message);
    return;
  }
  std::vector<StoredChange> changes;
  for (const auto& kv : r->kvs)
    if (auto c = decode_change(root_, kv); c && c->dpid == dpid) changes.push_back(std::move(*c));
  std::sort(changes.begin(), changes.end(),
            [](const StoredChange& a, const StoredChange& b) { return a.revision < b.revision; });
  size_t sent = 0;
  for (const auto& c : changes) {
    {
      std::lock_guard lock(mu_);
      if (!master_.count(dpid)) return;
      if (auto a = applied_.find(dpid); a != applied_.end() && c.revision <= a->second) continue;
    }
    if (c.replay && !sent_here.count(c.revision)) {
      send(c);
      ++sent;
    }
  }
  std::lock_guard lock(mu_);
  if (master_.count(dpid)) applied_[dpid] = std::max(applied_[dpid], r->header.revision);
  if (sent)
    log::info("cluster", "dpid {:016x}: re-asserted {} stored change(s) as its new master", dpid, sent);
}

void FlowStore::apply(const StoredChange& c) {
  {
    // write_mu_ first: a modify() whose put this is has marked it by then.
    std::lock_guard wlock(write_mu_);
    std::lock_guard lock(mu_);
    if (sent_here_.erase(c.revision)) {
      if (auto a = applied_.find(c.dpid); a != applied_.end()) a->second = std::max(a->second, c.revision);
      return;
    }
    if (!master_.count(c.dpid)) return;
    auto a = applied_.find(c.dpid);
    if (a == applied_.end()) return;  // the replay queued before this job reads it
    if (c.revision <= a->second) return;
    a->second = c.revision;
  }
  send(c);
}

void FlowStore::send(const StoredChange& c) {
  auto m = of::decode_message(c.message);
  auto sw = inner_.find(c.dpid);
  if (!m.ok() || !sw || m->version != sw->version) {
    log::warn("cluster", "dpid {:016x}: stored change from node {} (revision {}) not sent: {}", c.dpid,
              c.node, c.revision,
              !m.ok() ? m.error().message
              : !sw   ? "the switch left"
                      : "the switch speaks another version now");
    return;
  }
  if (auto st = inner_.modify(c.dpid, std::move(m->body)); !st.ok())
    log::warn("cluster", "dpid {:016x}: stored change from node {} (revision {}): {}", c.dpid, c.node,
              c.revision, st.error().message);
}

}  // namespace flowlab::cluster
