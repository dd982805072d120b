// Mininet's CLI with its commands on stdin (not a terminal): every command the
// terminal test does not drive, their errors, and exit ending the input.
#include "mininet_cli_fixture.h"

namespace flowlab::lab {
namespace {

class MininetCliPipe : public MininetCliTest {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  CommandResult cli(const std::string& input_file, double timeout_s = 120) {
    return run_command({"sh", "-c", fmt::format("'{}' lab cli {} < '{}'", FLOWLAB_BINARY, id_, input_file)},
                       opts(timeout_s));
  }
  static bool has(const std::string& out, const std::string& s) { return out.find(s) != std::string::npos; }
};

TEST_F(MininetCliPipe, EveryCommandFromStdin) {
  ASSERT_FALSE(up({"--topo", "linear,2"}).empty());
  std::string sourced =
      write("more.cli", "# a comment\n\nh2 echo from-h2-to h1\nh1 ip -o -4 addr show dev eth0\n");
  std::string in = write("in.cli", fmt::format(R"(help
help link
intfs
ports
links
pingpair
pingallfull
iperf h1 h2
iperfudp 10M h1 h2
sh echo shell-says-$((6*7))
time nodes
source {}
dpctl show
pingall 2
exit
nodes
)",
                                               sourced));
  auto r = cli(in);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string& o = r.out;
  EXPECT_TRUE(has(o, "Documented commands")) << o;
  EXPECT_TRUE(has(o, "link NODE1 NODE2 up|down")) << o;
  EXPECT_TRUE(has(o, "h1: h1-eth0\nh2: h2-eth0\ns1: lo,s1-eth1,s1-eth2\ns2: lo,s2-eth1,s2-eth2\n")) << o;
  EXPECT_TRUE(has(o, "s1 lo:0 s1-eth1:1 s1-eth2:2\ns2 lo:0 s2-eth1:1 s2-eth2:2\n")) << o;
  EXPECT_TRUE(has(o, "h1-eth0<->s1-eth1 (OK OK)")) << o;
  EXPECT_TRUE(has(o, "s2-eth2<->s1-eth2 (OK OK)")) << o;  // linear adds (s2, s1), as Mininet's does
  EXPECT_TRUE(has(o, "h1 -> h2 \nh2 -> h1 \n*** Results: 0% dropped (2/2 received)")) << o;
  EXPECT_TRUE(has(o, "*** Results: \n h1->h2: 1/1, rtt min/avg/max/mdev ")) << o;
  EXPECT_TRUE(has(o, " h2->h1: 1/1, rtt")) << o;
  EXPECT_TRUE(has(o, "*** Iperf: testing TCP bandwidth between h1 and h2")) << o;
  EXPECT_TRUE(has(o, "*** Iperf: testing UDP bandwidth between h1 and h2")) << o;
  EXPECT_TRUE(has(o, "*** Results: ['10M', '")) << o;
  EXPECT_TRUE(has(o, "bits/sec', '")) << o;
  EXPECT_TRUE(has(o, "shell-says-42")) << o;
  EXPECT_TRUE(has(o, "*** Elapsed time: ")) << o;
  EXPECT_TRUE(has(o, "from-h2-to 10.0.0.1")) << o;
  EXPECT_TRUE(has(o, "inet 10.0.0.1/")) << o;
  EXPECT_TRUE(has(o, "*** s1 ---")) << o;
  EXPECT_TRUE(has(o, "OFPT_FEATURES_REPLY")) << o;
  EXPECT_TRUE(has(o, "*** Results: 0% dropped (2/2 received)\n")) << o;
  // exit ends the input: the nodes after it do not run (only `time nodes` did).
  EXPECT_EQ(TmuxTerminal::count(o, "available nodes are:"), 1u) << o;
}

TEST_F(MininetCliPipe, BadInputGetsMininetsMessages) {
  ASSERT_FALSE(up({"--topo", "linear,2", "--switch", "linux-bridge", "--controller", "none"}).empty());
  std::string in = write("bad.cli", R"(h9 ping h1
h1
link s1 s9 down
link s1 s2 sideways
link s1
switch s9 stop
switch s1 stop
switch s1 pause
dpctl
dpctl dump-flows
pingall abc
iperf h1
iperfudp
source /nonexistent/file.cli
py net
xterm h1
help nothing
h1 ping -c1 -W1 h2
)");
  auto r = cli(in);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;  // EOF ends it
  const std::string& o = r.out;
  EXPECT_TRUE(has(o, "*** Unknown command: h9 ping h1")) << o;
  EXPECT_TRUE(has(o, "*** Enter a command for node: h1")) << o;
  EXPECT_TRUE(has(o, "*** Error: s9 not in network")) << o;
  EXPECT_TRUE(has(o, "*** invalid type: link end1 end2 [up down]")) << o;
  EXPECT_TRUE(has(o, "*** invalid number of args: link end1 end2 [up down]")) << o;
  EXPECT_TRUE(has(o, "*** invalid switch: s9")) << o;
  EXPECT_TRUE(has(o, "*** Error: s1 is a Linux bridge: there is no process to stop or start")) << o;
  EXPECT_TRUE(has(o, "*** invalid command: switch <switch name> {start, stop}")) << o;
  EXPECT_TRUE(has(o, "*** usage: dpctl command [arg1] [arg2] ...")) << o;
  EXPECT_TRUE(has(o, "s1 is a Linux bridge: it has no OpenFlow tables")) << o;
  EXPECT_TRUE(has(o, "*** usage: pingall [timeout in seconds]: 'abc' is not a number")) << o;
  EXPECT_TRUE(has(o, "*** invalid number of args: iperf src dst")) << o;
  EXPECT_TRUE(has(o, "*** invalid number of args: iperfudp bw src dst")) << o;
  EXPECT_TRUE(has(o, "*** Error: could not open file /nonexistent/file.cli")) << o;
  EXPECT_TRUE(has(o, "*** py is not available in flowlab's CLI")) << o;
  EXPECT_TRUE(has(o, "*** xterm is not available in flowlab's CLI")) << o;
  EXPECT_TRUE(has(o, "*** No help on nothing")) << o;
  // After all that the lab still works.
  EXPECT_TRUE(has(o, "1 packets transmitted, 1 received")) << o;
}

// pingall counts each pair's first echo, all sent at once from raw sockets (20 hosts:
// they announce themselves first, and the sysctls that takes are put back); a host
// cut off is X both ways. `lab ping-pairs` (the Python API's pingAll) takes the
// addresses it is given and answers in JSON.
TEST_F(MininetCliPipe, PingallCountsFirstEchoesAndPingPairsAnswersTheApi) {
  ASSERT_FALSE(up({"--topo", "single,20", "--switch", "linux-bridge", "--controller", "none"}).empty());
  auto r = cli(write("ping.cli", "pingall\nlink s1 h20 down\npingall 1\n"));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string& o = r.out;
  EXPECT_TRUE(has(o,
                  "*** Ping: testing ping reachability\nh1 -> h2 h3 h4 h5 h6 h7 h8 h9 h10 h11 h12 h13 h14 "
                  "h15 h16 h17 h18 h19 h20 \n"))
      << o;
  EXPECT_TRUE(has(o, "*** Results: 0% dropped (380/380 received)\n")) << o;
  EXPECT_TRUE(has(o, "h1 -> h2 h3 h4 h5 h6 h7 h8 h9 h10 h11 h12 h13 h14 h15 h16 h17 h18 h19 X \n")) << o;
  EXPECT_TRUE(has(o, "h20 -> X X X X X X X X X X X X X X X X X X X \n")) << o;
  EXPECT_TRUE(has(o, "*** Results: 10% dropped (342/380 received)\n")) << o;

  auto p = run_command(
      {FLOWLAB_BINARY, "lab", "ping-pairs", id_, "h1", "h2", "h3=10.0.0.99", "--timeout", "1"}, opts(30));
  ASSERT_EQ(p.exit_code, 0) << p.err;
  auto j = nlohmann::json::parse(p.out);
  EXPECT_EQ(j["sent"], 6);
  EXPECT_EQ(j["received"], 4) << p.out;  // nobody has 10.0.0.99: h1 and h2 get nothing from "h3"
  ASSERT_EQ(j["pairs"].size(), 6u) << p.out;
  EXPECT_EQ(j["pairs"][0][0], "h1");
  EXPECT_EQ(j["pairs"][0][1], "h2");
  for (const auto& pair : j["pairs"]) {
    bool to_h3 = pair[1] == "h3";
    EXPECT_EQ(pair[2], to_h3 ? 0 : 1) << pair.dump();
    if (!to_h3) {
      EXPECT_GT(pair[3].get<double>(), 0) << pair.dump();
    }
  }
  // Mininet's order (the Python API's): one source after the other, the same answers.
  p = run_command(
      {FLOWLAB_BINARY, "lab", "ping-pairs", "--by-source", id_, "h1", "h2", "h3=10.0.0.99", "--timeout", "1"},
      opts(30));
  ASSERT_EQ(p.exit_code, 0) << p.err;
  j = nlohmann::json::parse(p.out);
  EXPECT_EQ(j["sent"], 6);
  EXPECT_EQ(j["received"], 4) << p.out;
  ASSERT_EQ(j["pairs"].size(), 6u) << p.out;
  for (const auto& pair : j["pairs"]) EXPECT_EQ(pair[2], pair[1] == "h3" ? 0 : 1) << pair.dump();

  p = run_command({FLOWLAB_BINARY, "lab", "ping-pairs", id_, "h1", "h2", "--to", "10.0.0.5"}, opts(30));
  ASSERT_EQ(p.exit_code, 0) << p.err;
  j = nlohmann::json::parse(p.out);
  ASSERT_EQ(j["pairs"].size(), 2u) << p.out;
  for (const auto& pair : j["pairs"]) {
    EXPECT_EQ(pair[1], "10.0.0.5") << p.out;
    EXPECT_EQ(pair[2], 1) << p.out;
  }

  p = run_command({FLOWLAB_BINARY, "lab", "ping-pairs", id_, "h1", "hx"}, opts(30));
  EXPECT_EQ(p.exit_code, 1);
  EXPECT_TRUE(has(p.err, "hx is not a host of lab " + id_)) << p.err;

  // The announcements' sysctls are the kernel's defaults again.
  p = run_command({FLOWLAB_BINARY, "lab", "exec", id_, "h1", "sysctl", "-n", "net.ipv4.conf.all.arp_accept"},
                  opts(30));
  EXPECT_EQ(p.out, "0\n") << p.err;
}

TEST_F(MininetCliPipe, NoSuchLab) {
  auto r =
      run_command({"sh", "-c", fmt::format("echo nodes | '{}' lab cli nolab", FLOWLAB_BINARY)}, opts(10));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no lab 'nolab' is up"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace flowlab::lab
