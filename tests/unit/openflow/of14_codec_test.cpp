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

#include "openflow/codec.h"
#include "openflow/of14/of14.h"
#include "osken_vectors.h"

namespace flowlab::of::of14 {
namespace {

using nlohmann::json;

using osken_vectors::from_hex;
using osken_vectors::Vector;

// name -> vector; empty when python3-os-ken is not installed.
std::map<std::string, Vector> load_vectors() { return osken_vectors::load("osken_of14_vectors.py"); }

const std::map<std::string, Vector>& vectors() {
  static const auto v = load_vectors();
  return v;
}

#define NEED_OSKEN()                                                        \
  if (vectors().empty()) GTEST_SKIP() << "python3-os-ken is not installed"; \
  (void)0

TEST(Of14Codec, EveryOskenVectorRoundTrips) {
  NEED_OSKEN();
  EXPECT_GE(vectors().size(), 30u);
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
TEST(Of14Codec, QueueDescriptionRequestAndReply) {
  NEED_OSKEN();
  auto rq = decode_message(vectors().at("queue_desc_request").wire);
  ASSERT_TRUE(rq.ok()) << rq.error().to_string();
  const auto& req = std::get<QueueDescRequest>(rq->as<MultipartRequest>().body);
  EXPECT_EQ(req.port_no, 3u);
  EXPECT_EQ(req.queue_id, 0xffffffffu);
  auto any = decode_message(vectors().at("queue_desc_request_any").wire);
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(std::get<QueueDescRequest>(any->as<MultipartRequest>().body), QueueDescRequest{});

  auto rp = decode_message(vectors().at("queue_desc_reply").wire);
  ASSERT_TRUE(rp.ok()) << rp.error().to_string();
  const auto& queues = std::get<QueueDescReply>(rp->as<MultipartReply>().body).queues;
  ASSERT_EQ(queues.size(), 2u);
  EXPECT_EQ(queues[0].port_no, 1u);
  EXPECT_EQ(queues[0].queue_id, 0u);
  ASSERT_EQ(queues[0].properties.size(), 2u);
  EXPECT_EQ(queues[0].properties[0].type, QueuePropType::kMinRate);
  EXPECT_EQ(queues[0].properties[0].rate, 50);
  EXPECT_EQ(queues[0].properties[1].type, QueuePropType::kMaxRate);
  EXPECT_EQ(queues[0].properties[1].rate, 1000);
  EXPECT_EQ(queues[1].queue_id, 5u);
  ASSERT_EQ(queues[1].properties.size(), 1u);
  EXPECT_EQ(queues[1].properties[0].type, QueuePropType::kExperimenter);
  EXPECT_EQ(queues[1].properties[0].experimenter, 0x2320u);
  EXPECT_EQ(queues[1].properties[0].exp_type, 7u);
  EXPECT_EQ(queues[1].properties[0].data, (Bytes{0, 0, 0, 9}));
  EXPECT_TRUE(std::get<QueueDescReply>(
                  decode_message(vectors().at("queue_desc_reply_empty").wire)->as<MultipartReply>().body)
                  .queues.empty());

  // At 1.5 the queue description is 1.4's: the same bytes with version 6.
  for (const char* name : {"queue_desc_request", "queue_desc_reply"}) {
    Bytes wire = vectors().at(name).wire;
    wire[0] = kOf15;
    auto m = decode_message(wire);
    ASSERT_TRUE(m.ok()) << name << ": " << m.error().to_string();
    EXPECT_EQ(m->version, kOf15);
    auto again = encode_message(*m);
    ASSERT_TRUE(again.ok()) << name;
    EXPECT_EQ(*again, wire) << name;
  }

  // Bad properties: a type that is not a queue's, a rate property of 16 bytes.
  Bytes bad_type = vectors().at("queue_desc_reply").wire;
  store_be16(&bad_type[16 + 16], 7);
  auto bt = decode_of14(bad_type);
  ASSERT_FALSE(bt.ok());
  EXPECT_EQ(uint16_t(bt.error().type), kErrBadProperty);
  EXPECT_EQ(bt.error().code, 0);  // OFPBPC_BAD_TYPE
  Bytes bad_len = vectors().at("queue_desc_reply").wire;
  store_be16(&bad_len[16 + 16 + 2], 16);
  auto bl = decode_of14(bad_len);
  ASSERT_FALSE(bl.ok());
  EXPECT_EQ(uint16_t(bl.error().type), kErrBadProperty);
  EXPECT_EQ(bl.error().code, 1);  // OFPBPC_BAD_LEN
  // An entry whose length runs past the message.
  Bytes long_entry = vectors().at("queue_desc_reply").wire;
  store_be16(&long_entry[16 + 8], 0x100);
  EXPECT_EQ(decode_of14(long_entry).error().code, uint16_t(BadRequestCode::kBadLen));
  // At 1.3 the model's queue description is refused, not written as 1.3.
  of::Message at13 = *rq;
  at13.version = kOf13;
  EXPECT_FALSE(encode_message(at13).ok());
}

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

TEST(Of14Codec, TableModAndTableDescriptions) {
  NEED_OSKEN();
  const Vector& v = vectors().at("table_mod_eviction_vacancy");
  auto tm = decode_of14(v.wire);
  ASSERT_TRUE(tm.ok()) << tm.error().to_string();
  const auto& t = std::get<TableMod>(tm->body);
  EXPECT_EQ(t.table_id, v.fields["table_id"].get<int>());
  EXPECT_EQ(t.config, table_config::kEviction | table_config::kVacancyEvents);
  EXPECT_EQ(t.eviction_flags, v.fields["eviction_flags"].get<uint32_t>());
  ASSERT_TRUE(t.vacancy.has_value());
  EXPECT_EQ(t.vacancy->down, v.fields["down"].get<int>());
  EXPECT_EQ(t.vacancy->up, v.fields["up"].get<int>());
  // Through the shared model (what the switch gets) and back.
  auto shared = of::decode_of14(v.wire);
  ASSERT_TRUE(shared.ok());
  EXPECT_EQ(shared->as<of::TableMod>().vacancy, t.vacancy);
  EXPECT_EQ(*of::encode_of14(*shared), v.wire);
  auto plain = of::decode_of14(vectors().at("table_mod_plain").wire);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->as<of::TableMod>().table_id, table::kAll);
  EXPECT_FALSE(plain->as<of::TableMod>().eviction_flags.has_value());
  EXPECT_FALSE(plain->as<of::TableMod>().vacancy.has_value());

  auto rq = of::decode_of14(vectors().at("table_desc_request").wire);
  ASSERT_TRUE(rq.ok()) << rq.error().to_string();
  EXPECT_TRUE(std::holds_alternative<TableDescRequest>(rq->as<MultipartRequest>().body));

  const Vector& r = vectors().at("table_desc_reply");
  auto rep = of::decode_of14(r.wire);
  ASSERT_TRUE(rep.ok()) << rep.error().to_string();
  const auto& tables = std::get<of::TableDescReply>(rep->as<MultipartReply>().body).tables;
  ASSERT_EQ(tables.size(), r.fields["tables"].get<size_t>());
  EXPECT_FALSE(tables[0].eviction_flags.has_value());
  EXPECT_EQ(tables[1].config, table_config::kEviction);
  EXPECT_EQ(tables[1].eviction_flags, r.fields["eviction_flags"].get<uint32_t>());
  ASSERT_TRUE(tables[1].vacancy.has_value());
  EXPECT_EQ(tables[1].vacancy->vacancy, r.fields["vacancy"].get<int>());
  EXPECT_EQ(*of::encode_of14(*rep), r.wire);

  // A table status carries a table description's properties.
  TableDesc d{2, table_config::kVacancyEvents, std::nullopt, TableVacancy{20, 80, 15}};
  Bytes status = vectors().at("table_status").wire;
  EXPECT_EQ(table_desc_properties(d), Bytes(status.begin() + 24, status.end()));
}

// Every malformed table-mod answers the spec's error: a bad property with
// OFPET_BAD_PROPERTY and its code, unknown config bits OFPTMFC_BAD_CONFIG.
TEST(Of14Codec, MalformedTableModsAnswerTheSpecsErrors) {
  NEED_OSKEN();
  const Bytes good = vectors().at("table_mod_eviction_vacancy").wire;
  auto code_of = [](Bytes b) -> std::pair<uint16_t, uint16_t> {
    auto m = decode_of14(b);
    if (m.ok()) return {0xffff, 0xffff};
    return {uint16_t(m.error().type), m.error().code};
  };
  const uint16_t bp = uint16_t(ErrorType::kBadProperty);
  Bytes b = good;
  store_be16(&b[16], 7);                                   // an unknown property type
  EXPECT_EQ(code_of(b), std::make_pair(bp, uint16_t(0)));  // OFPBPC_BAD_TYPE
  b = good;
  store_be16(&b[16], 0xffff);                              // experimenter
  EXPECT_EQ(code_of(b), std::make_pair(bp, uint16_t(5)));  // OFPBPC_BAD_EXPERIMENTER
  b = good;
  store_be16(&b[18], 12);                                  // eviction property length 12
  EXPECT_EQ(code_of(b), std::make_pair(bp, uint16_t(1)));  // OFPBPC_BAD_LEN
  b = good;
  store_be32(&b[20], 8);                                   // an eviction flag 1.4 does not have
  EXPECT_EQ(code_of(b), std::make_pair(bp, uint16_t(2)));  // OFPBPC_BAD_VALUE
  b = good;
  b[28] = 90;  // vacancy_down 90 > vacancy_up 80
  EXPECT_EQ(code_of(b), std::make_pair(bp, uint16_t(2)));
  b = good;
  b[29] = 101;  // vacancy_up over 100%
  EXPECT_EQ(code_of(b), std::make_pair(bp, uint16_t(2)));
  b = good;
  store_be16(&b[24], 2);  // two eviction properties
  store_be32(&b[28], 2);
  EXPECT_EQ(code_of(b), std::make_pair(bp, uint16_t(4)));  // OFPBPC_DUP_TYPE
  b = good;
  b.resize(b.size() - 2);  // a property cut short
  store_be16(&b[2], uint16_t(b.size()));
  EXPECT_EQ(code_of(b), std::make_pair(bp, uint16_t(1)));
  b = good;
  store_be32(&b[12], 0x10);  // a config bit 1.4 does not have
  EXPECT_EQ(code_of(b), std::make_pair(uint16_t(ErrorType::kTableModFailed), uint16_t(1)));  // BAD_CONFIG
  // A table-desc request with a body, a description whose length overruns.
  Bytes rq = vectors().at("table_desc_request").wire;
  rq.insert(rq.end(), 8, 0);
  store_be16(&rq[2], uint16_t(rq.size()));
  EXPECT_EQ(code_of(rq), std::make_pair(uint16_t(ErrorType::kBadRequest), uint16_t(BadRequestCode::kBadLen)));
  Bytes rep = vectors().at("table_desc_reply").wire;
  store_be16(&rep[24], 64);
  EXPECT_EQ(code_of(rep),
            std::make_pair(uint16_t(ErrorType::kBadRequest), uint16_t(BadRequestCode::kBadLen)));
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
  // A queue description request without its 8-byte body; a multipart type past 1.4's.
  Bytes queue_desc = {kOf14, 18, 0, 16, 0, 0, 0, 1, 0, 15, 0, 0, 0, 0, 0, 0};
  auto qd = decode_of14(queue_desc);
  ASSERT_FALSE(qd.ok());
  EXPECT_EQ(qd.error().code, uint16_t(BadRequestCode::kBadLen));
  Bytes controller_status = {kOf14, 18, 0, 16, 0, 0, 0, 1, 0, 18, 0, 0, 0, 0, 0, 0};
  auto cs = decode_of14(controller_status);
  ASSERT_FALSE(cs.ok());
  EXPECT_EQ(cs.error().code, uint16_t(BadRequestCode::kBadMultipart));
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
