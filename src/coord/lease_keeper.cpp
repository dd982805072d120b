// LeaseKeeper (lease_keeper.h).
#include "coord/lease_keeper.h"

namespace flowlab::coord {

LeaseKeeper::LeaseKeeper(EtcdConfig config, int64_t lease_id, int64_t ttl_seconds, OnLost on_lost,
                         std::chrono::milliseconds interval, bool presume_lost)
    : client_([&] {
        // A keepalive is small: a try per endpoint must leave time for the next.
        config.attempt = std::min(config.attempt, std::chrono::milliseconds(ttl_seconds * 1000 / 3));
        config.timeout = std::min(config.timeout, std::chrono::milliseconds(ttl_seconds * 1000));
        return config;
      }()),
      id_(lease_id),
      ttl_(ttl_seconds * 1000),
      interval_(interval.count() > 0 ? interval : std::chrono::milliseconds(ttl_seconds * 1000 / 3)),
      on_lost_(std::move(on_lost)),
      presume_lost_(presume_lost),
      last_ok_(std::chrono::steady_clock::now()) {
  if (interval_.count() < 50) interval_ = std::chrono::milliseconds(50);
  thread_ = std::thread([this] { run(); });
}

LeaseKeeper::~LeaseKeeper() { stop(); }

void LeaseKeeper::stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::chrono::steady_clock::time_point LeaseKeeper::last_renewed() const {
  std::lock_guard lock(mu_);
  return last_ok_;
}

void LeaseKeeper::run() {
  std::string why;
  for (;;) {
    auto r = client_.lease_keepalive(id_);
    auto now = std::chrono::steady_clock::now();
    {
      std::unique_lock lock(mu_);
      if (stop_) return;
      if (r && *r > 0) {
        last_ok_ = now;
      } else if (r) {
        why = fmt::format("lease {:x} is gone (expired or revoked)", id_);
        break;
      } else if (presume_lost_ && now - last_ok_ >= ttl_) {
        why = fmt::format("lease {:x}: no keepalive succeeded for its {} s TTL: {}", id_, ttl_.count() / 1000,
                          r.error().message);
        break;
      }
      // After a failure, retry sooner: the TTL is running.
      auto wait = r ? interval_ : std::min(interval_, std::chrono::milliseconds(200));
      cv_.wait_for(lock, wait, [this] { return stop_; });
      if (stop_) return;
    }
  }
  lost_ = true;
  if (on_lost_) on_lost_(why);
}

}  // namespace flowlab::coord
