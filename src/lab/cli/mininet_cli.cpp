// Mininet's CLI: the commands and their dispatch (see mininet_cli.h); pingall and
// iperf are in cli_traffic.cpp, the terminal in line_editor.cpp.
#include "lab/cli/mininet_cli.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/clock.h"
#include "lab/run/lab_control.h"

namespace flowlab::lab {

namespace {

struct CommandHelp {
  const char* name;
  const char* usage;
  const char* text;
};

constexpr CommandHelp kCommands[] = {
    {"help", "help [COMMAND]", "list the commands, or describe one"},
    {"nodes", "nodes", "list the nodes"},
    {"net", "net", "list the links of each node"},
    {"dump", "dump", "node information: interfaces, addresses, namespaces"},
    {"links", "links", "every link and whether its ends are up"},
    {"intfs", "intfs", "the interfaces of each node"},
    {"ports", "ports", "each switch's interfaces and their OpenFlow port numbers"},
    {"pingall", "pingall [TIMEOUT]",
     "every host pings every other host once (TIMEOUT: the lab paces its own)"},
    {"pingallfull", "pingallfull", "pingall, with each pair's round trip"},
    {"pingpair", "pingpair", "the first two hosts ping each other"},
    {"pingpairfull", "pingpairfull", "pingpair, with each round trip"},
    {"iperf", "iperf [HOST1 HOST2]", "TCP bandwidth between two hosts (default: the first and the last)"},
    {"iperfudp", "iperfudp BW [HOST1 HOST2]", "UDP bandwidth at rate BW (10M, 1G) between two hosts"},
    {"link", "link NODE1 NODE2 up|down",
     "bring a link's both ends down or up (the switches tell their controller)"},
    {"switch", "switch SWITCH stop|start", "stop a switch's process, or start it again"},
    {"dpctl", "dpctl COMMAND [ARGS]", "an ovs-ofctl command (dump-flows, add-flow FLOW...) on every switch"},
    {"sh", "sh COMMAND", "run a shell command on this machine (outside the lab's namespaces)"},
    {"time", "time COMMAND", "run a CLI command and print how long it took"},
    {"source", "source FILE", "run the CLI commands in FILE"},
    {"exit", "exit", "leave the CLI (also quit, Ctrl-D)"},
    {"quit", "quit", "leave the CLI (also exit, Ctrl-D)"},
};

// Mininet's commands that need what a lab in namespaces does not have.
constexpr const char* kUnavailable[][2] = {
    {"py", "the network's Python objects, which a lab in namespaces does not have"},
    {"px", "the network's Python objects, which a lab in namespaces does not have"},
    {"xterm", "X11 terminals"},
    {"x", "X11"},
    {"gterm", "X11 terminals"},
    {"noecho", "a per-node shell"},
    {"wait", "background commands of a node's shell"},
};

std::vector<std::string> split_words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::string join_words(const std::vector<std::string>& w, size_t from = 0) {
  std::string out;
  for (size_t i = from; i < w.size(); ++i) out += (i > from ? " " : "") + w[i];
  return out;
}

}  // namespace

const std::vector<std::string>& MininetCli::commands() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& c : kCommands) v.push_back(c.name);
    return v;
  }();
  return names;
}

void MininetCli::print(const std::string& s) {
  std::fputs(s.c_str(), out_);
  std::fflush(out_);
}

bool MininetCli::run_line(const std::string& raw) {
  std::string line = raw;
  if (auto h = line.find_first_not_of(" \t"); h == std::string::npos || line[h] == '#') return true;
  auto words = split_words(line);
  std::string cmd = words[0];
  std::vector<std::string> args(words.begin() + 1, words.end());
  // The text after the command word, as typed (for sh and time).
  std::string rest = line.substr(line.find(cmd) + cmd.size());
  rest.erase(0, rest.find_first_not_of(" \t"));
  return dispatch(cmd, args, rest);
}

bool MininetCli::dispatch(const std::string& cmd, const std::vector<std::string>& args,
                          const std::string& rest) {
  if (cmd == "exit" || cmd == "quit" || cmd == "EOF") return false;
  if (cmd == "help")
    help(args);
  else if (cmd == "nodes")
    print(show_nodes(view_));
  else if (cmd == "net")
    print(show_net(view_));
  else if (cmd == "dump")
    print(show_dump(view_));
  else if (cmd == "links")
    print(show_links(view_));
  else if (cmd == "intfs")
    print(show_intfs(view_));
  else if (cmd == "ports")
    print(show_ports(view_));
  else if (cmd == "pingall")
    pingall(args, false, false);
  else if (cmd == "pingallfull")
    pingall(args, true, false);
  else if (cmd == "pingpair")
    pingall(args, false, true);
  else if (cmd == "pingpairfull")
    pingall(args, true, true);
  else if (cmd == "iperf")
    iperf(args, false);
  else if (cmd == "iperfudp")
    iperf(args, true);
  else if (cmd == "link")
    link(args);
  else if (cmd == "switch")
    switch_cmd(args);
  else if (cmd == "dpctl")
    dpctl(args);
  else if (cmd == "source")
    source(args);
  else if (cmd == "sh") {
    if (rest.empty())
      error("usage: sh COMMAND");
    else
      run_attached({"sh", "-c", rest});
  } else if (cmd == "time") {
    if (rest.empty()) {
      error("usage: time COMMAND");
      return true;
    }
    uint64_t t0 = monotonic_ns();
    bool go_on = run_line(rest);
    print(fmt::format("*** Elapsed time: {:.6f} secs\n", double(monotonic_ns() - t0) / 1e9));
    return go_on;
  } else if (view_.has_node(cmd)) {
    node_cmd(cmd, args);
  } else {
    for (const auto& u : kUnavailable)
      if (cmd == u[0]) {
        error(fmt::format("{} is not available in flowlab's CLI: it needs {}", cmd, u[1]));
        return true;
      }
    error("Unknown command: " + cmd + (rest.empty() ? "" : " " + rest));
  }
  return true;
}

void MininetCli::help(const std::vector<std::string>& args) {
  if (!args.empty()) {
    for (const auto& c : kCommands)
      if (args[0] == c.name) {
        print(fmt::format("{}\n    {}\n", c.usage, c.text));
        return;
      }
    error("No help on " + args[0]);
    return;
  }
  std::string out = "\nDocumented commands (type help <topic>):\n========================================\n";
  for (const auto& c : kCommands) out += fmt::format("  {:<28} {}\n", c.usage, c.text);
  out +=
      "\nYou may also send a command to a node using:\n  <node> command {args}\nFor example:\n"
      "  mininet> h1 ip addr\n\nThe interpreter substitutes IP addresses for host names in the command,\n"
      "so commands like\n  mininet> h2 ping -c1 h3\nshould work.\n\n";
  print(out);
}

void MininetCli::link(const std::vector<std::string>& args) {
  if (args.size() != 3) return error("invalid number of args: link end1 end2 [up down]");
  if (args[2] != "up" && args[2] != "down") return error("invalid type: link end1 end2 [up down]");
  for (const auto& n : {args[0], args[1]})
    if (!view_.has_node(n)) return error("Error: " + n + " not in network");
  auto r =
      control_request(view_.id, {{"op", "link"}, {"a", args[0]}, {"b", args[1]}, {"up", args[2] == "up"}});
  if (!r.ok()) error("Error: " + r.error().message);
}

void MininetCli::switch_cmd(const std::vector<std::string>& args) {
  if (args.size() != 2) return error("invalid number of args: switch <switch name> {start, stop}");
  if (args[1] != "start" && args[1] != "stop")
    return error("invalid command: switch <switch name> {start, stop}");
  if (!view_.find_switch(args[0])) return error("invalid switch: " + args[0]);
  auto r = control_request(view_.id, {{"op", "switch"}, {"name", args[0]}, {"start", args[1] == "start"}});
  if (!r.ok()) error("Error: " + r.error().message);
}

void MininetCli::dpctl(const std::vector<std::string>& args) {
  if (args.empty()) return error("usage: dpctl command [arg1] [arg2] ...");
  auto r = control_request(view_.id, {{"op", "dpctl"}, {"args", args}});
  if (!r.ok()) return error("Error: " + r.error().message);
  print(*r);
}

void MininetCli::node_cmd(const std::string& node, const std::vector<std::string>& args) {
  if (args.empty()) return error("Enter a command for node: " + node);
  auto addrs = view_.addresses();
  std::vector<std::string> words = args;
  for (auto& w : words)
    if (auto it = addrs.find(w); it != addrs.end()) w = it->second;
  const ViewHost* h = view_.host(node);
  std::string ns = h ? h->ns : view_.core_ns;
  run_attached({"ip", "netns", "exec", ns, "sh", "-c", join_words(words)});
}

void MininetCli::source(const std::vector<std::string>& args) {
  if (args.size() != 1) return error("usage: source <file>");
  std::ifstream in(args[0]);
  if (!in) return error("Error: could not open file " + args[0]);
  if (source_depth_ >= 8) return error("Error: source nested too deep (" + args[0] + ")");
  ++source_depth_;
  for (std::string line; std::getline(in, line);)
    if (!run_line(line)) break;
  --source_depth_;
}

int MininetCli::run_attached(const std::vector<std::string>& argv) {
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    error(fmt::format("Error: fork: {}", std::strerror(errno)));
    return -1;
  }
  if (pid == 0) {
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGQUIT, SIG_DFL);
    ::signal(SIGPIPE, SIG_DFL);
    if (fileno(out_) != STDOUT_FILENO) dup2(fileno(out_), STDOUT_FILENO);
    std::vector<char*> a;
    for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    execvp(a[0], a.data());
    std::fprintf(stderr, "*** Error: %s: %s\n", a[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<std::string> MininetCli::complete(const std::vector<std::string>& before,
                                              const std::string& prefix) const {
  std::vector<std::string> pool;
  const std::string first = before.empty() ? "" : before[0];
  if (before.empty()) {
    pool = commands();
    for (const auto& n : view_.node_names()) pool.push_back(n);
  } else if (first == "link" && before.size() == 3) {
    pool = {"up", "down"};
  } else if (first == "switch" && before.size() == 1) {
    for (const auto& s : view_.switches) pool.push_back(s.name);
  } else if (first == "switch" && before.size() == 2) {
    pool = {"start", "stop"};
  } else if (first == "help" && before.size() == 1) {
    pool = commands();
  } else {
    pool = view_.node_names();
  }
  std::vector<std::string> out;
  for (const auto& w : pool)
    if (w.rfind(prefix, 0) == 0 && std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace flowlab::lab
