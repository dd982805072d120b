// mn's options on real labs, as root: --mac/--arp/--ipbase read back from the hosts'
// namespaces; --switch ...,protocols=OpenFlow10 seen negotiated in the switch's and
// the controller's logs (flowlab's switch and Open vSwitch); --test pingallfull's
// per-pair RTT lines, iperfudp's UDP rate, --link tc on a generated topology (rate,
// delay and loss measured), build's bring-up and teardown.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lab/host/process.h"
#include "lab_dir_test.h"

namespace flowlab::lab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class LabMininetOptions : public LabDirTest {
 protected:
  LabMininetOptions() : LabDirTest("mn-opts", {"ip", "ping"}, 60) {}

  // "lab ID is up (...)" -> ID
  static std::string lab_id(const std::string& up_out) { return up_out.substr(4, up_out.find(' ', 4) - 4); }
  CommandResult exec(const std::string& id, std::vector<std::string> cmd) {
    std::vector<std::string> argv = {FLOWLAB_BINARY, "lab", "exec", id};
    argv.insert(argv.end(), cmd.begin(), cmd.end());
    return run_command(argv, opts(30));
  }
};

TEST_F(LabMininetOptions, MacArpIpbaseAsTheHostsSeeThem) {
  auto up = run_command({FLOWLAB_BINARY, "lab", "up", "--topo", "single,3", "--switch", "lxbr", "--mac",
                         "--arp", "--ipbase", "10.1.0.0/16", "--out", out()},
                        opts(90));
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  std::string id = lab_id(up.out);
  for (int h = 1; h <= 3; ++h) {
    std::string host = "h" + std::to_string(h);
    auto addr = exec(id, {host, "ip", "-o", "-4", "addr", "show", "dev", "eth0"});
    EXPECT_NE(addr.out.find(fmt::format("inet 10.1.0.{}/16", h)), std::string::npos) << addr.out << addr.err;
    auto mac = exec(id, {host, "cat", "/sys/class/net/eth0/address"});
    EXPECT_EQ(mac.out, fmt::format("00:00:00:00:00:0{}\n", h)) << mac.err;
    auto neigh = exec(id, {host, "ip", "neigh", "show", "dev", "eth0"});
    for (int o = 1; o <= 3; ++o) {
      if (o == h) continue;
      EXPECT_NE(neigh.out.find(fmt::format("10.1.0.{} lladdr 00:00:00:00:00:0{} PERMANENT", o, o)),
                std::string::npos)
          << host << ":\n"
          << neigh.out << neigh.err;
    }
  }
  // Static entries: the first echo goes without an ARP request on the wire.
  auto ping = exec(id, {"h1", "ping", "-c1", "-W5", "h3"});
  EXPECT_NE(ping.out.find("1 received"), std::string::npos) << ping.out << ping.err;
  auto down = run_command({FLOWLAB_BINARY, "lab", "down", id}, opts(60));
  EXPECT_EQ(down.exit_code, 0) << down.out << down.err;
  EXPECT_TRUE(fs::is_empty(dir_ / "state"));
}

TEST_F(LabMininetOptions, ProtocolsOpenFlow10NegotiatedByFlowlabAndOvs) {
  // flowlab's switch and controller both prefer 1.3: 1.0 is there only because the
  // switch offers nothing else.
  auto r = run_command(
      {FLOWLAB_BINARY, "lab", "run", "--topo", "single,2", "--switch", "flowlab,protocols=OpenFlow10",
       "--controller", "flowlab:learning-switch", "--test", "pingall", "--out", out()},
      opts(180));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // The case's flowlab switches log to their switch host's log (FLOWLAB_SWITCH_HOST=0: each its own).
  std::string sw = slurp(out() + "/default/switch-host.log") + slurp(out() + "/default/s1-switch.log");
  EXPECT_NE(sw.find("s1: controller tcp:127.0.0.1:6653 connected (OpenFlow 1.0)"), std::string::npos) << sw;
  std::string ctl = slurp(out() + "/default/c0-controller.log");
  EXPECT_NE(ctl.find("switch up: dpid 0000000000000001 OpenFlow 1.0"), std::string::npos) << ctl;
  if (!have_program("ovs-vswitchd")) GTEST_SKIP() << "needs openvswitch-switch for the ovs half";
  fs::remove_all(out());
  r = run_command({FLOWLAB_BINARY, "lab", "run", "--topo", "single,2", "--switch", "ovs,protocols=OpenFlow10",
                   "--controller", "flowlab:learning-switch", "--test", "pingall", "--out", out()},
                  opts(180));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  ctl = slurp(out() + "/default/c0-controller.log");
  EXPECT_NE(ctl.find(" OpenFlow 1.0 from "), std::string::npos) << ctl;
  EXPECT_EQ(ctl.find(" OpenFlow 1.3 from "), std::string::npos) << ctl;
  EXPECT_TRUE(fs::is_empty(dir_ / "state"));
}

TEST_F(LabMininetOptions, PingallfullPrintsEveryPairsRtts) {
  auto r = run_command({FLOWLAB_BINARY, "lab", "run", "--topo", "linear,3", "--switch", "lxbr", "--test",
                        "pingallfull", "--out", out()},
                       opts(180));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const char* pair : {"h1->h2", "h1->h3", "h2->h1", "h2->h3", "h3->h1", "h3->h2"})
    EXPECT_NE(r.out.find(fmt::format(" {}: 1/1, rtt min/avg/max/mdev ", pair)), std::string::npos)
        << pair << "\n"
        << r.out;
  json j = results();
  ASSERT_TRUE(j.is_object());
  const json& p = j["results"][0];
  EXPECT_EQ(p["test"], "pingallfull");
  ASSERT_EQ(p["pairs"].size(), 6u);
  for (const auto& pr : p["pairs"]) {
    EXPECT_EQ(pr["received"], 1) << pr.dump();
    EXPECT_GT(pr["rtt_min_ms"].get<double>(), 0.0) << pr.dump();
    EXPECT_LE(pr["rtt_min_ms"].get<double>(), pr["rtt_max_ms"].get<double>()) << pr.dump();
  }
}

TEST_F(LabMininetOptions, IperfudpMeasuresUdpAtItsRate) {
  if (!have_program("iperf3")) GTEST_SKIP() << "needs iperf3";
  auto r = run_command({FLOWLAB_BINARY, "lab", "run", "--topo", "linear,2", "--switch", "lxbr", "--test",
                        "iperfudp,20M", "--out", out()},
                       opts(180));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = results();
  ASSERT_TRUE(j.is_object());
  const json& u = j["results"][0];
  EXPECT_EQ(u["type"], "iperf3-udp");
  EXPECT_EQ(u["from"], "h1");
  EXPECT_EQ(u["to"], "h2");
  double gbps = u["metrics"].value("gbps", 0.0);
  // iperf3 -b 20M paces the sender: the receiver sees about that, not the link's Gbit/s.
  EXPECT_GT(gbps, 0.016) << u.dump();
  EXPECT_LT(gbps, 0.024) << u.dump();
  EXPECT_LT(u["metrics"].value("loss_pct", 100.0), 5.0) << u.dump();
}

TEST_F(LabMininetOptions, LinkTcShapesEveryGeneratedLink) {
  if (!have_program("iperf3")) GTEST_SKIP() << "needs iperf3";
  // h1-s1, s1-s2, s2-h2 each 10 Mbit/s and 5 ms each way: an echo crosses six delays.
  // A queue of 100 packets (120 ms at 10 Mbit/s): with the default 1,000 a 5 s TCP
  // stream spends its start filling 1.2 s of queue (6.6 Mbit/s measured once so).
  auto r = run_command({FLOWLAB_BINARY, "lab", "run", "--topo", "linear,2", "--switch", "lxbr", "--link",
                        "tc,bw=10,delay=5ms,max_queue_size=100", "--test", "pingpair+iperf", "--out", out()},
                       opts(180));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = results();
  ASSERT_TRUE(j.is_object());
  ASSERT_EQ(j["results"].size(), 2u) << j.dump();
  const json& ping = j["results"][0];
  EXPECT_EQ(ping["type"], "ping");
  EXPECT_GE(ping["metrics"].value("rtt_min_ms", 0.0), 29.5) << ping.dump();
  EXPECT_LT(ping["metrics"].value("rtt_min_ms", 0.0), 45.0) << ping.dump();
  const json& tcp = j["results"][1];
  EXPECT_EQ(tcp["type"], "iperf3-tcp");
  double gbps = tcp["metrics"].value("gbps", 0.0);
  EXPECT_GT(gbps, 0.007) << tcp.dump();
  EXPECT_LT(gbps, 0.0105) << tcp.dump();
  // loss=5 on each of the three links: a datagram from h1 reaches h2 with 0.95^3 = 86 %
  // (more loss starves iperf3's own TCP control connection past its timeout).
  fs::remove_all(out());
  r = run_command({FLOWLAB_BINARY, "lab", "run", "--topo", "linear,2", "--switch", "lxbr", "--link",
                   "tc,loss=5", "--test", "iperfudp,5M", "--out", out()},
                  opts(180));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  j = results();
  ASSERT_TRUE(j.is_object());
  const json& u = j["results"][0];
  EXPECT_EQ(u["type"], "iperf3-udp");
  double loss = u["metrics"].value("loss_pct", -1.0);
  EXPECT_GT(loss, 9.0) << u.dump();
  EXPECT_LT(loss, 20.0) << u.dump();
  // A bad --link is refused before anything is made.
  fs::remove_all(out());
  r = run_command(
      {FLOWLAB_BINARY, "lab", "run", "--topo", "linear,2", "--link", "tc,bw=fast", "--out", out()}, opts(30));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bw=\"fast\": expected a number of Mbit/s above 0"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out()));
  EXPECT_TRUE(fs::is_empty(dir_ / "state"));
}

TEST_F(LabMininetOptions, BuildBringsTheNetworkUpAndDown) {
  auto r = run_command({FLOWLAB_BINARY, "lab", "run", "--topo", "tree,2,2", "--switch", "flowlab", "--test",
                        "build", "--out", out()},
                       opts(180));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = results();
  ASSERT_TRUE(j.is_object());
  EXPECT_TRUE(j["results"].empty());
  const json& c = j["cases"][0];
  EXPECT_EQ(c["status"], "ok") << c.dump();
  // every switch came up connected, then everything went
  EXPECT_TRUE(c["phases"]["up"].contains("switches_s")) << c.dump();
  EXPECT_TRUE(c["phases"]["down"].contains("namespaces_s")) << c.dump();
  EXPECT_TRUE(fs::is_empty(dir_ / "state"));
}

TEST_F(LabMininetOptions, OvskIsRefusedWithWhatRunsHere) {
  auto r = run_command(
      {FLOWLAB_BINARY, "lab", "run", "--topo", "single,2", "--switch", "ovsk", "--out", out()}, opts(30));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--switch ovsk: ovsk is Open vSwitch with its kernel datapath"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("use --switch ovs"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out()));
}

}  // namespace
}  // namespace flowlab::lab
