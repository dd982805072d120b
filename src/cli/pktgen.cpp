// `flowlab pktgen`: the UDP packet generator of the switch benchmark
// (src/bench/packet_generator.h). Prints one JSON object: sent, failed,
// seconds, pps. Exit 2 for bad options.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "bench/packet_generator.h"
#include "cli/commands.h"

namespace flowlab::cli {

int run_pktgen(int argc, char** argv) {
  CLI::App app{"flowlab pktgen: UDP packet generator (sendmmsg, many flows)", "flowlab pktgen"};
  bench::PacketGeneratorOptions o;
  app.add_option("--dst", o.dst, "destination IPv4 address")->required();
  app.add_option("--size", o.payload, "UDP payload bytes (18 = 64-byte frames)");
  app.add_option("--flows", o.flows, "distinct destination ports");
  app.add_option("--port", o.base_port, "first destination port");
  app.add_option("--seconds", o.seconds, "duration");
  app.add_option("--threads", o.threads, "sending threads, one socket each (1..64)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return 0;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "flowlab pktgen: error: %s\n", e.what());
    return 2;
  }
  auto r = bench::run_packet_generator(o);
  if (!r.ok()) {
    std::fprintf(stderr, "flowlab pktgen: error: %s\n", r.error().message.c_str());
    return 2;
  }
  std::printf("{\"sent\": %llu, \"failed\": %llu, \"seconds\": %.3f, \"pps\": %.0f}\n",
              static_cast<unsigned long long>(r->sent), static_cast<unsigned long long>(r->failed),
              r->seconds, r->pps);
  return 0;
}

}  // namespace flowlab::cli
