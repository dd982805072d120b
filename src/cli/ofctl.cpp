// `flowlab ofctl [-O OpenFlow15|14|13|10] [--strict] [--no-stats] [--bundle] CMD SWITCH [ARGS]`:
// argument handling only; the commands live in channel/sync_client_ofctl.
// Exit codes: 0 success, 1 runtime error (switch refused, bad flow, malformed
// input), 2 usage error (also trace's flow text or --packet hex that builds no packet).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "channel/sync_client_ofctl.h"
#include "cli/commands.h"
#include "openflow/constants.h"

namespace flowlab::cli {
namespace {

std::string command_list() {
  std::string s = "commands:\n";
  for (const auto& c : channel::ofctl_commands()) s += "  " + std::string(c.usage) + "\n";
  s += "SWITCH is tcp:HOST:PORT (e.g. tcp:127.0.0.1:6634)\n";
  return s;
}

// "OpenFlow15,OpenFlow14,OpenFlow13,OpenFlow10" -> wire versions.
bool parse_protocols(const std::string& text, std::vector<uint8_t>& out) {
  std::stringstream ss(text);
  std::string p;
  while (std::getline(ss, p, ',')) {
    if (p == "OpenFlow15" || p == "of15" || p == "1.5")
      out.push_back(of::kOf15);
    else if (p == "OpenFlow14" || p == "of14" || p == "1.4")
      out.push_back(of::kOf14);
    else if (p == "OpenFlow13" || p == "of13" || p == "1.3")
      out.push_back(of::kOf13);
    else if (p == "OpenFlow10" || p == "of10" || p == "1.0")
      out.push_back(of::kOf10);
    else
      return false;
  }
  return !out.empty();
}

}  // namespace

int run_ofctl(int argc, char** argv) {
  CLI::App app{"flowlab ofctl: OpenFlow management client in ovs-ofctl style", "flowlab ofctl"};
  app.footer(command_list());
  std::string protocols;
  channel::OfctlOptions opts;
  double timeout_s = 5.0;
  std::vector<std::string> words;
  app.add_option("-O,--protocols", protocols,
                 "OpenFlow versions to offer: OpenFlow15, OpenFlow14, OpenFlow13, OpenFlow10 (comma list; "
                 "default 1.3 and 1.0)");
  app.add_flag("--strict", opts.strict, "mod-flows/del-flows: match priority and fields exactly");
  app.add_flag("--no-stats", opts.no_stats, "dump-flows: leave out the statistics");
  app.add_flag("--bundle", opts.bundle,
               "add-flow(s)/mod-flows/del-flows: one atomic bundle, all applied or none (OF1.3: ONF "
               "extension; OF1.4: standard)");
  std::string format = "text";
  app.add_option("--packet", opts.trace_packet_hex, "trace: the packet, an Ethernet frame in hex");
  app.add_option("--in-port", opts.trace_in_port, "trace: the port the packet comes in on");
  app.add_option("--format", format, "trace: text or json")->check(CLI::IsMember({"text", "json"}));
  app.add_option("--count", opts.monitor_count,
                 "monitor: stop after N flow updates (default: run until killed)");
  app.add_option("-t,--timeout", timeout_s, "seconds to wait for the switch at each step")
      ->check(CLI::Range(0.1, 3600.0));
  app.add_option("command", words, "CMD SWITCH [ARGS]")->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (!protocols.empty() && !parse_protocols(protocols, opts.versions)) {
    std::fprintf(
        stderr,
        "flowlab ofctl: unknown protocol in '%s' (use OpenFlow15, OpenFlow14, OpenFlow13 or OpenFlow10)\n",
        protocols.c_str());
    return 2;
  }
  opts.timeout = std::chrono::milliseconds(static_cast<long>(timeout_s * 1000));
  const auto* cmd = channel::find_ofctl_command(words[0]);
  if (!cmd) {
    std::fprintf(stderr, "flowlab ofctl: unknown command '%s'\n%s", words[0].c_str(), command_list().c_str());
    return 2;
  }
  std::vector<std::string> args(words.begin() + 1, words.end());
  int n = static_cast<int>(args.size());
  if (n < cmd->min_args || (cmd->max_args >= 0 && n > cmd->max_args)) {
    std::fprintf(stderr, "flowlab ofctl: wrong number of arguments\nusage: flowlab ofctl %s\n",
                 std::string(cmd->usage).c_str());
    return 2;
  }
  opts.trace_json = format == "json";
  if (Status c = channel::check_ofctl_args(*cmd, args, opts); !c.ok()) {
    std::fprintf(stderr, "flowlab ofctl: %s\n", c.error().message.c_str());
    return 2;
  }
  opts.monitor_out = [](const std::string& s) {
    std::fwrite(s.data(), 1, s.size(), stdout);
    std::fflush(stdout);
  };
  std::string out;
  Status st = channel::run_ofctl(*cmd, args, opts, out);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  if (!st.ok()) {
    std::fprintf(stderr, "flowlab ofctl: %s\n", st.error().message.c_str());
    return 1;
  }
  return 0;
}

}  // namespace flowlab::cli
