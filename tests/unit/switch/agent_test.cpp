// The switch's OpenFlow agent end to end over a loopback controller connection:
// handshake, features, config, flow-mod -> forwarding, packet-in/out, buffers,
// barrier, multipart, roles, errors that keep the connection up.
#include "switch_harness.h"

namespace flowlab::sw::testing {
namespace {

using of::MsgType;

struct AgentTest : ::testing::Test {
  TestController ctl;
  std::unique_ptr<SwitchFixture> fx;
  void SetUp() override {
    fx = std::make_unique<SwitchFixture>(options_with_controller(ctl.port()), 3);
    ASSERT_TRUE(ctl.wait_ready()) << "switch never connected to the controller";
  }
  void TearDown() override {
    if (fx && fx->sw) fx->sw->stop();
  }
  void install(of::FlowMod fm) {
    uint32_t xid = ctl.send(std::move(fm));
    uint32_t bx = ctl.send(of::BarrierRequest{});
    auto r = ctl.wait_xid(bx);
    ASSERT_TRUE(r.has_value());
    ASSERT_TRUE(r->is<of::BarrierReply>());
    // No error came back for the flow-mod before the barrier reply.
    ASSERT_FALSE(ctl.wait_xid(xid, 0ms).has_value());
  }
  of::ErrorMsg expect_error(uint32_t xid) {
    auto r = ctl.wait_xid(xid);
    EXPECT_TRUE(r.has_value() && r->is<of::ErrorMsg>()) << "no OFPT_ERROR for xid " << xid;
    return r && r->is<of::ErrorMsg>() ? r->as<of::ErrorMsg>() : of::ErrorMsg{};
  }
};

TEST_F(AgentTest, FeaturesConfigAndPortDesc) {
  EXPECT_EQ(ctl.version(), of::kOf13);
  auto r = ctl.wait_xid(ctl.send(of::FeaturesRequest{}));
  ASSERT_TRUE(r && r->is<of::FeaturesReply>());
  EXPECT_EQ(r->as<of::FeaturesReply>().datapath_id, 0x42u);
  EXPECT_EQ(r->as<of::FeaturesReply>().n_tables, 64);
  EXPECT_EQ(r->as<of::FeaturesReply>().n_buffers, 16384u);

  of::SetConfig sc;
  sc.miss_send_len = 200;
  ctl.send(sc);
  auto gc = ctl.wait_xid(ctl.send(of::GetConfigRequest{}));
  ASSERT_TRUE(gc && gc->is<of::GetConfigReply>());
  EXPECT_EQ(gc->as<of::GetConfigReply>().miss_send_len, 200);

  auto pd = ctl.wait_xid(ctl.send(of::MultipartRequest{0, of::PortDescRequest{}}));
  ASSERT_TRUE(pd && pd->is<of::MultipartReply>());
  const auto& ports = std::get<of::PortDescReply>(pd->as<of::MultipartReply>().body).ports;
  ASSERT_EQ(ports.size(), 3u);
  EXPECT_EQ(ports[0].port_no, 1u);
  EXPECT_EQ(ports[0].name, "mem1");
  EXPECT_EQ(ports[2].hw_addr, mac(0xa2));
  EXPECT_EQ(ports[0].state & of::port_state::kLinkDown, 0u);

  auto desc = ctl.wait_xid(ctl.send(of::MultipartRequest{0, of::DescRequest{}}));
  ASSERT_TRUE(desc && desc->is<of::MultipartReply>());
  EXPECT_EQ(std::get<of::DescReply>(desc->as<of::MultipartReply>().body).dp_desc, "t1");
}

TEST_F(AgentTest, FlowModForwardsAndCounts) {
  install(flow(1, {of::Action::output(2)}));
  Bytes f = udp_frame(1, 2);
  fx->mem[0]->inject(f);
  fx->mem[0]->inject(f);
  auto out = fx->wait_tx(1, 2);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].data, f);
  EXPECT_TRUE(fx->mem[2]->take_tx().empty());

  auto ps = ctl.wait_xid(ctl.send(of::MultipartRequest{0, of::PortStatsRequest{of::port::kAny}}));
  ASSERT_TRUE(ps && ps->is<of::MultipartReply>());
  const auto& st = std::get<of::PortStatsReply>(ps->as<of::MultipartReply>().body).stats;
  ASSERT_EQ(st.size(), 3u);
  EXPECT_EQ(st[0].rx_packets, 2u);
  EXPECT_EQ(st[1].tx_packets, 2u);
  EXPECT_EQ(st[1].tx_bytes, 2 * f.size());

  auto fs = ctl.wait_xid(ctl.send(of::MultipartRequest{0, of::FlowStatsRequest{}}));
  ASSERT_TRUE(fs && fs->is<of::MultipartReply>());
  const auto& flows = std::get<of::FlowStatsReply>(fs->as<of::MultipartReply>().body).stats;
  ASSERT_EQ(flows.size(), 1u);
  EXPECT_EQ(flows[0].packet_count, 2u);
  EXPECT_EQ(flows[0].byte_count, 2 * f.size());
}

// The LOCAL port (OVS's bridge device): listed in port-desc, an output and an
// in_port for flows, in FLOOD, with its own port stats.
TEST(AgentLocalPort, LocalPortForwardsFloodsAndCounts) {
  TestController ctl;
  SwitchFixture fx(options_with_controller(ctl.port()), 3, PortCapabilities::all(), true);
  ASSERT_TRUE(fx.sw);
  ASSERT_TRUE(ctl.wait_ready());
  auto pd = ctl.wait_xid(ctl.send(of::MultipartRequest{0, of::PortDescRequest{}}));
  ASSERT_TRUE(pd && pd->is<of::MultipartReply>());
  const auto& ports = std::get<of::PortDescReply>(pd->as<of::MultipartReply>().body).ports;
  ASSERT_EQ(ports.size(), 3u);
  EXPECT_EQ(ports[2].port_no, of::port::kLocal);
  EXPECT_EQ(ports[2].name, "mem3");

  auto barrier = [&] { ASSERT_TRUE(ctl.wait_xid(ctl.send(of::BarrierRequest{})).has_value()); };
  ctl.send(flow(1, {of::Action::output(of::port::kLocal)}));
  of::FlowMod back = flow(0, {of::Action::output(1)});
  back.match.add(of::OxmField::basic(of::OxmId::kInPort, of::port::kLocal));
  ctl.send(back);
  barrier();
  Bytes f = udp_frame(1, 3);
  fx.mem[0]->inject(f);
  auto got = fx.wait_tx(2, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].data, f);
  Bytes r = udp_frame(3, 1);
  fx.mem[2]->inject(r);
  got = fx.wait_tx(0, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].data, r);

  // FLOOD from port 2 reaches port 1 and LOCAL.
  of::FlowMod flood = flow(0, {of::Action::output(of::port::kFlood)});
  flood.match.add(of::OxmField::basic(of::OxmId::kInPort, 2));
  ctl.send(flood);
  barrier();
  fx.mem[1]->inject(udp_frame(2, 9));
  EXPECT_EQ(fx.wait_tx(0, 1).size(), 1u);
  EXPECT_EQ(fx.wait_tx(2, 1).size(), 1u);

  auto ps = ctl.wait_xid(ctl.send(of::MultipartRequest{0, of::PortStatsRequest{of::port::kLocal}}));
  ASSERT_TRUE(ps && ps->is<of::MultipartReply>());
  const auto& st = std::get<of::PortStatsReply>(ps->as<of::MultipartReply>().body).stats;
  ASSERT_EQ(st.size(), 1u);
  EXPECT_EQ(st[0].port_no, of::port::kLocal);
  EXPECT_EQ(st[0].rx_packets, 1u);
  EXPECT_EQ(st[0].tx_packets, 2u);
  fx.sw->stop();
}

// Table misses follow the controller's protocol, as in OVS: on the default
// OF1.3+OF1.0 switch an OF1.0 controller gets no-match packet-ins, an OF1.3
// one does not (OF1.3 drops a miss unless a table-miss flow says otherwise).
TEST(AgentTableMiss, Of10ControllerGetsMissesOnDualProtocolSwitch) {
  TestController ctl10({of::kOf10});
  TestController ctl13({of::kOf13});
  SwitchOptions o = options_with_controller(ctl10.port());
  SwitchOptions o13 = options_with_controller(ctl13.port());
  o.controllers.push_back(o13.controllers[0]);
  SwitchFixture fx(o, 2);
  ASSERT_TRUE(fx.sw);
  ASSERT_TRUE(ctl10.wait_ready());
  ASSERT_TRUE(ctl13.wait_ready());
  EXPECT_EQ(ctl10.version(), of::kOf10);
  EXPECT_EQ(ctl13.version(), of::kOf13);
  of::SetConfig sc;
  sc.miss_send_len = 64;
  ctl10.send(sc);
  ASSERT_TRUE(ctl10.wait_xid(ctl10.send(of::BarrierRequest{})).has_value());

  Bytes f = udp_frame(1, 2, 200);
  fx.mem[0]->inject(f);
  auto pin = ctl10.wait_for(of::MsgType::kPacketIn);
  ASSERT_TRUE(pin.has_value()) << "no packet-in for a table miss at the OF1.0 controller";
  const auto& pi = pin->as<of::PacketIn>();
  EXPECT_EQ(pi.reason, uint8_t(of::PacketInReason::kNoMatch));
  EXPECT_EQ(pi.total_len, f.size());
  EXPECT_EQ(pi.data.size(), 64u);  // miss_send_len, buffered
  EXPECT_NE(pi.buffer_id, of::kNoBuffer);
  EXPECT_FALSE(ctl13.wait_for(of::MsgType::kPacketIn, 300ms).has_value())
      << "the OF1.3 controller got a packet-in for a miss without a table-miss flow";
  EXPECT_TRUE(fx.mem[1]->take_tx().empty());
  fx.sw->stop();
}

// With only an OF1.3 controller a miss is dropped (and counted), never sent up.
TEST(AgentTableMiss, Of13ControllerAloneMissIsDropped) {
  TestController ctl13({of::kOf13});
  SwitchFixture fx(options_with_controller(ctl13.port()), 2);
  ASSERT_TRUE(fx.sw);
  ASSERT_TRUE(ctl13.wait_ready());
  fx.mem[0]->inject(udp_frame(1, 2));
  EXPECT_FALSE(ctl13.wait_for(of::MsgType::kPacketIn, 300ms).has_value());
  EXPECT_TRUE(fx.mem[1]->take_tx().empty());
  fx.sw->stop();
}

TEST_F(AgentTest, TableMissPacketInAndPacketOut) {
  install(flow(0, {of::Action::output(of::port::kController, of::kControllerMaxLenNoBuffer)}, 0));
  Bytes f = udp_frame(1, 2);
  fx->mem[0]->inject(f);
  auto pin = ctl.wait_for(MsgType::kPacketIn);
  ASSERT_TRUE(pin.has_value());
  const auto& pi = pin->as<of::PacketIn>();
  EXPECT_EQ(pi.buffer_id, of::kNoBuffer);
  EXPECT_EQ(pi.data, f);
  EXPECT_EQ(pi.total_len, f.size());
  ASSERT_NE(pi.match.find(of::OxmId::kInPort), nullptr);
  EXPECT_EQ(pi.match.find(of::OxmId::kInPort)->value_u64(), 1u);

  of::PacketOut po;
  po.in_port = 1;
  po.actions = {of::Action::output(of::port::kFlood)};
  po.data = f;
  ctl.send(po);
  EXPECT_EQ(fx->wait_tx(1, 1).size(), 1u);
  EXPECT_EQ(fx->wait_tx(2, 1).size(), 1u);
  EXPECT_TRUE(fx->mem[0]->take_tx().empty());  // FLOOD skips in_port
}

TEST_F(AgentTest, BufferedPacketInThenPacketOutByBufferId) {
  install(flow(0, {of::Action::output(of::port::kController, 64)}, 0));
  Bytes f = udp_frame(1, 3, 200);
  fx->mem[0]->inject(f);
  auto pin = ctl.wait_for(MsgType::kPacketIn);
  ASSERT_TRUE(pin.has_value());
  const auto& pi = pin->as<of::PacketIn>();
  ASSERT_NE(pi.buffer_id, of::kNoBuffer);
  EXPECT_EQ(pi.data.size(), 64u);
  EXPECT_EQ(pi.total_len, f.size());

  of::PacketOut po;
  po.buffer_id = pi.buffer_id;
  po.in_port = 1;
  po.actions = {of::Action::output(3)};
  ctl.send(po);
  auto out = fx->wait_tx(2, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].data, f);  // the whole packet, not the 64 bytes the controller saw

  // The id is used up: a second packet-out gets BUFFER_EMPTY/UNKNOWN, connection stays.
  auto e = expect_error(ctl.send(po));
  EXPECT_EQ(e.type, uint16_t(of::ErrorType::kBadRequest));
  EXPECT_TRUE(e.code == uint16_t(of::BadRequestCode::kBufferEmpty) ||
              e.code == uint16_t(of::BadRequestCode::kBufferUnknown));
  EXPECT_TRUE(ctl.wait_xid(ctl.send(of::BarrierRequest{})).has_value());
}

TEST_F(AgentTest, ErrorsAndConnectionStaysUp) {
  of::FlowMod bad = flow(1, {of::Action::output(2)});
  bad.table_id = 200;
  auto e = expect_error(ctl.send(bad));
  EXPECT_EQ(e.type, uint16_t(of::ErrorType::kFlowModFailed));
  EXPECT_EQ(e.code, uint16_t(of::FlowModFailedCode::kBadTableId));

  of::PacketOut po;
  po.in_port = 77;
  po.actions = {of::Action::output(2)};
  po.data = udp_frame(1, 2);
  e = expect_error(ctl.send(po));
  EXPECT_EQ(e.type, uint16_t(of::ErrorType::kBadRequest));
  EXPECT_EQ(e.code, uint16_t(of::BadRequestCode::kBadPort));

  e = expect_error(ctl.send(of::MultipartRequest{0, of::ExperimenterMultipart{0x2320, 1, {}}}));
  EXPECT_EQ(e.type, uint16_t(of::ErrorType::kBadRequest));

  of::PortMod pm;
  pm.port_no = 99;
  e = expect_error(ctl.send(pm));
  EXPECT_EQ(e.type, uint16_t(of::ErrorType::kPortModFailed));
  EXPECT_EQ(e.code, uint16_t(of::PortModFailedCode::kBadPort));

  EXPECT_TRUE(ctl.wait_xid(ctl.send(of::BarrierRequest{})).has_value());
  EXPECT_FALSE(ctl.closed());
}

TEST_F(AgentTest, RolesGenerationAndSlaveWrites) {
  of::RoleRequest rq;
  rq.role = of::ControllerRole::kMaster;
  rq.generation_id = 5;
  auto r = ctl.wait_xid(ctl.send(rq));
  ASSERT_TRUE(r && r->is<of::RoleReply>());
  EXPECT_EQ(r->as<of::RoleReply>().role, of::ControllerRole::kMaster);
  EXPECT_EQ(r->as<of::RoleReply>().generation_id, 5u);

  rq.role = of::ControllerRole::kSlave;
  rq.generation_id = 4;  // stale
  auto e = expect_error(ctl.send(rq));
  EXPECT_EQ(e.type, uint16_t(of::ErrorType::kRoleRequestFailed));
  EXPECT_EQ(e.code, uint16_t(of::RoleRequestFailedCode::kStale));

  rq.generation_id = 6;
  r = ctl.wait_xid(ctl.send(rq));
  ASSERT_TRUE(r && r->is<of::RoleReply>());
  EXPECT_EQ(r->as<of::RoleReply>().role, of::ControllerRole::kSlave);

  e = expect_error(ctl.send(flow(1, {of::Action::output(2)})));
  EXPECT_EQ(e.type, uint16_t(of::ErrorType::kBadRequest));
  EXPECT_EQ(e.code, uint16_t(of::BadRequestCode::kIsSlave));

  // Slaves get no packet-ins by default; reads still work.
  auto fs = ctl.wait_xid(ctl.send(of::MultipartRequest{0, of::FlowStatsRequest{}}));
  ASSERT_TRUE(fs && fs->is<of::MultipartReply>());
  auto ga = ctl.wait_xid(ctl.send(of::GetAsyncRequest{}));
  ASSERT_TRUE(ga && ga->is<of::GetAsyncReply>());
  EXPECT_EQ(ga->as<of::GetAsyncReply>().packet_in_mask[1], 0u);
  EXPECT_EQ(ga->as<of::GetAsyncReply>().port_status_mask[1], 7u);
}

TEST_F(AgentTest, PortStatusOnLinkDown) {
  fx->mem[1]->set_link(false);
  auto ps = ctl.wait_for(MsgType::kPortStatus, 3s);
  ASSERT_TRUE(ps.has_value());
  EXPECT_EQ(ps->as<of::PortStatus>().desc.port_no, 2u);
  EXPECT_EQ(ps->as<of::PortStatus>().reason, uint8_t(of::PortStatusReason::kModify));
  EXPECT_TRUE(ps->as<of::PortStatus>().desc.state & of::port_state::kLinkDown);
}

TEST_F(AgentTest, FlowRemovedOnIdleTimeout) {
  of::FlowMod fm = flow(1, {of::Action::output(2)});
  fm.idle_timeout = 1;
  fm.flags = of::flow_mod_flags::kSendFlowRem;
  fm.cookie = 0x77;
  install(fm);
  auto fr = ctl.wait_for(MsgType::kFlowRemoved, 4s);
  ASSERT_TRUE(fr.has_value());
  EXPECT_EQ(fr->as<of::FlowRemoved>().cookie, 0x77u);
  EXPECT_EQ(fr->as<of::FlowRemoved>().reason, uint8_t(of::FlowRemovedReason::kIdleTimeout));
}

TEST_F(AgentTest, TableFeaturesAndGroupsMultipart) {
  auto tf = ctl.wait_xid(ctl.send(of::MultipartRequest{0, of::TableFeaturesRequest{}}));
  ASSERT_TRUE(tf && tf->is<of::MultipartReply>());
  // Replies may be split (REPLY_MORE); gather the tables of every part.
  size_t tables = std::get<of::TableFeaturesReply>(tf->as<of::MultipartReply>().body).tables.size();
  uint16_t flags = tf->as<of::MultipartReply>().flags;
  while (flags & of::kMultipartMore) {
    auto more = ctl.wait_for(MsgType::kMultipartReply);
    ASSERT_TRUE(more.has_value());
    tables += std::get<of::TableFeaturesReply>(more->as<of::MultipartReply>().body).tables.size();
    flags = more->as<of::MultipartReply>().flags;
  }
  EXPECT_EQ(tables, 64u);

  of::GroupMod gm;
  gm.group_id = 7;
  gm.type = of::GroupType::kAll;
  gm.buckets = {of::Bucket{0, of::port::kAny, of::group::kAny, {of::Action::output(2)}},
                of::Bucket{0, of::port::kAny, of::group::kAny, {of::Action::output(3)}}};
  ctl.send(gm);
  install(flow(1, {of::Action::group(7)}));
  fx->mem[0]->inject(udp_frame(1, 9));
  EXPECT_EQ(fx->wait_tx(1, 1).size(), 1u);
  EXPECT_EQ(fx->wait_tx(2, 1).size(), 1u);
  auto gd = ctl.wait_xid(ctl.send(of::MultipartRequest{0, of::GroupDescRequest{}}));
  ASSERT_TRUE(gd && gd->is<of::MultipartReply>());
  ASSERT_EQ(std::get<of::GroupDescReply>(gd->as<of::MultipartReply>().body).groups.size(), 1u);
}

}  // namespace
}  // namespace flowlab::sw::testing
