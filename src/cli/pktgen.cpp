// `flowlab pktgen`: the packet generator of the switch benchmarks
// (src/loadgen/pktgen/packet_generator.h): --mode udp (sockets, default) or --mode xdp
// (frames from an XDP program run in live-frame mode; root, Linux 5.18).
// Prints one JSON object: sent, failed, seconds, pps (and, for xdp, a note on
// stderr when the device refused frames). Exit 2 for bad options and for
// anything that stops the generator before it sends.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "loadgen/pktgen/packet_generator.h"

namespace flowlab::cli {

int run_pktgen(int argc, char** argv) {
  CLI::App app{"flowlab pktgen: UDP packet generator (sendmmsg or XDP live frames, many flows)",
               "flowlab pktgen"};
  loadgen::PacketGeneratorOptions o;
  std::string mode = "udp";
  app.add_option("--mode", mode,
                 "udp: UDP sockets through the IP stack; xdp: whole frames from an XDP program "
                 "(BPF_PROG_RUN live frames, root, Linux 5.18; on a veth the peer needs GRO on)")
      ->check(CLI::IsMember({"udp", "xdp"}));
  app.add_option("--dst", o.dst, "destination IPv4 address")->required();
  app.add_option("--size", o.payload, "UDP payload bytes (18 = 64-byte frames)");
  app.add_option("--flows", o.flows, "distinct destination ports");
  app.add_option("--port", o.base_port, "first destination port");
  app.add_option("--seconds", o.seconds, "duration");
  app.add_option("--threads", o.threads, "sending threads, one socket or test run each (1..64)");
  app.add_option("--rate", o.rate, "frames per second, all threads together (0: as fast as possible)");
  app.add_option("--dev", o.dev, "xdp: the interface to send from (default: the route's to --dst)");
  app.add_option("--src-mac", o.src_mac, "xdp: source MAC (default: the interface's)");
  app.add_option("--dst-mac", o.dst_mac,
                 "xdp: destination MAC (default: the neighbour table's entry for --dst)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return 0;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "flowlab pktgen: error: %s\n", e.what());
    return 2;
  }
  o.mode = mode == "xdp" ? loadgen::GeneratorMode::kXdp : loadgen::GeneratorMode::kUdp;
  auto r = loadgen::run_packet_generator(o);
  if (!r.ok()) {
    std::fprintf(stderr, "flowlab pktgen: error: %s\n", r.error().message.c_str());
    return 2;
  }
  if (!r->note.empty()) std::fprintf(stderr, "flowlab pktgen: %s\n", r->note.c_str());
  std::printf("{\"sent\": %llu, \"failed\": %llu, \"seconds\": %.3f, \"pps\": %.0f}\n",
              static_cast<unsigned long long>(r->sent), static_cast<unsigned long long>(r->failed),
              r->seconds, r->pps);
  return 0;
}

}  // namespace flowlab::cli
