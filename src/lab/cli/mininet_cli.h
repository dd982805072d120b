// Mininet's CLI on a lab that is up (`flowlab lab cli ID`, `lab run|up --cli`):
//   help [CMD]  nodes  net  dump  links  intfs  ports
//   pingall [TIMEOUT]  pingallfull  pingpair  pingpairfull  iperf [H1 H2]  iperfudp BW [H1 H2]
//   link X Y up|down            both ends' carrier (the switches send port-status)
//   switch S stop|start         the switch's process killed / started again
//   dpctl CMD [ARGS]            ovs-ofctl syntax, on every switch (flowlab ofctl or ovs-ofctl)
//   NODE CMD...                 CMD in NODE's namespace, host names in it replaced by addresses
//   sh CMD  time CMD  source FILE  exit | quit | EOF
// Output goes to `out` (the commands a node runs write to the CLI's own stdout);
// errors read as Mininet's ("*** Unknown command: ...").  Link, switch and dpctl
// go to the lab's supervisor (run/lab_control.h); the rest runs here.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "core/result.h"
#include "lab/cli/lab_view.h"
#include "lab/run/runner.h"
#include "lab/traffic/pingall.h"

namespace flowlab::lab {

class MininetCli {
 public:
  MininetCli(LabView view, std::string flowlab_bin, FILE* out = stdout)
      : view_(std::move(view)), flowlab_bin_(std::move(flowlab_bin)), out_(out) {}

  // Runs one line; false when the line asks to leave (exit, quit, EOF).
  bool run_line(const std::string& line);
  // The words that complete `prefix`: commands and node names for the first word of
  // a line, node names (and up/down, start/stop where they fit) after it.
  std::vector<std::string> complete(const std::vector<std::string>& words_before,
                                    const std::string& prefix) const;
  const LabView& view() const { return view_; }

  static const std::vector<std::string>& commands();

 private:
  bool dispatch(const std::string& cmd, const std::vector<std::string>& args, const std::string& rest);
  void print(const std::string& s);
  void error(const std::string& s) { print("*** " + s + "\n"); }
  void help(const std::vector<std::string>& args);
  void pingall(const std::vector<std::string>& args, bool full, bool pair);
  void iperf(const std::vector<std::string>& args, bool udp);
  void link(const std::vector<std::string>& args);
  void switch_cmd(const std::vector<std::string>& args);
  void dpctl(const std::vector<std::string>& args);
  void node_cmd(const std::string& node, const std::vector<std::string>& args);
  void source(const std::vector<std::string>& args);
  // Runs argv with the CLI's terminal (stdin, stdout, stderr); Ctrl-C reaches it alone.
  int run_attached(const std::vector<std::string>& argv);

  LabView view_;
  std::string flowlab_bin_;
  FILE* out_;
  int source_depth_ = 0;
};

// What pingall's echoes cross: the switches that ask a controller on a table miss.
PingallPath pingall_path(const LabView& view);

// `flowlab lab ping-pairs LAB [--timeout S] [--to ADDR] [--by-source] HOST=ADDR...`, the Python API's
// pingAll: one echo per ordered pair of the named hosts (their namespaces from the
// lab's record, their addresses as given: a script may have changed them), each to
// ADDR alone with `to`; printed as one JSON object,
//   {"sent": N, "received": N, "pairs": [[from, to, received 0|1, rtt_ms], ...]}
// (`to` is ADDR in the pairs with `to`). `by_source`: Mininet's order, one source after
// the other (EchoSweepOptions::by_source). An error for a host the lab does not have.
Status print_ping_pairs(const std::string& lab_id, const std::vector<std::string>& hosts,
                        const std::string& to, double timeout_s, bool by_source = false, FILE* out = stdout);

// The CLI on lab `lab_id` reading stdin: with line editing, history and completion
// on a terminal, line by line (no prompt) otherwise. Returns at exit/quit/EOF.
Status run_mininet_cli(const std::string& lab_id);
// `lab run|up ... --cli`: the case brought up (run/persistent_lab.h), the CLI on it,
// and unless `keep_up` the lab taken down when the CLI ends. Returns the exit code.
Result<int> up_with_cli(const std::string& label, const std::string& text, const std::string& only_case,
                        const std::string& out_dir, const CaptureOptions& capture, bool metrics,
                        bool keep_up);

}  // namespace flowlab::lab
