// Mininet's --custom topologies end to end, as root: a two-switch Topo file with a
// TCLink (bw, delay) run on flowlab switches + the learning switch, pingall all
// delivered and the 5 ms delay seen on the pairs that cross it; a file that raises
// exits 2 with Python's message and creates nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "lab/host/process.h"
#include "lab_dir_test.h"

namespace flowlab::lab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class LabCustomTopo : public LabDirTest {
 protected:
  LabCustomTopo() : LabDirTest("custom-topo", {"ip", "ping", "/usr/bin/python3"}, 60) {}
  static std::string data(const char* f) { return std::string(FLOWLAB_SOURCE_DIR "/tests/lab/data/") + f; }
};

TEST_F(LabCustomTopo, TwoSwitchTopoWithTcLinkPingsEveryPair) {
  auto r = run_command(
      {FLOWLAB_BINARY, "lab", "run", "--custom", data("two_switch_shaped.py"), "--topo", "twoswitch",
       "--switch", "flowlab", "--controller", "flowlab:learning-switch", "--test", "pingall", "--out", out()},
      opts(240));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  std::ifstream in(out() + "/results.json");
  json j = in ? json::parse(in, nullptr, false) : json();
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["scenario"]["file"], "--custom " + data("two_switch_shaped.py") + " --topo twoswitch");
  ASSERT_EQ(j["results"].size(), 1u);
  const json& p = j["results"][0];
  EXPECT_EQ(p["status"], "ok") << p.value("reason", "");
  EXPECT_EQ(p["metrics"]["pairs"], 6);
  EXPECT_EQ(p["metrics"]["pairs_reached"], 6);
  const json& hosts = p["matrix"]["hosts"];
  ASSERT_EQ(hosts.size(), 3u);
  for (size_t i = 0; i < 3; ++i)
    for (size_t k = 0; k < 3; ++k) {
      if (i == k) continue;
      double rtt = p["matrix"]["rtt_ms"][i][k].get<double>();
      // h3 is behind the 5 ms TCLink: at least 2 x 5 ms (cold pairs also wait for learning)
      if (hosts[i] == "h3" || hosts[k] == "h3") {
        EXPECT_GE(rtt, 9.5) << hosts[i] << "->" << hosts[k];
      }
    }
  EXPECT_NE(r.out.find("pingall 6/6 pairs reached, 0.0% dropped"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::is_empty(dir_ / "state"));
}

TEST_F(LabCustomTopo, PythonThatRaisesExits2WithItsMessage) {
  auto r = run_command(
      {FLOWLAB_BINARY, "lab", "run", "--custom", data("raises.py"), "--topo", "broken,3", "--out", out()},
      opts(60));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("flowlab lab: error: --custom " + data("raises.py") + " --topo broken,3: " +
                       data("raises.py") + ":8: in build: ValueError: no hosts for n=3"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("raise ValueError('no hosts for n=%d' % n)"), std::string::npos) << r.err;
  r = run_command({FLOWLAB_BINARY, "lab", "run", "--custom", data("raises.py"), "--topo", "nosuch"},
                  opts(60));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("Invalid topo name nosuch"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out()));
  EXPECT_TRUE(fs::is_empty(dir_ / "state"));
}

}  // namespace
}  // namespace flowlab::lab
