// Option parsing and validation of `flowlab switch` (src/switch/options.h).
#include "switch/options.h"

#include <gtest/gtest.h>

namespace flowlab::sw {
namespace {

TEST(SwitchOptions, PortSpecs) {
  auto a = parse_port_spec("veth-a");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->ifname, "veth-a");
  EXPECT_EQ(a->port_no, 0u);
  EXPECT_FALSE(a->tap);
  auto b = parse_port_spec("veth-b=5");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->ifname, "veth-b");
  EXPECT_EQ(b->port_no, 5u);
  auto t = parse_port_spec("tap:tap0=7");
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->tap);
  EXPECT_EQ(t->ifname, "tap0");
  EXPECT_EQ(t->port_no, 7u);
  EXPECT_FALSE(parse_port_spec("veth=0").ok());
  EXPECT_FALSE(parse_port_spec("veth=abc").ok());
  EXPECT_FALSE(parse_port_spec("veth=65280").ok());  // reserved range
  EXPECT_FALSE(parse_port_spec("").ok());
  EXPECT_FALSE(parse_port_spec("averyveryverylongname").ok());
  EXPECT_NE(parse_port_spec("x=0").error().message.find("--port x=0"), std::string::npos);
}

TEST(SwitchOptions, LocalPortSpec) {
  auto t = parse_local_port_spec("tap:br0");
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->tap);
  EXPECT_EQ(t->ifname, "br0");
  EXPECT_EQ(t->port_no, 0xfffffffeu);
  auto e = parse_local_port_spec("tap:br0=3");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("--local tap:br0=3"), std::string::npos) << e.error().message;
  auto bad = parse_local_port_spec("a/b");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("--local a/b"), std::string::npos) << bad.error().message;

  SwitchOptions o;
  o.ports = {PortSpec{"lo", false, 0}};
  o.local_port = PortSpec{"lo", false, 0xfffffffe};
  auto twice = validate_options(o);
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().message.find("also a --port"), std::string::npos) << twice.error().message;
  o.local_port = PortSpec{"flnosuchif0", false, 0xfffffffe};
  auto missing = validate_options(o);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("--local flnosuchif0: no such network interface"), std::string::npos)
      << missing.error().message;
  o.local_port = PortSpec{"flnosuchif0", true, 0xfffffffe};  // a TAP is created at start
  EXPECT_TRUE(validate_options(o).ok());
}

TEST(SwitchOptions, NumbersAssignedLowestFree) {
  std::vector<PortSpec> ports = {{"a", false, 0}, {"b", false, 1}, {"c", false, 0}, {"d", false, 3}};
  ASSERT_TRUE(assign_port_numbers(ports).ok());
  EXPECT_EQ(ports[0].port_no, 2u);
  EXPECT_EQ(ports[1].port_no, 1u);
  EXPECT_EQ(ports[2].port_no, 4u);
  EXPECT_EQ(ports[3].port_no, 3u);
}

TEST(SwitchOptions, DuplicatePortNumberIsAnError) {
  std::vector<PortSpec> ports = {{"a", false, 5}, {"b", false, 5}};
  auto st = assign_port_numbers(ports);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("already taken"), std::string::npos);
  std::vector<PortSpec> same = {{"a", false, 0}, {"a", false, 0}};
  EXPECT_FALSE(assign_port_numbers(same).ok());
  std::vector<PortSpec> none;
  EXPECT_FALSE(assign_port_numbers(none).ok());
}

TEST(SwitchOptions, MissingInterfaceIsAnError) {
  SwitchOptions o;
  o.ports = {{"lo", false, 0}, {"flnoexist0", false, 0}};
  auto st = validate_options(o);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "--port flnoexist0: no such network interface");
  SwitchOptions ok;
  ok.ports = {{"lo", false, 0}};
  EXPECT_TRUE(validate_options(ok).ok());
  EXPECT_EQ(ok.ports[0].port_no, 1u);
}

TEST(SwitchOptions, SslControllerNeedsReadableCertKeyAndCa) {
  SwitchOptions o;
  o.ports = {{"lo", false, 0}};
  o.controllers = {*parse_controller_target("ssl:127.0.0.1:6653")};
  auto st = validate_options(o);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "--controller ssl:127.0.0.1:6653: TLS needs --cert, --key and --ca");
  o.cert_file = "/etc/hostname";
  o.key_file = "/etc/hostname";
  o.ca_file = "/nonexistent/ca.pem";
  st = validate_options(o);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "--controller ssl:127.0.0.1:6653: cannot read /nonexistent/ca.pem");
}

TEST(SwitchOptions, Targets) {
  auto c = parse_controller_target("tcp:127.0.0.1:6633");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->host, "127.0.0.1");
  EXPECT_EQ(c->port, 6633);
  EXPECT_FALSE(c->passive);
  auto d = parse_controller_target("tcp:localhost");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->port, 6653);
  auto v6 = parse_controller_target("tcp:[::1]:7000");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 7000);
  EXPECT_FALSE(c->tls);
  auto s = parse_controller_target("ssl:10.0.0.9:6653");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->tls);
  EXPECT_EQ(s->host, "10.0.0.9");
  EXPECT_FALSE(parse_controller_target("udp:1.2.3.4:5").ok());
  EXPECT_FALSE(parse_controller_target("tcp:1.2.3.4:70000").ok());
  EXPECT_FALSE(parse_controller_target("tcp::5").ok());

  auto l = parse_listen_target("ptcp:6634");
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(l->passive);
  EXPECT_EQ(l->port, 6634);
  EXPECT_EQ(l->host, "0.0.0.0");
  auto l2 = parse_listen_target("ptcp:0:127.0.0.1");
  ASSERT_TRUE(l2.ok());
  EXPECT_EQ(l2->port, 0);
  EXPECT_EQ(l2->host, "127.0.0.1");
  EXPECT_FALSE(parse_listen_target("tcp:6634").ok());
  EXPECT_FALSE(parse_listen_target("ptcp:").ok());
}

TEST(SwitchOptions, DpidProtocolsFailMode) {
  EXPECT_EQ(*parse_dpid("0x1"), 1u);
  EXPECT_EQ(*parse_dpid("42"), 42u);
  EXPECT_EQ(*parse_dpid("00000000000000ff"), 255u);
  EXPECT_EQ(*parse_dpid("0xffffffffffffffff"), ~0ull);
  EXPECT_FALSE(parse_dpid("0x").ok());
  EXPECT_FALSE(parse_dpid("12ab").ok());
  EXPECT_EQ(*parse_protocols("OpenFlow13"), 1u << 4);
  EXPECT_EQ(*parse_protocols("OpenFlow13,OpenFlow10"), (1u << 4) | (1u << 1));
  EXPECT_EQ(*parse_protocols("OpenFlow10,OpenFlow13,OpenFlow14"), (1u << 5) | (1u << 4) | (1u << 1));
  EXPECT_EQ(SwitchOptions{}.version_bitmap,
            (1u << 6) | (1u << 5) | (1u << 4) | (1u << 1));  // the default: all four
  EXPECT_EQ(*parse_protocols("OpenFlow15"), 1u << 6);
  EXPECT_FALSE(parse_protocols("OpenFlow12").ok());
  EXPECT_FALSE(parse_protocols("").ok());
  EXPECT_EQ(*parse_fail_mode("standalone"), FailMode::kStandalone);
  EXPECT_FALSE(parse_fail_mode("open").ok());
}

}  // namespace
}  // namespace flowlab::sw
