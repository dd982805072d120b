// `flowlab cbench`: argument parsing for the controller benchmark (src/loadgen).
#include "loadgen/cbench/cbench.h"

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <string>

#include "cli/commands.h"

namespace flowlab::cli {

int run_cbench(int argc, char** argv) {
  CLI::App app{
      "controller benchmark (the cbench method): emulated switches send packet-ins and count answers",
      "flowlab cbench"};
  loadgen::CbenchOptions o;
  std::string controller = "tcp:127.0.0.1:6653";
  std::string protocol = "OpenFlow13";
  bool json = false, no_buffer = false;
  app.add_option("-c,--controller", controller, "controller to test, tcp:HOST:PORT")->capture_default_str();
  app.add_option("-s,--switches", o.switches, "emulated switches")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  app.add_option("-M,--macs", o.macs, "hosts (source MACs) per switch")
      ->capture_default_str()
      ->check(CLI::Range(1u, 16777215u));
  app.add_option("-m,--ms", o.ms, "length of one loop in ms")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600000));
  app.add_option("-l,--loops", o.loops, "measured loops")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  app.add_option("-w,--warmup", o.warmup, "loops run first and left out of the summary")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000));
  app.add_flag("-t,--throughput", o.throughput, "throughput mode: keep every switch's send buffer full");
  app.add_option("-P,--protocol", protocol, "OpenFlow10 or OpenFlow13")
      ->capture_default_str()
      ->check(CLI::IsMember({"OpenFlow10", "OpenFlow13"}));
  app.add_flag("--no-buffer", no_buffer, "send packet-ins without buffer ids");
  app.add_option("--connect-timeout", o.connect_timeout_ms, "ms to wait for each TCP connection")
      ->capture_default_str();
  app.add_option("--handshake-timeout", o.handshake_timeout_ms, "ms to wait for the OpenFlow handshake")
      ->capture_default_str();
  app.add_flag("--json", json, "print the result as JSON instead of text");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (controller.rfind("tcp:", 0) != 0) {
    std::fprintf(stderr, "flowlab cbench: error: --controller must be tcp:HOST:PORT, got '%s'\n",
                 controller.c_str());
    return 2;
  }
  std::string rest = controller.substr(4);
  auto colon = rest.rfind(':');
  if (colon == std::string::npos) {
    std::fprintf(stderr, "flowlab cbench: error: --controller '%s' has no port\n", controller.c_str());
    return 2;
  }
  o.host = rest.substr(0, colon);
  if (o.host.size() > 2 && o.host.front() == '[' && o.host.back() == ']')
    o.host = o.host.substr(1, o.host.size() - 2);
  try {
    int port = std::stoi(rest.substr(colon + 1));
    if (port < 1 || port > 65535) throw std::out_of_range("port");
    o.port = uint16_t(port);
  } catch (const std::exception&) {
    std::fprintf(stderr, "flowlab cbench: error: bad port in --controller '%s'\n", controller.c_str());
    return 2;
  }
  o.version = protocol == "OpenFlow10" ? 1 : 4;
  o.buffered = !no_buffer;
  std::signal(SIGPIPE, SIG_IGN);

  if (!json)
    std::printf(
        "cbench: controller %s, %d switches, %u MACs per switch, %s, %s mode, %d loops of %d ms (+%d "
        "warmup)\n",
        controller.c_str(), o.switches, o.macs, protocol.c_str(), o.throughput ? "throughput" : "latency",
        o.loops, o.ms, o.warmup);
  auto r = loadgen::run_cbench(o, [&](const loadgen::LoopResult& l) {
    if (!json) {
      std::printf("%s\n", loadgen::format_loop(l).c_str());
      std::fflush(stdout);
    }
  });
  if (!r.ok()) {
    std::fprintf(stderr, "flowlab cbench: error: %s\n", r.error().message.c_str());
    return 1;
  }
  if (json)
    std::printf("%s\n", loadgen::to_json(*r).dump(2).c_str());
  else
    std::printf("%s\n", loadgen::format_summary(*r).c_str());
  return 0;
}

}  // namespace flowlab::cli
