// Packet capture on lab links, as root in the lab's own namespaces: a ping run with
// `capture: [s1-s2, h1:eth0]` on a two-switch lab, its pcaps read back by tshark
// (exactly the echo requests and replies, both directions, nanosecond stamps); a
// live capture of a lab that is up through a pipe into tshark; the bound
// (--capture-max) keeping the newest packets, in two whole pcaps within it; a VLAN
// tag the kernel took out of a frame written back into it; an unknown link: exit 2,
// nothing made.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "lab/capture/pcap_capture.h"
#include "lab/host/process.h"
#include "lab_dir_test.h"

namespace flowlab::lab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kTwoSwitches = R"(name: capture-two
hosts:
  h1: {addr: 10.0.0.1/24}
  h2: {addr: 10.0.0.2/24}
switches:
  s1: {kind: flowlab, controller: c0}
  s2: {kind: flowlab, controller: c0}
controllers:
  c0: {kind: flowlab, apps: [learning-switch]}
links:
  - endpoints: [h1:eth0, s1:p1]
  - endpoints: [s1:p2, s2:p1]
  - endpoints: [h2:eth0, s2:p2]
capture: [s1-s2, h1:eth0]
tests:
  - {type: ping, from: h1, to: h2, count: 5, interval: 0.2}
)";

// One ICMP echo as tshark prints it.
struct Echo {
  std::string src, dst;
  int type = -1;  // 8 request, 0 reply
  std::string ident;
  int seq = -1;
};

std::vector<Echo> parse_echoes(const std::string& text) {
  std::vector<Echo> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    Echo e;
    std::string type, seq;
    if (!std::getline(f, e.src, '\t') || !std::getline(f, e.dst, '\t') || !std::getline(f, type, '\t'))
      continue;
    std::getline(f, e.ident, '\t');
    std::getline(f, seq, '\t');
    if (type.empty()) continue;  // not ICMP (ARP, IPv6)
    e.type = std::stoi(type);
    if (!seq.empty()) e.seq = std::stoi(seq);
    out.push_back(e);
  }
  return out;
}

class LabCapture : public LabDirTest {
 protected:
  LabCapture() : LabDirTest("capture-test", {"ip", "ping", "tshark"}, 60) {}

  std::string write(const std::string& name, const std::string& yaml) const {
    auto p = dir_ / name;
    std::ofstream(p) << yaml;
    return p.string();
  }
  static std::string tshark_fields(const std::string& file) {
    auto r = run_command({"tshark", "-r", file, "-T", "fields", "-e", "ip.src", "-e", "ip.dst", "-e",
                          "icmp.type", "-e", "icmp.ident", "-e", "icmp.seq"},
                         with_timeout(30));
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    return r.out;
  }
  static uint32_t magic(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    uint32_t m = 0;
    in.read(reinterpret_cast<char*>(&m), 4);
    return m;
  }
  // "lab X is up (...)" -> X
  static std::string lab_id(const std::string& up_out) { return up_out.substr(4, up_out.find(' ', 4) - 4); }
};

TEST_F(LabCapture, PingRunCapturedOnSwitchLinkAndHostLinkReadBackByTshark) {
  auto file = write("two.yaml", kTwoSwitches);
  auto r = run_command({FLOWLAB_BINARY, "lab", "run", file, "--out", out()}, opts(180));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const char* link : {"s1-s2", "h1-s1"}) {
    std::string pcap = out() + "/default/capture/" + link + ".pcap";
    ASSERT_TRUE(fs::exists(pcap)) << pcap;
    EXPECT_EQ(magic(pcap), 0xa1b23c4du) << "nanosecond pcap";
    auto echoes = parse_echoes(tshark_fields(pcap));
    // By ping process (ICMP identifier): the test's 5 and the runner's warm-up (ping -c 1).
    std::map<std::string, std::vector<Echo>> by_ident;
    for (const auto& e : echoes) by_ident[e.ident].push_back(e);
    int test_runs = 0;
    size_t warmup_replies = 0;
    for (const auto& [ident, es] : by_ident) {
      std::vector<int> req, rep;
      for (const auto& e : es) {
        ASSERT_TRUE(e.type == 8 || e.type == 0) << link << ": only echoes, got type " << e.type;
        if (e.type == 8) {
          EXPECT_EQ(e.src, "10.0.0.1");
          EXPECT_EQ(e.dst, "10.0.0.2");
          req.push_back(e.seq);
        } else {
          EXPECT_EQ(e.src, "10.0.0.2");
          EXPECT_EQ(e.dst, "10.0.0.1");
          rep.push_back(e.seq);
        }
      }
      std::sort(req.begin(), req.end());
      std::sort(rep.begin(), rep.end());
      if (req == std::vector<int>{1, 2, 3, 4, 5}) {
        ++test_runs;
        EXPECT_EQ(rep, req) << link << ": every request of the test once, and its reply once";
      } else {
        // A warm-up ping (ping -c 1 -W 1, retried until one is answered) sends one;
        // the first may go unanswered while the switches learn.
        EXPECT_EQ(req, std::vector<int>{1}) << link << " ident " << ident;
        EXPECT_LE(rep.size(), 1u) << link << " ident " << ident;
        warmup_replies += rep.size();
      }
    }
    EXPECT_EQ(test_runs, 1) << link << ": the test's 5 echoes and 5 replies";
    // The warm-up stops at the first ping answered within its second: that reply, from
    // before any flow was installed (the controller's packet-out), is in the file too.
    // A first ping answered late (the switches still connecting, ARP on the way) is
    // retried, and its late reply is captured as well: one or two, never none.
    EXPECT_GE(warmup_replies, 1u) << link;
    EXPECT_LE(warmup_replies, 2u) << link;
    EXPECT_LE(by_ident.size(), 2u + 4u) << "the test and at most 5 warm-up pings";
  }
  std::ifstream in(out() + "/results.json");
  json doc = json::parse(in);
  const json& cap = doc["cases"][0]["capture"];
  ASSERT_EQ(cap.size(), 2u) << cap.dump();
  for (const auto& c : cap) {
    EXPECT_GE(c["packets"].get<int>(), 12) << c.dump();
    EXPECT_EQ(c["kernel_drops"], 0);
    EXPECT_EQ(c["timestamps"], "ns");
    EXPECT_FALSE(c.contains("error")) << c.dump();
  }
  EXPECT_TRUE(fs::is_empty(dir_ / "state")) << "the run cleaned up after itself";
}

TEST_F(LabCapture, LiveCaptureOfALabThatIsUpThroughAPipeIntoTshark) {
  auto up = run_command({FLOWLAB_BINARY, "lab", "up", "--topo", "linear,2", "--switch", "linux-bridge",
                         "--controller", "none", "--out", out()},
                        opts(60));
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  std::string id = lab_id(up.out);
  // Unknown link: exit 2 before a byte.
  auto bad = run_command({FLOWLAB_BINARY, "lab", "capture", id, "s1-s9"}, opts(10));
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
  EXPECT_TRUE(bad.out.empty());
  EXPECT_NE(bad.err.find("no link 's1-s9'"), std::string::npos) << bad.err;
  // The live stream into tshark; it ends when the lab goes down.
  std::string pipeline = fmt::format(
      "'{}' lab capture {} s1-s2 | tshark -r - -T fields -e ip.src -e ip.dst -e icmp.type -e icmp.ident -e "
      "icmp.seq",
      FLOWLAB_BINARY, id);
  auto live = std::async(std::launch::async, [&] { return run_command({"sh", "-c", pipeline}, opts(60)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // the capture is open
  auto ping =
      run_command({FLOWLAB_BINARY, "lab", "exec", id, "h1", "ping", "-c3", "-i0.2", "-W5", "h2"}, opts(30));
  EXPECT_NE(ping.out.find("3 received"), std::string::npos) << ping.out << ping.err;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto down = run_command({FLOWLAB_BINARY, "lab", "down", id}, opts(60));
  EXPECT_EQ(down.exit_code, 0) << down.out << down.err;
  auto r = live.get();
  EXPECT_FALSE(r.timed_out) << "the stream ends when the lab goes down";
  int req = 0, rep = 0;
  for (const auto& e : parse_echoes(r.out)) {
    req += e.type == 8 && e.src == "10.0.0.1" && e.dst == "10.0.0.2";
    rep += e.type == 0 && e.src == "10.0.0.2" && e.dst == "10.0.0.1";
  }
  EXPECT_EQ(req, 3) << r.out << r.err;
  EXPECT_EQ(rep, 3) << r.out << r.err;
}

TEST_F(LabCapture, BoundKeepsTheNewestPacketsInTwoFilesAndSaysSoInTheLog) {
  auto up =
      run_command({FLOWLAB_BINARY, "lab", "up", "--topo", "linear,2", "--switch", "linux-bridge",
                   "--controller", "none", "--out", out(), "--capture", "s1-s2", "--capture-max", "0.02"},
                  opts(60));
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  std::string id = lab_id(up.out);
  auto ping = run_command(
      {FLOWLAB_BINARY, "lab", "exec", id, "h1", "ping", "-c40", "-i0.01", "-s1000", "-W5", "h2"}, opts(30));
  EXPECT_NE(ping.out.find("40 received"), std::string::npos) << ping.out << ping.err;
  auto down = run_command({FLOWLAB_BINARY, "lab", "down", id}, opts(60));
  ASSERT_EQ(down.exit_code, 0) << down.out << down.err;
  std::string newest = out() + "/default/capture/s1-s2.pcap", older = out() + "/default/capture/s1-s2.1.pcap";
  ASSERT_TRUE(fs::exists(newest));
  ASSERT_TRUE(fs::exists(older));
  // Each file is cut at half the bound (10 kB), past it by at most one record.
  EXPECT_LE(fs::file_size(newest), 10000u + 16 + 1100);
  EXPECT_LE(fs::file_size(older), 10000u + 16 + 1100);
  std::vector<int> seqs;
  for (const auto& f : {older, newest})
    for (const auto& e : parse_echoes(tshark_fields(f)))
      if (e.type == 8) seqs.push_back(e.seq);
  ASSERT_FALSE(seqs.empty());
  EXPECT_EQ(seqs.back(), 40) << "the newest packets are kept";
  EXPECT_GT(seqs.front(), 1) << "the oldest were dropped";
  for (size_t i = 1; i < seqs.size(); ++i) EXPECT_EQ(seqs[i], seqs[i - 1] + 1) << "no gap in what is kept";
  std::ifstream log(out() + "/up.log");
  std::stringstream ss;
  ss << log.rdbuf();
  EXPECT_NE(ss.str().find("capture s1-s2: "), std::string::npos) << ss.str();
  EXPECT_NE(ss.str().find("oldest"), std::string::npos) << ss.str();
}

// Two namespaces of the test's own (flcap<TAG><pid>a and b) and a veth pair
// between them, va in a and vb in b, both up; removed when it goes. With
// `no_ipv6` the namespaces send no IPv6 of their own on it. `error` says what
// could not be made.
struct VethPair {
  std::string a, b, error;
  VethPair(const std::string& tag, bool no_ipv6)
      : a(fmt::format("flcap{}{}a", tag, getpid())), b(fmt::format("flcap{}{}b", tag, getpid())) {
    std::vector<std::vector<std::string>> steps = {{"ip", "netns", "add", a}, {"ip", "netns", "add", b}};
    if (no_ipv6)
      for (const auto& ns : {a, b})
        steps.push_back({"ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1"});
    steps.push_back(
        {"ip", "link", "add", "va", "netns", a, "type", "veth", "peer", "name", "vb", "netns", b});
    steps.push_back({"ip", "-n", a, "link", "set", "va", "up"});
    steps.push_back({"ip", "-n", b, "link", "set", "vb", "up"});
    for (const auto& argv : steps) {
      auto r = run_command(argv, with_timeout(10));
      if (r.exit_code != 0) {
        error = r.describe();
        return;
      }
    }
  }
  ~VethPair() {
    run_command({"ip", "netns", "del", a}, with_timeout(10));
    run_command({"ip", "netns", "del", b}, with_timeout(10));
  }
  VethPair(const VethPair&) = delete;
  VethPair& operator=(const VethPair&) = delete;
};

// A VLAN-tagged frame is written with its tag: the kernel takes the tag out of a
// received frame (into the packet's metadata) before a packet socket sees it, and
// the writer puts it back, as libpcap does. Two namespaces of the test's own, a
// veth pair between them, three frames tagged VLAN 10 sent raw from one end
// (no 8021q module needed); LinkCaptures on the pair.
TEST_F(LabCapture, VlanTaggedFramesAreWrittenWithTheirTag) {
  if (!have_program("python3")) GTEST_SKIP() << "needs python3";
  VethPair pair("v", false);
  ASSERT_TRUE(pair.error.empty()) << pair.error;
  const std::string &a = pair.a, &b = pair.b;
  auto caps = LinkCaptures::start({{"va-vb", a, "va", b, "vb", ""}}, out(), 0);
  ASSERT_TRUE(caps.ok()) << caps.error().message;
  // dst 02:..:02, src 02:..:01, 802.1Q tag VLAN 10, ethertype 0x88b5 (local experimental), 50 bytes.
  auto send =
      run_command({"ip", "netns", "exec", a, "python3", "-c",
                   "import socket\n"
                   "s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)\n"
                   "s.bind(('va', 0))\n"
                   "for i in range(3):\n"
                   "    s.send(bytes.fromhex('0200000000020200000000018100000a88b5') + bytes([i]) * 50)\n"},
                  with_timeout(20));
  ASSERT_EQ(send.exit_code, 0) << send.describe();
  json rec = (*caps)->finish();
  ASSERT_EQ(rec.size(), 1u) << rec.dump();
  EXPECT_FALSE(rec[0].contains("error")) << rec.dump();
  auto r =
      run_command({"tshark", "-r", out() + "/va-vb.pcap", "-Y", "eth.src == 02:00:00:00:00:01", "-T",
                   "fields", "-e", "vlan.id", "-e", "vlan.etype", "-e", "frame.len", "-e", "frame.cap_len"},
                  with_timeout(30));
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, "10\t0x88b5\t68\t68\n10\t0x88b5\t68\t68\n10\t0x88b5\t68\t68\n")
      << "three frames of 14 + 4 + 50 bytes, the tag where it was";
}

// The bound with libpcap's files: 100 frames of 200 bytes (216 bytes a record) on a
// veth pair of the test's own under a bound of 20 kB cut the file twice, at the last
// whole record under 10 kB (46 records): NAME.1.pcap holds frames 47-92 and
// NAME.pcap 93-100, each a whole pcap (capinfos and tshark read it; its size is its
// header and its records, nothing past them), the two together within the bound.
TEST_F(LabCapture, BoundCutsLibpcapFilesIntoTwoWholePcapsWithinTheBound) {
  if (!have_program("python3") || !have_program("capinfos")) GTEST_SKIP() << "needs python3 and capinfos";
  VethPair pair("r", true);  // no IPv6 on the pair: only the test's frames cross it
  ASSERT_TRUE(pair.error.empty()) << pair.error;
  const std::string &a = pair.a, &b = pair.b;
  constexpr uint64_t kMax = 20000;
  auto caps = LinkCaptures::start({{"va-vb", a, "va", b, "vb", ""}}, out(), kMax);
  ASSERT_TRUE(caps.ok()) << caps.error().message;
  // dst 02:..:02, src 02:..:01, ethertype 0x88b5 (local experimental), the frame's
  // number in two bytes, padded to 200 bytes.
  auto send = run_command({"ip", "netns", "exec", a, "python3", "-c",
                           "import socket\n"
                           "s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)\n"
                           "s.bind(('va', 0))\n"
                           "for i in range(1, 101):\n"
                           "    f = bytes.fromhex('02000000000202000000000188b5') + i.to_bytes(2, 'big')\n"
                           "    s.send(f + bytes(200 - len(f)))\n"},
                          with_timeout(20));
  ASSERT_EQ(send.exit_code, 0) << send.describe();
  json rec = (*caps)->finish();
  ASSERT_EQ(rec.size(), 1u) << rec.dump();
  EXPECT_FALSE(rec[0].contains("error")) << rec.dump();
  EXPECT_EQ(rec[0]["packets"], 100) << rec.dump();
  EXPECT_EQ(rec[0]["rotations"], 2) << rec.dump();
  std::string newest = out() + "/va-vb.pcap", older = out() + "/va-vb.1.pcap";
  EXPECT_EQ(rec[0]["previous_file"], older);
  ASSERT_TRUE(fs::exists(newest));
  ASSERT_TRUE(fs::exists(older));
  EXPECT_LE(fs::file_size(newest) + fs::file_size(older), kMax);
  EXPECT_EQ(fs::file_size(older), 24u + 46 * 216);
  EXPECT_EQ(fs::file_size(newest), 24u + 8 * 216);
  std::vector<int> frames;
  for (const auto& f : {older, newest}) {
    EXPECT_EQ(magic(f), 0xa1b23c4du) << f << ": nanosecond pcap";
    auto info = run_command({"capinfos", "-M", "-c", "-s", "-d", f}, with_timeout(30));
    ASSERT_EQ(info.exit_code, 0) << info.describe();
    auto number = [&](const std::string& key) {
      auto at = info.out.find(key);
      return at == std::string::npos ? uint64_t(0) : std::stoull(info.out.substr(at + key.size()));
    };
    uint64_t packets = number("Number of packets:"), data = number("Data size:");
    EXPECT_EQ(number("File size:"), fs::file_size(f)) << info.out;
    EXPECT_EQ(fs::file_size(f), 24 + 16 * packets + data) << f << ": whole records, nothing past them\n"
                                                          << info.out;
    auto r = run_command({"tshark", "-r", f, "-T", "fields", "-e", "data.data"}, with_timeout(30));
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    std::istringstream lines(r.out);
    for (std::string hex; std::getline(lines, hex);)
      frames.push_back(std::stoi(hex.substr(0, 4), nullptr, 16));
  }
  std::vector<int> want(54);
  for (int i = 0; i < 54; ++i) want[i] = 47 + i;
  EXPECT_EQ(frames, want) << "frames 47-92, then 93-100: the newest, in order";
}

TEST_F(LabCapture, UnknownLinkIsExit2AndLeavesNothingBehind) {
  auto file = write("two.yaml", kTwoSwitches);
  auto r = run_command({FLOWLAB_BINARY, "lab", "run", file, "--out", out(), "--capture", "s1-s9"}, opts(30));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--capture: no link 's1-s9'"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out())) << "no out dir";
  EXPECT_TRUE(fs::is_empty(dir_ / "state")) << "no run state";
  // The scenario's own key: FILE:LINE.
  std::string yaml = kTwoSwitches;
  yaml.replace(yaml.find("capture: [s1-s2, h1:eth0]"), 25, "capture: [s1-s2, h1:eth7]");
  auto bad = write("bad.yaml", yaml);
  auto v = run_command({FLOWLAB_BINARY, "lab", "validate", bad}, opts(30));
  EXPECT_EQ(v.exit_code, 2) << v.out << v.err;
  EXPECT_NE(v.err.find("bad.yaml:14: key 'capture': no link 'h1:eth7'"), std::string::npos) << v.err;
  auto u = run_command({FLOWLAB_BINARY, "lab", "up", bad, "--out", out()}, opts(30));
  EXPECT_EQ(u.exit_code, 2) << u.out << u.err;
  EXPECT_FALSE(fs::exists(out()));
  EXPECT_TRUE(fs::is_empty(dir_ / "state"));
}

}  // namespace
}  // namespace flowlab::lab
