// The lab names what bounds a figure, end to end (root, namespaces): a receiver
// throttled by a cgroup CPU limit is named CPU-bound, and a link the test shapes
// with tbf is named link-bound. Each test runs `flowlab lab run` on a Linux bridge
// with its own state dir and removes the cgroup it made.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/clock.h"
#include "lab/host/process.h"
#include "lab_dir_test.h"

namespace flowlab::lab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kScenario = R"(name: explaintest
hosts:
  h1: {addr: 10.0.0.1/24}
  h2: {addr: 10.0.0.2/24}
switches:
  s1: {kind: linux-bridge}
links:
  - endpoints: [h1:eth0, s1:p1]
  - endpoints: [h2:eth0, s1:p2]
cases:
  - name: bridge
    offloads: off
tests:
  - {type: iperf3-tcp, from: h1, to: h2, duration: 4}
)";

// A CPU-limited cgroup (v2 cpu.max, else the v1 cpu controller's cfs quota),
// removed on destruction (its processes have exited by then).
class CpuCgroup {
 public:
  explicit CpuCgroup(int pct) {
    std::string name = fmt::format("flowlab-explain-test-{}", getpid());
    std::ifstream ctl("/sys/fs/cgroup/cgroup.controllers");
    std::string ctls((std::istreambuf_iterator<char>(ctl)), {});
    if (ctls.find("cpu") != std::string::npos) {
      std::ofstream("/sys/fs/cgroup/cgroup.subtree_control") << "+cpu";
      dir_ = "/sys/fs/cgroup/" + name;
      if (::mkdir(dir_.c_str(), 0755) != 0) {
        dir_.clear();
        return;
      }
      std::ofstream(dir_ + "/cpu.max") << pct * 1000 << " 100000";
    } else if (fs::exists("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")) {
      dir_ = "/sys/fs/cgroup/cpu/" + name;
      if (::mkdir(dir_.c_str(), 0755) != 0) {
        dir_.clear();
        return;
      }
      std::ofstream(dir_ + "/cpu.cfs_period_us") << 100000;
      std::ofstream(dir_ + "/cpu.cfs_quota_us") << pct * 1000;
    }
  }
  ~CpuCgroup() {
    if (dir_.empty()) return;
    for (int i = 0; i < 50 && ::rmdir(dir_.c_str()) != 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  bool ok() const { return !dir_.empty(); }
  bool add(pid_t pid) const {
    std::ofstream f(dir_ + "/cgroup.procs");
    f << pid;
    f.flush();
    return bool(f);
  }

 private:
  std::string dir_;
};

class Explain : public LabDirTest {
 protected:
  Explain() : LabDirTest("explain-test", {"ip", "iperf3", "ss", "tc"}) {}
  void SetUp() override {
    LabDirTest::SetUp();
    if (IsSkipped()) return;
    std::ofstream(dir_ / "s.yaml") << kScenario;
  }
  Result<Process> start_run() const {
    return Process::spawn("lab", {FLOWLAB_BINARY, "lab", "run", (dir_ / "s.yaml").string(), "--out", out()},
                          opts(120), (dir_ / "lab.log").string(), nullptr);
  }
  std::string run_id() const {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_ / "state", ec)) return e.path().filename();
    return {};
  }
  // Polls `f` every 50 ms for up to `seconds`.
  template <typename F>
  static bool wait_for(double seconds, F f) {
    uint64_t end = monotonic_ns() + uint64_t(seconds * 1e9);
    while (monotonic_ns() < end) {
      if (f()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
  json test_record() const {
    std::ifstream in(out() + "/results.json");
    if (!in) return json();
    json j = json::parse(in, nullptr, false);
    return j.is_object() && j["results"].is_array() && !j["results"].empty() ? j["results"][0] : json();
  }
  std::string log() const {
    std::ifstream in(dir_ / "lab.log");
    return std::string((std::istreambuf_iterator<char>(in)), {});
  }
};

TEST_F(Explain, ThrottledReceiverIsNamedCpuBound) {
  CpuCgroup cg(4);  // well below a fair share of the loaded 2-core machine, so the quota binds
  if (!cg.ok()) GTEST_SKIP() << "no cgroup CPU controller (v2 cpu.max or v1 cpu)";
  auto lab = start_run();
  ASSERT_TRUE(lab.ok()) << lab.error().message;
  // The iperf3 server is recorded in the run's state as soon as it starts.
  pid_t server = 0;
  bool found = wait_for(90, [&] {
    std::string id = run_id();
    if (id.empty()) return false;
    std::ifstream in(dir_ / "state" / id / "state.json");
    json j = json::parse(in, nullptr, false);
    if (!j.is_object()) return false;
    for (const auto& p : j.value("processes", json::array()))
      if (p.value("label", "").find("iperf3") != std::string::npos) server = p.value("pid", 0);
    return server > 0;
  });
  ASSERT_TRUE(found) << log();
  ASSERT_TRUE(cg.add(server));
  ASSERT_TRUE(lab->wait_exit(90)) << log();
  EXPECT_EQ(lab->exit_code(), 0) << log();
  json r = test_record();
  ASSERT_TRUE(r.is_object()) << log();
  ASSERT_EQ(r["status"], "ok") << r.dump();
  const json& p = r["samples"]["procs"]["iperf3 (h2)"];
  EXPECT_DOUBLE_EQ(p.value("limit_pct", 0.0), 4);
  EXPECT_LE(p.value("mean_pct", 100.0), 5) << p.dump();
  EXPECT_EQ(r["verdict"]["bound"], "process CPU") << r["verdict"].dump(2);
  EXPECT_EQ(r["verdict"]["who"], "iperf3 (h2)");
  std::ifstream html(out() + "/report.html");
  std::string h((std::istreambuf_iterator<char>(html)), {});
  EXPECT_NE(h.find("iperf3 (h2) used"), std::string::npos);
  EXPECT_NE(h.find("CPU per process"), std::string::npos);
}

TEST_F(Explain, ShapedLinkIsNamedLinkBound) {
  auto lab = start_run();
  ASSERT_TRUE(lab.ok()) << lab.error().message;
  // Shape h1's side as soon as its veth exists (before the warm-up ping ends).
  bool shaped = wait_for(90, [&] {
    std::string id = run_id();
    if (id.empty()) return false;
    return run_command({"tc", "qdisc", "add", "dev", "eth0", "root", "tbf", "rate", "50mbit", "burst", "16k",
                        "latency", "50ms"},
                       in_ns("fl" + id + "-0-h1", 5))
        .ok();
  });
  ASSERT_TRUE(shaped) << log();
  ASSERT_TRUE(lab->wait_exit(90)) << log();
  EXPECT_EQ(lab->exit_code(), 0) << log();
  json r = test_record();
  ASSERT_TRUE(r.is_object()) << log();
  ASSERT_EQ(r["status"], "ok") << r.dump();
  EXPECT_EQ(r["verdict"]["bound"], "shaped link rate") << r["verdict"].dump(2);
  EXPECT_DOUBLE_EQ(r["verdict"]["numbers"].value("rate_bps", 0.0), 50e6);
  EXPECT_NE(r["verdict"]["sentence"].get<std::string>().find("shaped to 50 Mbit/s (tbf on eth0 (h1))"),
            std::string::npos);
}

// A controller far away (controller_link: delay 5 ms each way): every packet
// through the hub pays 2 x 5 ms per crossing, so the ping's echo and reply (two
// crossings) take >= 20 ms, a 16 KB window gets one window per >= 20 ms, and the
// verdict names the controller round trip with the RTT decomposed.
constexpr const char* kFarScenario = R"(name: fartest
hosts:
  h1: {addr: 10.0.0.1/24}
  h2: {addr: 10.0.0.2/24}
switches:
  s1: {kind: flowlab, controller: c1}
controllers:
  c1: {kind: flowlab, apps: [hub]}
links:
  - endpoints: [h1:eth0, s1:p1]
  - endpoints: [h2:eth0, s1:p2]
cases:
  - name: far
    controller_link: {delay: 5ms}
    offloads: off
tests:
  - {type: ping, from: h1, to: h2, count: 5, interval: 0.05}
  - {name: tcp-16k, type: iperf2-window, from: h1, to: h2, duration: 2, windows: [16K]}
)";

class ExplainFar : public LabDirTest {
 protected:
  ExplainFar() : LabDirTest("explain-far", {"ip", "iperf", "ss", "tc"}) {}
};

TEST_F(ExplainFar, FarControllerIsTheControllerRoundTripWithItsDelay) {
  std::ofstream(dir_ / "far.yaml") << kFarScenario;
  auto r =
      run_command({FLOWLAB_BINARY, "lab", "run", (dir_ / "far.yaml").string(), "--out", out()}, opts(120));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::ifstream in(out() + "/results.json");
  json doc = json::parse(in, nullptr, false);
  ASSERT_TRUE(doc.is_object());
  const json& c = doc["cases"][0];
  EXPECT_DOUBLE_EQ(c["controller_link"].value("delay_ms", 0.0), 5.0) << c["controller_link"].dump();
  // The control channel went through the delay line: its frames are the OpenFlow messages.
  const json& dl = c["controller_link"]["delay_line"][0];
  EXPECT_GT(dl["a_to_b"].value("frames", 0), 100) << dl.dump();
  EXPECT_GT(dl["b_to_a"].value("frames", 0), 100) << dl.dump();
  const json* ping = nullptr;
  const json* tcp = nullptr;
  for (const auto& t : doc["results"]) (t["type"] == "ping" ? ping : tcp) = &t;
  ASSERT_TRUE(ping && tcp);
  ASSERT_EQ((*ping)["status"], "ok") << ping->dump();
  EXPECT_GE((*ping)["metrics"].value("rtt_min_ms", 0.0), 20.0);  // 2 crossings x 2 x 5 ms
  ASSERT_EQ((*tcp)["status"], "ok") << tcp->dump();
  // 16 KB per >= 20 ms is at most ~6.6 Mbit/s (a little more with the window's slack).
  EXPECT_LT((*tcp)["metrics"].value("gbps_16K", 1.0), 0.009) << tcp->dump();
  const json& v = (*tcp)["verdict"];
  EXPECT_EQ(v["bound"], "controller round trip") << v.dump(2);
  EXPECT_DOUBLE_EQ(v["numbers"].value("channel_ms", 0.0), 20.0) << v.dump(2);
  EXPECT_NE(v["sentence"].get<std::string>().find("crosses the controller, 5 ms away"), std::string::npos)
      << v.dump(2);
}

}  // namespace
}  // namespace flowlab::lab
