// `flowlab ofctl` against a real Open vSwitch (userspace datapath, private run
// dir, unique bridge name, OpenFlow listener on a free loopback port): flows we
// add show up in `ovs-ofctl dump-flows`, our dump-flows / dump-ports-desc /
// dump-groups / dump-meters / dump-tables print exactly what ovs-ofctl prints
// (durations and xids aside), del-flows removes what it should, and switch
// errors come back as exit code 1 with the OpenFlow error named.
// OVS is started once for the suite and stopped (pid files) and its directory
// removed in TearDownTestSuite, also when tests fail.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "switch_topology.h"

using flowlab::switch_interop::free_tcp_port;
using flowlab::switch_interop::tcp_listening;

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct CmdResult {
  int exit_code = -1;
  std::string out, err;
};

// Runs a shell command line with a bounded time; captures stdout and stderr.
CmdResult shell(const std::string& cmd, const fs::path& tmp) {
  std::string line = "timeout 30 sh -c '" + cmd + "' >" + (tmp / "o").string() + " 2>" +
                     (tmp / "e").string() + " </dev/null";
  int status = std::system(line.c_str());
  CmdResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(tmp / "o");
  r.err = slurp(tmp / "e");
  return r;
}

bool have(const char* prog) {
  std::string c = std::string("command -v ") + prog + " >/dev/null 2>&1";
  return std::system(c.c_str()) == 0;
}

// A private ovsdb-server + ovs-vswitchd with one netdev bridge; stopped by pid on destruction.
class Ovs {
 public:
  Ovs() {
    dir_ = fs::temp_directory_path() / ("flowtext-ovs-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    bridge_ = "ftb" + std::to_string(::getpid() % 1000000);
  }
  ~Ovs() { stop(); }
  Ovs(const Ovs&) = delete;
  Ovs& operator=(const Ovs&) = delete;

  std::string env() const {
    std::string d = dir_.string();
    return "OVS_RUNDIR=" + d + " OVS_LOGDIR=" + d + " OVS_DBDIR=" + d + " ";
  }
  std::string db() const { return "--db=unix:" + (dir_ / "db.sock").string(); }
  CmdResult sh(const std::string& cmd) const { return shell(env() + cmd, dir_); }

  // Empty on success, else what failed.
  std::string start() {
    std::string d = dir_.string();
    auto step = [&](const std::string& cmd) -> std::string {
      CmdResult r = sh(cmd);
      return r.exit_code == 0 ? "" : cmd + ": " + r.err;
    };
    for (const std::string& cmd : {
             "ovsdb-tool create " + d + "/conf.db /usr/share/openvswitch/vswitch.ovsschema",
             "ovsdb-server " + d + "/conf.db --remote=punix:" + d + "/db.sock --pidfile=" + d +
                 "/ovsdb-server.pid --detach --log-file=" + d + "/ovsdb-server.log",
             "ovs-vsctl " + db() + " --no-wait init",
             "ovs-vswitchd unix:" + d + "/db.sock --pidfile=" + d +
                 "/ovs-vswitchd.pid --detach --log-file=" + d + "/ovs-vswitchd.log",
             "ovs-vsctl " + db() + " add-br " + bridge_ + " -- set bridge " + bridge_ +
                 " datapath_type=netdev protocols=OpenFlow10,OpenFlow13 -- set-fail-mode " + bridge_ +
                 " secure",
         }) {
      if (auto e = step(cmd); !e.empty()) return e;
    }
    for (int attempt = 0; attempt < 5 && port_ == 0; ++attempt) {
      uint16_t p = free_tcp_port();
      if (!step("ovs-vsctl " + db() + " set-controller " + bridge_ + " ptcp:" + std::to_string(p) +
                ":127.0.0.1")
               .empty())
        continue;
      for (int i = 0; i < 100 && !tcp_listening(p); ++i) std::this_thread::sleep_for(50ms);
      if (tcp_listening(p)) port_ = p;
    }
    if (port_ == 0) return "OVS never listened on its OpenFlow port";
    return "";
  }

  void stop() {
    // A netdev bridge is a persistent TAP in the root namespace: ovs-vswitchd leaves it
    // behind when it is stopped, so the bridge goes first (and the device, if still there).
    if (!slurp(dir_ / "ovs-vswitchd.pid").empty()) sh("ovs-vsctl " + db() + " --timeout=5 del-br " + bridge_);
    for (const char* pidfile : {"ovs-vswitchd.pid", "ovsdb-server.pid"}) {
      std::string s = slurp(dir_ / pidfile);
      pid_t pid = s.empty() ? 0 : pid_t(std::atol(s.c_str()));
      if (pid <= 0) continue;
      ::kill(pid, SIGTERM);
      for (int i = 0; i < 100 && ::kill(pid, 0) == 0; ++i) std::this_thread::sleep_for(20ms);
      if (::kill(pid, 0) == 0) ::kill(pid, SIGKILL);
    }
    shell("ip link del " + bridge_ + " 2>/dev/null", dir_);
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  std::string target() const { return "tcp:127.0.0.1:" + std::to_string(port_); }
  const std::string& bridge() const { return bridge_; }
  const fs::path& dir() const { return dir_; }

 private:
  fs::path dir_;
  std::string bridge_;
  uint16_t port_ = 0;
};

std::string q(const std::string& s) { return "\"" + s + "\""; }

// Durations and xids differ between two dumps; everything else must not.
std::string normalise(std::string s) {
  s = std::regex_replace(s, std::regex("duration=[0-9.]+s"), "duration=X");
  s = std::regex_replace(s, std::regex("duration:[0-9.]+s"), "duration:X");
  s = std::regex_replace(s, std::regex("xid=0x[0-9a-f]+"), "xid=X");
  return s;
}

std::vector<std::string> sorted_lines(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  std::sort(v.begin(), v.end());
  return v;
}

class OfctlOvs : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    for (const char* p : {"ovsdb-tool", "ovsdb-server", "ovs-vswitchd", "ovs-vsctl", "ovs-ofctl"})
      if (!have(p)) {
        skip_ = std::string("Open vSwitch is not installed (") + p + " missing)";
        return;
      }
    if (::geteuid() != 0) {
      skip_ = "needs root to run ovs-vswitchd";
      return;
    }
    ovs_ = std::make_unique<Ovs>();
    if (std::string e = ovs_->start(); !e.empty()) {
      skip_.clear();
      start_error_ = e;
    }
  }
  static void TearDownTestSuite() { ovs_.reset(); }

  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
    ASSERT_TRUE(start_error_.empty()) << "could not start OVS: " << start_error_;
    ASSERT_EQ(ovs_->sh("ovs-ofctl -O OpenFlow13 del-flows " + ovs_->target()).exit_code, 0);
  }

  static CmdResult flowlab(const std::string& args) {
    return ovs_->sh(std::string(FLOWLAB_BINARY) + " ofctl " + args);
  }
  static CmdResult ovs_ofctl(const std::string& args) { return ovs_->sh("ovs-ofctl " + args); }
  static std::string t() { return ovs_->target(); }

  static inline std::unique_ptr<Ovs> ovs_;
  static inline std::string skip_;
  static inline std::string start_error_;
};

TEST_F(OfctlOvs, AddFlowShowsUpInOvsAndDumpsIdentically) {
  const char* flows[] = {
      "table=0,priority=100,in_port=1,dl_type=0x0800,nw_dst=10.0.0.0/8,tcp,tp_dst=80,idle_timeout=30,"
      "actions=output:2,controller:128,set_field:00:11:22:33:44:55->eth_dst,push_vlan:0x8100,goto_table:1",
      "cookie=0x1234,priority=5,udp,nw_src=1.2.3.4,udp_src=53,hard_timeout=60,send_flow_rem,actions=drop",
      "priority=6,arp,arp_spa=10.0.0.1,arp_op=1,actions=flood",
      "priority=7,dl_src=00:11:22:33:44:55,dl_dst=01:00:00:00:00:00/"
      "01:00:00:00:00:00,actions=all,in_port,normal,local",
      "priority=8,dl_vlan=10,dl_vlan_pcp=3,actions=strip_vlan,output:3",
      "priority=9,ipv6,ipv6_src=2001:db8::/32,actions=dec_ttl,set_queue:3,output:1",
      "priority=16,icmp6,icmp_type=135,nd_target=fe80::1,actions=output:1",
      "priority=17,vlan_tci=0x1000/0x1000,actions=output:1",
      "table=3,priority=13,udp6,ipv6_dst=::1,ipv6_label=0x12,actions=set_field:0x123->tun_id",
      "priority=20,ip,nw_tos=32,nw_ecn=1,actions=mod_nw_src:1.1.1.1,mod_nw_ttl:9,write_actions(output:2),"
      "goto_table:4",
  };
  for (const char* f : flows) {
    CmdResult r = flowlab("add-flow " + t() + " " + q(f));
    ASSERT_EQ(r.exit_code, 0) << f << "\n" << r.err;
  }
  CmdResult theirs = ovs_ofctl("-O OpenFlow13 dump-flows " + t());
  ASSERT_EQ(theirs.exit_code, 0) << theirs.err;
  EXPECT_EQ(sorted_lines(theirs.out).size(), std::size(flows) + 1) << theirs.out;  // + header
  CmdResult ours = flowlab("dump-flows " + t());
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_EQ(normalise(ours.out), normalise(theirs.out));
  // Filtered and --no-stats dumps agree too.
  CmdResult ours_f = flowlab("--no-stats dump-flows " + t() + " " + q("table=3,udp6"));
  CmdResult theirs_f = ovs_ofctl("-O OpenFlow13 --no-stats dump-flows " + t() + " " + q("table=3,udp6"));
  EXPECT_EQ(normalise(ours_f.out), normalise(theirs_f.out));
  EXPECT_NE(ours_f.out.find("ipv6_label=0x00012"), std::string::npos) << ours_f.out;
}

TEST_F(OfctlOvs, DelFlowsRemovesOnlyTheMatchingFlows) {
  for (const char* f : {"priority=1,in_port=1,actions=output:2", "priority=2,in_port=2,actions=output:1",
                        "priority=3,ip,nw_src=10.0.0.1,actions=drop"}) {
    ASSERT_EQ(flowlab("add-flow " + t() + " " + q(f)).exit_code, 0);
  }
  CmdResult del = flowlab("del-flows " + t() + " in_port=1");
  ASSERT_EQ(del.exit_code, 0) << del.err;
  CmdResult after = ovs_ofctl("-O OpenFlow13 dump-flows " + t());
  EXPECT_EQ(after.out.find("in_port=1"), std::string::npos) << after.out;
  EXPECT_NE(after.out.find("in_port=2"), std::string::npos) << after.out;
  // --strict needs the exact priority.
  ASSERT_EQ(flowlab("--strict del-flows " + t() + " " + q("priority=9,ip,nw_src=10.0.0.1")).exit_code, 0);
  EXPECT_NE(ovs_ofctl("-O OpenFlow13 dump-flows " + t()).out.find("nw_src=10.0.0.1"), std::string::npos);
  ASSERT_EQ(flowlab("--strict del-flows " + t() + " " + q("priority=3,ip,nw_src=10.0.0.1")).exit_code, 0);
  EXPECT_EQ(ovs_ofctl("-O OpenFlow13 dump-flows " + t()).out.find("nw_src=10.0.0.1"), std::string::npos);
  ASSERT_EQ(flowlab("del-flows " + t()).exit_code, 0);
  EXPECT_EQ(ovs_ofctl("-O OpenFlow13 dump-flows " + t()).out.find("priority"), std::string::npos);
}

TEST_F(OfctlOvs, ModFlowsChangesActions) {
  ASSERT_EQ(flowlab("add-flow " + t() + " " + q("priority=4,in_port=1,actions=output:2")).exit_code, 0);
  CmdResult mod = flowlab("mod-flows " + t() + " " + q("in_port=1,actions=output:3"));
  ASSERT_EQ(mod.exit_code, 0) << mod.err;
  EXPECT_NE(ovs_ofctl("-O OpenFlow13 dump-flows " + t()).out.find("in_port=1 actions=output:3"),
            std::string::npos);
}

TEST_F(OfctlOvs, PortDescShowTablesMatchOvsOfctl) {
  for (const char* cmd : {"dump-ports-desc", "dump-tables", "show"}) {
    CmdResult ours = flowlab(std::string(cmd) + " " + t());
    CmdResult theirs = ovs_ofctl(std::string("-O OpenFlow13 ") + cmd + " " + t());
    ASSERT_EQ(ours.exit_code, 0) << cmd << ": " << ours.err;
    EXPECT_EQ(normalise(ours.out), normalise(theirs.out)) << cmd;
  }
  CmdResult ports = flowlab("dump-ports " + t());
  ASSERT_EQ(ports.exit_code, 0) << ports.err;
  EXPECT_NE(ports.out.find("  port LOCAL: rx pkts="), std::string::npos) << ports.out;
}

TEST_F(OfctlOvs, GroupsAndMetersRoundTripThroughOvs) {
  ovs_ofctl("-O OpenFlow13 del-groups " + t());
  ovs_ofctl("-O OpenFlow13 del-meters " + t());
  ASSERT_EQ(
      flowlab("add-group " + t() + " " + q("group_id=1,type=all,bucket=output:1,bucket=output:2")).exit_code,
      0);
  CmdResult sel = flowlab(
      "add-group " + t() + " " +
      q("group_id=2,type=select,bucket=weight:10,actions=output:1,bucket=weight:20,actions=output:2"));
  ASSERT_EQ(sel.exit_code, 0) << sel.err;
  CmdResult ours = flowlab("dump-groups " + t());
  CmdResult theirs = ovs_ofctl("-O OpenFlow13 dump-groups " + t());
  EXPECT_EQ(normalise(ours.out), normalise(theirs.out));
  EXPECT_NE(ours.out.find("group_id=2,type=select,bucket=weight:10,actions=output:1"), std::string::npos)
      << ours.out;
  CmdResult meter = flowlab("add-meter " + t() + " " +
                            q("meter=1,kbps,burst,stats,bands=type=drop,rate=1000,burst_size=100"));
  ASSERT_EQ(meter.exit_code, 0) << meter.err;
  CmdResult mo = flowlab("dump-meters " + t());
  CmdResult mt = ovs_ofctl("-O OpenFlow13 dump-meters " + t());
  EXPECT_EQ(normalise(mo.out), normalise(mt.out));
  ASSERT_EQ(flowlab("del-groups " + t()).exit_code, 0);
  EXPECT_EQ(ovs_ofctl("-O OpenFlow13 dump-groups " + t()).out.find("group_id"), std::string::npos);
}

TEST_F(OfctlOvs, SwitchErrorsExit1WithTheErrorNamed) {
  CmdResult r = flowlab("add-flow " + t() + " " + q("priority=1,actions=group:77"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("OFPBAC_BAD_OUT_GROUP"), std::string::npos) << r.err;
  CmdResult bad = flowlab("add-flow " + t() + " " + q("priority=1,tp_dst=80,actions=drop"));
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("'tp_dst' needs a transport protocol"), std::string::npos) << bad.err;
}

TEST_F(OfctlOvs, OpenFlow10AddAndDump) {
  CmdResult add = flowlab("-O OpenFlow10 add-flow " + t() + " " +
                          q("priority=50,ip,nw_dst=10.9.0.0/16,actions=output:1"));
  ASSERT_EQ(add.exit_code, 0) << add.err;
  CmdResult theirs = ovs_ofctl("-O OpenFlow13 dump-flows " + t());
  EXPECT_NE(theirs.out.find("priority=50,ip,nw_dst=10.9.0.0/16 actions=output:1"), std::string::npos)
      << theirs.out;
  CmdResult ours = flowlab("-O OpenFlow10 dump-flows " + t());
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_NE(ours.out.find("OFPST_FLOW reply (xid="), std::string::npos) << ours.out;
  EXPECT_NE(ours.out.find("priority=50,ip,nw_dst=10.9.0.0/16 actions=output:1"), std::string::npos)
      << ours.out;
}

TEST_F(OfctlOvs, PacketOutIsAccepted) {
  CmdResult r = flowlab("packet-out " + t() + " " +
                        q("in_port=controller,packet=ffffffffffff00000000000108060001080006040001000000000001"
                          "0a000001000000000000"
                          "0a000002,actions=output:LOCAL"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  CmdResult old = flowlab("packet-out " + t() + " LOCAL drop ffffffffffff0000000000010800");
  EXPECT_EQ(old.exit_code, 0) << old.err;
}

// flowlab ofctl monitor against Open vSwitch at 1.4, beside ovs-ofctl monitor
// on the same bridge: both print the same update lines for what a third
// client changes (INITIAL, ADDED, DELETED), and ours stops after --count.
TEST_F(OfctlOvs, MonitorAt14PrintsWhatOvsOfctlPrints) {
  const std::string proto = "ovs-vsctl " + ovs_->db() + " set bridge " + ovs_->bridge() + " protocols=";
  ASSERT_EQ(ovs_->sh(proto + "OpenFlow10,OpenFlow13,OpenFlow14").exit_code, 0);
  for (int i = 0; i < 100 && !tcp_listening(uint16_t(std::stoi(t().substr(t().rfind(':') + 1)))); ++i)
    std::this_thread::sleep_for(50ms);
  ASSERT_EQ(ovs_ofctl("-O OpenFlow14 add-flow " + t() + " priority=5,in_port=1,actions=output:2").exit_code,
            0);
  const fs::path ours = ovs_->dir() / "mon-ours.txt", theirs = ovs_->dir() / "mon-ovs.txt";
  auto background = [&](const std::string& cmd, const fs::path& out) {
    const fs::path pidfile = out.string() + ".pid";
    std::string line = "sh -c '" + ovs_->env() + "timeout 20 " + cmd + " >" + out.string() +
                       " 2>&1 </dev/null & echo $! >" + pidfile.string() + "'";
    EXPECT_EQ(std::system(line.c_str()), 0);
    return pidfile;
  };
  auto events = [](const fs::path& p) {
    std::vector<std::string> v;
    std::istringstream in(slurp(p));
    for (std::string l; std::getline(in, l);)
      if (l.starts_with(" event=")) v.push_back(l);
    return v;
  };
  auto wait_events = [&](const fs::path& p, size_t n) {
    for (int i = 0; i < 200 && events(p).size() < n; ++i) std::this_thread::sleep_for(50ms);
    return events(p).size() >= n;
  };
  const fs::path pid_ours = background(
      std::string(FLOWLAB_BINARY) + " ofctl -O OpenFlow14 monitor " + t() + " watch:!own --count 3", ours);
  const fs::path pid_theirs = background("ovs-ofctl -O OpenFlow14 monitor " + t() + " watch:!own", theirs);
  ASSERT_TRUE(wait_events(ours, 1) && wait_events(theirs, 1)) << slurp(ours) << slurp(theirs);
  ASSERT_EQ(ovs_ofctl("-O OpenFlow14 add-flow " + t() +
                      " priority=7,tcp,tp_dst=80,cookie=0x3,idle_timeout=50,"
                      "actions=output:1")
                .exit_code,
            0);
  ASSERT_EQ(ovs_ofctl("-O OpenFlow14 del-flows " + t() + " tcp").exit_code, 0);
  EXPECT_TRUE(wait_events(ours, 3) && wait_events(theirs, 3)) << slurp(ours) << slurp(theirs);
  for (const fs::path& p : {pid_ours, pid_theirs}) {
    const pid_t pid = pid_t(std::atol(slurp(p).c_str()));
    if (pid > 0) ::kill(pid, SIGTERM);
  }
  EXPECT_EQ(events(ours), events(theirs)) << "ours:\n" << slurp(ours) << "ovs-ofctl:\n" << slurp(theirs);
  ASSERT_EQ(events(ours).size(), 3u) << slurp(ours);
  EXPECT_EQ(events(ours)[0], " event=INITIAL table=0 cookie=0 in_port=1 actions=output:2");
  EXPECT_EQ(events(ours)[1],
            " event=ADDED table=0 idle_timeout=50 cookie=0x3 tcp,tp_dst=80 actions=output:1");
  EXPECT_NE(slurp(ours).find("OFPST_FLOW_MONITOR reply (OF1.4) (xid=0x0):"), std::string::npos)
      << slurp(ours);
  ASSERT_EQ(ovs_->sh(proto + "OpenFlow10,OpenFlow13").exit_code, 0);
}

// Queue description at 1.4 on Open vSwitch (its bridge has LOCAL only and no
// QoS): every queue of every port and of LOCAL is an empty reply, printed by
// flowlab ofctl as ovs-ofctl prints it; a port that does not exist and a queue
// of any port are OFPQOFC_BAD_PORT and OFPQOFC_BAD_QUEUE, which ovs-ofctl prints
// and exits 0, flowlab ofctl names on stderr and exits 1 (as for every error
// reply). One queue of LOCAL is Open vSwitch's own NXQOFC_QUEUE_ERROR (a Nicira
// experimenter error), where flowlab's switch answers OFPQOFC_BAD_QUEUE.
TEST_F(OfctlOvs, QueueGetConfigAt14LikeOvsOfctl) {
  const std::string proto = "ovs-vsctl " + ovs_->db() + " set bridge " + ovs_->bridge() + " protocols=";
  ASSERT_EQ(ovs_->sh(proto + "OpenFlow10,OpenFlow13,OpenFlow14").exit_code, 0);
  for (int i = 0; i < 100 && !tcp_listening(uint16_t(std::stoi(t().substr(t().rfind(':') + 1)))); ++i)
    std::this_thread::sleep_for(50ms);
  auto both = [&](const std::string& args) {
    return std::pair{ovs_ofctl("-O OpenFlow14 queue-get-config " + t() + args),
                     flowlab("-O OpenFlow14 queue-get-config " + t() + args)};
  };
  for (const std::string args : {"", " LOCAL", " ANY ALL"}) {
    auto [theirs, ours] = both(args);
    ASSERT_EQ(theirs.exit_code, 0) << args << theirs.out << theirs.err;
    EXPECT_NE(theirs.out.find("OFPST_QUEUE_DESC reply (OF1.4)"), std::string::npos) << args << theirs.out;
    EXPECT_EQ(ours.exit_code, 0) << args << ours.err;
    EXPECT_EQ(normalise(ours.out), normalise(theirs.out)) << args;
  }
  for (const auto& [args, code] :
       {std::pair<std::string, std::string>{" 9", "OFPQOFC_BAD_PORT"}, {" ANY 3", "OFPQOFC_BAD_QUEUE"}}) {
    auto [theirs, ours] = both(args);
    EXPECT_NE(theirs.out.find("OFPT_ERROR (OF1.4)"), std::string::npos) << args << theirs.out;
    EXPECT_NE(theirs.out.find(code), std::string::npos) << args << theirs.out;
    EXPECT_EQ(ours.exit_code, 1) << args << ours.out;
    EXPECT_NE(ours.err.find(code), std::string::npos) << args << ours.err;
  }
  auto [theirs, ours] = both(" LOCAL 3");
  EXPECT_NE(theirs.out.find("NXQOFC_QUEUE_ERROR"), std::string::npos) << theirs.out;
  EXPECT_EQ(ours.exit_code, 1) << ours.out;
  EXPECT_NE(ours.err.find("experimenter 0x2320"), std::string::npos) << ours.err;
  ASSERT_EQ(ovs_->sh(proto + "OpenFlow10,OpenFlow13").exit_code, 0);
}

}  // namespace
