// Multi-output actions in the kernel fast path: FLOOD and group ALL /
// INDIRECT become clone-redirects there. Each test checks that the packets
// took the kernel path (the fast path's hit and clone counters) and that every
// output port delivered the frame byte for byte as h1 sent it (captured with
// dumpcap on the hosts' interfaces), plus the OpenFlow counters of the group.
// On --datapath af-packet (FLOWLAB_DATAPATH) the same delivery is checked
// without the kernel counters. Needs root (namespaces, BPF) and dumpcap.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "switch_topology.h"

namespace flowlab::switch_interop {
namespace {

std::string datapath() {
  const char* e = std::getenv("FLOWLAB_DATAPATH");
  return e && *e ? e : "auto";
}

// h1, h2 (TwoHosts) and h3 (10.0.0.3) on a third port, one switch on the three.
class ThreePortSwitch {
 public:
  explicit ThreePortSwitch(const std::string& tag) : hosts_(tag) {
    const std::string id = tag + std::to_string(::getpid() % 100000);
    ns3_ = "fl" + id + "h3";
    port3_ = "fl" + id + "p3";
    cleanup3();
    port_ = free_tcp_port();
    stats_ = "/tmp/flowlab-fpa-" + id + ".json";
    if (!hosts_.ok() || !host3()) return;
    std::vector<std::string> argv = {FLOWLAB_BINARY, "switch",
                                     "--port",       hosts_.port1(),
                                     "--port",       hosts_.port2(),
                                     "--port",       port3_,
                                     "--listen",     "ptcp:" + std::to_string(port_) + ":127.0.0.1",
                                     "--stats-file", stats_,
                                     "--log-level",  "debug"};
    if (datapath() != "auto") argv.insert(argv.end(), {"--datapath", datapath()});
    sw_ = std::make_unique<Process>(argv, "/tmp/flowlab-fpa-" + id + ".log");
    ok_ = eventually([&] { return tcp_listening(port_); }, 10s);
  }
  ~ThreePortSwitch() {
    if (sw_) sw_->stop();
    ::unlink(stats_.c_str());
    cleanup3();
  }
  ThreePortSwitch(const ThreePortSwitch&) = delete;
  ThreePortSwitch& operator=(const ThreePortSwitch&) = delete;

  bool ok() const { return ok_; }
  const TwoHosts& hosts() const { return hosts_; }
  const std::string& ns3() const { return ns3_; }
  std::string log() const { return sw_ ? sw_->log() : ""; }
  int ofctl(const std::string& args, std::string* out = nullptr) const {
    int st = -1;
    std::string o = run_output(std::string(FLOWLAB_BINARY) + " ofctl " + args + " 2>&1", &st);
    if (out) *out = o;
    return st;
  }
  std::string target() const { return "tcp:127.0.0.1:" + std::to_string(port_); }
  uint64_t fast_path(const std::string& field) const {
    std::ifstream f(stats_);
    auto j = nlohmann::json::parse(f, nullptr, false);
    if (j.is_discarded() || !j.contains("fast_path") || !j["fast_path"].contains(field) ||
        !j["fast_path"][field].is_number())
      return 0;
    return j["fast_path"][field].get<uint64_t>();
  }
  bool on_tc() const {
    std::string dp;
    eventually(
        [&] {
          std::ifstream f(stats_);
          auto j = nlohmann::json::parse(f, nullptr, false);
          if (!j.is_discarded() && j.contains("fast_path")) dp = j["fast_path"].value("datapath", "");
          return !dp.empty();
        },
        3s);
    return dp == "tc";
  }

 private:
  bool host3() {
    const std::string tmp = port3_ + "x";
    return run_quiet("ip netns add " + ns3_) == 0 &&
           run_quiet("ip link add " + port3_ + " type veth peer name " + tmp) == 0 &&
           run_quiet("ip link set " + tmp + " netns " + ns3_) == 0 &&
           run_quiet("ip netns exec " + ns3_ + " ip link set " + tmp + " name eth0") == 0 &&
           run_quiet("ip netns exec " + ns3_ + " ip addr add 10.0.0.3/24 dev eth0") == 0 &&
           run_quiet("ip netns exec " + ns3_ + " ip link set eth0 up") == 0 &&
           run_quiet("sysctl -w net.ipv6.conf." + port3_ + ".disable_ipv6=1") == 0 &&
           run_quiet("ip link set " + port3_ + " up") == 0;
  }
  void cleanup3() {
    run_quiet("ip link del " + port3_);
    run_quiet("ip netns del " + ns3_);
  }
  TwoHosts hosts_;
  std::string ns3_, port3_, stats_;
  uint16_t port_ = 0;
  std::unique_ptr<Process> sw_;
  bool ok_ = false;
};

// dumpcap on a namespace's eth0, ICMP only, classic pcap; frames() reads it
// back after stop().
class Capture {
 public:
  Capture(const std::string& ns, const std::string& name)
      : file_("/tmp/flowlab-fpa-" + name + std::to_string(::getpid()) + ".pcap"),
        proc_({"ip", "netns", "exec", ns, "dumpcap", "-q", "-P", "-i", "eth0", "-f", "icmp", "-w", file_},
              file_ + ".log") {}
  ~Capture() {
    proc_.stop();
    ::unlink(file_.c_str());
  }
  bool started() const {
    return eventually([&] { return std::ifstream(file_, std::ios::binary | std::ios::ate).tellg() >= 24; },
                      5s);
  }
  void stop() { proc_.stop(); }
  // ICMP echo requests (type 8), whole frames in capture order.
  std::vector<std::string> echo_requests() const {
    std::ifstream f(file_, std::ios::binary);
    std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    std::vector<std::string> out;
    for (size_t off = 24; off + 16 <= all.size();) {
      uint32_t caplen = 0;
      std::memcpy(&caplen, all.data() + off + 8, 4);
      off += 16;
      if (off + caplen > all.size()) break;
      std::string fr = all.substr(off, caplen);
      off += caplen;
      if (fr.size() >= 35 && uint8_t(fr[12]) == 0x08 && fr[13] == 0 && uint8_t(fr[14 + 9]) == 1 &&
          uint8_t(fr[34]) == 8)
        out.push_back(fr);
    }
    return out;
  }

 private:
  std::string file_;
  Process proc_;
};

#define NEED_ROOT_AND_DUMPCAP()                                   \
  if (!is_root()) GTEST_SKIP() << "needs root (namespaces, BPF)"; \
  if (!have("/usr/bin/dumpcap")) GTEST_SKIP() << "dumpcap is not installed"

// Sends 20 echo requests h1 -> 10.0.0.2 and expects each port in `receivers`
// (namespaces) to get exactly the frames h1 sent, byte for byte.
void expect_delivered_byte_exact(const ThreePortSwitch& s, const std::vector<std::string>& receivers) {
  Capture sent(s.hosts().ns1(), "h1");
  std::vector<std::unique_ptr<Capture>> got;
  for (size_t i = 0; i < receivers.size(); ++i)
    got.push_back(std::make_unique<Capture>(receivers[i], "r" + std::to_string(i)));
  ASSERT_TRUE(sent.started());
  for (auto& c : got) ASSERT_TRUE(c->started());
  run_quiet(s.hosts().in1("ping -c 20 -i 0.01 -W 1 10.0.0.2"));
  std::this_thread::sleep_for(300ms);
  sent.stop();
  for (auto& c : got) c->stop();
  const std::vector<std::string> tx = sent.echo_requests();
  ASSERT_EQ(tx.size(), 20u);
  for (size_t i = 0; i < got.size(); ++i) {
    const std::vector<std::string> rx = got[i]->echo_requests();
    ASSERT_EQ(rx.size(), tx.size()) << receivers[i];
    for (size_t j = 0; j < tx.size(); ++j) EXPECT_EQ(rx[j], tx[j]) << receivers[i] << " frame " << j;
  }
}

// The ARP exchange and a first ping (upcalls, entries installed) before the
// measured stream; h2 answers over port 1.
bool warm(const ThreePortSwitch& s, const std::string& to_h2_and_h3) {
  return s.ofctl("add-flow " + s.target() + " 'priority=1,arp,actions=flood'") == 0 &&
         s.ofctl("add-flow " + s.target() + " 'priority=10,ip,in_port=1,actions=" + to_h2_and_h3 + "'") ==
             0 &&
         s.ofctl("add-flow " + s.target() + " 'priority=10,ip,in_port=2,actions=output:1'") == 0 &&
         eventually([&] { return s.hosts().ping(1); }, 5s);
}

TEST(SwitchFastPathActions, FloodIsClonedInTheKernelAndDeliveredByteExact) {
  NEED_ROOT_AND_DUMPCAP();
  ThreePortSwitch s("fl");
  ASSERT_TRUE(s.ok()) << s.log();
  ASSERT_TRUE(warm(s, "flood")) << s.log();
  const uint64_t hits0 = s.fast_path("kernel_packets"), clones0 = s.fast_path("out_clone");
  expect_delivered_byte_exact(s, {s.hosts().ns2(), s.ns3()});
  if (datapath() == "af-packet" || (datapath() == "auto" && !s.on_tc())) return;
  // 20 requests, each flooded to 2 ports: one clone and one redirect in the kernel.
  EXPECT_TRUE(eventually([&] { return s.fast_path("out_clone") >= clones0 + 19; }, 3s))
      << "clones " << clones0 << " -> " << s.fast_path("out_clone") << "\n"
      << s.log();
  EXPECT_GE(s.fast_path("kernel_packets"), hits0 + 19);
}

TEST(SwitchFastPathActions, GroupAllAndIndirectRunInTheKernelWithTheirCounters) {
  NEED_ROOT_AND_DUMPCAP();
  ThreePortSwitch s("gr");
  ASSERT_TRUE(s.ok()) << s.log();
  std::string out;
  ASSERT_EQ(
      s.ofctl("add-group " + s.target() + " 'group_id=1,type=all,bucket=output:2,bucket=output:3'", &out), 0)
      << out;
  ASSERT_EQ(s.ofctl("add-group " + s.target() + " 'group_id=2,type=indirect,bucket=output:2'", &out), 0)
      << out;
  ASSERT_TRUE(warm(s, "group:1")) << s.log();
  const uint64_t clones0 = s.fast_path("out_clone");
  expect_delivered_byte_exact(s, {s.hosts().ns2(), s.ns3()});
  const bool tc = !(datapath() == "af-packet" || (datapath() == "auto" && !s.on_tc()));
  if (tc) {
    EXPECT_TRUE(eventually([&] { return s.fast_path("out_clone") >= clones0 + 19; }, 3s)) << s.log();
  }
  // Group and bucket counters include the kernel's hits: the warm-up ping
  // and 20 requests went through group 1, each bucket once per packet.
  ASSERT_EQ(s.ofctl("dump-group-stats " + s.target(), &out), 0) << out;
  EXPECT_NE(out.find("group_id=1,"), std::string::npos) << out;
  EXPECT_NE(out.find("packet_count=21,"), std::string::npos) << out;

  // INDIRECT: the same flow now to group 2 (h2 only); h3 must get nothing.
  ASSERT_EQ(s.ofctl("add-flow " + s.target() + " 'priority=10,ip,in_port=1,actions=group:2'"), 0);
  const uint64_t hits0 = s.fast_path("kernel_packets");
  Capture none(s.ns3(), "none");
  ASSERT_TRUE(none.started());
  expect_delivered_byte_exact(s, {s.hosts().ns2()});
  none.stop();
  EXPECT_TRUE(none.echo_requests().empty()) << "h3 got " << none.echo_requests().size() << " requests";
  if (tc) {
    EXPECT_TRUE(eventually([&] { return s.fast_path("kernel_packets") >= hits0 + 19; }, 3s)) << s.log();
  }
  ASSERT_EQ(s.ofctl("dump-group-stats " + s.target(), &out), 0) << out;
  EXPECT_NE(out.find("group_id=2,"), std::string::npos) << out;
  EXPECT_NE(out.find("packet_count=20,"), std::string::npos) << out;
}

}  // namespace
}  // namespace flowlab::switch_interop
