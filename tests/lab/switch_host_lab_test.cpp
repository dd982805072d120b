// The flowlab switches of a lab in one process (`flowlab switch-host`, as
// ovs-vswitchd hosts every bridge), as root: a linear,3 lab of flowlab
// switches is one switch-host process and no `flowlab switch` process; every
// pair pings through it; each switch has its own controller session and its
// own flows (Mininet's `dpctl dump-flows`, one switch at a time); Mininet's
// one BPF program serves the three (tcx links on all 7 ports, 7 ports in its
// fl_ports map); Mininet's `switch s2 stop` stops s2 alone (its 3 tcx links
// and fl_ports entries go, the controller counts one switch less, h2 is cut
// off while s1 and s3 keep their sessions) and `switch s2 start` brings it
// back; `lab down` leaves none of the lab's BPF programs or maps, no
// namespace, no process.
#include <dirent.h>

#include <set>

#include "mininet_cli_fixture.h"

namespace flowlab::lab {
namespace {

namespace fs = std::filesystem;

// What a process holds of BPF, from /proc/PID/fdinfo: program and map ids, tcx links.
struct BpfHeld {
  std::set<long> progs, maps;
  size_t tcx_links = 0;
};

BpfHeld bpf_held(pid_t pid) {
  BpfHeld h;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fmt::format("/proc/{}/fdinfo", pid), ec)) {
    std::ifstream in(e.path());
    std::string line;
    bool link = false, tcx = false;
    long prog = -1;
    while (std::getline(in, line)) {
      auto value = [&] { return std::atol(line.substr(line.find(':') + 1).c_str()); };
      if (line.rfind("link_type:", 0) == 0) {
        link = true;
        tcx = line.find("tcx") != std::string::npos;
      } else if (line.rfind("prog_id:", 0) == 0) {
        prog = value();
      } else if (line.rfind("map_id:", 0) == 0) {
        h.maps.insert(value());
      }
    }
    if (link && tcx) ++h.tcx_links;
    if (!link && prog >= 0) h.progs.insert(prog);
  }
  return h;
}

// Entries of BPF map `id` (bpftool map dump), -1 when it cannot be read.
long map_entries(long id) {
  auto r = run_command({"bpftool", "-j", "map", "dump", "id", std::to_string(id)}, with_timeout(30));
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  return r.ok() && j.is_array() ? long(j.size()) : -1;
}

// The id of the map named `name` among `ids` (-1: none).
long map_named(const std::set<long>& ids, const std::string& name) {
  for (long id : ids) {
    auto r = run_command({"bpftool", "-j", "map", "show", "id", std::to_string(id)}, with_timeout(30));
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    if (j.is_object() && j.value("name", "") == name) return id;
  }
  return -1;
}

// Ids `bpftool prog|map show` lists now.
std::set<long> bpftool_ids(const std::string& what) {
  auto r = run_command({"bpftool", "-j", what, "show"}, with_timeout(30));
  std::set<long> ids;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  if (j.is_array())
    for (const auto& o : j) ids.insert(o.value("id", -1L));
  return ids;
}

class SwitchHostLab : public MininetCliTest {
 protected:
  // Processes whose command line holds `needle` and whose argv[1] is `command`.
  static std::vector<pid_t> processes(const std::string& command, const std::string& needle) {
    std::vector<pid_t> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/proc", ec)) {
      std::string name = e.path().filename().string();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::ifstream in(e.path() / "cmdline");
      std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      std::vector<std::string> argv;
      for (size_t p = 0; p < cmd.size();) {
        size_t z = cmd.find('\0', p);
        argv.push_back(cmd.substr(p, z - p));
        p = z == std::string::npos ? cmd.size() : z + 1;
      }
      // The lab's: its command line names the lab's folder, or its output goes to the
      // lab's log.
      std::string log = fs::read_symlink(e.path() / "fd" / "1", ec).string();
      if (argv.size() > 1 && argv[1] == command &&
          (cmd.find(needle) != std::string::npos || log.find(needle) != std::string::npos))
        out.push_back(pid_t(std::stol(name)));
    }
    return out;
  }
  CommandResult cli(const std::string& commands) {
    std::string path = (dir_ / "in.cli").string();
    std::ofstream(path) << commands;
    return run_command({"sh", "-c", fmt::format("'{}' lab cli {} < '{}'", FLOWLAB_BINARY, id_, path)},
                       opts(120));
  }
  static bool has(const std::string& out, const std::string& s) { return out.find(s) != std::string::npos; }
  // Waits (bounded) until the controller counts exactly n switches connected.
  bool eventually_connected(long n, double timeout_s = 15) const {
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (std::chrono::steady_clock::now() < end) {
      auto j = controller_stats();
      if (j.is_object() && j.value("switches_connected", -1L) == n) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
};

TEST_F(SwitchHostLab, OneProcessHostsEverySwitchEachStoppedAndStartedAlone) {
  if (!have_program("bpftool")) GTEST_SKIP() << "needs bpftool";
  ASSERT_FALSE(up({"--topo", "linear,3", "--switch", "flowlab"}).empty());
  wait_controller_has(3);
  // One host for the three switches, no switch process of its own.
  auto hosts = processes("switch-host", dir_.string());
  ASSERT_EQ(hosts.size(), 1u);
  EXPECT_TRUE(processes("switch", out()).empty());
  pid_t host = hosts[0];
  BpfHeld up = bpf_held(host);
  // linear,3: s1 and s3 have 2 ports, s2 3: a tcx link each, one program for the three.
  EXPECT_EQ(up.tcx_links, 7u);
  EXPECT_EQ(up.progs.size(), 1u);
  long ports_map = map_named(up.maps, "fl_ports");
  ASSERT_GE(ports_map, 0);
  EXPECT_EQ(map_entries(ports_map), 7);

  auto r = cli("pingall\ndpctl dump-flows\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "*** Results: 0% dropped (6/6 received)")) << r.out;
  // Each switch answers for its own table: the learning switch's table-miss flow
  // in each, and what it learned there.
  for (const char* s : {"*** s1 ---", "*** s2 ---", "*** s3 ---"}) EXPECT_TRUE(has(r.out, s)) << r.out;
  EXPECT_EQ(TmuxTerminal::count(r.out, "priority=0 actions=CONTROLLER:65535"), 3u) << r.out;
  EXPECT_GE(TmuxTerminal::count(r.out, "dl_dst="), 6u) << r.out;

  // s2 alone stops: its three ports' links and entries go, the host and the others stay.
  r = cli("switch s2 stop\npingall 1\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "*** Results: 100% dropped (0/6 received)")) << r.out;
  BpfHeld stopped = bpf_held(host);
  EXPECT_EQ(stopped.tcx_links, 4u);
  EXPECT_EQ(stopped.progs, up.progs);
  EXPECT_EQ(map_entries(ports_map), 4);
  EXPECT_TRUE(eventually_connected(2)) << controller_stats().dump();
  ASSERT_EQ(processes("switch-host", dir_.string()), hosts);  // the same process

  r = cli("switch s2 start\npingall\ndpctl dump-flows\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "*** Results: 0% dropped (6/6 received)")) << r.out;
  EXPECT_EQ(TmuxTerminal::count(r.out, "priority=0 actions=CONTROLLER:65535"), 3u) << r.out;
  BpfHeld again = bpf_held(host);
  EXPECT_EQ(again.tcx_links, 7u);
  EXPECT_EQ(again.progs, up.progs);
  EXPECT_EQ(map_entries(ports_map), 7);
  EXPECT_TRUE(eventually_connected(3)) << controller_stats().dump();
  EXPECT_EQ(controller_stats().value("switches_seen", 0), 4) << controller_stats().dump();

  // Down: nothing of it is left.
  std::set<long> progs = up.progs, maps = up.maps;
  progs.insert(again.progs.begin(), again.progs.end());
  maps.insert(again.maps.begin(), again.maps.end());
  auto d = run_command({FLOWLAB_BINARY, "lab", "down", id_}, opts(60));
  ASSERT_EQ(d.exit_code, 0) << d.out << d.err;
  std::string lab = id_;
  id_.clear();
  EXPECT_TRUE(processes("switch-host", dir_.string()).empty());
  // The kernel frees a program once its last reference goes (RCU): bounded wait.
  std::set<long> left_progs, left_maps;
  for (int i = 0; i < 100; ++i) {
    left_progs.clear();
    left_maps.clear();
    auto p = bpftool_ids("prog"), m = bpftool_ids("map");
    for (long id : progs)
      if (p.count(id)) left_progs.insert(id);
    for (long id : maps)
      if (m.count(id)) left_maps.insert(id);
    if (left_progs.empty() && left_maps.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(left_progs.empty()) << left_progs.size() << " programs left";
  EXPECT_TRUE(left_maps.empty()) << left_maps.size() << " maps left";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/run/netns", ec))
    EXPECT_NE(e.path().filename().string().rfind("fl" + lab + "-", 0), 0u) << e.path();
}

}  // namespace
}  // namespace flowlab::lab
