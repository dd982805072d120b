// OpenFlow 1.4 codec: every vector os-ken makes (osken_of14_vectors.py, run
// with Debian's /usr/bin/python3 and python3-os-ken) decodes to the fields the
// script reports and re-encodes to the same bytes; truncations and bad
// properties fail with the spec's errors; 1.4 wire this codec does not decode
// is refused, never read the 1.3 way.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "openflow/of14/of14.h"

namespace flowlab::of::of14 {
namespace {

using nlohmann::json;

struct Vector {
  Bytes wire;
  json fields;
};

Bytes from_hex(const std::string& h) {
  Bytes b;
  for (size_t i = 0; i + 1 < h.size(); i += 2) b.push_back(uint8_t(std::stoul(h.substr(i, 2), nullptr, 16)));
  return b;
}

// name -> vector; empty when python3-os-ken is not installed.
std::map<std::string, Vector> osken_vectors() {
  const std::string script = std::string(FLOWLAB_SOURCE_DIR) + "/tests/unit/openflow/osken_of14_vectors.py";
  if (!std::filesystem::exists("/usr/lib/python3/dist-packages/os_ken")) return {};
  std::map<std::string, Vector> out;
  FILE* f = popen(("/usr/bin/python3 " + script + " 2>&1").c_str(), "r");
  if (!f) return {};
  std::string text;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, f)) text.append(buf, n);
  const int rc = pclose(f);
  EXPECT_EQ(rc, 0) << text;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream l(line);
    std::string name, hex, rest;
    l >> name >> hex;
    std::getline(l, rest);
    out[name] = Vector{from_hex(hex), json::parse(rest)};
  }
  return out;
}

const std::map<std::string, Vector>& vectors() {
  static const auto v = osken_vectors();
  return v;
}

#define NEED_OSKEN()                                                        \
  if (vectors().empty()) GTEST_SKIP() << "python3-os-ken is not installed"; \
  (void)0

TEST(Of14Codec, EveryOskenVectorRoundTrips) {
  NEED_OSKEN();
  EXPECT_GE(vectors().size(), 26u);
  for (const auto& [name, v] : vectors()) {
    auto m = decode_of14(v.wire);
    ASSERT_TRUE(m.ok()) << name << ": " << m.error().to_string();
    EXPECT_EQ(m->xid, 0x1234u) << name;
    auto again = encode_of14(*m);
    ASSERT_TRUE(again.ok()) << name << ": " << again.error().to_string();
    EXPECT_EQ(*again, v.wire) << name;
    EXPECT_EQ(v.wire[1], v.fields["type"].get<int>()) << name;
  }
}

TEST(Of14Codec, SharedMessagesAreTheModelAtVersion5) {
  NEED_OSKEN();
  auto hello = decode_of14(vectors().at("hello").wire);
  ASSERT_TRUE(hello.ok());
  EXPECT_EQ(std::get<of::Message>(hello->body).version, kOf14);
  EXPECT_TRUE(std::get<of::Message>(hello->body).is<Hello>());
  auto m = decode_of14(vectors().at("flow_mod_importance").wire);
  ASSERT_TRUE(m.ok());
  const auto& fm = std::get<FlowMod>(m->body);
  EXPECT_EQ(fm.importance, 42);
  EXPECT_EQ(fm.mod.priority, 300);
  EXPECT_EQ(fm.mod.table_id, 1);
  EXPECT_EQ(fm.mod.match.fields.size(), 3u);
  auto stats = decode_of14(vectors().at("flow_stats_reply").wire);
  ASSERT_TRUE(stats.ok());
  const auto& fs = std::get<FlowStatsReply>(stats->body);
  ASSERT_EQ(fs.flows.size(), 1u);
  EXPECT_EQ(fs.importance, std::vector<uint16_t>{42});
  EXPECT_EQ(fs.flows[0].packet_count, 100u);
}

TEST(Of14Codec, PortsWithProperties) {
  NEED_OSKEN();
  auto ps = decode_of14(vectors().at("port_status").wire);
  ASSERT_TRUE(ps.ok());
  const auto& st = std::get<PortStatus>(ps->body);
  EXPECT_EQ(st.reason, 2);
  EXPECT_EQ(st.port.desc.port_no, 1u);
  EXPECT_EQ(st.port.desc.name, "t1");
  EXPECT_EQ(st.port.desc.state, 4u);
  EXPECT_EQ(st.port.desc.curr_speed, 1000000u);
  EXPECT_EQ(st.port.desc.max_speed, 10000000u);
  EXPECT_TRUE(st.port.ethernet);
  EXPECT_TRUE(st.port.other_props.empty());

  auto pd = decode_of14(vectors().at("port_desc_reply").wire);
  ASSERT_TRUE(pd.ok());
  const auto& ports = std::get<PortDescReply>(pd->body).ports;
  ASSERT_EQ(ports.size(), 2u);
  EXPECT_EQ(ports[1].desc.name, "t2");
  EXPECT_EQ(ports[1].other_props.size(),
            vectors().at("port_desc_reply").fields["optical_bytes"].get<size_t>());
  EXPECT_EQ(load_be16(ports[1].other_props.data()), kPortPropOptical);

  for (const char* name : {"port_mod_ethernet", "port_mod_no_props"}) {
    const json& want = vectors().at(name).fields;
    auto pm = decode_of14(vectors().at(name).wire);
    ASSERT_TRUE(pm.ok()) << name;
    const auto& mod = std::get<PortMod>(pm->body);
    EXPECT_EQ(mod.mod.port_no, want["port_no"].get<uint32_t>()) << name;
    EXPECT_EQ(mod.mod.config, want["config"].get<uint32_t>()) << name;
    EXPECT_EQ(mod.mod.mask, want["mask"].get<uint32_t>()) << name;
    EXPECT_EQ(mod.mod.advertise, want["advertise"].get<uint32_t>()) << name;
    EXPECT_EQ(mod.ethernet, want["ethernet"].get<bool>()) << name;
  }
}

TEST(Of14Codec, RoleTableStatusAsyncAndBundles) {
  NEED_OSKEN();
  auto rs = decode_of14(vectors().at("role_status").wire);
  ASSERT_TRUE(rs.ok());
  EXPECT_EQ(std::get<RoleStatus>(rs->body).role, ControllerRole::kSlave);
  EXPECT_EQ(std::get<RoleStatus>(rs->body).generation_id, 0x1122334455667788u);

  auto ts = decode_of14(vectors().at("table_status").wire);
  ASSERT_TRUE(ts.ok());
  const auto& t = std::get<TableStatus>(ts->body);
  EXPECT_EQ(t.reason, TableStatusReason::kVacancyDown);
  EXPECT_EQ(t.table_id, 2);
  EXPECT_EQ(t.config, 8u);
  EXPECT_EQ(t.properties.size(), 8u);

  auto sa = decode_of14(vectors().at("set_async").wire);
  ASSERT_TRUE(sa.ok());
  const auto& a = std::get<AsyncConfig>(sa->body);
  EXPECT_FALSE(a.reply);
  const json& props = vectors().at("set_async").fields["props"];
  ASSERT_EQ(a.props.size(), props.size());
  for (size_t i = 0; i < props.size(); ++i) {
    EXPECT_EQ(a.props[i].type, props[i][0].get<uint16_t>());
    EXPECT_EQ(a.props[i].mask, props[i][1].get<uint32_t>());
  }
  of::AsyncConfig base;
  base.packet_in_mask = {1, 0};
  of::AsyncConfig applied = apply_async(base, a);
  EXPECT_EQ(applied.packet_in_mask[0], 7u);    // master
  EXPECT_EQ(applied.port_status_mask[1], 1u);  // slave
  EXPECT_TRUE(std::get<AsyncConfig>(decode_of14(vectors().at("get_async_reply").wire)->body).reply);

  auto open = decode_of14(vectors().at("bundle_open").wire);
  ASSERT_TRUE(open.ok());
  EXPECT_EQ(std::get<BundleControl>(open->body).bundle_id, 7u);
  EXPECT_EQ(std::get<BundleControl>(open->body).flags, bundle_flags::kAtomic | bundle_flags::kOrdered);
  auto add = decode_of14(vectors().at("bundle_add_flow_mod").wire);
  ASSERT_TRUE(add.ok());
  const auto& ba = std::get<BundleAdd>(add->body);
  EXPECT_EQ(ba.flags, bundle_flags::kAtomic);
  ASSERT_EQ(ba.message.size(), vectors().at("bundle_add_flow_mod").fields["inner_len"].get<size_t>());
  auto inner = decode_of14(ba.message);
  ASSERT_TRUE(inner.ok()) << inner.error().to_string();
  EXPECT_EQ(std::get<FlowMod>(inner->body).mod.priority, 10);
}

TEST(Of14Codec, PortAndQueueStatsWithProperties) {
  NEED_OSKEN();
  const json& want = vectors().at("port_stats_reply").fields;
  auto ps = decode_of14(vectors().at("port_stats_reply").wire);
  ASSERT_TRUE(ps.ok()) << ps.error().to_string();
  const auto& s = std::get<PortStatsReply>(ps->body).stats;
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].port_no, want["port_no"].get<uint32_t>());
  EXPECT_EQ(s[0].rx_packets, want["rx_packets"].get<uint64_t>());
  EXPECT_EQ(s[0].tx_errors, want["tx_errors"].get<uint64_t>());
  EXPECT_EQ(s[0].rx_frame_err, want["rx_frame_err"].get<uint64_t>());
  EXPECT_EQ(s[0].collisions, want["collisions"].get<uint64_t>());
  EXPECT_EQ(s[0].duration_sec, 9u);
  auto qs = decode_of14(vectors().at("queue_stats_reply").wire);
  ASSERT_TRUE(qs.ok()) << qs.error().to_string();
  const auto& q = std::get<QueueStatsReply>(qs->body).stats;
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].queue_id, 1u);
  EXPECT_EQ(q[0].tx_bytes, 1000u);
}

// Request forward: the group-mod or meter-mod inside is kept whole; one that
// is not 1.4, not a group/meter mod, or whose length disagrees is refused.
TEST(Of14Codec, RequestForwardCarriesTheRequest) {
  NEED_OSKEN();
  for (const char* name : {"request_forward_group_mod", "request_forward_meter_mod"}) {
    const Vector& v = vectors().at(name);
    auto m = decode_of14(v.wire);
    ASSERT_TRUE(m.ok()) << name;
    const Bytes& inner = std::get<RequestForward>(m->body).request;
    ASSERT_EQ(inner.size(), v.wire.size() - kHeaderLen);
    EXPECT_EQ(inner[1], v.fields["inner_type"].get<int>()) << name;
    EXPECT_EQ(load_be32(&inner[4]), v.fields["inner_xid"].get<uint32_t>()) << name;
    // group_id and meter_id are both at offset 12 (after command and type/flags)
    EXPECT_EQ(load_be32(&inner[12]), v.fields[inner[1] == 15 ? "group_id" : "meter_id"].get<uint32_t>());
  }
  Bytes rf = vectors().at("request_forward_group_mod").wire;
  Bytes wrong = rf;
  wrong[8] = kOf13;
  EXPECT_EQ(decode_of14(wrong).error().code, uint16_t(BadRequestCode::kBadVersion));
  wrong = rf;
  wrong[9] = 14;  // a flow-mod
  EXPECT_EQ(decode_of14(wrong).error().code, uint16_t(BadRequestCode::kBadType));
  wrong = rf;
  store_be16(&wrong[10], uint16_t(rf.size()));  // the inner length counts the outer header
  EXPECT_EQ(decode_of14(wrong).error().code, uint16_t(BadRequestCode::kBadLen));
}

TEST(Of14Codec, TruncationsFailCleanly) {
  NEED_OSKEN();
  for (const auto& [name, v] : vectors()) {
    for (size_t n = 0; n < v.wire.size(); ++n) {
      Bytes cut(v.wire.begin(), v.wire.begin() + long(n));
      if (cut.size() >= 4) store_be16(&cut[2], uint16_t(cut.size()));  // a consistent header, a short body
      auto m = decode_of14(cut);
      if (!m.ok()) continue;
      // Some prefixes are complete messages (an echo with less data, a port
      // description reply with fewer ports): they must still round-trip.
      auto again = encode_of14(*m);
      ASSERT_TRUE(again.ok()) << name << " cut at " << n;
      EXPECT_EQ(*again, cut) << name << " cut at " << n;
    }
  }
}

TEST(Of14Codec, BadPropertiesAndUndecodedPartsAreRefused) {
  NEED_OSKEN();
  Bytes pm = vectors().at("port_mod_ethernet").wire;
  store_be16(&pm[32 + 2], 12);  // ethernet property length 12 in an 8-byte slot
  auto bad = decode_of14(pm);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(uint16_t(bad.error().type), kErrBadProperty);

  Bytes sa = vectors().at("set_async").wire;
  store_be16(&sa[8], 0x40);  // an async property type 1.4 does not have
  ASSERT_FALSE(decode_of14(sa).ok());
  EXPECT_EQ(uint16_t(decode_of14(sa).error().type), kErrBadProperty);

  // A port stats entry whose ethernet property has the wrong length.
  Bytes port_stats = vectors().at("port_stats_reply").wire;
  store_be16(&port_stats[16 + 80 + 2], 32);
  auto ps = decode_of14(port_stats);
  ASSERT_FALSE(ps.ok());
  EXPECT_EQ(uint16_t(ps.error().type), kErrBadProperty);
  // A table description request (1.4 multipart 14) is refused by name.
  Bytes table_desc = {kOf14, 19, 0, 16, 0, 0, 0, 1, 0, 14, 0, 0, 0, 0, 0, 0};
  auto td = decode_of14(table_desc);
  ASSERT_FALSE(td.ok());
  EXPECT_EQ(td.error().code, uint16_t(BadRequestCode::kBadMultipart));
  Bytes reqfwd = {kOf14, 32, 0, 8, 0, 0, 0, 1};
  EXPECT_EQ(decode_of14(reqfwd).error().code, uint16_t(BadRequestCode::kBadLen));
  Bytes of13_hello = {kOf13, 0, 0, 8, 0, 0, 0, 1};
  EXPECT_EQ(decode_of14(of13_hello).error().code, uint16_t(BadRequestCode::kBadVersion));

  // A bundle whose inner message is not 1.4.
  Bytes add = vectors().at("bundle_add_flow_mod").wire;
  add[16] = kOf13;
  auto inner = decode_of14(add);
  ASSERT_FALSE(inner.ok());
  EXPECT_EQ(uint16_t(inner.error().type), kErrBundleFailed);
}

}  // namespace
}  // namespace flowlab::of::of14
