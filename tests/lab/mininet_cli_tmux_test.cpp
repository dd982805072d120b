// Mininet's CLI in a real terminal (tmux): the prompt, pingall, `h1 ping h2` by name,
// link down (pingall fails, the controller hears port-status) and up, nodes / net /
// dump, dpctl dump-flows, history (Up arrow), Tab completion, and Ctrl-D that ends
// `lab run --cli` with nothing left behind; then every other command, and exit.
#include "mininet_cli_fixture.h"

namespace flowlab::lab {
namespace {

namespace fs = std::filesystem;

class MininetCliTmux : public MininetCliTest {};

TEST_F(MininetCliTmux, PromptCommandsLinkDownUpHistoryAndCompletion) {
  std::string id = up({"--topo", "linear,3"});
  ASSERT_FALSE(id.empty());
  TmuxTerminal t(fmt::format("flowlab-mncli-{}", getpid()));
  ASSERT_TRUE(t.start(
      fmt::format("{} '{}' lab cli {}; echo CLI-EXITED rc=$?; sleep 60", env_prefix(), FLOWLAB_BINARY, id)));
  t.wait_for("mininet>");
  wait_controller_has(3);

  t.type("pingall");
  std::string s = t.wait_for("*** Results:");
  EXPECT_NE(s.find("h1 -> h2 h3"), std::string::npos) << s;
  EXPECT_NE(s.find("h3 -> h1 h2"), std::string::npos) << s;
  EXPECT_NE(s.find("*** Results: 0% dropped (6/6 received)"), std::string::npos) << s;

  t.type("h1 ping -c1 h2");
  s = t.wait_for("packets transmitted");
  EXPECT_NE(s.find("PING 10.0.0.2"), std::string::npos) << s;
  EXPECT_NE(s.find("1 packets transmitted, 1 received"), std::string::npos) << s;

  t.type("nodes");
  s = t.wait_for("available nodes are:");
  EXPECT_NE(s.find("h1 h2 h3 s1 s2 s3"), std::string::npos) << s;
  t.type("net");
  s = t.wait_for("s3 lo:");
  EXPECT_NE(s.find("h1 h1-eth0:s1-eth1"), std::string::npos) << s;
  EXPECT_NE(s.find("s2 lo:  s2-eth1:h2-eth0"), std::string::npos) << s;
  t.type("dump");
  s = t.wait_for("<FlowlabSwitch s3:");
  EXPECT_NE(s.find("<Host h1: h1-eth0:10.0.0.1 netns="), std::string::npos) << s;
  EXPECT_NE(s.find("<Controller "), std::string::npos) << s;

  // The learning switch installed flows during pingall: every switch shows some.
  t.type("dpctl dump-flows");
  s = t.wait_for("*** s3 ---");
  for (const char* sw : {"*** s1 ---", "*** s2 ---"}) EXPECT_NE(s.find(sw), std::string::npos) << s;
  EXPECT_NE(s.find("actions="), std::string::npos) << s;

  // Link down: both ends lose carrier, the switches tell the controller, pingall fails.
  long before = port_status_seen();
  t.type("link s1 s2 down");
  long after = wait_port_status_above(std::max(before, 0L));
  EXPECT_GE(after, std::max(before, 0L) + 2) << "port-status for both ends of s1-s2";
  t.type("links");
  s = t.wait_for("(DOWN DOWN)");
  EXPECT_NE(s.find("s2-eth2<->s1-eth2 (DOWN DOWN)"), std::string::npos) << s;
  t.type("pingall");
  s = t.wait_for("*** Results:", 2, 120);
  EXPECT_NE(s.find("h1 -> X X"), std::string::npos) << s;
  EXPECT_NE(s.find("*** Results: 67% dropped (2/6 received)"), std::string::npos) << s;

  t.type("link s1 s2 up");
  EXPECT_GE(wait_port_status_above(after), after + 2) << "port-status for the link coming back";
  t.type("pingall");
  s = t.wait_for("*** Results:", 3, 120);
  EXPECT_EQ(TmuxTerminal::count(s, "*** Results: 0% dropped (6/6 received)"), 2u) << s;

  // History: Up brings back the last line (pingall), Enter runs it again.
  t.key("Up");
  t.key("Enter");
  s = t.wait_for("*** Results:", 4, 120);
  EXPECT_EQ(TmuxTerminal::count(s, "*** Results: 0% dropped (6/6 received)"), 3u) << s;

  // Completion: a command ("nod" -> nodes), then host names (listed, then one typed).
  t.type("nod", false);
  t.key("Tab");
  t.key("Enter");
  s = t.wait_for("available nodes are:", 2);
  EXPECT_NE(s.find("mininet> nodes"), std::string::npos) << s;
  t.type("h1 ping -c1 h", false);
  t.key("Tab");
  s = t.wait_for("h1  h2  h3");
  t.type("3");
  s = t.wait_for("packets transmitted", 2);
  EXPECT_NE(s.find("PING 10.0.0.3"), std::string::npos) << s;
  t.type("swi", false);
  t.key("Tab");
  t.type("s", false);
  t.key("Tab");
  t.key("Tab");
  s = t.wait_for("s1  s2  s3");
  t.type("2 stop");
  t.type("h1 ping -c1 -W1 h3");
  s = t.wait_for("packets transmitted", 3);
  EXPECT_NE(s.find("1 packets transmitted, 0 received"), std::string::npos) << s;
  t.type("switch s2 start");
  // `switch start` returns once s2's TCP connection to the controller stands; its one
  // echo below needs the handshake done too (the table-miss flow installed): wait
  // until the controller's stats, written after the disconnect, count s2 back.
  auto back = [&] {
    auto j = controller_stats();
    if (!j.is_object() || j.value("switches_connected", 0L) < 3) return false;
    auto h = j.value("handling_time", nlohmann::json::object());
    return h.contains("switch_disconnected") && h["switch_disconnected"].value("count", 0L) >= 1;
  };
  for (int i = 0; i < 150 && !back(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_TRUE(back()) << controller_stats().dump();
  t.type("h1 ping -c1 h3");
  s = t.wait_for("packets transmitted", 4, 90);
  EXPECT_EQ(TmuxTerminal::count(s, "1 packets transmitted, 1 received"), 3u) << s;

  t.type("frobnicate now");
  s = t.wait_for("*** Unknown command: frobnicate now");

  // Only the stop above took a switch off its controller (a flapping connection
  // empties the learning switch's tables and would explain a failed pingall).
  auto stats = controller_stats();
  auto handled =
      stats.is_object() ? stats.value("handling_time", nlohmann::json::object()) : nlohmann::json();
  long lost = handled.contains("switch_disconnected") ? handled["switch_disconnected"].value("count", 0L) : 0;
  EXPECT_EQ(lost, 1) << stats.dump();

  // Ctrl-D leaves the CLI; `lab cli` keeps the lab up.
  t.key("C-d");
  s = t.wait_for("CLI-EXITED rc=0");
  auto st = run_command({FLOWLAB_BINARY, "lab", "status"}, opts(10));
  EXPECT_NE(st.out.find(id), std::string::npos) << st.out;
  EXPECT_TRUE(fs::exists(dir_ / ".flowlab_mininet_history"));
}

TEST_F(MininetCliTmux, RunWithCliTakesTheLabDownAtCtrlD) {
  TmuxTerminal t(fmt::format("flowlab-mncli-run-{}", getpid()));
  ASSERT_TRUE(
      t.start(fmt::format("{} '{}' lab run --topo tree,2,2 --switch ovs --out '{}' --cli; echo "
                          "CLI-EXITED rc=$?; sleep 60",
                          env_prefix(), FLOWLAB_BINARY, out())));
  std::string s = t.wait_for("mininet>", 1, 120);
  auto pos = s.find("lab ");
  ASSERT_NE(pos, std::string::npos) << s;
  std::string id = s.substr(pos + 4, s.find(' ', pos + 4) - pos - 4);
  wait_controller_has(3);  // tree,2,2: s1, s2, s3
  t.type("pingall");
  s = t.wait_for("*** Results:");
  EXPECT_NE(s.find("*** Results: 0% dropped (12/12 received)"), std::string::npos) << s;
  t.type("dpctl dump-flows");  // through ovs-ofctl on OVS switches
  s = t.wait_for("*** s3 ---");
  EXPECT_NE(s.find("actions=", s.find("*** s3 ---")), std::string::npos) << s;
  t.key("C-d");
  s = t.wait_for("CLI-EXITED rc=0", 1, 120);
  EXPECT_NE(s.find("*** Stopping lab " + id), std::string::npos) << s;
  auto st = run_command({FLOWLAB_BINARY, "lab", "status"}, opts(10));
  EXPECT_NE(st.out.find("no lab is up"), std::string::npos) << st.out;
  auto ns = run_command({"ip", "netns", "list"}, with_timeout(10));
  EXPECT_EQ(ns.out.find("fl" + id), std::string::npos) << ns.out;
  auto procs = run_command({"pgrep", "-f", "fl" + id}, with_timeout(10));
  EXPECT_TRUE(procs.out.empty()) << procs.out;
}

// The commands the test above does not type, in a terminal too: help, intfs, ports,
// pingpair, pingallfull, iperf, iperfudp, sh, time, source, and exit.
TEST_F(MininetCliTmux, TheOtherCommandsAndExit) {
  std::string id = up({"--topo", "linear,2", "--switch", "linux-bridge", "--controller", "none"});
  ASSERT_FALSE(id.empty());
  std::string sourced = (dir_ / "more.cli").string();
  std::ofstream(sourced) << "h2 echo sourced-from-h2 h1\n";
  TmuxTerminal t(fmt::format("flowlab-mncli-other-{}", getpid()));
  ASSERT_TRUE(t.start(
      fmt::format("{} '{}' lab cli {}; echo CLI-EXITED rc=$?; sleep 60", env_prefix(), FLOWLAB_BINARY, id)));
  t.wait_for("mininet>");
  t.type("help");
  std::string s = t.wait_for("Documented commands");
  EXPECT_NE(s.find("pingall"), std::string::npos) << s;
  t.type("intfs");
  s = t.wait_for("s2: lo,s2-eth1,s2-eth2");
  EXPECT_NE(s.find("h1: h1-eth0"), std::string::npos) << s;
  t.type("ports");
  t.wait_for("s1 lo:0 s1-eth1:1 s1-eth2:2");
  t.type("pingpair");
  s = t.wait_for("*** Results: 0% dropped (2/2 received)");
  EXPECT_NE(s.find("h1 -> h2 \nh2 -> h1 \n"), std::string::npos) << s;
  t.type("pingallfull");
  s = t.wait_for(" h2->h1: 1/1, rtt min/avg/max/mdev ");
  EXPECT_NE(s.find(" h1->h2: 1/1, rtt min/avg/max/mdev "), std::string::npos) << s;
  t.type("iperf h1 h2");
  s = t.wait_for("*** Iperf: testing TCP bandwidth between h1 and h2");
  s = t.wait_for("bits/sec', '", 1, 60);
  t.type("iperfudp 5M h1 h2");
  s = t.wait_for("*** Results: ['5M', '", 1, 60);
  t.type("sh echo shell-says-$((6*7))");
  t.wait_for("shell-says-42");
  t.type("time nodes");
  s = t.wait_for("*** Elapsed time: ");
  EXPECT_NE(s.find("available nodes are:"), std::string::npos) << s;
  t.type("source " + sourced);
  t.wait_for("sourced-from-h2 10.0.0.1");  // h1 replaced by its address
  t.type("exit");
  s = t.wait_for("CLI-EXITED rc=0");
  // exit leaves the CLI, not the lab.
  auto st = run_command({FLOWLAB_BINARY, "lab", "status"}, opts(10));
  EXPECT_NE(st.out.find(id), std::string::npos) << st.out;
}

}  // namespace
}  // namespace flowlab::lab
