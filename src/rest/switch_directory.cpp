// SwitchDirectory (see switch_directory.h): snapshots of connected switches and
// blocking request/reply for HTTP threads over the switches' own event loops.
#include "rest/switch_directory.h"

#include <condition_variable>

#include "channel/connection.h"
#include "openflow/errors.h"

namespace flowlab::rest {

using controller::Datapath;

// One HTTP request waiting for a switch. Finished once; later finishes are ignored.
struct SwitchDirectory::Waiter {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  HttpError error;  // status 0: success
  std::vector<of::MultipartReplyBody> parts;
  std::string switch_error;  // an OpenFlow error seen before the barrier reply

  void finish(HttpError e) {
    {
      std::lock_guard lock(mu);
      if (done) return;
      done = true;
      error = std::move(e);
    }
    cv.notify_all();
  }
  // False on timeout.
  bool wait(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, timeout, [this] { return done; });
  }
};

namespace {

// Lives inside the reply callback the Datapath keeps: when the Datapath drops
// the callback unanswered (switch disconnected), the waiter learns it.
struct ReplyGuard {
  std::shared_ptr<SwitchDirectory::Waiter> w;
  explicit ReplyGuard(std::shared_ptr<SwitchDirectory::Waiter> waiter) : w(std::move(waiter)) {}
  ReplyGuard(const ReplyGuard&) = delete;
  ReplyGuard& operator=(const ReplyGuard&) = delete;
  ~ReplyGuard() { w->finish({404, "the switch disconnected before it answered"}); }
};

std::string describe(const of::ErrorMsg& e, uint8_t version) {
  of::ErrorType t = of::ErrorType(e.type);
  uint16_t code = e.code;
  if (version == of::kOf10) of::error_from_of10(e.type, e.code, t, code);
  return fmt::format("the switch refused the request: {} {}", of::to_string(t), of::error_code_name(t, code));
}

SwitchSummary summarize(const Datapath& dp) {
  SwitchSummary s;
  s.dpid = dp.dpid();
  s.version = dp.version();
  for (const auto& [no, p] : dp.ports()) s.ports.push_back(p);
  return s;
}

}  // namespace

void SwitchDirectory::switch_connected(Datapath& dp) {
  std::lock_guard lock(mu_);
  Entry& e = entries_[dp.dpid()];
  e.dp = &dp;
  e.conn = dp.connection().shared_from_this();
  e.generation = next_generation_++;
  e.summary = summarize(dp);
}

void SwitchDirectory::switch_disconnected(Datapath& dp) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(dp.dpid());
  if (it != entries_.end() && it->second.dp == &dp) entries_.erase(it);
  std::erase_if(in_flight_, [&](const auto& kv) { return kv.first.first == &dp; });
}

controller::Verdict SwitchDirectory::port_status(Datapath& dp, const of::PortStatus&) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(dp.dpid());
  if (it != entries_.end() && it->second.dp == &dp) it->second.summary = summarize(dp);
  return controller::Verdict::kContinue;
}

controller::Verdict SwitchDirectory::error(Datapath& dp, const of::Message& m, const of::ErrorMsg& e) {
  std::shared_ptr<Waiter> w;
  {
    std::lock_guard lock(mu_);
    auto it = in_flight_.find({&dp, m.xid});
    if (it == in_flight_.end()) return controller::Verdict::kContinue;
    w = it->second.lock();
    in_flight_.erase(it);
  }
  if (w) {
    std::lock_guard lock(w->mu);
    w->switch_error = describe(e, dp.version());
  }
  return controller::Verdict::kConsumed;
}

std::vector<SwitchSummary> SwitchDirectory::switches() const {
  std::lock_guard lock(mu_);
  std::vector<SwitchSummary> out;
  for (const auto& [dpid, e] : entries_) out.push_back(e.summary);
  return out;
}

std::optional<SwitchSummary> SwitchDirectory::find(uint64_t dpid) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(dpid);
  if (it == entries_.end()) return std::nullopt;
  return it->second.summary;
}

Datapath* SwitchDirectory::current(uint64_t dpid, uint64_t generation) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(dpid);
  return it != entries_.end() && it->second.generation == generation ? it->second.dp : nullptr;
}

bool SwitchDirectory::post(uint64_t dpid, std::function<void(Datapath*)> fn) {
  std::shared_ptr<channel::Connection> conn;
  uint64_t generation = 0;
  {
    std::lock_guard lock(mu_);
    auto it = entries_.find(dpid);
    if (it == entries_.end()) return false;
    conn = it->second.conn.lock();
    generation = it->second.generation;
  }
  if (!conn) return false;
  conn->post([this, dpid, generation, fn = std::move(fn)] { fn(current(dpid, generation)); });
  return true;
}

HttpResult<std::vector<of::MultipartReplyBody>> SwitchDirectory::multipart(uint64_t dpid,
                                                                           of::MultipartRequestBody body) {
  auto w = std::make_shared<Waiter>();
  bool posted = post(dpid, [w, body = std::move(body)](Datapath* dp) mutable {
    if (!dp) return w->finish({404, "the switch disconnected"});
    auto guard = std::make_shared<ReplyGuard>(w);
    auto r = dp->multipart(std::move(body), [guard](Datapath& d, const of::Message& reply) {
      auto& wt = *guard->w;
      if (reply.is<of::ErrorMsg>()) return wt.finish({400, describe(reply.as<of::ErrorMsg>(), d.version())});
      if (!reply.is<of::MultipartReply>())
        return wt.finish({502, "the switch answered with an unexpected message"});
      const auto& mp = reply.as<of::MultipartReply>();
      {
        std::lock_guard lock(wt.mu);
        wt.parts.push_back(mp.body);
      }
      if (!(mp.flags & of::kMultipartMore)) wt.finish({0, {}});
    });
    if (!r.ok()) w->finish({400, r.error().message});
  });
  if (!posted) return http_fail(404, fmt::format("no switch with dpid {} is connected", dpid));
  if (!w->wait(timeout_))
    return http_fail(504, fmt::format("dpid {}: no reply within {} ms", dpid, timeout_.count()));
  std::lock_guard lock(w->mu);
  if (w->error.status != 0) return unexpected(w->error);
  return std::move(w->parts);
}

HttpStatus SwitchDirectory::modify(uint64_t dpid, of::MessageBody body) {
  auto w = std::make_shared<Waiter>();
  bool posted = post(dpid, [this, w, body = std::move(body)](Datapath* dp) mutable {
    if (!dp) return w->finish({404, "the switch disconnected"});
    auto sent = dp->send(std::move(body));
    if (!sent.ok()) return w->finish({400, sent.error().message});
    {
      std::lock_guard lock(mu_);
      in_flight_[{dp, *sent}] = w;
    }
    auto guard = std::make_shared<ReplyGuard>(w);
    auto r = dp->barrier([this, guard, xid = *sent](Datapath& d, const of::Message&) {
      {
        std::lock_guard lock(mu_);
        in_flight_.erase({&d, xid});
      }
      auto& wt = *guard->w;
      std::string refused;
      {
        std::lock_guard lock(wt.mu);
        refused = wt.switch_error;
      }
      wt.finish(refused.empty() ? HttpError{0, {}} : HttpError{400, refused});
    });
    if (!r.ok()) w->finish({502, r.error().message});
  });
  if (!posted) return http_fail(404, fmt::format("no switch with dpid {} is connected", dpid));
  if (!w->wait(timeout_))
    return http_fail(504, fmt::format("dpid {}: no barrier reply within {} ms", dpid, timeout_.count()));
  std::lock_guard lock(w->mu);
  if (w->error.status != 0) return unexpected(w->error);
  return {};
}

std::vector<TopoSwitch> RuntimeTopology::switches() const {
  std::vector<TopoSwitch> out;
  for (const auto& s : switches_.switches()) {
    TopoSwitch t{s.dpid, {}};
    for (const auto& p : s.ports)
      if (p.port_no <= of::port::kMax) t.ports.push_back({s.dpid, p.port_no, p.name, p.hw_addr});
    out.push_back(std::move(t));
  }
  return out;
}

TopoPort RuntimeTopology::port_of(const std::vector<TopoSwitch>& sws, uint64_t dpid, uint32_t port_no) const {
  for (const auto& s : sws)
    if (s.dpid == dpid)
      for (const auto& p : s.ports)
        if (p.port_no == port_no) return p;
  return TopoPort{dpid, port_no, {}, {}};
}

std::vector<TopoLink> RuntimeTopology::links() const {
  std::vector<TopoLink> out;
  if (!view_) return out;
  auto sws = switches();
  for (const auto& l : view_->links())
    out.push_back({port_of(sws, l.src_dpid, l.src_port), port_of(sws, l.dst_dpid, l.dst_port)});
  return out;
}

std::vector<TopoHost> RuntimeTopology::hosts() const {
  std::vector<TopoHost> out;
  if (!view_) return out;
  auto sws = switches();
  for (const auto& h : view_->hosts())
    out.push_back({h.mac, h.ipv4, h.ipv6, port_of(sws, h.dpid, h.port_no)});
  return out;
}

}  // namespace flowlab::rest
