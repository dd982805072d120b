// The kernel fast path's exactness (runs on whichever datapath FLOWLAB_DATAPATH
// selects, so each property is checked on tc and on af-packet): a flow-mod
// between two packets changes the second one's fate; after a delete and its
// barrier no packet is forwarded by the old entry; flow counters of packets
// forwarded in the kernel match what was sent; an idle timeout with fast-path
// traffic keeps the flow. Plus the fallback when the kernel refuses BPF.
// Needs root (namespaces, BPF).
#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>

#include "kernel/fast_path.h"
#include "switch_topology.h"

namespace flowlab::switch_interop {
namespace {

std::string datapath() {
  const char* e = std::getenv("FLOWLAB_DATAPATH");
  return e && *e ? e : "auto";
}

uint64_t rx_packets(const TwoHosts& h, bool host2) {
  std::string out =
      run_output((host2 ? h.in2("cat") : h.in1("cat")) + " /sys/class/net/eth0/statistics/rx_packets");
  return std::strtoull(out.c_str(), nullptr, 10);
}

// One switch on the two hosts' ports with an OpenFlow listener for ofctl.
class FastPathSwitch {
 public:
  // `env`: NAME=VALUE settings for the switch process (through env(1)).
  explicit FastPathSwitch(const std::string& tag, const std::vector<std::string>& env = {}) : hosts_(tag) {
    std::string pid = std::to_string(::getpid());
    port_ = free_tcp_port();
    stats_ = "/tmp/flowlab-fp-" + tag + pid + ".json";
    if (!hosts_.ok()) return;
    std::vector<std::string> argv;
    if (!env.empty()) {
      argv.push_back("env");
      argv.insert(argv.end(), env.begin(), env.end());
    }
    argv.insert(argv.end(), {FLOWLAB_BINARY, "switch", "--port", hosts_.port1(), "--port", hosts_.port2(),
                             "--listen", "ptcp:" + std::to_string(port_) + ":127.0.0.1", "--stats-file",
                             stats_, "--log-level", "debug"});
    sw_ = std::make_unique<Process>(argv, "/tmp/flowlab-fp-" + tag + pid + ".log");
    ok_ = eventually([&] { return tcp_listening(port_); }, 10s);
  }
  ~FastPathSwitch() {
    if (sw_) sw_->stop();
    ::unlink(stats_.c_str());
  }
  bool ok() const { return ok_; }
  const TwoHosts& hosts() const { return hosts_; }
  int ofctl(const std::string& args, std::string* out = nullptr) {
    int st = -1;
    std::string o = run_output(std::string(FLOWLAB_BINARY) + " ofctl " + args, &st);
    if (out) *out = o;
    return st;
  }
  std::string target() const { return "tcp:127.0.0.1:" + std::to_string(port_); }
  // Flood for ARP, IPv4 by port: h1 -> h2 and back.
  bool base_flows(const std::string& extra = "") {
    return ofctl("add-flow " + target() + " 'priority=1,arp,actions=flood'") == 0 &&
           ofctl("add-flow " + target() + " 'priority=10,ip,in_port=1" + extra + ",actions=output:2'") == 0 &&
           ofctl("add-flow " + target() + " 'priority=10,ip,in_port=2,actions=output:1'") == 0;
  }
  nlohmann::json stats() const {
    std::ifstream f(stats_);
    auto j = nlohmann::json::parse(f, nullptr, false);
    return j.is_discarded() ? nlohmann::json::object() : j;
  }
  uint64_t fast_path(const std::string& field) const {
    auto j = stats();
    return j.contains("fast_path") && j["fast_path"].contains(field) && j["fast_path"][field].is_number()
               ? j["fast_path"][field].get<uint64_t>()
               : 0;
  }
  uint64_t kernel_packets() const { return fast_path("kernel_packets"); }
  // Which datapath the switch runs (--datapath auto picks tc where it can).
  bool on_tc() const {
    std::string dp;
    eventually(
        [&] {
          auto j = stats();
          if (j.contains("fast_path")) dp = j["fast_path"].value("datapath", "");
          return !dp.empty();
        },
        3s);
    return dp == "tc";
  }
  std::string log() const { return sw_ ? sw_->log() : ""; }
  Process& process() { return *sw_; }

 private:
  TwoHosts hosts_;
  uint16_t port_ = 0;
  std::string stats_;
  std::unique_ptr<Process> sw_;
  bool ok_ = false;
};

#define NEED_ROOT() \
  if (!is_root()) GTEST_SKIP() << "needs root (namespaces, BPF)"

// In the tc runs (explicit or chosen by auto) the packets must really take
// the kernel path.
void expect_kernel_used(const FastPathSwitch& s) {
  if (datapath() == "af-packet") return;
  if (datapath() == "auto" && !s.on_tc()) return;
  EXPECT_TRUE(eventually([&] { return s.kernel_packets() > 0; }, 3s)) << s.stats().dump(2) << s.log();
}

TEST(SwitchFastPath, FlowModBetweenTwoPacketsChangesTheSecondPacketsFate) {
  NEED_ROOT();
  FastPathSwitch s("fm");
  ASSERT_TRUE(s.ok()) << s.log();
  ASSERT_TRUE(s.base_flows());
  ASSERT_TRUE(eventually([&] { return s.hosts().ping(1); }, 5s)) << s.log();
  ASSERT_TRUE(s.hosts().ping(3)) << s.log();  // cached now
  expect_kernel_used(s);
  // A higher-priority drop for h1's ICMP: the very next ping must die.
  ASSERT_EQ(s.ofctl("add-flow " + s.target() + " 'priority=20,icmp,in_port=1,actions=drop'"), 0);
  EXPECT_FALSE(s.hosts().ping(1)) << "a ping crossed after the drop flow was installed\n" << s.log();
  // And removing it restores forwarding.
  ASSERT_EQ(s.ofctl("del-flows " + s.target() + " 'priority=20,icmp,in_port=1' --strict"), 0);
  EXPECT_TRUE(s.hosts().ping(1)) << s.log();
}

TEST(SwitchFastPath, NoPacketForwardedByADeletedEntryAfterTheBarrier) {
  NEED_ROOT();
  FastPathSwitch s("bd");
  ASSERT_TRUE(s.ok()) << s.log();
  ASSERT_TRUE(s.base_flows());
  ASSERT_TRUE(eventually([&] { return s.hosts().ping(1); }, 5s)) << s.log();
  // A fast ping stream (the switch forwards it in the kernel), then delete the
  // h1 -> h2 flow: ofctl returns after the barrier reply.
  Process flood({"ip", "netns", "exec", s.hosts().ns1(), "ping", "-q", "-i", "0.002", "-w", "6", "10.0.0.2"},
                "/tmp/flowlab-fp-flood" + std::to_string(::getpid()) + ".log");
  std::this_thread::sleep_for(1s);
  expect_kernel_used(s);
  uint64_t before = rx_packets(s.hosts(), true);
  ASSERT_EQ(s.ofctl("del-flows " + s.target() + " 'ip,in_port=1'"), 0);
  uint64_t at_barrier = rx_packets(s.hosts(), true);
  std::this_thread::sleep_for(500ms);
  uint64_t after = rx_packets(s.hosts(), true);
  EXPECT_GT(at_barrier, before) << "the stream was not flowing before the delete";
  // Packets already on the wire when the reply left may land; nothing later.
  EXPECT_LE(after - at_barrier, 2u) << "h2 kept receiving after the barrier\n" << s.log();
}

TEST(SwitchFastPath, CountersOfKernelHitsMatchThePacketsSent) {
  NEED_ROOT();
  FastPathSwitch s("ct");
  ASSERT_TRUE(s.ok()) << s.log();
  ASSERT_TRUE(s.base_flows(",icmp"));
  ASSERT_TRUE(s.hosts().ping(1)) << s.log();  // warm: ARP, first upcall
  uint64_t k0 = s.kernel_packets();
  ASSERT_EQ(run_quiet(s.hosts().in1("ping -c 40 -i 0.01 -W 2 10.0.0.2")), 0);
  std::string out;
  ASSERT_EQ(s.ofctl("dump-flows " + s.target(), &out), 0);
  // 1 warm-up + 40 echo requests matched the h1 -> h2 ICMP flow.
  EXPECT_NE(out.find("n_packets=41,"), std::string::npos) << out;
  if (s.on_tc()) {
    EXPECT_TRUE(eventually([&] { return s.kernel_packets() >= k0 + 70; }, 3s))
        << "most of the 80 packets should have been kernel hits: " << s.stats().dump(2);
  }
  std::string ports;
  ASSERT_EQ(s.ofctl("dump-ports " + s.target() + " 2", &ports), 0);
  EXPECT_NE(ports.find("tx pkts=4"), std::string::npos) << ports;  // 41 + ARP, folded kernel hits included
}

TEST(SwitchFastPath, IdleTimeoutSeesFastPathTraffic) {
  NEED_ROOT();
  FastPathSwitch s("it");
  ASSERT_TRUE(s.ok()) << s.log();
  ASSERT_TRUE(s.base_flows());
  ASSERT_EQ(
      s.ofctl("add-flow " + s.target() + " 'priority=15,icmp,in_port=1,idle_timeout=2,actions=output:2'"), 0);
  // Five seconds of pings every 200 ms: the flow is used all the time, in the kernel.
  ASSERT_EQ(run_quiet(s.hosts().in1("ping -c 25 -i 0.2 -W 2 10.0.0.2")), 0);
  expect_kernel_used(s);
  std::string out;
  ASSERT_EQ(s.ofctl("dump-flows " + s.target(), &out), 0);
  EXPECT_NE(out.find("idle_timeout=2"), std::string::npos) << "the busy flow expired\n" << out;
  // Without traffic it goes.
  EXPECT_TRUE(eventually(
      [&] {
        s.ofctl("dump-flows " + s.target(), &out);
        return out.find("idle_timeout=2") == std::string::npos;
      },
      6s))
      << out;
}

// h1 sends `seconds` of UDP from flowlab pktgen (100-byte payloads, `flows`
// destination ports from `port`); returns how many packets h2 received.
uint64_t udp_burst(const FastPathSwitch& s, int port, int flows, double seconds = 0.3) {
  uint64_t r0 = rx_packets(s.hosts(), true);
  run_quiet(s.hosts().in1(std::string(FLOWLAB_BINARY) + " pktgen --dst 10.0.0.2 --size 100 --flows " +
                          std::to_string(flows) + " --port " + std::to_string(port) + " --seconds " +
                          std::to_string(seconds)));
  std::this_thread::sleep_for(100ms);
  return rx_packets(s.hosts(), true) - r0;
}

// Megaflow: a table that matches only in_port reads no other field, so one
// kernel entry serves every UDP flow of h1 (an exact-match cache would hold
// one entry, and take one upcall, per destination port).
TEST(SwitchFastPath, OneMegaflowEntryServesEveryMicroflowOfAPort) {
  NEED_ROOT();
  FastPathSwitch s("mf");
  ASSERT_TRUE(s.ok()) << s.log();
  if (!s.on_tc()) GTEST_SKIP() << "the kernel cache exists on the tc datapath only";
  ASSERT_TRUE(s.base_flows());
  ASSERT_TRUE(eventually([&] { return s.hosts().ping(1); }, 5s)) << s.log();
  const uint64_t up0 = s.fast_path("upcalls");
  const uint64_t got = udp_burst(s, 9000, 64);
  ASSERT_GT(got, 1000u) << s.log();
  std::string out;
  ASSERT_EQ(s.ofctl("dump-flows " + s.target(), &out), 0);
  ASSERT_TRUE(eventually([&] { return s.kernel_packets() >= got; }, 3s)) << s.stats().dump(2);
  // One entry per direction of IPv4 (plus any in-flight reinstall), not 64.
  EXPECT_LE(s.fast_path("entries"), 4u) << s.stats().dump(2);
  EXPECT_LT(s.fast_path("upcalls") - up0, 32u) << "64 flows took ~one upcall each: " << s.stats().dump(2);
  EXPECT_GE(s.fast_path("masks"), 1u) << s.stats().dump(2);
  // Both ports are veths with their peers in the hosts' namespaces: every
  // forwarded hit must leave through bpf_redirect_peer.
  EXPECT_GE(s.fast_path("out_peer"), got) << s.stats().dump(2);
  EXPECT_EQ(s.fast_path("out_redirect"), 0u) << s.stats().dump(2);
}

// The mask keeps what a flow matches: tp_dst 5001 forwarded, 5002 dropped by
// the table below it, each decided in the kernel, in any order.
TEST(SwitchFastPath, MegaflowKeepsTheFieldsTheFlowsMatch) {
  NEED_ROOT();
  FastPathSwitch s("mk");
  ASSERT_TRUE(s.ok()) << s.log();
  const std::string t = s.target();
  ASSERT_EQ(s.ofctl("add-flow " + t + " 'priority=1,arp,actions=flood'"), 0);
  ASSERT_EQ(s.ofctl("add-flow " + t + " 'priority=10,ip,in_port=2,actions=output:1'"), 0);
  ASSERT_EQ(s.ofctl("add-flow " + t + " 'priority=10,icmp,in_port=1,actions=output:2'"), 0);
  ASSERT_EQ(s.ofctl("add-flow " + t + " 'priority=20,udp,in_port=1,udp_dst=5001,actions=output:2'"), 0);
  ASSERT_EQ(s.ofctl("add-flow " + t + " 'priority=5,ip,in_port=1,actions=drop'"), 0);
  ASSERT_TRUE(eventually([&] { return s.hosts().ping(1); }, 5s)) << s.log();
  for (int round = 0; round < 2; ++round) {
    EXPECT_GT(udp_burst(s, 5001, 1), 100u) << "round " << round << s.log();
    // rx_packets also counts ARP (h1 refreshing h2's address): a few, not a burst.
    EXPECT_LE(udp_burst(s, 5002, 1), 3u) << "round " << round << ": 5002 crossed\n" << s.stats().dump(2);
  }
  expect_kernel_used(s);
  if (s.on_tc()) {
    EXPECT_GT(s.fast_path("kernel_drops"), 100u) << s.stats().dump(2);
  }
}

// Every switch process pays the verifier at start-up (100 lab switches, a
// ring starting together on 2 cores): the program must stay cheap to verify.
// It processed 444,698 instructions (~250 ms) before session 6, ~4,900 now.
TEST(SwitchFastPath, TheProgramIsCheapToVerify) {
  NEED_ROOT();
  auto fp = kernel::FastPath::load();
  if (!fp) GTEST_SKIP() << "the kernel refused BPF here: " << fp.error().message;
  EXPECT_GT((*fp)->verified_insns(), 0u);
  EXPECT_LT((*fp)->verified_insns(), 20000u) << "a change made the verifier walk state-splitting paths";
  std::cout << "[ verifier ] " << (*fp)->verified_insns() << " instructions, load " << (*fp)->load_ms()
            << " ms\n";
}

// A switch host's switches share one loaded program (FastPathPool): each
// datapath its own index, epoch, masks and statistics, counter slots from the
// program's one pool; past FL_MAX_DPS datapaths the pool loads another program.
TEST(SwitchFastPath, DatapathsOfOnePoolShareOneProgram) {
  NEED_ROOT();
  kernel::FastPathPool pool;
  auto a = pool.open(2);
  if (!a) GTEST_SKIP() << "the kernel refused BPF here: " << a.error().message;
  auto b = pool.open(3);
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_GT((*a)->load_ms(), 0);  // loaded the program
  EXPECT_EQ((*b)->load_ms(), 0);  // joined it
  EXPECT_NE((*a)->datapath_index(), (*b)->datapath_index());
  (*a)->set_epoch(5);
  (*b)->set_epoch(9);
  EXPECT_EQ((*a)->epoch(), 5u);
  EXPECT_EQ((*b)->epoch(), 9u);
  fl_key m{};
  std::memset(&m, 0xff, sizeof m);
  m.mask_id = 0;
  ASSERT_TRUE((*a)->add_mask(m).ok());
  EXPECT_EQ((*a)->mask_count(), 1u);
  EXPECT_EQ((*b)->mask_count(), 0u);
  auto sa = (*a)->take_slot(), sb = (*b)->take_slot();
  ASSERT_TRUE(sa && sb);
  EXPECT_NE(*sa, *sb);
  (*b)->give_slot(*sb);
  EXPECT_EQ((*a)->take_slot(), sb);  // the pool is the program's
  EXPECT_EQ((*a)->stats().hits, 0u);
  // A datapath index given back is handed out again with its epoch and masks cleared.
  uint32_t a_index = (*a)->datapath_index();
  a->reset();
  auto c = pool.open(1);
  ASSERT_TRUE(c.ok() && *c);
  EXPECT_EQ((*c)->datapath_index(), a_index);
  EXPECT_EQ((*c)->epoch(), 0u);
  EXPECT_EQ((*c)->mask_count(), 0u);
  // FL_MAX_DPS datapaths on one program, then a second program.
  std::vector<std::unique_ptr<kernel::FastPath>> more;
  for (int i = 0; i < FL_MAX_DPS - 2; ++i) {
    auto d = pool.open(0);
    ASSERT_TRUE(d.ok() && *d);
    EXPECT_EQ((*d)->load_ms(), 0) << i;
    more.push_back(std::move(*d));
  }
  auto next = pool.open(0);
  ASSERT_TRUE(next.ok() && *next);
  EXPECT_GT((*next)->load_ms(), 0);  // a program of its own
  EXPECT_EQ((*next)->datapath_index(), 0u);
  // More ports than one program holds is an error, not a crash.
  auto huge = pool.open(FL_MAX_PORTS + 1);
  EXPECT_FALSE(huge.ok());
}

// Kernels without tcx attach through a clsact qdisc: FLOWLAB_TC_ATTACH=clsact
// forces that path here; it forwards in the kernel and leaves no qdisc behind.
TEST(SwitchFastPath, ClsactAttachForwardsAndCleansUp) {
  NEED_ROOT();
  if (datapath() == "af-packet") GTEST_SKIP() << "an attach mode of the tc datapath";
  std::string port1;
  {
    FastPathSwitch s("cl", {"FLOWLAB_TC_ATTACH=clsact"});
    ASSERT_TRUE(s.ok()) << s.log();
    if (!s.on_tc()) GTEST_SKIP() << "the kernel refused BPF here";
    port1 = s.hosts().port1();
    ASSERT_TRUE(s.base_flows());
    ASSERT_TRUE(eventually([&] { return s.hosts().ping(1); }, 5s)) << s.log();
    ASSERT_TRUE(s.hosts().ping(5)) << s.log();
    expect_kernel_used(s);
    EXPECT_TRUE(eventually([&] { return s.stats()["fast_path"].value("attach", "") == "clsact"; }, 3s))
        << s.stats().dump(2);
    EXPECT_NE(run_output("tc filter show dev " + port1 + " ingress").find("bpf"), std::string::npos);
    EXPECT_EQ(s.process().stop(), 0) << s.log();
    EXPECT_EQ(run_output("tc qdisc show dev " + port1).find("clsact"), std::string::npos)
        << "the clsact qdisc stayed behind";
  }
  // A bad value is a clear error, not a silent default.
  TwoHosts h("cb");
  ASSERT_TRUE(h.ok());
  int st = -1;
  std::string out = run_output("env FLOWLAB_TC_ATTACH=xdp " + std::string(FLOWLAB_BINARY) +
                                   " switch --datapath tc --port " + h.port1(),
                               &st);
  EXPECT_EQ(st, 2) << out;
  EXPECT_NE(out.find("FLOWLAB_TC_ATTACH"), std::string::npos) << out;
}

// The kernel refuses BPF without CAP_BPF / CAP_SYS_ADMIN: the default falls
// back to af-packet with one log line and still forwards; an explicit
// --datapath tc exits 2.
TEST(SwitchFastPath, FallbackWhenBpfIsRefused) {
  NEED_ROOT();
  if (!have("/usr/bin/setpriv")) GTEST_SKIP() << "setpriv is not installed";
  TwoHosts hosts("fb");
  ASSERT_TRUE(hosts.ok());
  const std::vector<std::string> drop = {"setpriv", "--inh-caps=-bpf,-sys_admin,-perfmon",
                                         "--bounding-set=-bpf,-sys_admin,-perfmon", "--"};
  std::vector<std::string> argv = drop;
  argv.insert(argv.end(), {FLOWLAB_BINARY, "switch", "--datapath", "auto", "--fail-mode", "standalone",
                           "--port", hosts.port1(), "--port", hosts.port2()});
  Process sw(argv, "/tmp/flowlab-fp-fb" + std::to_string(::getpid()) + ".log");
  ASSERT_TRUE(eventually([&] { return sw.log().find("started") != std::string::npos; }, 10s)) << sw.log();
  EXPECT_NE(sw.log().find("datapath tc unavailable"), std::string::npos) << sw.log();
  EXPECT_NE(sw.log().find("datapath af-packet"), std::string::npos) << sw.log();
  EXPECT_TRUE(eventually([&] { return hosts.ping(1); }, 10s)) << sw.log();
  EXPECT_EQ(sw.stop(), 0);

  std::string cmd;
  for (const auto& a : drop) cmd += a + " ";
  int st = -1;
  std::string out = run_output(cmd + FLOWLAB_BINARY + " switch --datapath tc --port " + hosts.port1(), &st);
  EXPECT_EQ(st, 2) << out;
  EXPECT_NE(out.find("--datapath tc"), std::string::npos) << out;
}

}  // namespace
}  // namespace flowlab::switch_interop
