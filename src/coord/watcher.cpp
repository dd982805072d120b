// Watcher (watcher.h).
#include "coord/watcher.h"

namespace flowlab::coord {

namespace {
constexpr size_t kMaxBuffered = 64u << 20;  // a watch message larger than this is malformed
}

Watcher::Watcher(EtcdConfig config, WatchOptions options, OnUpdate on_update, OnState on_state)
    : config_(std::move(config)),
      options_(std::move(options)),
      on_update_(std::move(on_update)),
      on_state_(std::move(on_state)) {
  if (options_.start_revision > 0) last_revision_ = options_.start_revision - 1;
  thread_ = std::thread([this] { run(); });
}

Watcher::~Watcher() { stop(); }

void Watcher::stop() {
  stop_ = true;
  {
    std::lock_guard lock(stream_mu_);
    if (stream_) stream_->stop();
  }
  if (thread_.joinable()) thread_.join();
}

void Watcher::run() {
  const size_t n = config_.endpoints.size();
  if (n == 0) return;
  const std::string range_end = prefix_range_end(options_.prefix);
  int64_t next = options_.start_revision;  // 0 until the first stream says where "now" is
  size_t ep = 0;
  bool was_connected = false;
  while (!stop_) {
    const std::string& endpoint = config_.endpoints[ep % n];
    EtcdConfig one = config_;
    one.endpoints = {endpoint};
    EtcdClient probe(one);
    CurlStream stream;
    {
      std::lock_guard lock(stream_mu_);
      if (stop_) break;
      stream_ = &stream;
    }
    std::string buf, why;
    auto on_chunk = [&](std::string_view chunk) {
      buf.append(chunk);
      if (buf.size() > kMaxBuffered) {
        why = "a watch message over 64 MB";
        return false;
      }
      for (auto& text : split_json_objects(buf)) {
        auto m = decode_watch_message(text);
        if (!m) {
          why = m.error().message;
          return false;
        }
        if (m->created) {
          if (next == 0) next = m->header.revision + 1;
          last_revision_ = next - 1;
          started_ = true;
          if (!was_connected && on_state_)
            on_state_(true, fmt::format("watching {} from revision {}", endpoint, next));
          was_connected = true;
        }
        if (m->compact_revision > 0) {
          WatchUpdate u;
          u.compacted = true;
          u.compact_revision = m->compact_revision;
          u.revision = m->header.revision;
          next = m->compact_revision;
          last_revision_ = next - 1;
          on_update_(u);
          why = fmt::format("revision compacted, resuming from {}", next);
          return false;
        }
        if (m->canceled) {
          why = m->cancel_reason.empty() ? "the watch was canceled" : m->cancel_reason;
          return false;
        }
        if (!m->events.empty()) {
          WatchUpdate u;
          u.revision = m->header.revision;
          u.events = std::move(m->events);
          int64_t last = 0;
          for (const auto& e : u.events) last = std::max(last, e.kv.mod_revision);
          if (last > 0) {
            next = last + 1;
            last_revision_ = last;
          }
          on_update_(u);
        }
      }
      return !stop_;
    };
    auto on_idle = [&] {
      auto s = probe.member_status(endpoint);
      if (!s) {
        why = fmt::format("{} stopped answering: {}", endpoint, s.error().message);
        return false;
      }
      return !stop_;
    };
    Status st = stream.run(endpoint + "/v3/watch",
                           encode_watch_create(options_.prefix, range_end, next, options_.prev_kv),
                           config_.attempt, options_.probe_after, on_chunk, on_idle);
    {
      std::lock_guard lock(stream_mu_);
      stream_ = nullptr;
    }
    if (stop_) break;
    if (why.empty()) why = st.ok() ? fmt::format("{} ended the watch stream", endpoint) : st.error().message;
    if (on_state_) on_state_(false, why);
    was_connected = false;
    ++ep;
    auto until = std::chrono::steady_clock::now() + options_.reconnect_backoff;
    while (!stop_ && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace flowlab::coord
