#include "loadgen/cbench/cbench.h"

#include <fmt/format.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "core/clock.h"
#include "loadgen/cbench/emulated_switch.h"

namespace flowlab::loadgen {
namespace {

constexpr size_t kThroughputLowWater = 64 * 1024;  // top a switch up below this many queued bytes
constexpr uint32_t kThroughputBatch = 256;
constexpr int kThroughputMaxBatches = 1;  // per switch and pump: reads come between top-ups

class Epoll {
 public:
  Epoll() : fd_(epoll_create1(EPOLL_CLOEXEC)) {}
  ~Epoll() {
    if (fd_ >= 0) ::close(fd_);
  }
  Epoll(const Epoll&) = delete;
  Epoll& operator=(const Epoll&) = delete;
  bool add(int fd, uint32_t events, uint64_t tag) {
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = tag;
    return epoll_ctl(fd_, EPOLL_CTL_ADD, fd, &ev) == 0;
  }
  bool mod(int fd, uint32_t events, uint64_t tag) {
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = tag;
    return epoll_ctl(fd_, EPOLL_CTL_MOD, fd, &ev) == 0;
  }
  int wait(epoll_event* evs, int n, int timeout_ms) { return epoll_wait(fd_, evs, n, timeout_ms); }
  bool valid() const { return fd_ >= 0; }

 private:
  int fd_;
};

struct Bench {
  const CbenchOptions& opts;
  std::vector<std::unique_ptr<EmulatedSwitch>> sw;
  std::vector<bool> want_out;
  std::vector<epoll_event> evs;
  Epoll ep;

  // Processes events for up to `timeout_ms`; returns an error when a switch's
  // connection fails. `top_up` keeps send buffers full (throughput mode).
  Status pump(int timeout_ms, bool top_up) {
    if (top_up) {
      // Fill each send buffer until the kernel pushes back (flush would block),
      // so the controller always has input; then sleep in epoll_wait instead of
      // spinning (on a 2-core machine a spinning client steals the controller's CPU).
      for (auto& s : sw) {
        for (int k = 0; k < kThroughputMaxBatches && s->queued_bytes() < kThroughputLowWater; ++k) {
          s->queue_packet_ins(kThroughputBatch);
          auto done = s->flush();
          if (!done.ok()) return fail("switch {}: {}", s->dpid(), done.error().message);
          if (!*done) break;
        }
      }
    }
    for (size_t i = 0; i < sw.size(); ++i) {
      auto done = sw[i]->flush();
      if (!done.ok()) return fail("switch {}: {}", sw[i]->dpid(), done.error().message);
      bool want = !*done;
      if (want != want_out[i]) {
        ep.mod(sw[i]->fd(), EPOLLIN | (want ? EPOLLOUT : 0u), i);
        want_out[i] = want;
      }
    }
    // Every switch with input is read in every pump: with a fixed 64 events per
    // pump, 1,000 switches were read once in ~16 pumps, and in a 1 s loop most of
    // them counted no response although the controller had sent it.
    evs.resize(sw.size());
    int n = ep.wait(evs.data(), int(evs.size()), timeout_ms);
    for (int k = 0; k < n; ++k) {
      auto& s = *sw[evs[size_t(k)].data.u64];
      if (evs[size_t(k)].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
        auto st = s.on_readable();
        if (!st.ok()) return fail("switch {}: {}", s.dpid(), st.error().message);
      }
    }
    return {};
  }
};

double percentile(std::vector<uint32_t>& v, double p) {
  if (v.empty()) return 0;
  size_t idx = size_t(std::min<double>(double(v.size() - 1), std::floor(p * double(v.size() - 1) + 0.5)));
  std::nth_element(v.begin(), v.begin() + long(idx), v.end());
  return double(v[idx]) / 1000.0;
}

}  // namespace

Result<CbenchResult> run_cbench(const CbenchOptions& opts, const LoopCallback& on_loop) {
  if (opts.switches < 1) return fail("--switches must be at least 1");
  if (opts.ms < 1 || opts.loops < 1 || opts.warmup < 0) return fail("--ms and --loops must be positive");
  if (opts.version != 1 && opts.version != 4) return fail("protocol must be OpenFlow10 or OpenFlow13");
  Bench b{opts, {}, {}, {}, {}};
  if (!b.ep.valid()) return fail("epoll_create1 failed");
  for (int i = 0; i < opts.switches; ++i) {
    EmulatedSwitchConfig cfg;
    cfg.dpid = uint64_t(i) + 1;
    cfg.version = opts.version;
    cfg.macs = opts.macs;
    cfg.buffered = opts.buffered;
    auto s = std::make_unique<EmulatedSwitch>(cfg);
    FLOWLAB_TRY(s->connect_to(opts.host, opts.port, opts.connect_timeout_ms));
    b.ep.add(s->fd(), EPOLLIN, uint64_t(i));
    b.sw.push_back(std::move(s));
    b.want_out.push_back(false);
  }

  // Handshake: every switch must at least be asked for its features.
  uint64_t deadline = monotonic_ns() + uint64_t(opts.handshake_timeout_ms) * 1000000;
  for (;;) {
    bool all_ready = true, all_features = true;
    for (auto& s : b.sw) {
      all_ready = all_ready && s->ready();
      all_features = all_features && s->features_sent();
    }
    if (all_ready) break;
    if (monotonic_ns() > deadline) {
      if (all_features) break;  // some controllers never ask for the port description
      std::string missing;
      for (auto& s : b.sw)
        if (!s->features_sent()) missing += fmt::format("{}{}", missing.empty() ? "" : ",", s->dpid());
      return fail(
          "controller at tcp:{}:{} never completed the handshake (no features request) with switches {}",
          opts.host, opts.port, missing);
    }
    FLOWLAB_TRY(b.pump(50, false));
  }
  // Let the controller finish configuring (table-miss flows etc.), then announce hosts.
  for (uint64_t until = monotonic_ns() + 200000000; monotonic_ns() < until;) FLOWLAB_TRY(b.pump(20, false));
  for (auto& s : b.sw) s->queue_arps();
  for (uint64_t until = monotonic_ns() + 300000000; monotonic_ns() < until;) FLOWLAB_TRY(b.pump(20, false));

  CbenchResult result;
  result.options = opts;
  std::vector<uint64_t> total_per_switch(b.sw.size(), 0);
  std::vector<uint32_t> rtts;
  const int total_loops = opts.warmup + opts.loops;
  for (int loop = 0; loop < total_loops; ++loop) {
    bool warmup = loop < opts.warmup;
    for (auto& s : b.sw) {
      s->reset_counts();
      s->clear_rtts();
      s->set_latency_mode(!opts.throughput);
      s->set_sending(true);
      if (!opts.throughput) s->kick();
    }
    std::vector<uint64_t> pins_before;
    for (auto& s : b.sw) pins_before.push_back(s->packet_ins_sent());
    uint64_t start = monotonic_ns();
    uint64_t end = start + uint64_t(opts.ms) * 1000000;
    for (uint64_t now = start; now < end; now = monotonic_ns()) {
      int wait_ms = int(std::max<uint64_t>(1, std::min<uint64_t>((end - now) / 1000000, 10)));
      FLOWLAB_TRY(b.pump(wait_ms, opts.throughput));
    }
    LoopResult lr;
    lr.index = loop;
    lr.warmup = warmup;
    lr.seconds = double(monotonic_ns() - start) / 1e9;
    for (size_t i = 0; i < b.sw.size(); ++i) {
      auto& s = *b.sw[i];
      s.set_sending(false);
      lr.per_switch.push_back(s.responses());
      lr.responses += s.responses();
      lr.packet_ins += s.packet_ins_sent() - pins_before[i];
      if (!warmup) {
        total_per_switch[i] += s.responses();
        result.flow_mods += s.flow_mods();
        result.packet_outs += s.packet_outs();
        result.packet_ins += s.packet_ins_sent() - pins_before[i];
        rtts.insert(rtts.end(), s.rtt_ns().begin(), s.rtt_ns().end());
      }
    }
    if (on_loop) on_loop(lr);
    result.loops.push_back(std::move(lr));
  }

  std::vector<double> rates;
  for (auto& l : result.loops)
    if (!l.warmup) rates.push_back(l.responses_per_sec());
  result.min = *std::min_element(rates.begin(), rates.end());
  result.max = *std::max_element(rates.begin(), rates.end());
  double sum = 0;
  for (double r : rates) sum += r;
  result.avg = sum / double(rates.size());
  double var = 0;
  for (double r : rates) var += (r - result.avg) * (r - result.avg);
  result.stdev = std::sqrt(var / double(rates.size()));
  if (!rtts.empty()) {
    result.latency.samples = rtts.size();
    result.latency.min_us = double(*std::min_element(rtts.begin(), rtts.end())) / 1000.0;
    result.latency.max_us = double(*std::max_element(rtts.begin(), rtts.end())) / 1000.0;
    result.latency.median_us = percentile(rtts, 0.5);
    result.latency.p99_us = percentile(rtts, 0.99);
  }
  for (size_t i = 0; i < b.sw.size(); ++i) {
    if (total_per_switch[i] == 0) result.silent_switches.push_back(b.sw[i]->dpid());
    if (!b.sw[i]->last_error().empty())
      result.warnings.push_back(fmt::format("switch {}: {}", b.sw[i]->dpid(), b.sw[i]->last_error()));
  }
  if (result.silent_switches.size() == b.sw.size())
    return fail(
        "controller at tcp:{}:{} never answered a packet-in ({} sent); switches that got nothing: all {}",
        opts.host, opts.port, result.packet_ins, b.sw.size());
  return result;
}

std::string format_loop(const LoopResult& loop) {
  std::string s = fmt::format("{:<3} switches: flows/sec: ", loop.per_switch.size());
  for (uint64_t n : loop.per_switch)
    s += fmt::format(" {}", uint64_t(double(n) / std::max(loop.seconds, 1e-9)));
  s += fmt::format("  total = {:.6f} per ms", loop.responses_per_sec() / 1000.0);
  if (loop.warmup) s += " (warmup)";
  return s;
}

std::string format_summary(const CbenchResult& r) {
  int tests = 0;
  for (auto& l : r.loops) tests += l.warmup ? 0 : 1;
  std::string s =
      fmt::format("RESULT: {} switches {} tests min/max/avg/stdev = {:.2f}/{:.2f}/{:.2f}/{:.2f} responses/s",
                  r.options.switches, tests, r.min, r.max, r.avg, r.stdev);
  if (r.latency.samples > 0)
    s += fmt::format(
        "\nRESULT: latency min/median/p99/max = {:.1f}/{:.1f}/{:.1f}/{:.1f} us over {} round trips",
        r.latency.min_us, r.latency.median_us, r.latency.p99_us, r.latency.max_us, r.latency.samples);
  s += fmt::format("\nRESULT: counted {} flow-mods and {} packet-outs for {} packet-ins", r.flow_mods,
                   r.packet_outs, r.packet_ins);
  if (!r.silent_switches.empty()) {
    s += "\nWARNING: switches that got no response:";
    for (auto d : r.silent_switches) s += fmt::format(" {}", d);
  }
  for (auto& w : r.warnings) s += "\nWARNING: " + w;
  return s;
}

nlohmann::json to_json(const CbenchResult& r) {
  nlohmann::json j;
  j["controller"] = fmt::format("tcp:{}:{}", r.options.host, r.options.port);
  j["switches"] = r.options.switches;
  j["macs"] = r.options.macs;
  j["mode"] = r.options.throughput ? "throughput" : "latency";
  j["protocol"] = r.options.version == 1 ? "OpenFlow10" : "OpenFlow13";
  j["ms"] = r.options.ms;
  j["warmup"] = r.options.warmup;
  auto& loops = j["loops"] = nlohmann::json::array();
  for (auto& l : r.loops)
    loops.push_back({{"index", l.index},
                     {"warmup", l.warmup},
                     {"seconds", l.seconds},
                     {"responses", l.responses},
                     {"packet_ins", l.packet_ins},
                     {"responses_per_sec", l.responses_per_sec()},
                     {"per_switch", l.per_switch}});
  j["summary"] = {{"min", r.min},
                  {"max", r.max},
                  {"avg", r.avg},
                  {"stdev", r.stdev},
                  {"flow_mods", r.flow_mods},
                  {"packet_outs", r.packet_outs},
                  {"packet_ins", r.packet_ins}};
  if (r.latency.samples)
    j["latency_us"] = {{"samples", r.latency.samples},
                       {"min", r.latency.min_us},
                       {"median", r.latency.median_us},
                       {"p99", r.latency.p99_us},
                       {"max", r.latency.max_us}};
  j["silent_switches"] = r.silent_switches;
  j["warnings"] = r.warnings;
  return j;
}

}  // namespace flowlab::loadgen
