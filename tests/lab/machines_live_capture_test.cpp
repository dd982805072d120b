// `flowlab lab capture LAB LINK` of a lab up across two emulated machines
// (`--machines 2`): the link between the machines comes from both agents through
// etcd (live_capture.h), each end's direction spliced into one pcap on stdout, read
// by tshark: a ping across is there whole (its 3 requests and 3 replies, with their
// addresses). Ctrl-C stops the stream (exit 0), a reader that leaves (`| head`) too;
// after each, nothing of the stream is left in etcd (its request, reply, pieces),
// and after `lab down` no namespace of the run.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "coord/etcd_client.h"
#include "lab/host/process.h"
#include "machines_fixture.h"

namespace flowlab::lab {
namespace {

class LabMachinesLiveCapture : public LabMachines {
 protected:
  void SetUp() override {
    LabMachines::SetUp();
    if (!IsSkipped() && !have_program("tshark")) GTEST_SKIP() << "needs tshark";
  }
  // The lab's etcd, as `lab status` names it ("across m0, m1 (etcd http://...)").
  std::string etcd_of_lab() const {
    auto st = run_command({FLOWLAB_BINARY, "lab", "status"}, opts(30));
    auto at = st.out.find("(etcd ");
    if (at == std::string::npos) return {};
    at += 6;
    return st.out.substr(at, st.out.find(')', at) - at);
  }
  // The keys of live captures in etcd: pieces, and the run's requests and replies.
  static std::vector<std::string> stream_keys(const std::string& etcd, const std::string& run) {
    auto cfg = coord::parse_endpoints(etcd);
    EXPECT_TRUE(cfg.ok());
    if (!cfg.ok()) return {"?"};
    coord::EtcdClient client(*cfg);
    std::vector<std::string> out;
    for (std::string prefix : {std::string("/flowlab/lab/pieces/"), "/flowlab/lab/runs/" + run + "/exec/",
                               "/flowlab/lab/runs/" + run + "/reply/"}) {
      auto got = client.get_prefix(prefix);
      EXPECT_TRUE(got.ok()) << got.error().message;
      if (got.ok())
        for (const auto& kv : got->kvs) out.push_back(kv.key);
    }
    return out;
  }
  static bool wait_for_text(const std::string& path, const std::string& text, double seconds) {
    for (int i = 0; i < int(seconds * 20); ++i) {
      if (slurp(path).find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
};

TEST_F(LabMachinesLiveCapture, LinkBetweenMachinesStreamedFromBothAgentsThroughEtcd) {
  std::string file = two_host_scenario("live-across", "", "  - {type: ping, from: h1, to: h2, count: 1}\n");
  auto up = run_command({FLOWLAB_BINARY, "lab", "up", file, "--machines", "2", "--out", out()}, opts(300));
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  ASSERT_EQ(up.out.rfind("lab ", 0), 0u) << up.out;
  std::string id = up.out.substr(4, up.out.find(' ', 4) - 4);
  std::string etcd = etcd_of_lab();
  ASSERT_FALSE(etcd.empty());
  auto lab = [&](std::vector<std::string> args, double timeout = 60) {
    args.insert(args.begin(), {FLOWLAB_BINARY, "lab"});
    return run_command(args, opts(timeout));
  };
  auto lab_json = nlohmann::json::parse(slurp((dir_ / "state" / id / "lab.json").string()), nullptr, false);
  std::string run = lab_json.is_object() ? lab_json["across"].value("run", "") : "";
  ASSERT_FALSE(run.empty()) << lab_json.dump();

  // s1-s2 crosses: m0 holds s1:p2, m1 s2:p1; the stream to a file until Ctrl-C.
  std::string pcap = (dir_ / "live.pcap").string(), err = (dir_ / "live.err").string();
  auto cap = Process::spawn(
      "capture",
      {"sh", "-c", fmt::format("exec '{}' lab capture {} s1-s2 >'{}' 2>'{}'", FLOWLAB_BINARY, id, pcap, err)},
      opts(0), (dir_ / "capture.log").string(), nullptr);
  ASSERT_TRUE(cap.ok()) << cap.error().message;
  ASSERT_TRUE(wait_for_text(err, "through its machines' agents", 20)) << slurp(err);
  std::this_thread::sleep_for(std::chrono::seconds(2));  // both agents' ends open
  auto ping = lab({"exec", id, "h1", "ping", "-c", "3", "-i", "0.2", "-W", "5", "h2"});
  EXPECT_NE(ping.out.find("3 received"), std::string::npos) << ping.out << ping.err;
  std::this_thread::sleep_for(std::chrono::seconds(1));  // the last pieces through etcd
  kill(cap->pid(), SIGINT);
  for (int i = 0; i < 400 && cap->running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_FALSE(cap->running()) << "Ctrl-C stops the stream";
  EXPECT_EQ(cap->exit_code(), 0) << slurp(err);

  auto t = run_command({"tshark", "-r", pcap, "-Y", "icmp", "-T", "fields", "-e", "ip.src", "-e", "ip.dst",
                        "-e", "icmp.type", "-e", "icmp.seq"},
                       with_timeout(30));
  ASSERT_EQ(t.exit_code, 0) << t.describe();
  std::vector<std::string> requests, replies;
  std::istringstream in(t.out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("10.0.0.1\t10.0.0.2\t8\t", 0) == 0) requests.push_back(line.substr(line.rfind('\t') + 1));
    if (line.rfind("10.0.0.2\t10.0.0.1\t0\t", 0) == 0) replies.push_back(line.substr(line.rfind('\t') + 1));
  }
  const std::vector<std::string> three = {"1", "2", "3"};
  EXPECT_EQ(requests, three) << "h1's requests, as m1's end got them\n" << t.out;
  EXPECT_EQ(replies, three) << "h2's replies, as m0's end got them\n" << t.out;
  EXPECT_EQ(stream_keys(etcd, run), std::vector<std::string>{}) << "the stream left nothing in etcd";

  // A reader that leaves: `| head -c 24` takes the pcap header and goes; the
  // capture of h1's link (both ends on m0) ends with it, no packet needed.
  std::string head = (dir_ / "head.bin").string();
  auto piped = run_command(
      {"sh", "-c", fmt::format("'{}' lab capture {} h1:eth0 | head -c 24 >'{}'", FLOWLAB_BINARY, id, head)},
      opts(60));
  EXPECT_EQ(piped.exit_code, 0) << piped.describe();
  EXPECT_FALSE(piped.timed_out) << "SIGPIPE/EPIPE ends the stream";
  std::string magic = slurp(head);
  ASSERT_EQ(magic.size(), 24u);
  EXPECT_TRUE(magic.rfind("\xd4\xc3\xb2\xa1", 0) == 0 || magic.rfind("\x4d\x3c\xb2\xa1", 0) == 0)
      << "a pcap header";
  EXPECT_EQ(stream_keys(etcd, run), std::vector<std::string>{});

  auto down = lab({"down", id}, 120);
  EXPECT_EQ(down.exit_code, 0) << down.err;
  EXPECT_EQ(of_run(id), std::set<std::string>{});
}

}  // namespace
}  // namespace flowlab::lab
