// The example app of docs/CONTROLLER.md ("The topology service"), compiled and
// run here so the documentation stays true: PathLogger subscribes to the
// topology service, logs link changes and, for a packet to a known host, the
// path the service computes. Keep the two copies identical.
#include <gtest/gtest.h>

#include "controller/app_registry.h"
#include "controller/topology/service.h"
#include "core/log.h"
#include "fake_switch.h"

namespace flowlab::controller {
namespace {

using namespace std::chrono_literals;
using namespace testing;

// ---- docs/CONTROLLER.md example, begin ----
class PathLogger : public App, public topology::TopologyListener {
 public:
  std::string_view name() const override { return "path-logger"; }
  bool uses_topology() const override { return true; }
  void attach_topology(topology::TopologyService& t) override {
    topo_ = &t;
    t.subscribe(this);
  }
  void link_removed(const topology::LinkView& l) override {
    log::info("path-logger", "lost {:016x}:{} -> {:016x}:{}", l.src_dpid, l.src_port, l.dst_dpid, l.dst_port);
    ++links_lost;
  }
  Verdict packet_in(Datapath& dp, PacketInEvent& ev) override {
    MacAddr dst;
    std::copy(ev.key.eth_dst, ev.key.eth_dst + 6, dst.b.begin());
    if (auto h = topo_->host(dst))
      if (auto p = topo_->path(dp.dpid(), h->dpid)) {
        for (const auto& hop : *p) log::info("path-logger", "  {:016x} out {}", hop.dpid, hop.out_port);
        std::lock_guard lock(mu_);
        last_path_ = *p;
      }
    return Verdict::kContinue;  // let the next app forward it
  }
  std::vector<topology::Hop> last_path() const {
    std::lock_guard lock(mu_);
    return last_path_;
  }
  std::atomic<int> links_lost{0};

 private:
  topology::TopologyService* topo_ = nullptr;
  mutable std::mutex mu_;  // apps are shared by every switch's thread
  std::vector<topology::Hop> last_path_;
};
// ---- docs/CONTROLLER.md example, end ----

bool wait_for(const std::function<bool()>& pred, std::chrono::milliseconds t = 3s) {
  auto end = std::chrono::steady_clock::now() + t;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(2ms);
  }
  return pred();
}

std::optional<Bytes> lldp_out_of(FakeSwitch& sw, uint32_t port) {
  std::optional<Bytes> found;
  for (const auto& po : sw.all<of::PacketOut>())
    if (po.actions.size() == 1 && po.actions[0].port == port && po.data.size() >= 14 && po.data[12] == 0x88 &&
        po.data[13] == 0xcc)
      found = po.data;
  return found;
}

TEST(TopologyExample, PathLoggerSeesPathsAndLinkLoss) {
  auto logger = std::make_unique<PathLogger>();
  PathLogger* pl = logger.get();
  std::vector<std::unique_ptr<App>> apps;
  apps.push_back(std::move(logger));
  auto sp = make_app("shortest-path", AppConfig{});
  ASSERT_TRUE(sp.ok());
  apps.push_back(std::move(*sp));
  ControllerOptions o;
  o.topology.lldp_interval = 50ms;
  o.topology.link_timeout = 60000ms;
  ControllerRunner c(std::move(apps), o);
  FakeSwitch s1(c.port(), of::kOf13, 1), s2(c.port(), of::kOf13, 2);
  // The cable s1:3 <-> s2:3, played once in each direction.
  ASSERT_TRUE(wait_for([&] { return lldp_out_of(s1, 3) && lldp_out_of(s2, 3); }));
  s2.packet_in(3, *lldp_out_of(s1, 3));
  s1.packet_in(3, *lldp_out_of(s2, 3));
  ASSERT_TRUE(wait_for([&] { return c.controller().topology().links().size() == 2; }));
  constexpr uint64_t kMacA = 0x0200000000aa, kMacB = 0x0200000000bb;
  s2.packet_in(1, eth_frame(kMacA, kMacB, 0x0800));  // B on s2:1
  ASSERT_TRUE(wait_for([&] { return c.controller().topology().hosts().size() == 1; }));
  s1.packet_in(1, eth_frame(kMacB, kMacA, 0x0800));  // A -> B from s1
  ASSERT_TRUE(wait_for([&] { return !pl->last_path().empty(); }));
  EXPECT_EQ(pl->last_path(), (std::vector<topology::Hop>{{1, 3}}));
  of::PortStatus ps;
  ps.reason = uint8_t(of::PortStatusReason::kModify);
  ps.desc.port_no = 3;
  ps.desc.name = "p3";
  ps.desc.hw_addr = MacAddr::from_u64(0x020000000003ull);
  ps.desc.state = of::port_state::kLinkDown;
  s1.send(ps);
  EXPECT_TRUE(wait_for([&] { return pl->links_lost == 2; })) << pl->links_lost;
}

}  // namespace
}  // namespace flowlab::controller
