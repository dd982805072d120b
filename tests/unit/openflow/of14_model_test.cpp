// OpenFlow 1.4 through decode_message/encode_message (the shared model, what
// the switch, the controller and ofctl use): os-ken's vectors
// (osken_of14_vectors.py) decode at version 5 and re-encode to the same bytes;
// the parts 1.4 changed land in the model's fields (importance, ports' ethernet
// property, set-async properties, role status); standard bundles become the
// ONF extension's messages and their errors OFPET_BUNDLE_FAILED; what the
// model cannot hold is refused with the spec's error.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include "openflow/codec.h"
#include "openflow/of13/bundle.h"

namespace flowlab::of {
namespace {

Bytes from_hex(const std::string& h) {
  Bytes b;
  for (size_t i = 0; i + 1 < h.size(); i += 2) b.push_back(uint8_t(std::stoul(h.substr(i, 2), nullptr, 16)));
  return b;
}

// name -> wire; empty when python3-os-ken is not installed.
const std::map<std::string, Bytes>& vectors() {
  static const auto v = [] {
    std::map<std::string, Bytes> out;
    if (!std::filesystem::exists("/usr/lib/python3/dist-packages/os_ken")) return out;
    const std::string script = std::string(FLOWLAB_SOURCE_DIR) + "/tests/unit/openflow/osken_of14_vectors.py";
    FILE* f = popen(("/usr/bin/python3 " + script).c_str(), "r");
    if (!f) return out;
    std::string text;
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, f)) text.append(buf, n);
    pclose(f);
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
      std::istringstream l(line);
      std::string name, hex;
      l >> name >> hex;
      out[name] = from_hex(hex);
    }
    return out;
  }();
  return v;
}

#define NEED_OSKEN()                                                        \
  if (vectors().empty()) GTEST_SKIP() << "python3-os-ken is not installed"; \
  (void)0

Message decoded(const std::string& name) {
  auto m = decode_message(vectors().at(name));
  EXPECT_TRUE(m.ok()) << name << ": " << (m.ok() ? "" : m.error().to_string());
  return m.ok() ? *m : Message{};
}

TEST(Of14Model, OskenVectorsRoundTripThroughTheModel) {
  NEED_OSKEN();
  ASSERT_GE(vectors().size(), 24u);
  for (const auto& [name, wire] : vectors()) {
    if (name == "port_desc_reply") continue;  // carries an optical property the model drops (below)
    auto m = decode_message(wire);
    ASSERT_TRUE(m.ok()) << name << ": " << m.error().to_string();
    EXPECT_EQ(m->version, kOf14) << name;
    EXPECT_EQ(m->xid, 0x1234u) << name;
    auto again = encode_message(*m);
    ASSERT_TRUE(again.ok()) << name << ": " << again.error().to_string();
    EXPECT_EQ(*again, wire) << name;
  }
}

TEST(Of14Model, ChangedFieldsLandInTheModel) {
  NEED_OSKEN();
  Message fm = decoded("flow_mod_importance");
  ASSERT_TRUE(fm.is<FlowMod>());
  EXPECT_EQ(fm.as<FlowMod>().importance, 42);
  EXPECT_EQ(fm.as<FlowMod>().priority, 300);

  Message fs = decoded("flow_stats_reply");
  const auto& flows = std::get<FlowStatsReply>(fs.as<MultipartReply>().body).stats;
  ASSERT_EQ(flows.size(), 1u);
  EXPECT_EQ(flows[0].importance, 42);

  Message ps = decoded("port_status");
  EXPECT_EQ(ps.as<PortStatus>().desc.curr_speed, 1000000u);
  EXPECT_EQ(ps.as<PortStatus>().desc.name, "t1");

  Message pd = decoded("port_desc_reply");
  const auto& ports = std::get<PortDescReply>(pd.as<MultipartReply>().body).ports;
  ASSERT_EQ(ports.size(), 2u);
  EXPECT_EQ(ports[1].max_speed, 10000000u);
  // Re-encoded without the optical property: the ethernet one only, 72 bytes a port.
  auto wire = encode_message(pd);
  ASSERT_TRUE(wire.ok());
  EXPECT_EQ(wire->size(), 16u + 2 * 72);

  Message pst = decoded("port_stats_reply");
  const auto& st = std::get<PortStatsReply>(pst.as<MultipartReply>().body).stats;
  ASSERT_EQ(st.size(), 1u);
  EXPECT_EQ(st[0].rx_crc_err, 13u);

  Message rs = decoded("role_status");
  ASSERT_TRUE(rs.is<RoleStatus>());
  EXPECT_EQ(rs.as<RoleStatus>().role, ControllerRole::kSlave);
  EXPECT_EQ(rs.type(), MsgType::kRoleStatus);
  EXPECT_EQ(decoded("table_status").type(), MsgType::kTableStatus);
}

TEST(Of14Model, SetAsyncCarriesOnlyItsProperties) {
  NEED_OSKEN();
  Message sa = decoded("set_async");  // packet-in master 7, port-status slave 1, table-status master 0x18
  ASSERT_TRUE(sa.is<SetAsync>());
  const SetAsync& a = sa.as<SetAsync>();
  EXPECT_EQ(a.present, (1u << 1) | (1u << 2) | (1u << 9));
  EXPECT_EQ(a.packet_in_mask[0], 7u);
  EXPECT_EQ(a.port_status_mask[1], 1u);
  EXPECT_EQ(a.table_status_mask[0], 0x18u);
  // A get-async reply from the model carries every property: 12 of 8 bytes.
  GetAsyncReply r;
  r.role_status_mask = {7, 7};
  auto wire = encode_message(make_message(kOf14, 9, r));
  ASSERT_TRUE(wire.ok());
  ASSERT_EQ(wire->size(), 8u + 12 * 8);
  EXPECT_EQ(load_be16(&(*wire)[8 + 6 * 8]), 6);  // OFPACPT_ROLE_STATUS_SLAVE
  EXPECT_EQ(load_be32(&(*wire)[8 + 6 * 8 + 4]), 7u);
}

TEST(Of14Model, StandardBundlesAreTheOnfExtensionInTheModel) {
  NEED_OSKEN();
  Message open = decoded("bundle_open");
  ASSERT_TRUE(open.is<ExperimenterMsg>());
  ASSERT_TRUE(is_bundle_control(open.as<ExperimenterMsg>()));
  auto c = decode_bundle_control(open.as<ExperimenterMsg>());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->bundle_id, 7u);
  EXPECT_EQ(c->flags, bundle_flags::kAtomic | bundle_flags::kOrdered);
  Message add = decoded("bundle_add_flow_mod");
  auto a = decode_bundle_add(add.as<ExperimenterMsg>());
  ASSERT_TRUE(a.ok());
  auto inner = decode_message(a->message);
  ASSERT_TRUE(inner.ok());
  EXPECT_EQ(inner->version, kOf14);
  EXPECT_TRUE(inner->is<FlowMod>());

  // An ONF bundle error sent at 1.4 is OFPET_BUNDLE_FAILED (17) with the code.
  Message err = make_bundle_error(BundleFailedCode::kBadId, vectors().at("bundle_commit"));
  err.version = kOf14;
  auto wire = encode_message(err);
  ASSERT_TRUE(wire.ok());
  EXPECT_EQ((*wire)[0], kOf14);
  EXPECT_EQ((*wire)[1], uint8_t(MsgType::kError));
  EXPECT_EQ(load_be16(&(*wire)[8]), 17);
  EXPECT_EQ(load_be16(&(*wire)[10]), uint16_t(BundleFailedCode::kBadId));
  EXPECT_EQ(load_be32(&(*wire)[4]), 0x1234u);  // the commit's xid
}

TEST(Of14Model, WhatTheModelCannotHoldIsRefused) {
  NEED_OSKEN();
  // A port-mod with an optical property: OFPET_BAD_PROPERTY / OFPBPC_BAD_TYPE.
  Bytes pm = vectors().at("port_mod_no_props");
  const Bytes optical = {0, 1, 0, 8, 0, 0, 0, 0};
  pm.insert(pm.end(), optical.begin(), optical.end());
  store_be16(&pm[2], uint16_t(pm.size()));
  auto bad = decode_message(pm);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().type, ErrorType::kBadProperty);
  EXPECT_EQ(bad.error().code, 0);
  // The error reply to a 1.4 request is a 1.4 message.
  Message reply = make_error_reply(bad.error(), pm);
  EXPECT_EQ(reply.version, kOf14);
  auto wire = encode_message(reply);
  ASSERT_TRUE(wire.ok());
  EXPECT_EQ(load_be16(&(*wire)[8]), 14);
  // Role status is OF1.4 only: the 1.3 encoder refuses it.
  EXPECT_FALSE(encode_message(make_message(kOf13, 1, RoleStatus{})).ok());
}

TEST(Of14Model, NegotiatesVersion5FromBitmaps) {
  const uint32_t ours = version_bitmap({kOf10, kOf13, kOf14});
  EXPECT_EQ(negotiate_version(ours, make_hello(kOf14, version_bitmap({kOf13, kOf14}))), kOf14);
  EXPECT_EQ(negotiate_version(ours, make_hello(kOf13, version_bitmap({kOf10, kOf13}))), kOf13);
  EXPECT_EQ(negotiate_version(version_bitmap({kOf10, kOf13}), make_hello(kOf14, version_bitmap({kOf14}))), 0);
  // A hello without a bitmap at version 6: the lower one we speak.
  EXPECT_EQ(negotiate_version(ours, make_message(6, 0, Hello{})), kOf14);
}

}  // namespace
}  // namespace flowlab::of
