// The controller runtime: listens (and/or connects) for switches, runs the
// OpenFlow handshake (hello, features, OF1.3 port-desc), keeps one Datapath per
// switch and dispatches events to the app stack, with statistics.
//
// Threads: N io_contexts, one thread each; each switch connection is placed on
// one of them (round robin) and all its events run there. Apps are shared by
// all threads and must guard cross-switch state themselves.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "channel/connection.h"
#include "channel/endpoint.h"
#include "controller/app.h"
#include "controller/mastership.h"
#include "controller/stats.h"
#include "controller/topology/service.h"
#include "controller/topology/view.h"
#include "core/result.h"

namespace asio {
class io_context;
}

namespace flowlab::controller {

struct ControllerOptions {
  std::vector<std::string> listen;   // ptcp:6653, pssl:6653 ...
  std::vector<std::string> connect;  // tcp:HOST:PORT to passive switches
  channel::TlsConfig tls;
  int threads = 1;
  channel::ConnectionOptions connection;
  std::chrono::milliseconds stats_every{0};  // 0 = no periodic log line
  std::string stats_json;                    // written every stats period (or 1 s) and at exit
  bool handle_signals = true;                // SIGINT/SIGTERM stop, SIGHUP reloads apps
  topology::TopologyOptions topology;        // LLDP interval, link timeout
  // OF1.3 role (6.3.6). Unless kNoChange, a ROLE_REQUEST (role, generation_id)
  // goes to every OF1.3 switch once its features are known. As a SLAVE (or
  // when the switch refuses the request) the controller sends no
  // state-changing message and its apps and topology service do not see the
  // switch; promote() (SIGUSR1) asks every switch for MASTER with
  // generation_id and, once granted, attaches the apps. An OFPBRC_IS_SLAVE
  // error (another controller became master) makes it a slave there.
  of::ControllerRole role = of::ControllerRole::kNoChange;
  uint64_t generation_id = 0;
  // A controller cluster deciding the role per switch (see mastership.h);
  // replaces `role`. Not owned; outlives the controller's run().
  Mastership* mastership = nullptr;
};

class Controller {
 public:
  Controller(ControllerOptions opts, std::vector<std::unique_ptr<App>> apps);
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  // Binds listeners and starts connectors; errors (bad endpoint, port in use) here.
  Status start();
  // Runs the event loops until stop() or a signal. Returns after a clean shutdown.
  void run();
  // Any thread.
  void stop();
  // Reloads every app (as on SIGHUP); returns the first error.
  Status reload();
  // Any thread: request MASTER (generation id from the options) on every
  // connected switch, as on SIGUSR1.
  void promote();
  // Any thread: ask switch `dpid` for `role` (MASTER or SLAVE) with
  // `generation_id`; the answer goes to the options' Mastership. False when
  // no such switch is connected here.
  bool assign_role(uint64_t dpid, of::ControllerRole role, uint64_t generation_id);

  const ControllerStats& stats() const;
  // Switches, links and hosts as the topology service sees them (any thread).
  const topology::TopologyView& topology() const;
  topology::TopologyService& topology_service();
  uint16_t listen_port(size_t i) const;  // bound port of listener i (for ptcp:0)
  void write_stats_json() const;

  struct State;

 private:
  std::unique_ptr<State> s_;
};

}  // namespace flowlab::controller
