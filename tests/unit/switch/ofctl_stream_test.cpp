// SyncClient::stream_with_barriers (what `flowlab ofctl add-flows` uses)
// against a switch's --listen socket: many windows of flow-mods all land, and
// an error in the middle of the stream names the message that caused it.
#include "channel/sync_client.h"
#include "switch_harness.h"

namespace flowlab::sw::testing {
namespace {

struct StreamRig {
  StreamRig() {
    SwitchOptions o;
    o.name = "t1";
    o.dpid = 0x42;
    ChannelTarget l;
    l.passive = true;
    l.host = "127.0.0.1";
    l.port = 0;
    l.text = "ptcp:0:127.0.0.1";
    o.listeners.push_back(l);
    fx = std::make_unique<SwitchFixture>(o, 2);
  }
  ~StreamRig() {
    if (fx->sw) fx->sw->stop();
  }
  Result<channel::SyncClient> connect() {
    return channel::SyncClient::connect("tcp:127.0.0.1:" + std::to_string(fx->sw->listen_port(0)),
                                        {of::kOf13});
  }
  std::unique_ptr<SwitchFixture> fx;
};

of::Message host_flow(uint32_t i, uint8_t table = 0) {
  of::FlowMod fm;
  fm.table_id = table;
  fm.priority = 20;
  fm.match.add(of::OxmField::basic(of::OxmId::kEthType, 0x0800));
  fm.match.add(of::OxmField::basic(of::OxmId::kIpv4Dst, 0x0b000000u | i));
  fm.instructions.push_back(of::Instruction::apply({of::Action::output(2)}));
  return of::Message{of::kOf13, 0, std::move(fm)};
}

TEST(OfctlStream, ManyWindowsAllInstalled) {
  StreamRig rig;
  auto c = rig.connect();
  ASSERT_TRUE(c.ok()) << c.error().message;
  uint32_t i = 0;
  auto st = c->stream_with_barriers(
      [&]() -> Result<std::optional<of::Message>> {
        if (i == 5000) return std::optional<of::Message>();
        return std::optional<of::Message>(host_flow(i++));
      },
      300);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(rig.fx->sw->datapath().flow_count(), 5000u);
}

TEST(OfctlStream, ErrorNamesTheMessage) {
  StreamRig rig;
  auto c = rig.connect();
  ASSERT_TRUE(c.ok()) << c.error().message;
  uint32_t i = 0;
  auto st = c->stream_with_barriers(
      [&]() -> Result<std::optional<of::Message>> {
        if (i == 2000) return std::optional<of::Message>();
        ++i;
        return std::optional<of::Message>(host_flow(i, i == 777 ? 200 : 0));  // table 200 does not exist
      },
      100);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("BAD_TABLE_ID"), std::string::npos) << st.error().message;
  EXPECT_NE(st.error().message.find("(for message 777)"), std::string::npos) << st.error().message;
  // A failing source stops the stream with its own error.
  auto c2 = rig.connect();
  ASSERT_TRUE(c2.ok());
  auto st2 =
      c2->stream_with_barriers([]() -> Result<std::optional<of::Message>> { return fail("line 3: bad"); });
  ASSERT_FALSE(st2.ok());
  EXPECT_EQ(st2.error().message, "line 3: bad");
}

}  // namespace
}  // namespace flowlab::sw::testing
