// Switch (see switch.h): wiring of ports, datapath, forwarding threads, agent
// and OpenFlow connections; one log line per connection and port change.
#include "switch/switch.h"

#include <pthread.h>

#include <algorithm>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <mutex>

#include "channel/connector.h"
#include "channel/listener.h"
#include "channel/transport.h"
#include "core/clock.h"
#include "core/log.h"
#include "kernel/fast_path.h"
#include "kernel/kernel_port.h"
#include "openflow/text/flow_text.h"
#include "switch/agent.h"
#include "switch/controller_failover.h"
#include "switch/forwarding.h"
#include "switch/heap_prefault.h"
#include "switch/kernel_datapath.h"
#include "switch/link_monitor.h"
#include "switch/switch_ports.h"

namespace flowlab::sw {

namespace {

std::string version_name(uint8_t v) {
  return v == of::kOf10   ? "OpenFlow 1.0"
         : v == of::kOf13 ? "OpenFlow 1.3"
         : v == of::kOf14 ? "OpenFlow 1.4"
         : v == of::kOf15 ? "OpenFlow 1.5"
                          : fmt::format("version {}", v);
}

std::string offload_summary(const PortCapabilities& c) {
  if (!c.vnet_hdr) return "none";
  std::string s;
  auto add = [&](bool on, const char* n) {
    if (!on) return;
    if (!s.empty()) s += ",";
    s += n;
  };
  add(c.csum, "csum");
  add(c.tso4, "tso4");
  add(c.tso6, "tso6");
  add(c.uso, "uso");
  return s.empty() ? "vnet-hdr" : s;
}

}  // namespace

struct Switch::Impl {
  SwitchOptions opts;
  Switch* owner = nullptr;
  std::unique_ptr<SwitchPorts> ports;
  std::unique_ptr<dp::Datapath> dp;
  ForwardingShared shared;
  std::vector<std::unique_ptr<ForwardingThread>> threads;
  std::unique_ptr<KernelDatapath> kernel;  // --datapath tc; before dp in destruction
  std::unique_ptr<Agent> agent;

  asio::io_context io;
  std::unique_ptr<asio::steady_timer> slow_timer;
  std::unique_ptr<LinkMonitor> link_monitor;  // port-status at once on a carrier change
  std::vector<std::unique_ptr<channel::Listener>> listeners;
  std::vector<std::unique_ptr<channel::Connector>> connectors;
  std::vector<bool> connector_failing;     // log only the first failure in a row
  std::vector<bool> connector_open;        // a connection of this attempt is open (its close logs itself)
  ConnectionLog connection_log;            // --connection-log
  std::unique_ptr<FailoverRing> failover;  // --controller-failover: which connector runs
  std::unique_ptr<asio::steady_timer> failover_timer;
  std::map<channel::Connection*, std::pair<uint64_t, channel::ConnectionPtr>> conns;  // -> peer id
  std::thread io_thread;
  bool started = false, stopped = false;
  bool standalone_logged = false;

  channel::ConnectionOptions conn_options(const std::string& name) const {
    channel::ConnectionOptions o;
    o.versions.clear();
    if (opts.version_bitmap & (1u << of::kOf15)) o.versions.push_back(of::kOf15);
    if (opts.version_bitmap & (1u << of::kOf14)) o.versions.push_back(of::kOf14);
    if (opts.version_bitmap & (1u << of::kOf13)) o.versions.push_back(of::kOf13);
    if (opts.version_bitmap & (1u << of::kOf10)) o.versions.push_back(of::kOf10);
    o.echo_interval = std::chrono::milliseconds(opts.echo_interval_ms);
    o.dead_peer_timeout = std::chrono::milliseconds(opts.echo_interval_ms * 3);
    o.name = name;
    return o;
  }

  void update_standalone() {
    bool on = opts.fail_mode == FailMode::kStandalone && !agent->has_controller();
    bool was = shared.standalone.exchange(on);
    // The kernel fast path forwards hits on the flow table's decisions; standalone
    // ignores the table, so its entries go (found by the fault tests: a cached drop
    // outlived the controller, and standalone never saw those packets).
    if (on != was && kernel) kernel->invalidate();
    if (on != was || !standalone_logged) {
      standalone_logged = true;
      if (on)
        log::info("switch", "{}: no controller connected, fail-mode standalone: acting as a learning switch",
                  opts.name);
      else if (was)
        log::info("switch", "{}: controller connected, leaving standalone mode", opts.name);
    }
  }

  void attach(const channel::ConnectionPtr& conn, bool service, const std::string& label) {
    channel::Connection* raw = conn.get();
    conns[raw] = {0, conn};
    channel::Connection::Handlers h;
    h.on_ready = [this, service, label](channel::Connection& c) {
      std::weak_ptr<channel::Connection> weak = c.shared_from_this();
      uint64_t id = agent->add_peer(
          c.version(), service, label,
          [weak](of::Message m) {
            if (auto sp = weak.lock()) (void)sp->send(std::move(m));
          },
          [weak]() -> size_t {
            auto sp = weak.lock();
            return sp ? sp->queued_bytes() : 0;
          });
      conns[&c].first = id;
      owner->connected_.fetch_add(1);
      if (!service) {
        connection_log.write(label, fmt::format("connected ({})", version_name(c.version())));
        if (failover) failover->connected();
      }
      log::info("switch", "{}: {} {} connected ({})", opts.name, service ? "client" : "controller", label,
                version_name(c.version()));
      update_standalone();
    };
    h.on_message = [this](channel::Connection& c, of::Message& m, ByteSpan raw_msg) {
      auto it = conns.find(&c);
      if (it == conns.end() || it->second.first == 0) return;
      agent->handle(it->second.first, m, raw_msg);
    };
    h.on_close = [this, service, label](channel::Connection& c, const std::string& reason) {
      auto it = conns.find(&c);
      if (it == conns.end()) return;
      uint64_t id = it->second.first;
      if (id != 0) {
        agent->remove_peer(id);
        owner->connected_.fetch_sub(1);
        if (!stopped)
          log::info("switch", "{}: {} {} disconnected: {}", opts.name, service ? "client" : "controller",
                    label, reason);
        if (!service && !stopped) connection_log.write(label, "connection dropped (" + reason + ")");
      } else if (!service && !stopped) {
        log::info("switch", "{}: controller {} closed before negotiating: {}", opts.name, label, reason);
        connection_log.write(label, "closed before negotiating (" + reason + ")");
      }
      // Drop our reference later: the connection is inside its own handler now.
      channel::ConnectionPtr keep = std::move(it->second.second);
      conns.erase(it);
      asio::post(io, [keep] {});
      update_standalone();
    };
    conn->set_handlers(std::move(h));
    conn->start();
  }

  // --controller-failover: connector i (the active one) failed or lost its
  // connection; it stops and the next one starts, at once or after the ring's wait.
  // Posted by the connector's fail handler, so the connector is out of its retry().
  void fail_over(size_t i) {
    if (stopped || !failover || i != failover->active()) return;
    connectors[i]->stop();
    auto wait = failover->failed();
    size_t next = failover->active();
    if (next != i)
      log::info("switch", "{}: controller {} lost, trying the next one, {}", opts.name,
                opts.controllers[i].text, opts.controllers[next].text);
    connection_log.write(opts.controllers[next].text,
                         wait.count() ? fmt::format("trying in {} ms", wait.count()) : std::string("trying"));
    failover_timer->expires_after(wait);
    failover_timer->async_wait([this, next](const asio::error_code& ec) {
      if (ec || stopped || !failover || failover->active() != next) return;
      connectors[next]->start();
    });
  }

  // Sends queued packet-ins, a bounded batch per thread per turn: with the
  // whole queue in one go the agent would not read the controller's
  // packet-outs until thousands more packets were buffered, and the buffers
  // they name would be evicted before they arrive. What is left is posted
  // again, behind the socket reads waiting in the io_context.
  //
  // Wake-ups: a forwarding thread posts a drain only when agent_wake_pending
  // was clear, and the flag is cleared when a drain leaves the rings empty,
  // not when it starts: packets queued while the agent drains cost the
  // forwarding thread no post (an eventfd write) and the agent no extra turn.
  // After clearing, the rings are looked at once more (a fence between: a
  // packet pushed after they were found empty by a thread that still saw the
  // flag set is not left waiting for the 500 ms timer, which drains too as
  // a backstop).
  static constexpr int kDrainBatch = 128;
  void drain_packet_ins() {
    bool more = false;
    for (auto& t : threads) {
      int budget = kDrainBatch;
      for (; budget > 0; --budget) {
        auto item = t->pop_to_controller();
        if (!item) break;
        agent->deliver_packet_in(std::move(*item));
      }
      more = more || budget == 0;
    }
    if (!more) {
      shared.agent_wake_pending.store(false, std::memory_order_seq_cst);
      std::atomic_thread_fence(std::memory_order_seq_cst);
      for (auto& t : threads) more = more || t->to_controller_waiting() > 0;
      if (!more || shared.agent_wake_pending.exchange(true, std::memory_order_acq_rel)) return;
    } else {
      shared.agent_wake_pending.store(true, std::memory_order_relaxed);
    }
    asio::post(io, [this] { drain_packet_ins(); });
  }

  void poll_links() {
    for (size_t i : ports->poll_links()) {
      const SwitchPort& sp = ports->at(i);
      log::info("switch", "{}: port {} ({}): link {}", opts.name, sp.port->name(),
                of::format_port(sp.port_no), sp.link_up.load() ? "up" : "down");
      if (!sp.link_up.load()) shared.macs.forget_port(sp.port_no);
      agent->port_changed(i, of::PortStatusReason::kModify);
    }
  }

  // One forwarding-thread counter summed over the threads.
  uint64_t sum_threads(std::atomic<uint64_t> ForwardingCounters::*counter) const {
    uint64_t n = 0;
    for (const auto& t : threads) n += (t->counters().*counter).load(std::memory_order_relaxed);
    return n;
  }

  // --stats-file: the counters as JSON (see SwitchOptions::stats_file). Runs on
  // the agent thread, or after it has stopped.
  void write_stats() const {
    if (opts.stats_file.empty()) return;
    std::string ports_json;
    for (size_t i = 0; i < ports->size(); ++i) {
      const SwitchPort& sp = ports->at(i);
      PortStats st = sp.port->stats();
      ports_json += fmt::format(
          "{}\n    {{\"port_no\": {}, \"name\": \"{}\", \"rx_packets\": {}, \"rx_bytes\": {}, "
          "\"rx_dropped\": {}, \"tx_packets\": {}, \"tx_bytes\": {}, \"tx_dropped\": {}}}",
          i ? "," : "", sp.port_no, sp.port->name(), st.rx_packets, st.rx_bytes, st.rx_dropped, st.tx_packets,
          st.tx_bytes, st.tx_dropped);
    }
    const AgentCounters& a = agent->counters();
    const BufferStore& b = agent->buffers();
    const dp::DatapathCounters c = dp->counters();
    std::string datapath_json = fmt::format(
        "{{\"packets\": {}, \"table_miss_drops\": {}, \"action_drops\": {}, \"meter_drops\": {}, "
        "\"invalid_ttl\": {}, \"frag_drops\": {}, \"to_controller\": {}}}",
        c.packets, c.table_miss_drops, c.action_drops, c.meter_drops, c.invalid_ttl, c.frag_drops,
        c.to_controller);
    std::string fast_path_json;
    if (kernel) {
      kernel::FastPathStats k = kernel->kernel_stats();
      const KernelDatapathCounters& kc = kernel->counters();
      fast_path_json = fmt::format(
          "{{\"datapath\": \"tc\", \"attach\": \"{}\", \"kernel_packets\": {}, \"upcalls\": {}, "
          "\"kernel_drops\": {}, \"kernel_errors\": {}, \"entries\": {}, \"installs\": {}, "
          "\"uncacheable\": {}, \"install_skipped\": {}, \"masks\": {}, \"out_peer\": {}, "
          "\"out_redirect\": {}, \"out_clone\": {}, \"gso_frames\": {}, \"prog_runs\": {}, \"prog_ns\": {}}}",
          kernel->attach_mode(), k.hits, k.upcalls, k.drops, k.errors, kernel->entries(), kc.installs.load(),
          kc.uncacheable.load(), kc.install_skipped.load(), kernel->mask_count(), k.out_peer, k.out_redirect,
          k.out_clone, k.gso, k.prog_runs, k.prog_ns);
    } else {
      fast_path_json =
          fmt::format("{{\"datapath\": \"af-packet\", \"kernel_packets\": 0, \"upcalls\": {}}}", c.packets);
    }
    std::string text = fmt::format(
        "{{\n  \"name\": \"{}\",\n  \"dpid\": {},\n  \"fast_path\": {},\n  \"ports\": [{}\n  ],\n"
        "  \"datapath\": {},\n"
        "  \"to_controller\": {{\"queued\": {}, \"dropped\": {}, \"coalesce_waits\": {}}},\n"
        "  \"packet_ins\": {{\"sent\": {}, \"unsent\": {}, \"congested\": {}}},\n"
        "  \"packet_outs\": {},\n"
        "  \"buffers\": {{\"capacity\": {}, \"in_use\": {}, \"evicted\": {}, \"expired\": {}}},\n"
        "  \"requests\": {},\n  \"errors_sent\": {}\n}}\n",
        opts.name, opts.dpid, fast_path_json, ports_json, datapath_json,
        sum_threads(&ForwardingCounters::to_controller_queued),
        sum_threads(&ForwardingCounters::to_controller_dropped),
        sum_threads(&ForwardingCounters::coalesce_waits), a.packet_ins_sent, a.packet_ins_unsent,
        a.packet_ins_congested, a.packet_outs, b.capacity(), b.in_use(), b.evicted(), b.expired(), a.requests,
        a.errors_sent);
    // An idle switch's counters do not move: the file is rewritten when they do, or
    // every 10 s (a lab of a hundred switches wrote 200 files a second doing nothing).
    const uint64_t now = monotonic_ns();
    if (text == stats_written && now - stats_written_ns < 10'000'000'000ull) return;
    std::string tmp = opts.stats_file + ".tmp";
    std::FILE* f = std::fopen(tmp.c_str(), "w");
    if (!f) {
      if (!stats_failed_logged) log::warn("switch", "{}: cannot write --stats-file {}", opts.name, tmp);
      stats_failed_logged = true;
      return;
    }
    bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    ok = std::fclose(f) == 0 && ok;
    if (ok && std::rename(tmp.c_str(), opts.stats_file.c_str()) == 0) {
      stats_written = std::move(text);
      stats_written_ns = now;
    }
  }
  mutable bool stats_failed_logged = false;
  mutable std::string stats_written;  // the file's text as last written
  mutable uint64_t stats_written_ns = 0;

  // One timer per switch (an idle switch host's agents wake 2 times a second
  // each, not 12: a drain every 100 ms was a backstop the wake-up protocol
  // above does not need).
  void arm_slow() {
    slow_timer->expires_after(std::chrono::milliseconds(500));
    slow_timer->async_wait([this](std::error_code ec) {
      if (ec || stopped) return;
      drain_packet_ins();
      agent->expire(monotonic_ns());
      poll_links();
      write_stats();
      arm_slow();
    });
  }
};

Switch::Switch(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) { impl_->owner = this; }

Switch::~Switch() { stop(); }

Result<std::unique_ptr<Switch>> Switch::create(const SwitchOptions& opts) { return create(opts, nullptr); }

Result<std::unique_ptr<Switch>> Switch::create(const SwitchOptions& opts, kernel::FastPathPool* pool) {
  std::unique_ptr<kernel::FastPath> fp;
  if (opts.datapath != DatapathKind::kAfPacket) {
    uint64_t t0 = monotonic_ns();
    auto loaded = pool ? pool->open(opts.ports.size() + (opts.local_port ? 1 : 0)) : kernel::FastPath::load();
    if (loaded.ok()) {
      fp = std::move(*loaded);
      if (fp->load_ms() > 0)
        log::info("switch", "{}: fast path loaded in {} ms (BPF maps and program)", opts.name,
                  (monotonic_ns() - t0) / 1000000);
      else
        log::info("switch", "{}: fast path: datapath {} of the process's BPF program", opts.name,
                  fp->datapath_index());
    } else {
      if (opts.datapath == DatapathKind::kTc) return fail("--datapath tc: {}", loaded.error().message);
      log::info("switch", "{}: datapath tc unavailable ({}); using af-packet", opts.name,
                loaded.error().message);
    }
  }
  std::vector<std::unique_ptr<Port>> ports;
  auto add = [&ports, &fp](const PortSpec& ps, std::string_view option) -> Status {
    std::string spec = ps.tap ? "tap:" + ps.ifname : ps.ifname;
    std::unique_ptr<Port> port;
    if (fp && !ps.tap) {  // TAP ports stay in the slow path (no TC program on them)
      auto kp = kernel::KernelPort::open(ps.ifname);
      if (!kp.ok()) return fail("{} {}: {}", option, spec, kp.error().message);
      port = std::move(*kp);
    } else {
      auto p = open_port(spec);
      if (!p.ok()) return fail("{} {}: {}", option, spec, p.error().message);
      port = std::move(*p);
    }
    port->set_port_no(ps.port_no);
    ports.push_back(std::move(port));
    return ok_status();
  };
  for (const auto& ps : opts.ports) FLOWLAB_TRY(add(ps, "--port"));
  if (opts.local_port) FLOWLAB_TRY(add(*opts.local_port, "--local"));
  if (!fp) return create(opts, std::move(ports));

  FLOWLAB_ASSIGN_OR_RETURN(auto sw, create(opts, std::move(ports)));
  Impl& d = *sw->impl_;
  auto kd = KernelDatapath::create(std::move(fp), *d.dp, *d.ports, d.threads.size());
  if (!kd.ok()) {
    if (opts.datapath == DatapathKind::kTc) return fail("--datapath tc: {}", kd.error().message);
    log::info("switch", "{}: datapath tc unavailable ({}); using af-packet", opts.name, kd.error().message);
    sw.reset();  // closes the kernel ports first
    SwitchOptions af = opts;
    af.datapath = DatapathKind::kAfPacket;
    return create(af);
  }
  d.kernel = std::move(*kd);
  KernelDatapath* k = d.kernel.get();
  d.shared.on_port_change = [k] { k->invalidate(); };
  d.shared.sync_counters = [k] { k->fold(monotonic_ns()); };
  for (size_t t = 0; t < d.threads.size(); ++t) {
    d.threads[t]->set_kernel_datapath(k);
    if (k->upcall()) d.threads[t]->set_upcall_queue(&k->upcall()->queue(t));
  }
  d.agent->set_fast_path_ports([k](uint32_t no) { return k->port_usable(no); });
  return sw;
}

Result<std::unique_ptr<Switch>> Switch::create(const SwitchOptions& opts,
                                               std::vector<std::unique_ptr<Port>> ports) {
  // Certificates that do not load are a start-up error, not a retry loop.
  // Every ssl: controller uses the same files: loading them once checks all.
  auto tls =
      std::find_if(opts.controllers.begin(), opts.controllers.end(), [](const auto& c) { return c.tls; });
  if (tls != opts.controllers.end()) {
    auto ctx =
        channel::make_tls_context(channel::TlsConfig{opts.cert_file, opts.key_file, opts.ca_file}, false);
    if (!ctx.ok()) return fail("--controller {}: {}", tls->text, ctx.error().message);
  }
  auto impl = std::make_unique<Impl>();
  Impl& d = *impl;
  d.opts = opts;
  FLOWLAB_ASSIGN_OR_RETURN(d.connection_log, ConnectionLog::open(opts.connection_log, opts.name));
  size_t n_local = 0;
  for (const auto& p : ports) {
    if (p->port_no() == of::port::kLocal && ++n_local == 1) continue;
    if (p->port_no() == 0 || p->port_no() >= of::port::kMax)
      return fail("port {}: no OpenFlow port number", p->name());
  }
  d.ports = std::make_unique<SwitchPorts>(std::move(ports));
  dp::DatapathConfig cfg;
  cfg.of10 = !(opts.version_bitmap & ((1u << of::kOf13) | (1u << of::kOf14) | (1u << of::kOf15)));
  cfg.n_tables = cfg.of10 ? 1 : opts.n_tables;
  cfg.table_size = opts.table_size;
  d.dp = std::make_unique<dp::Datapath>(cfg, d.ports.get());
  d.agent = std::make_unique<Agent>(opts, *d.dp, *d.ports, d.shared);

  // Forwarding threads: port i is received by thread i % N.
  size_t n = std::max<size_t>(1, std::min<size_t>(opts.threads, d.ports->size()));
  std::vector<std::vector<size_t>> assign(n);
  for (size_t i = 0; i < d.ports->size(); ++i) assign[i % n].push_back(i);
  std::vector<ForwardingThread*> raw;
  for (size_t t = 0; t < n; ++t) {
    d.threads.push_back(std::make_unique<ForwardingThread>(unsigned(t), *d.dp, *d.ports, assign[t], d.shared,
                                                           opts.to_controller_queue));
    raw.push_back(d.threads.back().get());
  }
  d.agent->set_forwarding_threads(raw);
  Impl* ip = &d;
  d.shared.wake_agent = [ip] { asio::post(ip->io, [ip] { ip->drain_packet_ins(); }); };
  // The changes of one socket read become one datapath version (Agent::set_batch_scheduler):
  // the posted handler runs once the read handler has dispatched every message it framed.
  d.agent->set_batch_scheduler([ip] {
    asio::post(ip->io, [ip] {
      if (ip->agent) ip->agent->end_batch();
    });
  });
  // The agent's heap growth faulted in on a thread of its own, one for the process,
  // made with the first switch (not at its first request: a thread appearing late
  // reads as growth to the soak's resource checks).
  HeapPrefaulter& prefaulter = HeapPrefaulter::shared();
  d.agent->set_request_tick([&prefaulter] { prefaulter.poke(); });
  d.shared.forwarding_nice = opts.forwarding_nice;
  d.shared.packet_in_coalesce_ns = uint64_t(opts.packet_in_coalesce_us) * 1000;

  // Listeners bind now, so a busy TCP port is reported before anything starts.
  for (const auto& l : opts.listeners) {
    channel::Endpoint ep;
    ep.passive = true;
    ep.host = l.host;
    ep.port = l.port;
    channel::ConnectionOptions lo = d.conn_options(opts.name + " " + l.text);
    // A management client may dump a million flows (~110 MB of flow stats, built whole
    // before the first byte leaves): let its queue hold that rather than refuse the tail.
    lo.max_queued_bytes = size_t(512) << 20;
    auto lis = channel::Listener::open(d.io, ep, lo, [ip, text = l.text](const channel::ConnectionPtr& c) {
      std::string label = fmt::format("{} ({})", c->peer(), text);
      ip->attach(c, true, label);
    });
    if (!lis.ok()) return fail("--listen {}: {}", l.text, lis.error().message);
    d.listeners.push_back(std::move(*lis));
  }
  return std::unique_ptr<Switch>(new Switch(std::move(impl)));
}

Status Switch::start() {
  Impl& d = *impl_;
  if (d.started) return ok_status();
  d.started = true;
  for (size_t i = 0; i < d.ports->size(); ++i) {
    const SwitchPort& sp = d.ports->at(i);
    log::info("switch", "{}: port {} added as OpenFlow port {} (link {}, offloads {})", d.opts.name,
              sp.port->name(), of::format_port(sp.port_no), sp.link_up.load() ? "up" : "down",
              offload_summary(sp.port->capabilities()));
  }
  for (auto& t : d.threads) FLOWLAB_TRY(t->start());
  Impl* ip = &d;
  for (size_t i = 0; i < d.opts.controllers.size(); ++i) {
    const auto& c = d.opts.controllers[i];
    channel::Endpoint ep;
    ep.host = c.host;
    ep.port = c.port;
    ep.tls = c.tls;
    channel::BackoffOptions bo;
    bo.max = std::chrono::milliseconds(d.opts.reconnect_max_ms);
    d.connector_failing.push_back(false);
    d.connector_open.push_back(false);
    d.connectors.push_back(std::make_unique<channel::Connector>(
        d.io, ep, d.conn_options(d.opts.name + " -> " + c.text),
        [ip, i, text = c.text](const channel::ConnectionPtr& conn) {
          ip->connector_failing[i] = false;
          ip->connector_open[i] = true;
          ip->attach(conn, false, text);
        },
        bo, channel::TlsConfig{d.opts.cert_file, d.opts.key_file, d.opts.ca_file},
        [ip, i, text = c.text](const std::string& reason, std::chrono::milliseconds next) {
          if (ip->stopped) return;
          bool was_open = ip->connector_open[i];
          ip->connector_open[i] = false;
          if (ip->failover) {
            if (!was_open) ip->connection_log.write(text, "connection failed (" + reason + ")");
            asio::post(ip->io, [ip, i] { ip->fail_over(i); });
          }
          if (!ip->connector_failing[i]) {
            log::info("switch", "{}: controller {} unreachable ({}), retrying with backoff", ip->opts.name,
                      text, reason);
            ip->connector_failing[i] = true;
          } else {
            log::debug("switch", "{}: controller {} unreachable ({}), next try in {} ms", ip->opts.name, text,
                       reason, next.count());
          }
        }));
  }
  for (auto& l : d.listeners) l->start();
  if (d.opts.controller_failover && !d.connectors.empty()) {
    d.failover = std::make_unique<FailoverRing>(d.connectors.size(), std::chrono::milliseconds(100),
                                                std::chrono::milliseconds(d.opts.reconnect_max_ms));
    d.failover_timer = std::make_unique<asio::steady_timer>(d.io);
    d.connection_log.write(d.opts.controllers[0].text, "trying");
    d.connectors[0]->start();
  } else {
    for (auto& c : d.connectors) c->start();
  }
  d.slow_timer = std::make_unique<asio::steady_timer>(d.io);
  std::vector<int> ifindexes;
  for (size_t i = 0; i < d.ports->size(); ++i) ifindexes.push_back(d.ports->at(i).port->ifindex());
  // Notified on the monitor's thread: the ports are re-read on the switch's.
  auto lm = LinkMonitor::open(std::move(ifindexes), [ip] { asio::post(ip->io, [ip] { ip->poll_links(); }); });
  if (lm.ok())
    d.link_monitor = std::move(*lm);
  else
    log::warn("switch", "{}: {}; link changes are noticed by polling every 500 ms", d.opts.name,
              lm.error().message);
  asio::post(d.io, [ip] {
    ip->update_standalone();
    ip->arm_slow();
  });
  d.io_thread = std::thread([ip] {
    ::pthread_setname_np(::pthread_self(), "flowlab-agent");  // as the forwarding threads' names
    ip->io.run();
  });
  std::string ctl;
  for (const auto& c : d.opts.controllers) ctl += (ctl.empty() ? "" : ",") + c.text;
  std::string lis;
  for (size_t i = 0; i < d.listeners.size(); ++i)
    lis += fmt::format("{}ptcp:{}", lis.empty() ? "" : ",", d.listeners[i]->port());
  std::string datapath = d.kernel ? fmt::format("tc (eBPF at TC ingress, {})", d.kernel->attach_mode())
                                  : std::string("af-packet");
  log::info("switch",
            "{}: started, dpid {:#018x}, datapath {}, {} port(s), {} forwarding thread(s), fail-mode {}{}{}",
            d.opts.name, d.opts.dpid, datapath, d.ports->size(), d.threads.size(),
            to_string(d.opts.fail_mode),
            ctl.empty() ? "" : (d.failover ? ", controllers one at a time " : ", controllers ") + ctl,
            lis.empty() ? "" : ", listening on " + lis);
  return ok_status();
}

void Switch::stop() {
  Impl& d = *impl_;
  if (d.stopped) return;
  d.stopped = true;
  for (auto& t : d.threads) t->stop();
  d.link_monitor.reset();  // no more posts from the monitor's thread
  if (d.io_thread.joinable()) {
    Impl* ip = &d;
    asio::post(d.io, [ip] {
      for (auto& c : ip->connectors) c->stop();
      if (ip->failover_timer) ip->failover_timer->cancel();
      for (auto& l : ip->listeners) l->close();
      std::vector<channel::ConnectionPtr> open;
      for (auto& [raw, v] : ip->conns) open.push_back(v.second);
      for (auto& c : open) c->abort("switch stopping");
      if (ip->slow_timer) ip->slow_timer->cancel();
    });
    // Let the aborts and cancellations run, then stop the loop.
    asio::post(d.io, [ip] { ip->io.stop(); });
    d.io_thread.join();
  }
  d.connectors.clear();
  d.listeners.clear();
  d.conns.clear();
  if (d.agent) d.write_stats();
  log::info("switch", "{}: stopped", d.opts.name);
}

uint16_t Switch::listen_port(size_t i) const {
  return i < impl_->listeners.size() ? impl_->listeners[i]->port() : 0;
}
dp::Datapath& Switch::datapath() { return *impl_->dp; }
bool Switch::kernel_fast_path() const { return impl_->kernel != nullptr; }
SwitchPorts& Switch::ports() { return *impl_->ports; }
bool Switch::standalone_active() const { return impl_->shared.standalone.load(); }

bool Switch::run_on_agent(const std::function<void(const AgentState&)>& fn,
                          std::chrono::milliseconds timeout) {
  Impl& d = *impl_;
  if (!d.started || d.stopped) return false;
  struct Call {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false, cancelled = false;
  };
  auto call = std::make_shared<Call>();
  Impl* ip = &d;
  asio::post(d.io, [ip, call, &fn] {
    std::lock_guard lock(call->mu);
    if (call->cancelled || ip->stopped) return;  // the caller gave up: fn may be gone
    if (ip->shared.sync_counters) ip->shared.sync_counters();
    fn(AgentState{ip->opts, *ip->agent, *ip->dp, *ip->ports, ip->kernel.get(),
                  ip->sum_threads(&ForwardingCounters::to_controller_queued),
                  ip->sum_threads(&ForwardingCounters::to_controller_dropped)});
    call->done = true;
    call->cv.notify_all();
  });
  std::unique_lock lock(call->mu);
  if (call->cv.wait_for(lock, timeout, [&] { return call->done; })) return true;
  call->cancelled = true;
  return false;
}

uint64_t Switch::to_controller_queued() const {
  return impl_->sum_threads(&ForwardingCounters::to_controller_queued);
}
uint64_t Switch::to_controller_dropped() const {
  return impl_->sum_threads(&ForwardingCounters::to_controller_dropped);
}

}  // namespace flowlab::sw
