// Persistent labs: up (a supervisor holding one built case), exec, status, down
// (see persistent_lab.h).
#include "lab/run/persistent_lab.h"

#include <fcntl.h>
#include <fmt/ranges.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "lab/format/json_access.h"
#include "lab/host/process.h"
#include "lab/host/run_state.h"
#include "lab/host/signal_wait.h"
#include "lab/run/case_capture.h"
#include "lab/run/case_metrics.h"
#include "lab/run/case_topology.h"
#include "lab/run/lab_control.h"
#include "lab/run/runner.h"
#include "lab/run/topology_record.h"
#include "lab/scenario/topology.h"

namespace flowlab::lab {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

Result<json> read_record(const std::string& lab) {
  if (lab.empty() || lab.find('/') != std::string::npos || lab.find("..") != std::string::npos)
    return fail("'{}' is not a lab id (see flowlab lab status)", lab);
  std::ifstream in(state_root() + "/" + lab + "/lab.json");
  if (!in) return fail("no lab '{}' is up (see flowlab lab status)", lab);
  json j = json::parse(in, nullptr, false);
  if (!j.is_object()) return fail("lab '{}': its record is unreadable", lab);
  return j;
}

bool alive(const json& rec) {
  pid_t pid = rec.value("pid", 0);
  return pid > 0 && process_start_time(pid) == rec.value("start", uint64_t(0));
}

// What Mininet's CLI shows of the case (nodes, net, dump, ports): its switches with
// their kind, dpid and OpenFlow ports (interface names in the core namespace, port 1
// first), its controllers, its hosts' addresses and MACs.
json nodes_record(const Scenario& sc, const CaseSpec& cs, const CaseHandles& h) {
  json t = topology_record(sc, cs);
  json ports = switch_port_order(sc, cs);
  for (auto& s : t["switches"]) s["ports"] = ports.value(s.value("name", ""), json::array());
  json ctls = json::array();
  for (const auto& [name, c] : h.controllers)
    ctls.push_back({{"name", name},
                    {"kind", std::string(to_string(c->spec().kind))},
                    {"apps", c->spec().apps},
                    {"host", c->host()},
                    {"port", c->port()}});
  t["controllers"] = std::move(ctls);
  return t;
}

// Holds the lab until SIGTERM/SIGINT, or until the owner (its pidfd, -1: none) exits.
void hold_lab(int owner_fd) {
  if (owner_fd < 0) {
    while (sleep_unless_interrupted(3600)) {
    }
    return;
  }
  while (!interrupted()) {
    if (wait_readable_unless_interrupted(owner_fd, 3600)) {
      std::fprintf(stderr, "lab: its owner exited: taking the lab down\n");
      return;
    }
  }
}

// The supervisor: build, tell the parent (one line on `fd`), hold until SIGTERM/SIGINT
// or the owner's exit.
int supervise(const Scenario& sc, size_t ci, const std::string& out_opt, const CaptureOptions& capture,
              bool metrics, const LabBuilderFactory& across, int fd, pid_t owner, int owner_fd) {
  auto say = [&](const std::string& line) {
    if (fd < 0) return;
    std::string l = line + "\n";
    (void)!::write(fd, l.data(), l.size());
    close(fd);
    fd = -1;
  };
  install_signal_handlers();
  auto state = RunState::create(sc.name);
  if (!state.ok()) {
    say("error " + state.error().message);
    return 2;
  }
  std::string out = out_opt.empty() ? fmt::format("lab-results/{}-{}", sc.name, (*state)->id()) : out_opt;
  std::error_code ec;
  fs::create_directories(out, ec);
  out = fs::absolute(out).string();
  // The supervisor's own output goes to its log; it has no terminal.
  int log = open((out + "/up.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log >= 0) {
    dup2(log, 1);
    dup2(log, 2);
    close(log);
  }
  std::unique_ptr<LabBuilder> builder;
  if (across) {
    auto b = across(out);
    if (!b.ok()) {
      say("error " + b.error().message);
      return 1;
    }
    builder = std::move(*b);
  }
  auto while_up = [&](const std::map<std::string, std::string>& hosts, const json& links, const json& prom,
                      CaseHandles& h) {
    json addrs = json::object();
    for (const auto& host : sc.hosts)
      if (auto a = sc.address_of(host.name); a.ok()) addrs[host.name] = *a;
    json j = {{"id", (*state)->id()},
              {"addresses", addrs},
              {"scenario", sc.name},
              {"case", sc.cases[ci].name},
              {"pid", getpid()},
              {"start", process_start_time(getpid())},
              {"out_dir", out},
              {"hosts", hosts},
              {"links", links},
              {"core_ns", h.env.core_ns},
              {"nodes", nodes_record(sc, sc.cases[ci], h)}};
    if (builder) j["across"] = builder->across();
    // The case's Open vSwitch (its database socket and ovs-ofctl's sockets): OVS_RUNDIR of
    // ovs-vsctl run against this lab.
    if (h.env.ovs && !h.env.ovs->dir().empty()) j["ovs_rundir"] = h.env.ovs->dir();
    if (owner > 0) j["owner"] = owner;
    if (!prom.is_null()) j["prometheus"] = prom;
    // `flowlab lab cli` asks for link, switch and dpctl changes here (lab_control.h).
    auto control = ControlServer::listen(control_socket_path((*state)->id()));
    if (!control.ok()) std::fprintf(stderr, "lab: %s\n", control.error().message.c_str());
    std::string path = state_root() + "/" + (*state)->id() + "/lab.json";
    std::ofstream(path) << j.dump(2) << "\n";
    say("ok " + (*state)->id());
    if (control.ok()) (*control)->start(h);
    hold_lab(owner_fd);
    if (control.ok()) control->reset();  // before the case's handles go
    fs::remove(path, ec);
  };
  Status st = ok_status();
  if (builder)
    st = with_case_built(sc, ci, **state, out, capture, metrics, while_up,
                         [&](RunContext& rc, const CaseSpec& cs, size_t i, const std::string& case_out,
                             CaseTopology& topo) { return builder->build(rc, cs, i, case_out, topo); });
  else
    st = with_case_built(sc, ci, **state, out, capture, metrics, while_up);
  builder.reset();  // the run out of etcd, the emulated machines gone
  if (!st.ok()) {
    say("error " + st.error().message);
    return 1;
  }
  return 0;
}

}  // namespace

Result<int> lab_up(const std::string& label, const std::string& text, const std::string& only_case,
                   const std::string& out_dir, const CaptureOptions& capture, bool metrics,
                   const LabBuilderFactory& across, std::string* lab_id, pid_t owner) {
  FLOWLAB_ASSIGN_OR_RETURN(Scenario sc, text.empty() ? load_scenario(label) : parse_scenario(text, label));
  FLOWLAB_TRY(capture_selection(sc, capture.links, label));  // before anything exists
  if (capture.max_mb <= 0) return fail("--capture-max must be more than 0 MB");
  FLOWLAB_TRY(metrics_settings(sc, metrics, bool(across)));
  size_t ci = 0;
  if (!only_case.empty()) {
    auto it = std::find_if(sc.cases.begin(), sc.cases.end(),
                           [&](const CaseSpec& c) { return c.name == only_case; });
    if (it == sc.cases.end()) return fail("{}: no case named '{}'", label, only_case);
    ci = size_t(it - sc.cases.begin());
  }
  if (geteuid() != 0) return fail("flowlab lab up needs root (network namespaces); try sudo");
  // The owner's pidfd, opened here and inherited by the supervisor: it becomes
  // readable when the owner exits, whoever reaps it (a pid could be reused).
  int owner_fd = -1;
  if (owner != 0) {
    owner_fd = owner > 0 ? int(syscall(SYS_pidfd_open, owner, 0)) : -1;
    if (owner_fd < 0 || process_start_time(owner) == 0) {
      if (owner_fd >= 0) close(owner_fd);
      return fail("--owner {}: no such process", owner);
    }
  }
  for (const auto& w : sc.warnings) std::fprintf(stderr, "%s\n", w.c_str());
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) {
    if (owner_fd >= 0) close(owner_fd);
    return fail("pipe: {}", std::strerror(errno));
  }
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    if (owner_fd >= 0) close(owner_fd);
    return fail("fork: {}", std::strerror(errno));
  }
  if (pid == 0) {
    close(p[0]);
    setsid();
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull >= 0) dup2(devnull, 0);
    std::exit(supervise(sc, ci, out_dir, capture, metrics, across, p[1], owner, owner_fd));
  }
  close(p[1]);
  if (owner_fd >= 0) close(owner_fd);
  std::fprintf(stderr, "lab: bringing up %s case %s ...\n", sc.name.c_str(), sc.cases[ci].name.c_str());
  std::string line;
  char buf[512];
  for (ssize_t n; (n = read(p[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    line.append(buf, size_t(n));
  }
  close(p[0]);
  while (!line.empty() && line.back() == '\n') line.pop_back();
  if (line.rfind("ok ", 0) == 0) {
    std::string id = line.substr(3);
    if (lab_id) *lab_id = id;
    std::printf("lab %s is up (%s, case %s); flowlab lab exec %s %s ...; flowlab lab down %s\n", id.c_str(),
                sc.name.c_str(), sc.cases[ci].name.c_str(), id.c_str(), sc.hosts.front().name.c_str(),
                id.c_str());
    return 0;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return fail("lab up failed: {}", line.rfind("error ", 0) == 0 ? line.substr(6) : "the supervisor exited");
}

std::vector<std::string> with_host_addresses(const std::vector<std::string>& cmd,
                                             const std::map<std::string, std::string>& addresses) {
  std::vector<std::string> out = cmd;
  for (size_t i = 1; i < out.size(); ++i)
    if (auto it = addresses.find(out[i]); it != addresses.end()) out[i] = it->second;
  return out;
}

Result<int> lab_exec(const std::string& lab, const std::string& host, const std::vector<std::string>& cmd,
                     const AcrossExec& across) {
  FLOWLAB_ASSIGN_OR_RETURN(json rec, read_record(lab));
  if (!alive(rec))
    return fail("lab '{}' is not running (its supervisor is gone; flowlab lab clean --force)", lab);
  const json& hosts = rec["hosts"];
  if (!hosts.is_object() || !hosts.contains(host) || !hosts[host].is_string())
    return fail("lab '{}' has no host '{}'", lab, host);
  if (cmd.empty()) return fail("give a command to run in {}", host);
  const std::string ns = hosts[host].get<std::string>();
  auto args = with_host_addresses(cmd, string_map(rec, "addresses"));
  if (rec.contains("across") && !fs::exists("/run/netns/" + ns)) {
    if (!across) return fail("lab '{}': host {} is on another machine", lab, host);
    return across(rec["across"], host, ns, args);
  }
  std::vector<std::string> argv = {"ip", "netns", "exec", ns};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> a;
  for (auto& s : argv) a.push_back(s.data());
  a.push_back(nullptr);
  execvp("ip", a.data());
  return fail("exec ip: {}", std::strerror(errno));
}

Result<json> running_lab_record(const std::string& lab) {
  FLOWLAB_ASSIGN_OR_RETURN(json rec, read_record(lab));
  if (!alive(rec))
    return fail("lab '{}' is not running (its supervisor is gone; flowlab lab clean --force)", lab);
  return rec;
}

Status lab_capture(const std::string& lab, const std::string& link, const AcrossCapture& across) {
  FLOWLAB_ASSIGN_OR_RETURN(json rec, read_record(lab));
  if (!alive(rec))
    return fail("lab '{}' is not running (its supervisor is gone; flowlab lab clean --force)", lab);
  std::pair<std::string, std::string> nodes;
  FLOWLAB_ASSIGN_OR_RETURN(CaptureTarget t, recorded_target(rec.value("links", json()), link, &nodes));
  if (rec.contains("across") && across) {  // from the agents that hold its ends, through etcd
    ::signal(SIGPIPE, SIG_IGN);
    install_signal_handlers();
    std::fprintf(stderr,
                 "lab: capturing %s of lab %s through its machines' agents on stdout (Ctrl-C stops)\n",
                 t.name.c_str(), lab.c_str());
    return across(rec["across"], t, nodes.first, nodes.second, stdout,
                  [&] { return interrupted() || !alive(rec); });
  }
  for (const auto& ns : {t.a_ns, t.b_ns})
    if (!ns.empty() && !fs::exists("/run/netns/" + ns))
      return fail(
          "lab '{}': link {} ends on another machine (namespace {}): capture it with --capture on lab up, "
          "or on that machine",
          lab, t.name, ns);
  ::signal(SIGPIPE, SIG_IGN);  // a reader that leaves is an EPIPE, the end of the stream
  install_signal_handlers();
  std::fprintf(stderr, "lab: capturing %s of lab %s on stdout (Ctrl-C stops)\n", t.name.c_str(), lab.c_str());
  return stream_link_capture(t, stdout, [&] { return interrupted() || !alive(rec); });
}

std::string lab_status() {
  std::string out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(state_root(), ec)) {
    auto rec = read_record(e.path().filename().string());
    if (!rec.ok()) continue;
    std::string where;
    if (const json& a = member(*rec, "across"); !a.empty()) {
      std::vector<std::string> machines;
      for (const auto& m : array_member(a, "machines"))
        if (m.is_string()) machines.push_back(m.get<std::string>());
      where = fmt::format("  across {} (etcd {})", fmt::join(machines, ", "), str(a, "etcd"));
    }
    out += fmt::format("{}  {} case {}  {} hosts  {}{}  out {}\n", str(*rec, "id"), str(*rec, "scenario"),
                       str(*rec, "case"), member(*rec, "hosts").size(),
                       alive(*rec) ? "up" : "supervisor gone", where, str(*rec, "out_dir"));
  }
  return out.empty() ? "no lab is up\n" : out;
}

Status lab_down(const std::string& lab, double timeout_s) {
  FLOWLAB_ASSIGN_OR_RETURN(json rec, read_record(lab));
  if (!alive(rec))
    return fail("lab '{}' has no running supervisor; flowlab lab clean --force removes what is left", lab);
  pid_t pid = rec.value("pid", 0);
  // A pidfd of the recorded supervisor (opened, then checked to still be that process,
  // so a recycled pid is never waited on) becomes readable the moment it exits: the
  // supervisor exits only once its processes and namespaces are gone.
  int pfd = int(syscall(SYS_pidfd_open, pid, 0));
  if (pfd >= 0 && !alive(rec)) {
    close(pfd);
    return ok_status();
  }
  kill(pid, SIGTERM);
  uint64_t deadline = monotonic_ns() + uint64_t(timeout_s * 1e9);
  while (alive(rec)) {
    if (monotonic_ns() >= deadline) {
      if (pfd >= 0) close(pfd);
      return fail("lab '{}': supervisor {} did not stop within {:.0f} s", lab, pid, timeout_s);
    }
    if (pfd < 0) {
      usleep(2000);  // no pidfd (kernel < 5.3): poll the process
      continue;
    }
    pollfd p{pfd, POLLIN, 0};
    (void)poll(&p, 1, int(std::min<uint64_t>((deadline - monotonic_ns()) / 1000000 + 1, 1000)));
  }
  if (pfd >= 0) close(pfd);
  return ok_status();
}

}  // namespace flowlab::lab
