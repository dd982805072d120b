// RestApi over a fake SwitchAccess and TopologySource: routing, the requests
// that reach the switch for each endpoint, Ryu's response shapes (topology
// links and hosts included), and the error statuses.
#include "rest/api.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace flowlab::rest {
namespace {

using ::testing::HasSubstr;

class FakeSwitches : public SwitchAccess {
 public:
  FakeSwitches() {
    SwitchSummary s{1, of::kOf13, {}};
    of::PortDesc p;
    p.port_no = 1;
    p.name = "s1-eth1";
    p.hw_addr = *MacAddr::parse("00:00:00:00:00:01");
    s.ports.push_back(p);
    switches_.push_back(s);
    switches_.push_back({2, of::kOf10, {}});
  }
  std::vector<SwitchSummary> switches() const override { return switches_; }
  std::optional<SwitchSummary> find(uint64_t dpid) const override {
    for (const auto& s : switches_)
      if (s.dpid == dpid) return s;
    return std::nullopt;
  }
  HttpResult<std::vector<of::MultipartReplyBody>> multipart(uint64_t dpid,
                                                            of::MultipartRequestBody body) override {
    requests.push_back({dpid, body});
    if (timeout) return http_fail(504, "no reply");
    return replies;
  }
  HttpStatus modify(uint64_t dpid, of::MessageBody body) override {
    mods.push_back({dpid, std::move(body)});
    return {};
  }

  std::vector<SwitchSummary> switches_;
  std::vector<std::pair<uint64_t, of::MultipartRequestBody>> requests;
  std::vector<std::pair<uint64_t, of::MessageBody>> mods;
  std::vector<of::MultipartReplyBody> replies;
  bool timeout = false;
};

class FakeTopology : public TopologySource {
 public:
  std::vector<TopoSwitch> switches() const override { return {{1, {p1}}, {2, {p2}}}; }
  std::vector<TopoLink> links() const override { return {{p1, p2}, {p2, p1}}; }
  std::vector<TopoHost> hosts() const override {
    return {{*MacAddr::parse("00:00:00:00:00:0a"), {*Ipv4Addr::parse("10.0.0.1")}, {}, p1}};
  }
  TopoPort p1{1, 1, "s1-eth1", *MacAddr::parse("00:00:00:00:01:01")};
  TopoPort p2{2, 3, "s2-eth3", *MacAddr::parse("00:00:00:00:02:03")};
};

class ApiTest : public ::testing::Test {
 protected:
  HttpResponse call(std::string_view method, std::string_view path, std::string_view body = "") {
    return api.handle(method, path, body);
  }
  Json json(std::string_view method, std::string_view path, std::string_view body = "") {
    return Json::parse(call(method, path, body).body);
  }
  FakeSwitches sw;
  FakeTopology topo;
  RestApi api{sw, topo, [] { return Json{{"packet_in", {{"received", 3}}}}; }};
};

TEST_F(ApiTest, Switches) {
  auto r = call("GET", "/stats/switches");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(Json::parse(r.body), Json::parse("[1, 2]"));
}

TEST_F(ApiTest, FlowStatsRequestAndShape) {
  of::FlowStats fs;
  fs.priority = 5;
  fs.match.add(of::OxmField::basic(of::OxmId::kInPort, 3));
  sw.replies = {of::FlowStatsReply{{fs}}, of::FlowStatsReply{{fs}}};  // two parts are concatenated
  Json j = json("GET", "/stats/flow/1");
  ASSERT_EQ(j["1"].size(), 2u) << j.dump();
  EXPECT_EQ(j["1"][0]["match"], Json::parse(R"({"in_port": 3})"));
  ASSERT_EQ(sw.requests.size(), 1u);
  auto& req = std::get<of::FlowStatsRequest>(sw.requests[0].second);
  EXPECT_EQ(req.table_id, of::table::kAll);
  // POST with a filter: the filter goes to the switch.
  call("POST", "/stats/flow/1", R"({"table_id": 3, "match": {"in_port": 2}})");
  auto& filtered = std::get<of::FlowStatsRequest>(sw.requests[1].second);
  EXPECT_EQ(filtered.table_id, 3);
  EXPECT_EQ(filtered.match.find(of::OxmId::kInPort)->value_u64(), 2u);
}

TEST_F(ApiTest, RequestsPerEndpoint) {
  sw.replies = {of::PortStatsReply{}};
  call("GET", "/stats/port/1/LOCAL");
  EXPECT_EQ(std::get<of::PortStatsRequest>(sw.requests.back().second).port_no, of::port::kLocal);
  sw.replies = {of::GroupStatsReply{}};
  call("GET", "/stats/group/1/7");
  EXPECT_EQ(std::get<of::GroupStatsRequest>(sw.requests.back().second).group_id, 7u);
  sw.replies = {of::MeterConfigReply{}};
  call("GET", "/stats/meterconfig/1");
  EXPECT_EQ(std::get<of::MeterConfigRequest>(sw.requests.back().second).meter_id, of::meter::kAll);
  sw.replies = {of::DescReply{"m", "h", "s", "n", "d"}};
  EXPECT_EQ(json("GET", "/stats/desc/1")["1"]["dp_desc"], "d");
}

TEST_F(ApiTest, Of10PortDescComesFromTheFeaturesReply) {
  auto j = json("GET", "/stats/portdesc/2");
  EXPECT_EQ(j, Json::parse(R"({"2": []})"));
  EXPECT_TRUE(sw.requests.empty());
  EXPECT_EQ(call("GET", "/stats/meter/2").status, 400);
}

TEST_F(ApiTest, FlowEntryCommands) {
  struct Case {
    const char* path;
    of::FlowModCommand cmd;
  };
  for (auto c : {Case{"/stats/flowentry/add", of::FlowModCommand::kAdd},
                 Case{"/stats/flowentry/modify", of::FlowModCommand::kModify},
                 Case{"/stats/flowentry/modify_strict", of::FlowModCommand::kModifyStrict},
                 Case{"/stats/flowentry/delete", of::FlowModCommand::kDelete},
                 Case{"/stats/flowentry/delete_strict", of::FlowModCommand::kDeleteStrict}}) {
    auto r = call("POST", c.path,
                  R"({"dpid": 1, "match": {"in_port": 1}, "actions": [{"type": "OUTPUT", "port": 2}]})");
    EXPECT_EQ(r.status, 200) << c.path << r.body;
    EXPECT_TRUE(r.body.empty());
    ASSERT_FALSE(sw.mods.empty());
    EXPECT_EQ(std::get<of::FlowMod>(sw.mods.back().second).command, c.cmd) << c.path;
  }
  EXPECT_EQ(call("DELETE", "/stats/flowentry/clear/1").status, 200);
  const auto& clear = std::get<of::FlowMod>(sw.mods.back().second);
  EXPECT_EQ(clear.command, of::FlowModCommand::kDelete);
  EXPECT_EQ(clear.table_id, of::table::kAll);
}

TEST_F(ApiTest, GroupMeterAndPortEntries) {
  EXPECT_EQ(call("POST", "/stats/groupentry/delete", R"({"dpid": 1, "group_id": 3})").status, 200);
  EXPECT_EQ(std::get<of::GroupMod>(sw.mods.back().second).command, of::GroupModCommand::kDelete);
  EXPECT_EQ(call("POST", "/stats/meterentry/modify", R"({"dpid": 1, "meter_id": 3})").status, 200);
  EXPECT_EQ(std::get<of::MeterMod>(sw.mods.back().second).command, of::MeterModCommand::kModify);
  EXPECT_EQ(
      call("POST", "/stats/portdesc/modify", R"({"dpid": 1, "port_no": 1, "config": 1, "mask": 1})").status,
      200);
  const auto& pm = std::get<of::PortMod>(sw.mods.back().second);
  EXPECT_EQ(pm.hw_addr, *MacAddr::parse("00:00:00:00:00:01"));  // the port's own, as Ryu fills it in
  EXPECT_EQ(call("POST", "/stats/portdesc/modify", R"({"dpid": 1, "port_no": 9, "config": 1})").status, 404);
  EXPECT_EQ(call("POST", "/stats/groupentry/add", R"({"dpid": 2, "group_id": 3})").status, 400);  // OF1.0
}

TEST_F(ApiTest, Topology) {
  Json sws = json("GET", "/v1.0/topology/switches");
  EXPECT_EQ(sws[0], Json::parse(R"({"dpid": "0000000000000001", "ports": [{"dpid": "0000000000000001",
      "port_no": "00000001", "hw_addr": "00:00:00:00:01:01", "name": "s1-eth1"}]})"));
  EXPECT_EQ(json("GET", "/v1.0/topology/switches/0000000000000002").size(), 1u);
  Json links = json("GET", "/v1.0/topology/links");
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(links[0]["src"]["dpid"], "0000000000000001");
  EXPECT_EQ(links[0]["dst"]["port_no"], "00000003");
  EXPECT_EQ(json("GET", "/v1.0/topology/links/0000000000000002").size(), 1u);
  Json hosts = json("GET", "/v1.0/topology/hosts");
  EXPECT_EQ(hosts, Json::parse(R"([{"mac": "00:00:00:00:00:0a", "ipv4": ["10.0.0.1"], "ipv6": [],
      "port": {"dpid": "0000000000000001", "port_no": "00000001", "hw_addr": "00:00:00:00:01:01", "name": "s1-eth1"}}])"));
  EXPECT_EQ(json("GET", "/v1.0/topology/hosts/0000000000000002"), Json::array());
}

TEST_F(ApiTest, OwnStats) { EXPECT_EQ(json("GET", "/v1/stats")["packet_in"]["received"], 3); }

TEST_F(ApiTest, Errors) {
  struct Case {
    const char* method;
    const char* path;
    const char* body;
    int status;
    const char* says;
  };
  const Case cases[] = {
      {"GET", "/stats/flow/3", "", 404, "no switch with dpid 3"},
      {"GET", "/stats/flow/0x", "", 400, "not a number"},
      {"PUT", "/stats/flow/1", "", 405, "GET and POST"},
      {"POST", "/stats/switches", "", 405, "GET only"},
      {"GET", "/", "", 404, "no such endpoint"},
      {"GET", "/stats/port/1/x", "", 400, "port 'x'"},
      {"POST", "/stats/flowentry/add", "{", 400, "bad JSON"},
      {"POST", "/stats/flowentry/add", R"({"dpid": 1, "match": {"nope": 1}})", 400, "unknown field 'nope'"},
      {"POST", "/stats/flowentry/frob", "{}", 404, "unknown command"},
      {"GET", "/stats/flowentry/clear/1", "", 405, "DELETE"},
      {"GET", "/v1.0/topology/switches/1", "", 400, "16 hex digits"},
  };
  for (const auto& c : cases) {
    auto r = call(c.method, c.path, c.body);
    EXPECT_EQ(r.status, c.status) << c.method << " " << c.path << ": " << r.body;
    Json j = Json::parse(r.body);
    EXPECT_EQ(j["status"], c.status);
    EXPECT_THAT(j["error"].get<std::string>(), HasSubstr(c.says)) << c.path;
  }
  EXPECT_TRUE(sw.mods.empty());
  sw.timeout = true;
  auto r = call("GET", "/stats/table/1");
  EXPECT_EQ(r.status, 504);
  sw.timeout = false;
  sw.replies = {of::DescReply{}};  // a reply of the wrong kind
  EXPECT_EQ(call("GET", "/stats/table/1").status, 502);
}

}  // namespace
}  // namespace flowlab::rest
