// `flowlab ofctl trace` against a real `flowlab switch` (root): three veth
// ports whose peers sit in a namespace the test makes (unique names, removed
// on every path), flows and a group added with `flowlab ofctl`, then traces
// by flow text and by --packet hex, text and JSON. The final outputs must be
// what the flows say, counters must stay at zero, malformed input must exit
// 2 and a malformed request on the wire must get an OpenFlow error from a
// switch that keeps running. When Open vSwitch is installed, the same flows
// on an OVS netdev bridge and `ovs-appctl ofproto/trace`'s "Datapath
// actions" must name the same ports.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "channel/sync_client.h"
#include "cli_run.h"
#include "interop/switch_topology.h"
#include "openflow/of13/flowlab_trace.h"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using flowlab::test::CliRun;
using flowlab::test::run_flowlab;

// The interop tests' helpers: exit code of a quiet command, output of one, ports.
int sh(const std::string& cmd) { return flowlab::switch_interop::run_quiet(cmd); }
std::string sh_out(const std::string& cmd) { return flowlab::switch_interop::run_output(cmd); }
using flowlab::switch_interop::free_tcp_port;
using flowlab::switch_interop::tcp_listening;

// The flows both switches get (OpenFlow 1.3 text, as ovs-ofctl reads it).
const std::vector<std::string> kFlows = {
    "table=0,priority=10,tcp,in_port=1,nw_dst=10.0.0.2,tp_dst=80,actions=set_field:10.0.0.9->ip_dst,goto_"
    "table:1",
    "table=1,priority=5,ip,nw_dst=10.0.0.9,actions=output:2",
    "table=0,priority=5,udp,actions=group:1",
    "table=0,priority=1,arp,actions=FLOOD",
    "table=0,priority=2,icmp,actions=CONTROLLER:128",
};
const char* kGroup = "group_id=1,type=all,bucket=output:2,bucket=output:3";

// Traces and the OpenFlow ports they must reach.
struct Case {
  std::string flow;
  std::set<uint32_t> ports;
};
const std::vector<Case> kCases = {
    {"in_port=1,tcp,nw_src=10.0.0.1,nw_dst=10.0.0.2,tp_dst=80", {2}},  // set-field, goto, output
    {"in_port=1,udp,nw_dst=10.0.0.3,udp_dst=53", {2, 3}},              // group all
    {"in_port=3,tcp,nw_dst=10.0.0.7,tp_dst=22", {}},                   // table-miss: drop
};

class TraceCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (::geteuid() != 0) return;
    tag_ = "ftr" + std::to_string(::getpid() % 100000);
    ns_ = tag_ + "ns";
    if (sh("ip netns add " + ns_) != 0) return;
    for (int i = 1; i <= 3; ++i) {
      const std::string s = tag_ + "s" + std::to_string(i), h = tag_ + "h" + std::to_string(i);
      if (sh("ip link add " + s + " type veth peer name " + h) != 0 ||
          sh("ip link set " + h + " netns " + ns_) || sh("ip link set " + s + " up") ||
          sh("ip -n " + ns_ + " link set " + h + " up"))
        return;
    }
    port_ = free_tcp_port();
    pid_ = ::fork();
    if (pid_ == 0) {
      const std::string listen = "ptcp:" + std::to_string(port_) + ":127.0.0.1";
      const std::string p1 = tag_ + "s1=1", p2 = tag_ + "s2=2", p3 = tag_ + "s3=3";
      ::execl(FLOWLAB_BINARY, FLOWLAB_BINARY, "switch", "--port", p1.c_str(), "--port", p2.c_str(), "--port",
              p3.c_str(), "--listen", listen.c_str(), "--log-level", "warn", nullptr);
      ::_exit(127);
    }
    for (int i = 0; i < 200 && !tcp_listening(port_); ++i) std::this_thread::sleep_for(50ms);
    if (!tcp_listening(port_)) return;
    CliRun g = run_flowlab("ofctl", "-O OpenFlow13 add-group " + target() + " '" + kGroup + "'");
    if (g.status != 0) return void(setup_error_ = g.out);
    for (const std::string& f : kFlows) {
      CliRun r = run_flowlab("ofctl", "-O OpenFlow13 add-flow " + target() + " '" + f + "'");
      if (r.status != 0) return void(setup_error_ = f + ": " + r.out);
    }
    ready_ = true;
  }

  static void TearDownTestSuite() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int st = 0;
      for (int i = 0; i < 300 && ::waitpid(pid_, &st, WNOHANG) != pid_; ++i)
        std::this_thread::sleep_for(10ms);
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &st, 0);
    }
    for (int i = 1; i <= 3; ++i) sh("ip link del " + tag_ + "s" + std::to_string(i));
    if (!ns_.empty()) sh("ip netns del " + ns_);
  }

  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "veth ports and a namespace need root";
    ASSERT_TRUE(ready_) << "the switch did not start or refused the flows: " << setup_error_;
  }

  static std::string target() { return "tcp:127.0.0.1:" + std::to_string(port_); }

  static CliRun trace(const std::string& args) {
    return run_flowlab("ofctl", "trace " + target() + " " + args);
  }

  static std::set<uint32_t> json_ports(const std::string& out) {
    std::set<uint32_t> s;
    auto j = nlohmann::json::parse(out);
    for (const auto& o : j["outputs"]) s.insert(o["port_no"].get<uint32_t>());
    return s;
  }

  static inline std::string tag_, ns_;
  static inline uint16_t port_ = 0;
  static inline pid_t pid_ = -1;
  static inline bool ready_ = false;
  static inline std::string setup_error_;
};

TEST_F(TraceCli, FinalOutputsAreWhatTheFlowsSay) {
  for (const Case& c : kCases) {
    CliRun r = trace("'" + c.flow + "' --format json");
    ASSERT_EQ(r.status, 0) << c.flow << "\n" << r.out;
    EXPECT_EQ(json_ports(r.out), c.ports) << c.flow << "\n" << r.out;
  }
}

TEST_F(TraceCli, TextNamesTablesGroupsAndTheDrop) {
  CliRun r = trace("'" + kCases[0].flow + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("Table 0: priority=10,tcp,in_port=1,nw_dst=10.0.0.2,tp_dst=80, cookie=0x0"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("goto table 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("output 2 via table 1 apply-actions"), std::string::npos) << r.out;
  r = trace("'" + kCases[1].flow + "'");
  EXPECT_NE(r.out.find("group 1 (all): buckets 0,1 of 2"), std::string::npos) << r.out;
  r = trace("'" + kCases[2].flow + "'");
  EXPECT_NE(r.out.find("Final: drop: no flow matched in table 0 and it has no table-miss flow"),
            std::string::npos)
      << r.out;
  r = trace("'in_port=2,icmp' --format json");
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["outputs"].size(), 1u) << r.out;
  EXPECT_EQ(j["outputs"][0]["port"], "CONTROLLER");
  EXPECT_EQ(j["outputs"][0]["max_len"], 128);
  r = trace("'in_port=1,arp' --format json");  // FLOOD: every port but in_port
  EXPECT_EQ(json_ports(r.out), (std::set<uint32_t>{2, 3})) << r.out;
}

TEST_F(TraceCli, PacketHexAndReadOnly) {
  // An Ethernet + IPv4 + UDP frame to 10.0.0.3:53.
  const std::string hex =
      "000000000002000000000001080045000020000100004011000000000a0000010a000003c000003500"
      "0c00000000000000";
  CliRun r = trace("--packet " + hex + " --in-port 1 --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(json_ports(r.out), (std::set<uint32_t>{2, 3})) << r.out;
  CliRun d = run_flowlab("ofctl", "-O OpenFlow13 dump-flows " + target());
  ASSERT_EQ(d.status, 0) << d.out;
  EXPECT_EQ(d.out.find("n_packets=1"), std::string::npos) << d.out;  // traces counted nothing
  EXPECT_NE(d.out.find("n_packets=0"), std::string::npos) << d.out;
  CliRun g = run_flowlab("ofctl", "-O OpenFlow13 dump-group-stats " + target());
  EXPECT_EQ(g.out.find("packet_count=1"), std::string::npos) << g.out;
}

TEST_F(TraceCli, MalformedInputExits2) {
  CliRun r = trace("'in_port=1,tcp,nw_dst=10.0.0.300'");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("10.0.0.300"), std::string::npos) << r.out;
  r = trace("--packet 00112 --in-port 1");
  EXPECT_EQ(r.status, 2) << r.out;
  r = trace("--packet 0011 --in-port 1");  // shorter than an Ethernet header
  EXPECT_EQ(r.status, 2) << r.out;
  r = trace("'tcp,nw_dst=10.0.0.2'");  // no in_port
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("in_port"), std::string::npos) << r.out;
}

TEST_F(TraceCli, MalformedRequestGetsAnErrorAndTheSwitchLives) {
  using namespace flowlab;
  auto c = channel::SyncClient::connect(target(), {of::kOf13}, std::chrono::milliseconds(5000));
  ASSERT_TRUE(c.ok()) << c.error().message;
  of::ExperimenterMsg e = of::encode_trace_request({1, of::TraceFormat::kText, Bytes(60, 0)});
  for (size_t cut : {size_t(3), size_t(8 + 5)}) {
    of::ExperimenterMsg bad = e;
    bad.data.resize(cut);
    auto r = c->transact(of::Message{of::kOf13, 0, bad});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("OFPBRC_BAD"), std::string::npos) << r.error().message;
  }
  of::ExperimenterMsg port0 = e;
  port0.data[3] = 0;
  EXPECT_FALSE(c->transact(of::Message{of::kOf13, 0, port0}).ok());
  auto ok = c->transact(of::Message{of::kOf13, 0, e});  // a good one still works
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  CliRun r = trace("'" + kCases[0].flow + "' --format json");
  EXPECT_EQ(r.status, 0) << r.out;
}

// ---- the same flows on Open vSwitch --------------------------------------------

// "Datapath actions: set(ipv4(dst=10.0.0.9)),3" -> the top-level actions that are port numbers.
std::set<uint32_t> dp_ports(const std::string& trace_out) {
  std::set<uint32_t> out;
  const size_t at = trace_out.rfind("Datapath actions: ");
  if (at == std::string::npos) return {0xffffffff};
  std::string line = trace_out.substr(at + 18, trace_out.find('\n', at) - at - 18);
  int depth = 0;
  std::string tok;
  line += ',';
  for (char ch : line) {
    if (ch == '(') ++depth;
    if (ch == ')') --depth;
    if (ch == ',' && depth == 0) {
      if (!tok.empty() && tok.find_first_not_of("0123456789") == std::string::npos)
        out.insert(uint32_t(std::stoul(tok)));
      tok.clear();
    } else {
      tok += ch;
    }
  }
  return out;
}

TEST_F(TraceCli, SameFinalPortsAsOvsOfprotoTrace) {
  if (sh("command -v ovs-vswitchd") != 0) GTEST_SKIP() << "Open vSwitch is not installed";
  const fs::path dir = fs::temp_directory_path() / ("flowlab-trace-ovs-" + tag_);
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string d = dir.string(), br = tag_ + "b";
  const std::string env = "OVS_RUNDIR=" + d + " OVS_LOGDIR=" + d + " OVS_DBDIR=" + d + " ";
  const std::string db = " --db=unix:" + d + "/db.sock ";
  struct Cleanup {
    std::string env, db, br, d, tag;
    ~Cleanup() {
      sh(env + "ovs-vsctl --timeout=5" + db + "del-br " + br);
      for (const char* p : {"ovs-vswitchd.pid", "ovsdb-server.pid"}) {
        std::ifstream f(d + "/" + p);
        int pid = 0;
        if (f >> pid && pid > 0) ::kill(pid, SIGTERM);
      }
      std::this_thread::sleep_for(300ms);
      for (int i = 1; i <= 3; ++i) sh("ip link del " + tag + "o" + std::to_string(i));
      std::error_code ec;
      fs::remove_all(d, ec);
    }
  } cleanup{env, db, br, d, tag_};
  for (const std::string& cmd : {
           "ovsdb-tool create " + d + "/conf.db /usr/share/openvswitch/vswitch.ovsschema",
           "ovsdb-server " + d + "/conf.db --remote=punix:" + d + "/db.sock --pidfile=" + d +
               "/ovsdb-server.pid --detach --log-file=" + d + "/ovsdb-server.log",
           "ovs-vsctl" + db + "--no-wait init",
           // In the test's namespace: the netdev datapath's device (ovs-netdev) and the ports are its own.
           "ip netns exec " + ns_ + " ovs-vswitchd unix:" + d + "/db.sock --pidfile=" + d +
               "/ovs-vswitchd.pid --detach --log-file=" + d + "/ovs-vswitchd.log",
           "ovs-vsctl" + db + "add-br " + br + " -- set bridge " + br +
               " datapath_type=netdev protocols=OpenFlow13 -- set-fail-mode " + br + " secure",
       })
    ASSERT_EQ(sh(env + cmd), 0) << cmd;
  for (int i = 1; i <= 3; ++i) {
    const std::string o = tag_ + "o" + std::to_string(i), p = tag_ + "q" + std::to_string(i);
    ASSERT_EQ(sh("ip link add " + o + " type veth peer name " + p + " && ip link set " + p + " netns " + ns_ +
                 " && ip -n " + ns_ + " link set " + p + " up"),
              0);
    ASSERT_EQ(sh(env + "ovs-vsctl" + db + "add-port " + br + " " + p + " -- set interface " + p +
                 " ofport_request=" + std::to_string(i)),
              0);
  }
  const std::string ofctl = env + "ovs-ofctl -O OpenFlow13 ";
  ASSERT_EQ(sh(ofctl + "add-group " + br + " '" + kGroup + "'"), 0);
  for (const std::string& f : kFlows) ASSERT_EQ(sh(ofctl + "add-flow " + br + " '" + f + "'"), 0) << f;
  // dp port -> OpenFlow port ("    ftr1q1 1/2: (system)").
  std::map<uint32_t, uint32_t> of_port;
  const std::string show = sh_out(env + "ovs-appctl dpif/show");
  std::regex re(R"((\S+) (\d+)/(\d+):)");
  for (std::sregex_iterator it(show.begin(), show.end(), re), end; it != end; ++it)
    of_port[uint32_t(std::stoul((*it)[3]))] = uint32_t(std::stoul((*it)[2]));
  for (const Case& c : kCases) {
    const std::string ovs = sh_out(env + "ovs-appctl ofproto/trace " + br + " '" + c.flow + "'");
    std::set<uint32_t> ovs_ports;
    for (uint32_t p : dp_ports(ovs)) ovs_ports.insert(of_port.count(p) ? of_port[p] : 0xfffffffe);
    CliRun r = trace("'" + c.flow + "' --format json");
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(json_ports(r.out), ovs_ports) << c.flow << "\nOVS:\n" << ovs << "\nflowlab:\n" << r.out;
  }
}

// OpenFlow 1.5 egress tables on the same switch (last in the suite; it puts
// the switch back): the group's two outputs each run egress table 2, which
// drops what leaves by port 2; the text nests the egress table under each
// output with its verdict, and the frame sent for real reaches only port 3.
TEST_F(TraceCli, EgressTablesPerOutputWithTheirVerdict) {
  const std::string o15 = "-O OpenFlow15 ";
  struct Restore {
    ~Restore() {
      run_flowlab("ofctl", "-O OpenFlow15 del-flows " + target() + " table=2");
      run_flowlab("ofctl", "-O OpenFlow15 set-first-egress-table " + target() + " none");
    }
  } restore;
  CliRun r = run_flowlab("ofctl", o15 + "set-first-egress-table " + target() + " 2");
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* f : {"table=2,priority=20,cookie=0x20,actset_output=2,actions=clear_actions",
                        "table=2,priority=0,actions=drop"}) {
    r = run_flowlab("ofctl", o15 + "add-flow " + target() + " '" + f + "'");
    ASSERT_EQ(r.status, 0) << f << ": " << r.out;
  }
  r = trace("'" + kCases[1].flow + "'");  // group 1 (all): output 2 and output 3
  ASSERT_EQ(r.status, 0) << r.out;
  // The ingress part reads as it does without egress tables.
  EXPECT_NE(r.out.find("    group 1 (all): buckets 0,1 of 2\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nFinal:\n    output 2 via group 1 bucket 0\n"
                       "        egress tables, actset_output=2:\n"
                       "        Table 2: priority=20,actset_output=2, cookie=0x20\n"
                       "            instructions: clear_actions\n"
                       "        -> dropped: the egress action set has no output:2\n"
                       "    output 3 via group 1 bucket 1\n"
                       "        egress tables, actset_output=3:\n"
                       "        Table 2: priority=0, cookie=0x0\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("            action set: output:3\n        -> delivered\n"), std::string::npos)
      << r.out;
  r = trace("'" + kCases[1].flow + "' --format json");
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["outputs"].size(), 2u) << r.out;
  EXPECT_EQ(j["outputs"][0]["egress"]["verdict"], "dropped") << r.out;
  EXPECT_EQ(j["outputs"][1]["egress"]["verdict"], "delivered") << r.out;
  EXPECT_EQ(j["outputs"][1]["egress"]["tables"][0]["table"], 2) << r.out;
}

}  // namespace
