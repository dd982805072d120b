// Captures across machines, as root on two emulated machines (`--machines 2`):
// the link between the machines is captured at its end on each (each file the
// direction arriving there, LINK@MACHINE.pcap), a link on one machine whole as on
// one machine; every file comes back over etcd into the coordinator's run dir,
// read by tshark: the ping's echo requests on one side, its replies on the other.
// results.json names the machine of each file; --capture-max holds per file; and
// nothing is left behind (namespaces, state, the agents' copies).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "lab/host/process.h"
#include "machines_fixture.h"

namespace flowlab::lab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// One ICMP echo as tshark prints it: type (8 request, 0 reply), sequence,
// source, and the ping process' identifier.
struct Echo {
  int type = -1, seq = -1;
  std::string src, ident;
};

std::vector<Echo> echoes(const std::string& pcap) {
  auto r = run_command({"tshark", "-r", pcap, "-Y", "icmp", "-T", "fields", "-e", "icmp.type", "-e",
                        "icmp.seq", "-e", "ip.src", "-e", "icmp.ident"},
                       with_timeout(30));
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  std::vector<Echo> out;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    Echo e;
    std::string type, seq;
    if (!std::getline(f, type, '\t') || !std::getline(f, seq, '\t') || type.empty() || seq.empty()) continue;
    std::getline(f, e.src, '\t');
    std::getline(f, e.ident, '\t');
    e.type = std::stoi(type);
    e.seq = std::stoi(seq);
    out.push_back(e);
  }
  return out;
}

// The sequence numbers of the echoes of one type and source, in file order.
std::vector<int> seqs(const std::vector<Echo>& es, int type, const std::string& src) {
  std::vector<int> out;
  for (const auto& e : es)
    if (e.type == type && e.src == src) out.push_back(e.seq);
  return out;
}

// Per ping process (identifier): the sequence numbers of its requests from h1
// and of its replies from h2, each sorted. The test's ping is the one with 1..5;
// the runner's warm-up pings (ping -c 1) have one each.
std::map<std::string, std::pair<std::vector<int>, std::vector<int>>> by_ping(const std::vector<Echo>& es) {
  std::map<std::string, std::pair<std::vector<int>, std::vector<int>>> out;
  for (const auto& e : es) {
    if (e.type == 8 && e.src == "10.0.0.1") out[e.ident].first.push_back(e.seq);
    if (e.type == 0 && e.src == "10.0.0.2") out[e.ident].second.push_back(e.seq);
  }
  for (auto& [id, p] : out) {
    std::sort(p.first.begin(), p.first.end());
    std::sort(p.second.begin(), p.second.end());
  }
  return out;
}

// The test's ping (requests 1..5 or replies 1..5) as this file holds it.
std::pair<std::vector<int>, std::vector<int>> test_ping(const std::string& pcap) {
  const std::vector<int> five = {1, 2, 3, 4, 5};
  for (const auto& [id, p] : by_ping(echoes(pcap)))
    if (p.first == five || p.second == five) return p;
  return {};
}

class LabMachinesCapture : public LabMachines {
 protected:
  void SetUp() override {
    LabMachines::SetUp();
    if (!IsSkipped() && !have_program("tshark")) GTEST_SKIP() << "needs tshark";
  }
  // The capture record of file `name` (its base name) in case 0, or null.
  json record_of(const json& results, const std::string& name) const {
    for (const auto& c : results["cases"][0].value("capture", json::array()))
      if (c.contains("file") && fs::path(c["file"].get<std::string>()).filename() == name) return c;
    return json();
  }
  bool no_pcap_under(const fs::path& root) const {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root, ec); it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->path().extension() == ".pcap") return false;
    return true;
  }
};

TEST_F(LabMachinesCapture, LinkBetweenMachinesCapturedAtBothEndsAndBroughtBackOverEtcd) {
  auto before = namespaces();
  std::string file =
      two_host_scenario("capture-across", "", "  - {type: ping, from: h1, to: h2, count: 5}\n");
  auto r = run_command(
      {FLOWLAB_BINARY, "lab", "run", file, "--machines", "2", "--capture", "s1-s2,h1:eth0", "--out", out()},
      opts(300));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = results();
  ASSERT_TRUE(j.is_object()) << r.err;
  ASSERT_EQ(j["results"][0]["status"], "ok") << j["results"][0].dump();
  std::string dir = out() + "/flowlab/capture/";
  // s1-s2 crosses: m0 holds s1:p2 (what s2 sends: the replies), m1 s2:p1 (the requests).
  json m0 = record_of(j, "s1-s2@m0.pcap"), m1 = record_of(j, "s1-s2@m1.pcap"),
       h1 = record_of(j, "h1-s1.pcap");
  ASSERT_TRUE(m0.is_object()) << j["cases"][0].value("capture", json()).dump();
  ASSERT_TRUE(m1.is_object()) << j["cases"][0].value("capture", json()).dump();
  ASSERT_TRUE(h1.is_object()) << j["cases"][0].value("capture", json()).dump();
  EXPECT_EQ(m0["machine"], "m0");
  EXPECT_EQ(m0["link"], "s1-s2");
  EXPECT_EQ(m0["captured_at"], json::array({"s1:p2"}));
  EXPECT_EQ(m1["machine"], "m1");
  EXPECT_EQ(m1["captured_at"], json::array({"s2:p1"}));
  EXPECT_EQ(h1["machine"], "m0");
  EXPECT_EQ(h1["captured_at"], json::array({"h1:eth0", "s1:p1"}));
  for (const json* rec : {&m0, &m1, &h1}) {
    EXPECT_FALSE(rec->contains("error")) << rec->dump();
    EXPECT_EQ((*rec)["file"].get<std::string>().rfind(dir, 0), 0u) << "in this run's dir: " << rec->dump();
    EXPECT_GT((*rec)["packets"].get<int>(), 0) << rec->dump();
  }
  // What tshark reads in each: the direction arriving at each end, whole on one machine.
  const std::vector<int> five = {1, 2, 3, 4, 5}, none;
  auto at_m1 = test_ping(dir + "s1-s2@m1.pcap");
  EXPECT_EQ(at_m1.first, five) << "m1 receives h1's requests";
  EXPECT_EQ(at_m1.second, none) << "and none of h2's replies (they leave m1)";
  auto at_m0 = test_ping(dir + "s1-s2@m0.pcap");
  EXPECT_EQ(at_m0.first, none) << "m0 receives no requests on s1:p2";
  EXPECT_EQ(at_m0.second, five) << "m0 receives h2's replies";
  auto whole = test_ping(dir + "h1-s1.pcap");
  EXPECT_EQ(whole.first, five);
  EXPECT_EQ(whole.second, five) << "a link on one machine: both directions in one file";
  EXPECT_NE(r.err.find("over etcd"), std::string::npos) << r.err;
  // Only the coordinator's copies are left: the agents' went with their parts.
  EXPECT_NE(r.err.find("underlay bridge (fl"), std::string::npos) << r.err;
  EXPECT_EQ(left_since(before, r.err), std::set<std::string>{});
  EXPECT_TRUE(fs::is_empty(dir_ / "state"));
  EXPECT_TRUE(no_pcap_under(dir_ / "state"));
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"h1-s1.pcap", "s1-s2@m0.pcap", "s1-s2@m1.pcap"}));
}

TEST_F(LabMachinesCapture, CaptureMaxHoldsPerFileOnEachMachine) {
  std::string file = two_host_scenario("capture-bound", "",
                                       "  - {type: ping, from: h1, to: h2, count: 200, interval: 0.01}\n");
  auto r = run_command({FLOWLAB_BINARY, "lab", "run", file, "--machines", "2", "--capture", "s1-s2",
                        "--capture-max", "0.02", "--out", out()},
                       opts(300));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = results();
  ASSERT_TRUE(j.is_object()) << r.err;
  std::string dir = out() + "/flowlab/capture/";
  // m1's end receives the 200 requests (~114 bytes a record): cut past 10 kB, twice over.
  json m1 = record_of(j, "s1-s2@m1.pcap");
  ASSERT_TRUE(m1.is_object()) << j["cases"][0].value("capture", json()).dump();
  EXPECT_GE(m1["rotations"].get<int>(), 1) << m1.dump();
  ASSERT_TRUE(m1.contains("previous_file")) << m1.dump();
  EXPECT_EQ(m1["previous_file"], dir + "s1-s2@m1.1.pcap");
  std::string newest = dir + "s1-s2@m1.pcap", older = dir + "s1-s2@m1.1.pcap";
  ASSERT_TRUE(fs::exists(newest));
  ASSERT_TRUE(fs::exists(older));
  for (const auto& f : {newest, older}) EXPECT_LE(fs::file_size(f), 10000u + 16 + 200) << f;
  std::vector<int> kept;
  for (const auto& f : {older, newest})
    for (int s : seqs(echoes(f), 8, "10.0.0.1")) kept.push_back(s);
  ASSERT_FALSE(kept.empty());
  EXPECT_EQ(kept.back(), 200) << "the newest packets are kept";
  EXPECT_GT(kept.front(), 1) << "the oldest were dropped";
  for (size_t i = 1; i < kept.size(); ++i) EXPECT_EQ(kept[i], kept[i - 1] + 1) << "no gap in what is kept";
  EXPECT_TRUE(fs::is_empty(dir_ / "state"));
}

}  // namespace
}  // namespace flowlab::lab
