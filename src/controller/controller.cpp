// Controller runtime (see controller.h): handshake, event dispatch, stats, shutdown.
//
// Shutdown invariant: every connection is aborted on its own thread (which
// releases its handlers and with them the Datapath), listeners, connectors,
// timers and signal sets are closed, and only then do the io_contexts run out of
// work and return; nothing is left pending, so nothing leaks.
#include "controller/controller.h"

#include <algorithm>
#include <asio.hpp>
#include <atomic>
#include <csignal>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "channel/connector.h"
#include "channel/listener.h"
#include "core/clock.h"
#include "core/log.h"
#include "openflow/codec.h"

namespace flowlab::controller {

namespace {

std::string port_name(uint32_t no) {
  if (no == of::port::kLocal) return "LOCAL";
  return std::to_string(no);
}

std::string version_name(uint8_t v) {
  if (v == of::kOf15) return "OpenFlow 1.5";
  if (v == of::kOf14) return "OpenFlow 1.4";
  if (v == of::kOf13) return "OpenFlow 1.3";
  if (v == of::kOf10) return "OpenFlow 1.0";
  return fmt::format("OpenFlow 0x{:02x}", v);
}

}  // namespace

struct Controller::State {
  ControllerOptions opts;
  std::vector<std::unique_ptr<App>> apps;
  ControllerStats stats;
  std::unique_ptr<topology::TopologyService> topo;
  std::vector<std::unique_ptr<asio::io_context>> ios;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> guards;
  std::vector<std::unique_ptr<channel::Listener>> listeners;
  std::vector<std::unique_ptr<channel::Connector>> connectors;
  std::unique_ptr<asio::signal_set> signals;
  std::unique_ptr<asio::steady_timer> stats_timer;
  std::unique_ptr<asio::steady_timer> lldp_timer;  // topology service ticks
  std::atomic<size_t> next_io{0};
  std::atomic<bool> stopping{false};
  std::mutex conns_mu;
  std::vector<std::weak_ptr<channel::Connection>> conns;
  std::vector<std::weak_ptr<Datapath>> dps;  // under conns_mu; for promote()
  std::mutex reload_mu;

  asio::io_context& pick() { return *ios[next_io++ % ios.size()]; }

  // ---- events ----
  template <typename F>
  void dispatch(EventKind kind, F&& f) {
    uint64_t t0 = monotonic_ns();
    for (auto& app : apps)
      if (f(*app) == Verdict::kConsumed) break;
    stats.handling[size_t(kind)].record(monotonic_ns() - t0);
  }

  void switch_up(Datapath& dp) {
    dp.set_up(true);
    stats.switches_connected++;
    stats.switches_seen++;
    std::string ports;
    for (const auto& [no, p] : dp.ports()) ports += fmt::format(" {}({})", port_name(no), p.name);
    log::info("controller", "switch up: {} {} from {}, {} tables, {} buffers, {} ports:{}", dp.name(),
              version_name(dp.version()), dp.connection().peer(), dp.n_tables(), dp.n_buffers(),
              dp.ports().size(), ports);
    for (auto& app : apps)
      if (app->sees_every_role()) app->switch_connected(dp);
    if (dp.role() == of::ControllerRole::kSlave) {
      log::info("controller", "{}: slave here; the apps see this switch once this controller is master",
                dp.name());
      return;
    }
    attach(dp);
  }

  // The topology service and the apps take the switch on.
  void attach(Datapath& dp) {
    dp.set_attached(true);
    uint64_t t0 = monotonic_ns();
    topo->switch_up(dp, dp.weak_from_this());
    for (auto& app : apps)
      if (!app->sees_every_role()) app->switch_connected(dp);
    stats.handling[size_t(EventKind::kSwitchConnected)].record(monotonic_ns() - t0);
  }

  // ---- roles ----
  static const char* role_name(of::ControllerRole r) {
    switch (r) {
      case of::ControllerRole::kMaster:
        return "master";
      case of::ControllerRole::kSlave:
        return "slave";
      case of::ControllerRole::kEqual:
        return "equal";
      case of::ControllerRole::kNoChange:
        break;
    }
    return "no-change";
  }

  void set_role(Datapath& dp, of::ControllerRole r) {
    if (dp.role() == r) return;
    if (dp.role() == of::ControllerRole::kMaster) stats.switches_master--;
    if (r == of::ControllerRole::kMaster) stats.switches_master++;
    dp.set_role(r);
  }

  // Sends ROLE_REQUEST `role`; `then` runs once it is answered (or refused).
  void request_role(Datapath& dp, of::ControllerRole role, uint64_t generation_id,
                    std::function<void(Datapath&)> then) {
    auto on_reply = [this, role, generation_id, then = std::move(then)](Datapath& dp,
                                                                        const of::Message& reply) {
      if (reply.is<of::RoleReply>()) {
        set_role(dp, reply.as<of::RoleReply>().role);
        log::info("controller", "{}: role {} (generation id {})", dp.name(), role_name(dp.role()),
                  reply.as<of::RoleReply>().generation_id);
      } else if (reply.is<of::ErrorMsg>()) {
        const auto& e = reply.as<of::ErrorMsg>();
        stats.role_refused++;
        bool stale = e.type == uint16_t(of::ErrorType::kRoleRequestFailed) &&
                     e.code == uint16_t(of::RoleRequestFailedCode::kStale);
        log::warn("controller", "{}: role request {} (generation id {}) refused: {}; acting as a slave here",
                  dp.name(), role_name(role), generation_id,
                  stale ? "stale generation id (OFPRRFC_STALE)"
                        : fmt::format("error type {} code {}", e.type, e.code));
        set_role(dp, of::ControllerRole::kSlave);
      }
      if (then) then(dp);
    };
    auto r = dp.role_request(role, generation_id, std::move(on_reply));
    if (!r.ok()) log::warn("controller", "{}: role request: {}", dp.name(), r.error().message);
  }

  // After the handshake: the configured role first, then switch_up.
  void handshake_done(Datapath& dp) {
    if (opts.mastership) return cluster_switch_up(dp);
    if (opts.role == of::ControllerRole::kNoChange) return switch_up(dp);
    if (!dp.is_of13()) {
      log::warn("controller", "{}: OpenFlow 1.0 has no role request; acting as {} locally", dp.name(),
                role_name(opts.role));
      if (opts.role != of::ControllerRole::kEqual) set_role(dp, opts.role);
      return switch_up(dp);
    }
    request_role(dp, opts.role, opts.generation_id, [this](Datapath& dp) {
      if (!dp.up()) switch_up(dp);
    });
  }

  void promote_one(Datapath& dp) {
    if (!dp.up() || dp.role() == of::ControllerRole::kMaster) return;
    if (!dp.is_of13()) {
      set_role(dp, of::ControllerRole::kMaster);
      if (!dp.attached()) attach(dp);
      return;
    }
    request_role(dp, of::ControllerRole::kMaster, opts.generation_id, [this](Datapath& dp) {
      if (dp.role() != of::ControllerRole::kMaster || dp.attached()) return;
      attach(dp);
    });
  }

  // ---- roles decided by a cluster (mastership.h) ----
  // A slave here until the cluster says otherwise; OpenFlow 1.0 has no role
  // request, so a cluster cannot fence its masters: such a switch is refused.
  void cluster_switch_up(Datapath& dp) {
    set_role(dp, of::ControllerRole::kSlave);
    switch_up(dp);
    if (!dp.is_of13()) {
      log::error("controller",
                 "{}: OpenFlow 1.0 has no role request, so the cluster cannot give it one master and fence "
                 "the others; this node leaves it alone (connect it with OpenFlow 1.3)",
                 dp.name());
      return;
    }
    opts.mastership->switch_up(dp.dpid());
  }

  void assign(Datapath& dp, of::ControllerRole role, uint64_t generation_id) {
    if (!dp.up() || !dp.is_of13()) return;
    if (role != of::ControllerRole::kMaster) detach(dp);
    request_role(dp, role, generation_id, [this, generation_id](Datapath& dp) {
      bool master = dp.role() == of::ControllerRole::kMaster;
      if (master && !dp.attached()) attach(dp);
      if (!master) detach(dp);
      if (dp.up()) opts.mastership->role_result(dp.dpid(), master, generation_id);
    });
  }

  void on_is_slave(Datapath& dp) {
    stats.is_slave_errors++;
    if (dp.role() == of::ControllerRole::kSlave) return;
    log::warn("controller",
              "{}: the switch says this controller is a slave (OFPBRC_IS_SLAVE): another "
              "controller is master; acting as a slave here",
              dp.name());
    set_role(dp, of::ControllerRole::kSlave);
    if (opts.mastership) {
      detach(dp);
      opts.mastership->role_result(dp.dpid(), false, 0);
    }
  }

  // The apps and the topology service let go of a switch that stays connected.
  void detach(Datapath& dp) {
    if (!dp.attached()) return;
    dp.set_attached(false);
    uint64_t t0 = monotonic_ns();
    topo->switch_down(dp);
    for (auto& app : apps)
      if (!app->sees_every_role()) app->switch_disconnected(dp);
    stats.handling[size_t(EventKind::kSwitchDisconnected)].record(monotonic_ns() - t0);
  }

  void switch_down(Datapath& dp, const std::string& reason) {
    if (!dp.up()) {
      log::info("controller", "connection from {} closed before the handshake finished: {}",
                dp.connection().peer(), reason);
      return;
    }
    dp.set_up(false);
    stats.switches_connected--;
    set_role(dp, of::ControllerRole::kEqual);
    log::info("controller", "switch down: {} ({})", dp.name(), reason);
    detach(dp);
    for (auto& app : apps)
      if (app->sees_every_role()) app->switch_disconnected(dp);
    if (opts.mastership && dp.is_of13()) opts.mastership->switch_down(dp.dpid());
    dp.drop_callbacks();
  }

  void on_packet_in(Datapath& dp, const of::Message& m) {
    if (!dp.up() ||
        !dp.attached()) {  // a slave (or refused master) sees an EQUAL's packet-ins: not its apps'
      stats.packet_in_received++;
      stats.packet_in_dropped++;
      return;
    }
    const auto& pi = m.as<of::PacketIn>();
    PacketInEvent ev{m, pi, 0, {}, {}, {}};
    if (const auto* f = pi.match.find(of::OxmId::kInPort)) ev.in_port = uint32_t(f->value_u64());
    extract_flow_key(pi.data.data(), pi.data.size(), ev.in_port, 0, 0, ev.key, ev.layers);
    if (topo->packet_in(dp, ev)) {
      stats.packet_in_lldp++;
      return;
    }
    stats.packet_in_received++;
    uint64_t before = dp.sent_count();
    dispatch(EventKind::kPacketIn, [&](App& a) { return a.packet_in(dp, ev); });
    if (dp.sent_count() > before)
      stats.packet_in_answered++;
    else
      stats.packet_in_dropped++;
  }

  void on_message(Datapath& dp, of::Message& m) {
    switch (m.type()) {
      case of::MsgType::kPacketIn:
        on_packet_in(dp, m);
        return;
      case of::MsgType::kFeaturesReply: {
        dp.set_features(m.as<of::FeaturesReply>());
        if (dp.version() >= of::kOf13) {
          auto r = dp.multipart(of::PortDescRequest{}, [this, ports = std::vector<of::PortDesc>()](
                                                           Datapath& dp, const of::Message& reply) mutable {
            if (reply.is<of::MultipartReply>() &&
                std::holds_alternative<of::PortDescReply>(reply.as<of::MultipartReply>().body)) {
              const auto& part = std::get<of::PortDescReply>(reply.as<of::MultipartReply>().body);
              ports.insert(ports.end(), part.ports.begin(), part.ports.end());
              if (reply.as<of::MultipartReply>().flags & of::kMultipartMore) return;
            } else {
              log::warn("controller", "{}: port-desc request failed; continuing without the port list",
                        dp.name());
            }
            dp.set_ports(ports);
            if (!dp.up()) handshake_done(dp);
          });
          if (!r.ok()) log::warn("controller", "{}: {}", dp.name(), r.error().message);
        } else if (!dp.up()) {
          handshake_done(dp);
        }
        return;
      }
      case of::MsgType::kPortStatus: {
        const auto& ps = m.as<of::PortStatus>();
        dp.update_port(ps);
        static constexpr const char* kReasons[] = {"added", "deleted", "modified"};
        log::info("controller", "{}: port {}({}) {}{}", dp.name(), port_name(ps.desc.port_no), ps.desc.name,
                  ps.reason < 3 ? kReasons[ps.reason] : "changed",
                  ps.desc.state & of::port_state::kLinkDown ? ", link down" : "");
        if (!dp.attached()) {
          for (auto& app : apps)
            if (app->sees_every_role()) app->port_status(dp, ps);
          return;
        }
        uint64_t t0 = monotonic_ns();
        topo->port_status(dp, ps);
        stats.handling[size_t(EventKind::kPortStatus)].record(monotonic_ns() - t0);
        dispatch(EventKind::kPortStatus, [&](App& a) { return a.port_status(dp, ps); });
        return;
      }
      case of::MsgType::kFlowRemoved:
        if (dp.attached())
          dispatch(EventKind::kFlowRemoved,
                   [&](App& a) { return a.flow_removed(dp, m.as<of::FlowRemoved>()); });
        return;
      case of::MsgType::kError: {
        uint64_t t0 = monotonic_ns();
        if (dp.deliver_reply(m)) {
          stats.handling[size_t(EventKind::kError)].record(monotonic_ns() - t0);
          return;
        }
        const auto& e = m.as<of::ErrorMsg>();
        if (dp.is_of13() && e.type == uint16_t(of::ErrorType::kBadRequest) &&
            e.code == uint16_t(of::BadRequestCode::kIsSlave))
          on_is_slave(dp);
        log::warn("controller", "{}: error from switch: type {} code {} (xid {})", dp.name(), e.type, e.code,
                  m.xid);
        dispatch(EventKind::kError, [&](App& a) { return a.error(dp, m, e); });
        return;
      }
      case of::MsgType::kMultipartReply:
      case of::MsgType::kBarrierReply: {
        uint64_t t0 = monotonic_ns();
        dp.deliver_reply(m);
        stats.handling[size_t(EventKind::kMultipartReply)].record(monotonic_ns() - t0);
        return;
      }
      default:
        dp.deliver_reply(m);
        return;
    }
  }

  void adopt(const channel::ConnectionPtr& conn) {
    auto dp = std::make_shared<Datapath>(conn, stats);
    channel::Connection::Handlers h;
    h.on_ready = [](channel::Connection& c) {
      auto r = c.send(of::make_message(0, 0, of::FeaturesRequest{}));
      if (!r.ok()) c.close(r.error().message);
    };
    h.on_message = [this, dp](channel::Connection&, of::Message& m, ByteSpan) { on_message(*dp, m); };
    h.on_close = [this, dp](channel::Connection&, const std::string& reason) { switch_down(*dp, reason); };
    conn->set_handlers(std::move(h));
    {
      std::lock_guard lock(conns_mu);
      std::erase_if(conns, [](const auto& w) { return w.expired(); });
      conns.push_back(conn);
      std::erase_if(dps, [](const auto& w) { return w.expired(); });
      dps.push_back(dp);
    }
    if (stopping) {
      conn->abort("controller stopping");
      return;
    }
    conn->start();
  }

  void write_json() const {
    if (opts.stats_json.empty()) return;
    std::string tmp = opts.stats_json + ".tmp";
    {
      std::ofstream f(tmp);
      if (!f) {
        log::warn("controller", "cannot write stats to '{}'", tmp);
        return;
      }
      f << stats.to_json().dump(2) << "\n";
    }
    std::rename(tmp.c_str(), opts.stats_json.c_str());
  }

  void arm_stats() {
    auto period = opts.stats_every.count() > 0 ? opts.stats_every : std::chrono::milliseconds(1000);
    if (opts.stats_every.count() <= 0 && opts.stats_json.empty()) return;
    stats_timer->expires_after(period);
    stats_timer->async_wait([this](const asio::error_code& ec) {
      if (ec || stopping) return;
      if (opts.stats_every.count() > 0) log::info("stats", "{}", stats.log_line());
      write_json();
      arm_stats();
    });
  }

  void arm_lldp() {
    if (!opts.topology.enabled) return;
    lldp_timer->expires_after(opts.topology.lldp_interval);
    lldp_timer->async_wait([this](const asio::error_code& ec) {
      if (ec || stopping) return;
      topo->tick();
      arm_lldp();
    });
  }

  void wait_signal(Controller* self) {
    signals->async_wait([this, self](const asio::error_code& ec, int sig) {
      if (ec || stopping) return;
      if (sig == SIGUSR1) {
        log::info("controller", "SIGUSR1: requesting the master role (generation id {})", opts.generation_id);
        self->promote();
        wait_signal(self);
        return;
      }
      if (sig == SIGHUP) {
        log::info("controller", "SIGHUP: reloading apps");
        auto st = self->reload();
        if (!st.ok())
          log::error("controller", "reload failed, old configuration stays: {}", st.error().message);
        wait_signal(self);
        return;
      }
      log::info("controller", "{}: shutting down", sig == SIGINT ? "SIGINT" : "SIGTERM");
      shutdown();
    });
  }

  void shutdown() {
    if (stopping.exchange(true)) return;
    asio::post(*ios[0], [this] {
      log::info("controller", "stopping");
      for (auto& l : listeners) l->close();
      for (auto& c : connectors) c->stop();
      if (signals) {
        asio::error_code ec;
        signals->cancel(ec);
      }
      if (stats_timer) stats_timer->cancel();
      if (lldp_timer) lldp_timer->cancel();
      std::vector<std::shared_ptr<channel::Connection>> live;
      {
        std::lock_guard lock(conns_mu);
        for (auto& w : conns)
          if (auto c = w.lock()) live.push_back(std::move(c));
        conns.clear();
      }
      for (auto& c : live) {
        c->post([c] { c->abort("controller stopping"); });
      }
      for (auto& g : guards) g.reset();
    });
  }
};

Controller::Controller(ControllerOptions opts, std::vector<std::unique_ptr<App>> apps)
    : s_(std::make_unique<State>()) {
  s_->opts = std::move(opts);
  s_->apps = std::move(apps);
  int n = std::max(1, s_->opts.threads);
  for (int i = 0; i < n; ++i) {
    s_->ios.push_back(std::make_unique<asio::io_context>(1));
    s_->guards.push_back(asio::make_work_guard(*s_->ios.back()));
  }
  auto& topo = s_->opts.topology;
  bool wanted =
      std::any_of(s_->apps.begin(), s_->apps.end(), [](const auto& a) { return a->uses_topology(); });
  topo.enabled = topo.mode == topology::TopologyOptions::Mode::kOn ||
                 (topo.mode == topology::TopologyOptions::Mode::kAuto && wanted);
  s_->topo = std::make_unique<topology::TopologyService>(topo);
  uint8_t table = 0;
  for (size_t i = 0; i < s_->apps.size(); ++i) {
    s_->apps[i]->set_tables(table, i + 1 < s_->apps.size());
    table = uint8_t(table + s_->apps[i]->tables_needed());
  }
  for (auto& app : s_->apps) app->attach_topology(*s_->topo);
  if (s_->opts.connection.name.empty()) s_->opts.connection.name = "controller";
}

Controller::~Controller() {
  // Handlers run while draining may throw; a destructor must not.
  try {
    stop();
    // If run() was never called, drain so connections release their handlers.
    for (auto& io : s_->ios) {
      io->restart();
      io->poll();
    }
  } catch (const std::exception& e) {
    log::warn("controller", "shutting down: {}", e.what());
  }
}

Status Controller::start() {
  auto& io0 = *s_->ios[0];
  if (s_->opts.listen.empty() && s_->opts.connect.empty())
    return fail("nothing to do: give --listen and/or --connect");
  for (const auto& l : s_->opts.listen) {
    FLOWLAB_ASSIGN_OR_RETURN(auto ep, channel::parse_endpoint(l));
    if (!ep.passive) return fail("--listen '{}': expected ptcp:PORT[:IP] or pssl:PORT[:IP]", l);
    FLOWLAB_ASSIGN_OR_RETURN(
        auto listener,
        channel::Listener::open(
            io0, ep, s_->opts.connection, [this](const channel::ConnectionPtr& c) { s_->adopt(c); },
            s_->opts.tls, [this]() -> asio::io_context& { return s_->pick(); }));
    log::info("controller", "listening on {} (port {})", l, listener->port());
    listener->start();
    s_->listeners.push_back(std::move(listener));
  }
  for (const auto& c : s_->opts.connect) {
    FLOWLAB_ASSIGN_OR_RETURN(auto ep, channel::parse_endpoint(c));
    if (ep.passive) return fail("--connect '{}': expected tcp:HOST:PORT or ssl:HOST:PORT", c);
    auto& io = s_->pick();
    auto conn = std::make_unique<channel::Connector>(
        io, ep, s_->opts.connection, [this](const channel::ConnectionPtr& c) { s_->adopt(c); },
        channel::BackoffOptions{}, s_->opts.tls,
        [c](const std::string& reason, std::chrono::milliseconds next) {
          log::warn("controller", "{}: {}; retrying in {} ms", c, reason, next.count());
        });
    conn->start();
    s_->connectors.push_back(std::move(conn));
  }
  s_->stats_timer = std::make_unique<asio::steady_timer>(io0);
  s_->arm_stats();
  s_->lldp_timer = std::make_unique<asio::steady_timer>(io0);
  s_->arm_lldp();
  if (s_->opts.handle_signals) {
    s_->signals = std::make_unique<asio::signal_set>(io0, SIGINT, SIGTERM, SIGHUP);
    s_->signals->add(SIGUSR1);
    s_->wait_signal(this);
  }
  return {};
}

void Controller::run() {
  std::vector<std::thread> threads;
  for (size_t i = 1; i < s_->ios.size(); ++i) threads.emplace_back([io = s_->ios[i].get()] { io->run(); });
  s_->ios[0]->run();
  for (auto& t : threads) t.join();
  s_->listeners.clear();
  s_->connectors.clear();
  s_->write_json();
  log::info("controller", "stopped: {}", s_->stats.log_line());
}

void Controller::stop() { s_->shutdown(); }

Status Controller::reload() {
  std::lock_guard lock(s_->reload_mu);
  Status first;
  for (auto& app : s_->apps) {
    auto st = app->reload();
    if (!st.ok() && first.ok()) first = st;
  }
  s_->topo->reassert_flows();
  return first;
}

void Controller::promote() {
  std::vector<std::shared_ptr<Datapath>> live;
  {
    std::lock_guard lock(s_->conns_mu);
    for (auto& w : s_->dps)
      if (auto d = w.lock()) live.push_back(std::move(d));
  }
  for (auto& d : live) d->connection().post([this, d] { s_->promote_one(*d); });
}

bool Controller::assign_role(uint64_t dpid, of::ControllerRole role, uint64_t generation_id) {
  std::shared_ptr<Datapath> dp;
  {
    std::lock_guard lock(s_->conns_mu);
    for (auto& w : s_->dps)
      if (auto d = w.lock(); d && d->up() && d->dpid() == dpid) dp = std::move(d);
  }
  if (!dp) return false;
  dp->connection().post([this, dp, role, generation_id] { s_->assign(*dp, role, generation_id); });
  return true;
}

const ControllerStats& Controller::stats() const { return s_->stats; }
const topology::TopologyView& Controller::topology() const { return *s_->topo; }
topology::TopologyService& Controller::topology_service() { return *s_->topo; }
uint16_t Controller::listen_port(size_t i) const {
  return i < s_->listeners.size() ? s_->listeners[i]->port() : 0;
}
void Controller::write_stats_json() const { s_->write_json(); }

}  // namespace flowlab::controller
