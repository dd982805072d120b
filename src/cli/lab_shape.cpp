// Hidden helpers of shaped links and the probe test (see lab_shape.h).
#include "cli/lab_shape.h"

#include <cstdio>
#include <cstdlib>

#include "cli/commands.h"
#include "lab/backend/controller_relay.h"
#include "lab/net/delay_line.h"
#include "lab/traffic/probe.h"

namespace flowlab::cli {

struct LabShapeCommands {
  CLI::App* delay_line = nullptr;
  CLI::App* probe_send = nullptr;
  CLI::App* probe_recv = nullptr;
  CLI::App* relay = nullptr;
  std::string relay_ns, relay_to, relay_host = "127.0.0.1";
  int relay_port = 0;
  std::string if_a, if_b, a_to_b = "0,0,10000", b_to_a = "0,0,10000", stats, params, out, host;
  double max_s = 0, duration = 10, interval_us = 1000;
  int port = 7002, size = 64;
  unsigned long long start_at = 0;
};

namespace {}  // namespace

std::shared_ptr<LabShapeCommands> add_lab_shape_commands(CLI::App& lab) {
  auto c = std::make_shared<LabShapeCommands>();
  c->delay_line = lab.add_subcommand("delay-line", "delay line of a shaped link (used by the lab)");
  c->probe_send = lab.add_subcommand("probe-send", "probe sender (used by the lab); prints JSON");
  c->probe_recv = lab.add_subcommand("probe-recv", "probe receiver (used by the lab)");
  c->relay = lab.add_subcommand("controller-relay", "relay to a remote controller (used by the lab)");
  for (auto* s : {c->delay_line, c->probe_send, c->probe_recv, c->relay}) s->group("");
  c->relay->add_option("--netns", c->relay_ns)->required();
  c->relay->add_option("--listen-port", c->relay_port)->required()->check(CLI::Range(1, 65535));
  c->relay->add_option("--listen-host", c->relay_host, "IPv4 address in NS (default 127.0.0.1)");
  c->relay->add_option("--to", c->relay_to, "HOST:PORT")->required();
  c->delay_line->add_option("--a", c->if_a)->required();
  c->delay_line->add_option("--b", c->if_b)->required();
  c->delay_line->add_option("--a-to-b", c->a_to_b);
  c->delay_line->add_option("--b-to-a", c->b_to_a);
  c->delay_line->add_option("--stats", c->stats);
  c->delay_line->add_option("--params", c->params, "re-read on SIGUSR1");
  c->delay_line->add_option("--max", c->max_s);
  c->probe_recv->add_option("--port", c->port);
  c->probe_recv->add_option("--out", c->out)->required();
  c->probe_recv->add_option("--max", c->max_s);
  c->probe_send->add_option("--host", c->host)->required();
  c->probe_send->add_option("--port", c->port);
  c->probe_send->add_option("--duration", c->duration);
  c->probe_send->add_option("--interval-us", c->interval_us);
  c->probe_send->add_option("--size", c->size);
  c->probe_send->add_option("--start-at", c->start_at);
  return c;
}

int run_lab_shape_commands(const LabShapeCommands& c) {
  if (*c.delay_line) {
    auto ab = lab::parse_delay_line_arg(c.a_to_b);
    if (!ab.ok()) return error_exit("lab", "--a-to-b " + ab.error().message);
    auto ba = lab::parse_delay_line_arg(c.b_to_a);
    if (!ba.ok()) return error_exit("lab", "--b-to-a " + ba.error().message);
    auto st = lab::run_delay_line(c.if_a, c.if_b, *ab, *ba, c.stats, c.max_s, c.params);
    return st.ok() ? 0 : error_exit("lab", st.error().message);
  }
  if (*c.relay) {
    lab::ControllerRelayOptions o;
    o.listen_ns = c.relay_ns;
    o.listen_port = c.relay_port;
    o.listen_host = c.relay_host;
    auto colon = c.relay_to.rfind(':');
    o.to_host = c.relay_to.substr(0, colon);
    o.to_port = colon == std::string::npos ? 0 : std::atoi(c.relay_to.c_str() + colon + 1);
    if (o.to_port <= 0 || o.to_port > 65535)
      return error_exit("lab", "--to " + c.relay_to + ": expected HOST:PORT");
    auto st = lab::run_controller_relay(o);
    return st.ok() ? 0 : error_exit("lab", st.error().message);
  }
  if (*c.probe_recv) {
    auto st = lab::probe_receive(c.port, c.out, c.max_s);
    return st.ok() ? 0 : error_exit("lab", st.error().message);
  }
  if (*c.probe_send) {
    lab::ProbeSendOptions o;
    o.host = c.host;
    o.port = c.port;
    o.duration_s = c.duration;
    o.interval_ns = uint64_t(c.interval_us * 1000);
    o.size = c.size;
    o.start_at_ns = c.start_at;
    auto r = lab::probe_send(o);
    if (!r.ok()) return error_exit("lab", r.error().message);
    std::printf("%s\n", r->dump().c_str());
    return 0;
  }
  return -1;
}

}  // namespace flowlab::cli
