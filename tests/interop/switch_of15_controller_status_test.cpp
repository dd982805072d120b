// OpenFlow 1.5 controller status through os-ken: the switch has two
// controllers, A and B, both os-ken at 1.5 running
// tests/interop/peers/controller_status_15.py. A is up first; when B comes up
// A hears an OFPT_CONTROLLER_STATUS for B's connection (reason
// CHANNEL_STATUS, channel up, B's URI), and its OFPMP_CONTROLLER_STATUS
// request lists both controllers; when B stops, A hears B's channel go down.
// Every message is parsed by os-ken (its fields in A's log). Needs root
// (namespaces) and os-ken.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "switch_topology.h"

namespace flowlab::switch_interop {
namespace {

const std::string kOsken = "/usr/bin/osken-manager";

TEST(SwitchOsken15, ControllerStatusOfASecondControllerComingAndGoing) {
  if (!is_root()) GTEST_SKIP() << "needs root (namespaces, AF_PACKET)";
  if (!have(kOsken)) GTEST_SKIP() << "os-ken is not installed (" << kOsken << ")";
  TwoHosts hosts("cs");
  ASSERT_TRUE(hosts.ok()) << "could not build the namespaces";
  const uint16_t port_a = free_tcp_port(), port_b = free_tcp_port();
  const std::string pid = std::to_string(::getpid());
  const std::string app = std::string(FLOWLAB_SOURCE_DIR) + "/tests/interop/peers/controller_status_15.py";
  auto start_osken = [&](uint16_t port, const char* tag) {
    return std::make_unique<Process>(
        std::vector<std::string>{kOsken, "--ofp-listen-host", "127.0.0.1", "--ofp-tcp-listen-port",
                                 std::to_string(port), app},
        "/tmp/flowlab-osken15-cs-" + std::string(tag) + "-" + pid + ".log");
  };
  auto a = start_osken(port_a, "a");
  ASSERT_TRUE(eventually([&] { return tcp_listening(port_a); }, 60s)) << "os-ken A did not listen:\n"
                                                                      << a->log();
  const std::string uri_a = "tcp:127.0.0.1:" + std::to_string(port_a),
                    uri_b = "tcp:127.0.0.1:" + std::to_string(port_b);
  Process sw({FLOWLAB_BINARY, "switch", "--name", "s1", "--dpid", "0x1", "--port", hosts.port1(), "--port",
              hosts.port2(), "--controller", uri_a, "--controller", uri_b},
             "/tmp/flowlab-switch-osken15-cs-" + pid + ".log");
  ASSERT_TRUE(sw.ok());
  // A alone: its own connection came up, and the reply lists it.
  ASSERT_TRUE(
      eventually([&] { return a->log().find("status reply 1: short_id=") != std::string::npos; }, 20s))
      << a->log() << "\nswitch log:\n"
      << sw.log();
  EXPECT_NE(a->log().find("reason=0 channel=0 uri=" + uri_a), std::string::npos) << a->log();

  auto b = start_osken(port_b, "b");
  const std::string b_up_tail = "role=1 reason=1 channel=0 uri=" + uri_b;
  ASSERT_TRUE(eventually([&] { return a->log().find(b_up_tail) != std::string::npos; }, 60s))
      << "A never heard B come up:\n"
      << a->log() << "\nB:\n"
      << b->log() << "\nswitch log:\n"
      << sw.log();
  // After it A asked again: B is listed beside A (one per reply message).
  EXPECT_TRUE(eventually(
      [&] { return a->log().find("role=1 reason=0 channel=0 uri=" + uri_b) != std::string::npos; }, 10s))
      << a->log();
  // B heard its own connection too (it is a 1.5 controller).
  EXPECT_TRUE(eventually([&] { return b->log().find(b_up_tail) != std::string::npos; }, 10s)) << b->log();

  b->stop();
  EXPECT_TRUE(eventually(
      [&] { return a->log().find("role=1 reason=1 channel=1 uri=" + uri_b) != std::string::npos; }, 20s))
      << "A never heard B go down:\n"
      << a->log() << "\nswitch log:\n"
      << sw.log();
  EXPECT_EQ(a->log().find("switch error"), std::string::npos) << a->log();
  EXPECT_EQ(a->log().find("Traceback"), std::string::npos) << a->log();
  EXPECT_TRUE(sw.running()) << sw.log();
  EXPECT_EQ(sw.stop(), 0) << sw.log();
}

}  // namespace
}  // namespace flowlab::switch_interop
