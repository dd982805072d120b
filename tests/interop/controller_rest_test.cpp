// `flowlab controller --rest` against a flowlab switch (issue 10, REST part):
// two namespace hosts on veths to `flowlab switch` in the root namespace, the
// controller and its REST API on loopback ports free for this run, every
// endpoint called with curl and its JSON compared with the shapes of Ryu's
// ofctl_rest / rest_topology documentation. Flows added by POST are read back
// with `ovs-ofctl dump-flows` and carry the hosts' ping; bad requests are
// refused with the right status while the switch stays connected.
// Needs root, curl and ovs-ofctl; skips otherwise.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "switch_topology.h"

namespace flowlab::switch_interop {
namespace {

using Json = nlohmann::json;

struct Reply {
  int status = 0;
  std::string body;
  Json json;  // null when the body is empty or not JSON
};

class RestRun {
 public:
  explicit RestRun(const std::string& tag) : hosts_(tag) {
    dir_ = "/tmp/flowlab-rest-" + std::to_string(::getpid()) + "-" + tag;
    std::filesystem::create_directories(dir_);
  }
  ~RestRun() {
    sw_.reset();
    ctl_.reset();
    std::filesystem::remove_all(dir_);
  }
  bool hosts_ok() const { return hosts_.ok(); }
  const TwoHosts& hosts() const { return hosts_; }

  bool start(const std::string& protocols, const std::string& app = "learning-switch") {
    ctl_port_ = free_tcp_port();
    sw_port_ = free_tcp_port();
    rest_port_ = free_tcp_port();
    if (!ctl_port_ || !sw_port_ || !rest_port_ || ctl_port_ == sw_port_ || sw_port_ == rest_port_ ||
        ctl_port_ == rest_port_)
      return fail("no free TCP ports");
    ctl_ = std::make_unique<Process>(
        std::vector<std::string>{FLOWLAB_BINARY, "controller", "--listen",
                                 "ptcp:" + std::to_string(ctl_port_) + ":127.0.0.1", "--app", app, "--rest",
                                 "127.0.0.1:" + std::to_string(rest_port_), "--rest-timeout", "3",
                                 "--topology", "on"},
        dir_ + "/controller.log");
    if (!eventually([&] { return tcp_listening(ctl_port_) && tcp_listening(rest_port_); }, 10s))
      return fail("controller did not listen");
    sw_ = std::make_unique<Process>(
        std::vector<std::string>{FLOWLAB_BINARY, "switch", "--name", "s1", "--dpid", "0x1", "--port",
                                 hosts_.port1(), "--port", hosts_.port2(), "--controller",
                                 "tcp:127.0.0.1:" + std::to_string(ctl_port_), "--listen",
                                 "ptcp:" + std::to_string(sw_port_) + ":127.0.0.1", "--protocols", protocols},
        dir_ + "/switch.log");
    if (!eventually([&] { return ctl_->log().find("switch up") != std::string::npos; }, 15s))
      return fail("the switch did not come up at the controller");
    if (!eventually([&] { return tcp_listening(sw_port_); }, 5s)) return fail("switch did not listen");
    std::this_thread::sleep_for(300ms);
    return true;
  }

  Reply call(const std::string& method, const std::string& path, const std::string& body = "") const {
    std::string cmd = "curl -s -m 10 -o " + dir_ + "/body -w '%{http_code}' -X " + method;
    if (!body.empty()) cmd += " --data-binary '" + body + "'";
    cmd += " http://127.0.0.1:" + std::to_string(rest_port_) + path;
    Reply r;
    r.status = std::atoi(run_output(cmd).c_str());
    std::ifstream f(dir_ + "/body");
    std::stringstream ss;
    ss << f.rdbuf();
    r.body = ss.str();
    r.json = Json::parse(r.body, nullptr, false);
    if (r.json.is_discarded()) r.json = Json();
    return r;
  }
  Reply get(const std::string& path) const { return call("GET", path); }
  Reply post(const std::string& path, const std::string& body) const { return call("POST", path, body); }

  std::string dump_flows(const std::string& version) const {
    return run_output("ovs-ofctl -O " + version + " dump-flows tcp:127.0.0.1:" + std::to_string(sw_port_));
  }
  std::string dump_groups() const {
    return run_output("ovs-ofctl -O OpenFlow13 dump-groups tcp:127.0.0.1:" + std::to_string(sw_port_));
  }
  bool ping() const {
    for (int i = 0; i < 3; ++i)
      if (hosts_.ping(2)) return true;
    return false;
  }
  std::string ctl_log() const { return ctl_ ? ctl_->log() : ""; }
  std::string logs() const {
    return "--- controller log:\n" + ctl_log() + "--- switch log:\n" + (sw_ ? sw_->log() : "") +
           (err_.empty() ? "" : "--- error: " + err_ + "\n");
  }

 private:
  bool fail(std::string e) {
    err_ = std::move(e);
    return false;
  }
  TwoHosts hosts_;
  std::string dir_, err_;
  uint16_t ctl_port_ = 0, sw_port_ = 0, rest_port_ = 0;
  std::unique_ptr<Process> ctl_, sw_;
};

bool prerequisites(std::string* why) {
  if (!is_root()) return *why = "needs root (namespaces, veths)", false;
  if (run_quiet("command -v curl") != 0) return *why = "needs curl", false;
  if (run_quiet("command -v ovs-ofctl") != 0) return *why = "needs ovs-ofctl", false;
  return true;
}

// The keys of Ryu's documented example for an entry.
void expect_keys(const Json& entry, std::initializer_list<const char*> keys, const std::string& what) {
  ASSERT_TRUE(entry.is_object()) << what << ": " << entry.dump();
  for (const char* k : keys)
    EXPECT_TRUE(entry.contains(k)) << what << " lacks '" << k << "': " << entry.dump();
}

// {"1": [...]} with a non-empty list; returns the first entry.
Json first_of(const Reply& r, const std::string& what) {
  EXPECT_EQ(r.status, 200) << what << ": " << r.body;
  if (!r.json.is_object() || !r.json.contains("1") || !r.json["1"].is_array() || r.json["1"].empty()) {
    ADD_FAILURE() << what << ": expected {\"1\": [...]}, got " << r.body;
    return Json::object();
  }
  return r.json["1"][0];
}

const char* kFlowAdd = R"({"dpid": 1, "cookie": 7, "priority": 11111, "match": {"in_port": 1, "dl_type": 2048,
    "nw_dst": "10.0.0.2"}, "actions": [{"type": "OUTPUT", "port": 2}]})";

TEST(RestInterop, EveryEndpointOf13) {
  std::string why;
  if (!prerequisites(&why)) GTEST_SKIP() << why;
  RestRun run("r13");
  ASSERT_TRUE(run.hosts_ok());
  ASSERT_TRUE(run.start("OpenFlow13")) << run.logs();

  auto sw = run.get("/stats/switches");
  EXPECT_EQ(sw.status, 200);
  EXPECT_EQ(sw.json, Json::parse("[1]")) << sw.body;

  auto desc = run.get("/stats/desc/1");
  ASSERT_EQ(desc.status, 200) << desc.body;
  expect_keys(desc.json["1"], {"mfr_desc", "hw_desc", "sw_desc", "serial_num", "dp_desc"}, "desc");
  EXPECT_EQ(desc.json["1"]["dp_desc"], "s1");

  expect_keys(first_of(run.get("/stats/flow/1"), "flow"),
              {"priority", "cookie", "idle_timeout", "hard_timeout", "byte_count", "duration_sec",
               "duration_nsec", "packet_count", "length", "flags", "actions", "match", "table_id"},
              "flow");
  expect_keys(first_of(run.get("/stats/aggregateflow/1"), "aggregateflow"),
              {"packet_count", "byte_count", "flow_count"}, "aggregateflow");
  expect_keys(first_of(run.get("/stats/table/1"), "table"),
              {"table_id", "active_count", "lookup_count", "matched_count"}, "table");
  auto ports = run.get("/stats/port/1");
  EXPECT_EQ(ports.json["1"].size(), 2u) << ports.body;
  expect_keys(first_of(ports, "port"),
              {"port_no", "rx_packets", "tx_packets", "rx_bytes", "tx_bytes", "rx_dropped", "tx_dropped",
               "rx_errors", "tx_errors", "rx_frame_err", "rx_over_err", "rx_crc_err", "collisions",
               "duration_sec", "duration_nsec"},
              "port");
  auto port2 = run.get("/stats/port/1/2");
  EXPECT_EQ(port2.json["1"].size(), 1u) << port2.body;
  EXPECT_EQ(first_of(port2, "port/2")["port_no"], 2);
  auto pd = first_of(run.get("/stats/portdesc/1"), "portdesc");
  expect_keys(pd,
              {"port_no", "hw_addr", "name", "config", "state", "curr", "advertised", "supported", "peer",
               "curr_speed", "max_speed"},
              "portdesc");
  EXPECT_EQ(pd["name"], run.hosts().port1());

  // Flow entries: add, read back (REST filter and dump-flows), traffic, modify, delete.
  auto add = run.post("/stats/flowentry/add", kFlowAdd);
  EXPECT_EQ(add.status, 200) << add.body;
  EXPECT_NE(run.dump_flows("OpenFlow13").find("cookie=0x7"), std::string::npos)
      << run.dump_flows("OpenFlow13");
  EXPECT_NE(run.dump_flows("OpenFlow13").find("priority=11111,ip,in_port=1,nw_dst=10.0.0.2 actions=output:2"),
            std::string::npos)
      << run.dump_flows("OpenFlow13");
  auto filtered = run.post("/stats/flow/1", R"({"cookie": 7, "cookie_mask": 255, "match": {"in_port": 1}})");
  ASSERT_EQ(filtered.status, 200) << filtered.body;
  ASSERT_EQ(filtered.json["1"].size(), 1u) << filtered.body;
  EXPECT_EQ(filtered.json["1"][0]["match"],
            Json::parse(R"({"in_port": 1, "dl_type": 2048, "nw_dst": "10.0.0.2"})"));
  EXPECT_EQ(filtered.json["1"][0]["actions"], Json::parse(R"(["OUTPUT:2"])"));
  EXPECT_EQ(filtered.json["1"][0]["priority"], 11111);

  auto mod = run.post(
      "/stats/flowentry/modify_strict",
      R"({"dpid": 1, "priority": 11111, "match": {"in_port": 1, "dl_type": 2048, "nw_dst": "10.0.0.2"},
                          "actions": [{"type": "SET_FIELD", "field": "ip_dscp", "value": 8}, {"type": "OUTPUT", "port": 2}]})");
  EXPECT_EQ(mod.status, 200) << mod.body;
  EXPECT_NE(run.dump_flows("OpenFlow13").find("actions=set_field:8->ip_dscp,output:2"), std::string::npos)
      << run.dump_flows("OpenFlow13");
  auto del = run.post(
      "/stats/flowentry/delete_strict",
      R"({"dpid": 1, "priority": 11111, "match": {"in_port": 1, "dl_type": 2048, "nw_dst": "10.0.0.2"}})");
  EXPECT_EQ(del.status, 200) << del.body;
  EXPECT_EQ(run.dump_flows("OpenFlow13").find("priority=11111"), std::string::npos)
      << run.dump_flows("OpenFlow13");
  EXPECT_EQ(run.post("/stats/flowentry/add", kFlowAdd).status, 200);
  EXPECT_EQ(run.post("/stats/flowentry/delete", R"({"dpid": 1, "cookie": 7, "cookie_mask": 255})").status,
            200);
  EXPECT_EQ(run.dump_flows("OpenFlow13").find("priority=11111"), std::string::npos)
      << run.dump_flows("OpenFlow13");

  // Groups.
  EXPECT_EQ(run.post("/stats/groupentry/add", R"({"dpid": 1, "type": "ALL", "group_id": 1,
      "buckets": [{"actions": [{"type": "OUTPUT", "port": 1}]}]})")
                .status,
            200);
  EXPECT_EQ(run.post("/stats/groupentry/modify", R"({"dpid": 1, "type": "ALL", "group_id": 1,
      "buckets": [{"actions": [{"type": "OUTPUT", "port": 2}]}]})")
                .status,
            200);
  EXPECT_NE(run.dump_groups().find("group_id=1,type=all,bucket=actions=output:2"), std::string::npos)
      << run.dump_groups();
  auto gd = first_of(run.get("/stats/groupdesc/1"), "groupdesc");
  expect_keys(gd, {"type", "group_id", "buckets"}, "groupdesc");
  EXPECT_EQ(gd["buckets"][0]["actions"], Json::parse(R"(["OUTPUT:2"])"));
  expect_keys(first_of(run.get("/stats/group/1"), "group"),
              {"length", "group_id", "ref_count", "packet_count", "byte_count", "duration_sec",
               "duration_nsec", "bucket_stats"},
              "group");
  EXPECT_EQ(run.post("/stats/groupentry/delete", R"({"dpid": 1, "group_id": 1})").status, 200);
  EXPECT_EQ(run.get("/stats/groupdesc/1").json, Json::parse(R"({"1": []})"));

  // Meters.
  EXPECT_EQ(run.post("/stats/meterentry/add", R"({"dpid": 1, "flags": "KBPS", "meter_id": 1,
      "bands": [{"type": "DROP", "rate": 1000}]})")
                .status,
            200);
  EXPECT_EQ(run.post("/stats/meterentry/modify", R"({"dpid": 1, "flags": "KBPS", "meter_id": 1,
      "bands": [{"type": "DROP", "rate": 2000}]})")
                .status,
            200);
  auto mc = first_of(run.get("/stats/meterconfig/1"), "meterconfig");
  EXPECT_EQ(mc, Json::parse(R"({"flags": ["KBPS"], "meter_id": 1, "bands": [{"type": "DROP", "rate": 2000,
      "burst_size": 0}]})"));
  expect_keys(first_of(run.get("/stats/meter/1"), "meter"),
              {"meter_id", "len", "flow_count", "packet_in_count", "byte_in_count", "duration_sec",
               "duration_nsec", "band_stats"},
              "meter");
  EXPECT_EQ(run.post("/stats/meterentry/delete", R"({"dpid": 1, "meter_id": 1})").status, 200);
  EXPECT_EQ(run.get("/stats/meter/1").json, Json::parse(R"({"1": []})"));

  // Port mod: OFPPC_NO_FWD on port 2, seen in the port description, then cleared.
  EXPECT_EQ(
      run.post("/stats/portdesc/modify", R"({"dpid": 1, "port_no": 2, "config": 32, "mask": 32})").status,
      200);
  auto pd2 = run.get("/stats/portdesc/1");
  ASSERT_EQ(pd2.json["1"].size(), 2u) << pd2.body;
  EXPECT_EQ(pd2.json["1"][1]["config"], 32) << pd2.body;
  EXPECT_EQ(
      run.post("/stats/portdesc/modify", R"({"dpid": 1, "port_no": 2, "config": 0, "mask": 32})").status,
      200);

  // Topology: the connected switch and its ports, in rest_topology's shapes.
  auto topo = run.get("/v1.0/topology/switches");
  ASSERT_EQ(topo.status, 200);
  EXPECT_EQ(topo.json[0]["dpid"], "0000000000000001") << topo.body;
  expect_keys(topo.json[0]["ports"][0], {"dpid", "port_no", "hw_addr", "name"}, "topology port");
  EXPECT_EQ(topo.json[0]["ports"][0]["port_no"], "00000001");
  EXPECT_EQ(run.get("/v1.0/topology/switches/0000000000000001").json.size(), 1u);
  EXPECT_EQ(run.get("/v1.0/topology/switches/0000000000000002").json, Json::array());
  // One switch: no links. The hosts are learned by the topology service from the
  // packet-ins of a ping (--topology on), each on its switch port.
  EXPECT_EQ(run.get("/v1.0/topology/links").json, Json::array());
  EXPECT_TRUE(run.ping()) << run.logs();
  auto hosts = run.get("/v1.0/topology/hosts/0000000000000001");
  ASSERT_EQ(hosts.status, 200);
  ASSERT_EQ(hosts.json.size(), 2u) << hosts.body;
  std::set<std::string> host_ports;
  for (const auto& h : hosts.json) {
    expect_keys(h, {"mac", "ipv4", "ipv6", "port"}, "topology host");
    host_ports.insert(h["port"]["port_no"].get<std::string>());
  }
  EXPECT_EQ(host_ports, (std::set<std::string>{"00000001", "00000002"})) << hosts.body;
  EXPECT_EQ(run.get("/v1.0/topology/hosts/0000000000000002").json, Json::array());

  // flowlab's own stats: the --stats-json document.
  auto st = run.get("/v1/stats");
  ASSERT_EQ(st.status, 200);
  EXPECT_TRUE(st.json.contains("packet_in")) << st.body;
  EXPECT_GE(st.json["switches_connected"].get<int>(), 1) << st.body;
}

TEST(RestInterop, RestFlowsCarryTrafficAndClearRemovesThem) {
  std::string why;
  if (!prerequisites(&why)) GTEST_SKIP() << why;
  RestRun run("rtr");
  ASSERT_TRUE(run.hosts_ok());
  ASSERT_TRUE(run.start("OpenFlow13")) << run.logs();
  // Without any flow (not even the table-miss) an OF1.3 switch drops everything.
  auto clear = run.call("DELETE", "/stats/flowentry/clear/1");
  EXPECT_EQ(clear.status, 200) << clear.body;
  EXPECT_EQ(run.get("/stats/flow/1").json, Json::parse(R"({"1": []})"));
  EXPECT_FALSE(run.hosts().ping(2)) << run.dump_flows("OpenFlow13");
  for (
      const char* f :
      {R"({"dpid": 1, "priority": 100, "match": {"in_port": 1}, "actions": [{"type": "OUTPUT", "port": 2}]})",
       R"({"dpid": 1, "priority": 100, "match": {"in_port": 2}, "actions": [{"type": "OUTPUT", "port": 1}]})"})
    EXPECT_EQ(run.post("/stats/flowentry/add", f).status, 200);
  EXPECT_TRUE(run.ping()) << run.dump_flows("OpenFlow13") << run.logs();
  auto flows = run.get("/stats/flow/1");
  ASSERT_EQ(flows.json["1"].size(), 2u) << flows.body;
  EXPECT_GT(flows.json["1"][0]["packet_count"].get<uint64_t>(), 0u) << flows.body;
}

TEST(RestInterop, BadRequestsAreRefusedAndOpenFlowKeepsWorking) {
  std::string why;
  if (!prerequisites(&why)) GTEST_SKIP() << why;
  RestRun run("rbad");
  ASSERT_TRUE(run.hosts_ok());
  ASSERT_TRUE(run.start("OpenFlow13")) << run.logs();
  struct Case {
    std::string method, path, body;
    int status;
    std::string says;
  };
  const Case cases[] = {
      {"POST", "/stats/flowentry/add", R"({"dpid": 1, "match": )", 400, "bad JSON"},
      {"POST", "/stats/flowentry/add", R"([1, 2])", 400, "JSON object"},
      {"POST", "/stats/flowentry/add", R"({"match": {}})", 400, "'dpid' is missing"},
      {"POST", "/stats/flowentry/add", R"({"dpid": 99, "match": {}})", 404, "dpid 99"},
      {"POST", "/stats/flowentry/add", R"({"dpid": 1, "match": {"nw_bogus": 1}})", 400,
       "unknown field 'nw_bogus'"},
      {"POST", "/stats/flowentry/add", R"({"dpid": 1, "match": {"nw_dst": "10.0.0.1"}})", 400, "nw_dst"},
      {"POST", "/stats/flowentry/add", R"({"dpid": 1, "actions": [{"type": "FLY"}]})", 400,
       "unknown type 'FLY'"},
      {"POST", "/stats/flowentry/add", R"({"dpid": 1, "priority": 70000})", 400, "priority"},
      {"POST", "/stats/flowentry/jump", R"({"dpid": 1})", 404, "unknown command 'jump'"},
      {"GET", "/stats/flowentry/add", "", 405, "POST"},
      {"GET", "/stats/flow/99", "", 404, "dpid 99"},
      {"GET", "/stats/flow/xyz", "", 400, "not a number"},
      {"POST", "/stats/flow/1", R"({"match": {"foo": 1}})", 400, "unknown field 'foo'"},
      {"GET", "/stats/nothing/1", "", 404, "no such endpoint"},
      {"GET", "/v1.0/topology/switches/12", "", 400, "16 hex digits"},
      {"DELETE", "/stats/flowentry/clear/77", "", 404, "dpid 77"},
      // The switch refuses a group that does not exist: its OpenFlow error becomes the answer.
      {"POST", "/stats/groupentry/modify", R"({"dpid": 1, "group_id": 42, "buckets": []})", 400, "refused"},
  };
  for (const auto& c : cases) {
    auto r = run.call(c.method, c.path, c.body);
    EXPECT_EQ(r.status, c.status) << c.method << " " << c.path << " " << c.body << " -> " << r.body;
    ASSERT_TRUE(r.json.is_object()) << c.path << ": " << r.body;
    EXPECT_NE(r.json.value("error", "").find(c.says), std::string::npos)
        << c.path << " " << c.body << " -> " << r.body;
  }
  // The switch never left, and the learning switch still forwards.
  EXPECT_EQ(run.get("/stats/switches").json, Json::parse("[1]"));
  EXPECT_EQ(run.ctl_log().find("switch down"), std::string::npos) << run.logs();
  EXPECT_TRUE(run.ping()) << run.logs();
  EXPECT_EQ(run.post("/stats/flowentry/add", kFlowAdd).status, 200);
}

TEST(RestInterop, Of10Switch) {
  std::string why;
  if (!prerequisites(&why)) GTEST_SKIP() << why;
  RestRun run("r10");
  ASSERT_TRUE(run.hosts_ok());
  ASSERT_TRUE(run.start("OpenFlow10")) << run.logs();
  EXPECT_EQ(run.get("/stats/switches").json, Json::parse("[1]"));
  auto add = run.post("/stats/flowentry/add",
                      R"({"dpid": 1, "priority": 11111, "match": {"in_port": 1, "dl_type": 2048,
      "nw_dst": "10.0.0.2"}, "actions": [{"type": "SET_NW_TOS", "nw_tos": 32}, {"type": "OUTPUT", "port": 2}]})");
  EXPECT_EQ(add.status, 200) << add.body;
  EXPECT_NE(run.dump_flows("OpenFlow10")
                .find("priority=11111,ip,in_port=1,nw_dst=10.0.0.2 actions=mod_nw_tos:32,output:2"),
            std::string::npos)
      << run.dump_flows("OpenFlow10");
  expect_keys(
      first_of(run.get("/stats/table/1"), "table"),
      {"table_id", "active_count", "lookup_count", "matched_count", "name", "wildcards", "max_entries"},
      "table (OF1.0)");
  expect_keys(first_of(run.get("/stats/portdesc/1"), "portdesc"),
              {"port_no", "hw_addr", "name", "config", "state", "curr", "advertised", "supported", "peer"},
              "portdesc (OF1.0)");
  auto group = run.get("/stats/group/1");
  EXPECT_EQ(group.status, 400) << group.body;
  EXPECT_EQ(
      run.post("/stats/flowentry/add", R"({"dpid": 1, "actions": [{"type": "GOTO_TABLE", "table_id": 1}]})")
          .status,
      400);
  EXPECT_TRUE(run.ping()) << run.logs();
}

}  // namespace
}  // namespace flowlab::switch_interop
