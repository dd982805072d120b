// Switch: the whole userspace OpenFlow switch — ports, datapath, forwarding
// threads, OpenFlow agent and its connections — behind create/start/stop.
//
//   auto sw = sw::Switch::create(opts);   // opens ports, binds --listen sockets:
//                                         // every user error is reported here
//   (*sw)->start();                       // forwarding threads + agent thread
//   ...                                   // runs until
//   (*sw)->stop();                        // joins every thread, closes every socket/ring
//
// Threads: ForwardingThread x N (see forwarding.h) and one agent thread that
// runs an asio io_context: controller connections (channel::Connector with
// reconnect/backoff), passive listeners (channel::Listener), the Agent and a
// 500 ms timer (timeouts, link poll, stats file, a packet-in drain backstop).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "core/result.h"
#include "datapath/datapath.h"
#include "port/port.h"
#include "switch/options.h"

namespace flowlab::kernel {
class FastPathPool;
}

namespace flowlab::sw {

class Agent;
class KernelDatapath;
class ForwardingThread;
class SwitchPorts;
struct ForwardingShared;

class Switch {
 public:
  // Opens the ports of opts.ports (numbers assigned, see validate_options) and
  // binds the listeners. Errors name the option at fault.
  static Result<std::unique_ptr<Switch>> create(const SwitchOptions& opts);
  // Same, its eBPF fast path a datapath of a program from `pool`, shared with
  // the other switches of the process (a switch host), not a program of its own.
  static Result<std::unique_ptr<Switch>> create(const SwitchOptions& opts, kernel::FastPathPool* pool);
  // Same with ports opened by the caller (tests: in-memory ports); each port's
  // OpenFlow number must already be set (Port::set_port_no).
  static Result<std::unique_ptr<Switch>> create(const SwitchOptions& opts,
                                                std::vector<std::unique_ptr<Port>> ports);
  ~Switch();
  Switch(const Switch&) = delete;
  Switch& operator=(const Switch&) = delete;

  Status start();
  void stop();  // idempotent

  // The bound TCP port of listener i (useful with ptcp:0).
  uint16_t listen_port(size_t i) const;
  dp::Datapath& datapath();
  // True when the eBPF/TC fast path runs (--datapath tc, or auto where it could).
  bool kernel_fast_path() const;
  SwitchPorts& ports();
  // Counters of the to-controller path, summed over forwarding threads.
  uint64_t to_controller_queued() const;
  uint64_t to_controller_dropped() const;
  // Number of connected peers (controllers + service clients); any thread.
  size_t connected_peers() const { return connected_.load(); }
  bool standalone_active() const;

  // What the agent thread owns, for a reader running there (run_on_agent).
  struct AgentState {
    const SwitchOptions& opts;
    const Agent& agent;
    const dp::Datapath& datapath;
    const SwitchPorts& ports;
    const KernelDatapath* kernel;  // nullptr on af-packet
    uint64_t to_controller_queued = 0, to_controller_dropped = 0;
  };
  // Runs fn on the agent thread, after folding the kernel fast path's hits into
  // the port counters (as a port-stats request does), and waits for it at most
  // `timeout`: --metrics reads the agent's own counters and tables there, and
  // the forwarding threads never see it. False when the switch is not running
  // or fn did not start in time (it then never runs).
  bool run_on_agent(const std::function<void(const AgentState&)>& fn, std::chrono::milliseconds timeout);

  struct Impl;

 private:
  explicit Switch(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  std::atomic<size_t> connected_{0};
};

}  // namespace flowlab::sw
