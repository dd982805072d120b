// Mininet's CLI without a lab: the listings from a lab's record, completion, and
// the messages of commands that never reach the lab.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "lab/cli/lab_view.h"
#include "lab/cli/mininet_cli.h"

namespace flowlab::lab {
namespace {

using nlohmann::json;

json record() {
  return json::parse(R"({
    "id": "abc12", "core_ns": "flabc12-0-core", "out_dir": "/tmp/x",
    "hosts": {"h1": "flabc12-0-h1", "h2": "flabc12-0-h2"},
    "links": [{"a": "h1:eth0", "b": "s1:eth1"}, {"a": "h2:eth0", "b": "s1:eth2"}],
    "nodes": {
      "hosts": [{"name": "h1", "addr": "10.0.0.1/8", "mac": "00:00:00:00:00:01"},
                {"name": "h2", "addr": "10.0.0.2/8"}],
      "switches": [{"name": "s1", "kind": "flowlab", "dpid": 1, "ports": ["s1-eth1", "s1-eth2"]}],
      "controllers": [{"name": "c0", "kind": "flowlab", "host": "127.0.0.1", "port": 6653}]}
  })");
}

// Runs `lines` through a CLI on the record, returns what it printed.
std::string run(const std::string& lines) {
  auto v = lab_view(record());
  EXPECT_TRUE(v.ok());
  FILE* f = std::tmpfile();
  MininetCli cli(*v, "/bin/false", f);
  size_t start = 0;
  for (size_t nl; (nl = lines.find('\n', start)) != std::string::npos; start = nl + 1)
    if (!cli.run_line(lines.substr(start, nl - start))) break;
  std::rewind(f);
  std::string out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
  std::fclose(f);
  return out;
}

TEST(MininetCliView, ListingsAsMininetPrintsThem) {
  auto v = lab_view(record());
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(show_nodes(*v), "available nodes are: \nc0 h1 h2 s1\n");
  EXPECT_EQ(show_net(*v),
            "h1 h1-eth0:s1-eth1\nh2 h2-eth0:s1-eth2\ns1 lo:  s1-eth1:h1-eth0 s1-eth2:h2-eth0\nc0\n");
  EXPECT_EQ(show_intfs(*v), "h1: h1-eth0\nh2: h2-eth0\ns1: lo,s1-eth1,s1-eth2\nc0: \n");
  EXPECT_EQ(show_ports(*v), "s1 lo:0 s1-eth1:1 s1-eth2:2\n");
  EXPECT_EQ(show_dump(*v),
            "<Host h1: h1-eth0:10.0.0.1 netns=flabc12-0-h1>\n<Host h2: h2-eth0:10.0.0.2 netns=flabc12-0-h2>\n"
            "<FlowlabSwitch s1: lo:127.0.0.1,s1-eth1:None,s1-eth2:None dpid=0000000000000001>\n"
            "<Controller c0: 127.0.0.1:6653 kind=flowlab>\n");
  EXPECT_EQ(v->addresses().at("h2"), "10.0.0.2");
}

TEST(MininetCliView, RecordWithoutNodesIsAClearError) {
  json r = record();
  r.erase("nodes");
  auto v = lab_view(r);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().message.find("without the CLI"), std::string::npos) << v.error().message;
}

TEST(MininetCliView, Completion) {
  auto v = lab_view(record());
  ASSERT_TRUE(v.ok());
  MininetCli cli(*v, "/bin/false");
  using W = std::vector<std::string>;
  EXPECT_EQ(cli.complete({}, "pinga"), (W{"pingall", "pingallfull"}));
  EXPECT_EQ(cli.complete({}, "h"), (W{"h1", "h2", "help"}));
  EXPECT_EQ(cli.complete({"h1", "ping"}, "h"), (W{"h1", "h2"}));
  EXPECT_EQ(cli.complete({"link", "s1", "h1"}, ""), (W{"down", "up"}));
  EXPECT_EQ(cli.complete({"switch"}, ""), (W{"s1"}));
  EXPECT_EQ(cli.complete({"switch", "s1"}, "st"), (W{"start", "stop"}));
  EXPECT_TRUE(cli.complete({}, "zz").empty());
}

TEST(MininetCliView, MessagesOfCommandsThatNeverReachTheLab) {
  std::string o =
      run("nodes\nfoo bar\nh1\nlink s1\nlink s1 s7 down\nswitch s1 pause\nswitch h1 stop\ndpctl\npingall -3\n"
          "iperf h1 h7\nsource /no/such/file\ntime help link\npx 1\n   \n# comment\nquit\nnodes\n");
  EXPECT_EQ(o.find("available nodes are:"), o.rfind("available nodes are:")) << "quit ends the input: " << o;
  for (const char* s :
       {"*** Unknown command: foo bar\n", "*** Enter a command for node: h1\n",
        "*** invalid number of args: link end1 end2 [up down]\n", "*** Error: s7 not in network\n",
        "*** invalid command: switch <switch name> {start, stop}\n", "*** invalid switch: h1\n",
        "*** usage: dpctl command [arg1] [arg2] ...\n",
        "*** usage: pingall [timeout in seconds]: '-3' is not a number\n",
        "*** Error: h7 is not a host of this lab\n", "*** Error: could not open file /no/such/file\n",
        "link NODE1 NODE2 up|down\n", "*** Elapsed time: ", "*** px is not available in flowlab's CLI"})
    EXPECT_NE(o.find(s), std::string::npos) << s << "\n--- in ---\n" << o;
}

}  // namespace
}  // namespace flowlab::lab
