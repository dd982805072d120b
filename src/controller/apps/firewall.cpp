// firewall app (see firewall.h).
#include "controller/apps/firewall.h"

#include "controller/flows.h"
#include "core/log.h"

namespace flowlab::controller {

namespace {

constexpr size_t kMaxConns = 200000;
constexpr uint16_t kAllowIdle = 60, kDenyIdle = 10;

std::string conn_text(const Firewall::ConnKey& k) {
  return fmt::format("proto {} {}:{} -> {}:{}", k.proto, Ipv4Addr{k.src}.to_string(), k.sport,
                     Ipv4Addr{k.dst}.to_string(), k.dport);
}

of::Match conn_match(const Firewall::ConnKey& k) {
  of::Match m;
  m.add(of::OxmField::basic(of::OxmId::kEthType, 0x0800));
  m.add(of::OxmField::basic(of::OxmId::kIpProto, k.proto));
  m.add(of::OxmField::basic(of::OxmId::kIpv4Src, k.src));
  m.add(of::OxmField::basic(of::OxmId::kIpv4Dst, k.dst));
  if (k.proto == 6) {
    m.add(of::OxmField::basic(of::OxmId::kTcpSrc, k.sport));
    m.add(of::OxmField::basic(of::OxmId::kTcpDst, k.dport));
  } else if (k.proto == 17) {
    m.add(of::OxmField::basic(of::OxmId::kUdpSrc, k.sport));
    m.add(of::OxmField::basic(of::OxmId::kUdpDst, k.dport));
  }
  return m;
}

}  // namespace

Result<std::unique_ptr<Firewall>> Firewall::load(const std::string& path) {
  FLOWLAB_ASSIGN_OR_RETURN(auto rs, FwRuleSet::load_file(path));
  log::info("firewall", "loaded {} security groups from {}", rs.group_count(), path);
  return std::make_unique<Firewall>(path, std::move(rs));
}

Firewall::Firewall(std::string path, FwRuleSet rules) : path_(std::move(path)), rules_(std::move(rules)) {}

uint64_t Firewall::allowed() const {
  std::lock_guard lock(mu_);
  return allowed_;
}
uint64_t Firewall::denied() const {
  std::lock_guard lock(mu_);
  return denied_;
}

void Firewall::install_base(Datapath& dp) {
  uint8_t t = table_for(dp);
  auto send = [&](of::FlowMod fm) {
    fm.cookie = kCookie;
    auto st = dp.flow_mod(std::move(fm));
    if (!st.ok()) log::warn("firewall", "{}: {}", dp.name(), st.error().message);
  };
  send(table_miss_to_controller(t, of::kControllerMaxLenNoBuffer));
  if (!dp.is_of13() || !has_next()) return;  // OF1.0: decided per packet-in, flows narrowed
  auto pass = [&](of::Match m) {
    of::FlowMod fm = make_flow(t, 100, std::move(m), {});
    fm.instructions.push_back(of::Instruction::goto_table(next_table()));
    send(std::move(fm));
  };
  pass(of::Match().add(of::OxmField::basic(of::OxmId::kEthType, 0x0806)));
  for (auto [s, d] : {std::pair<uint16_t, uint16_t>{68, 67}, {67, 68}}) {
    pass(of::Match()
             .add(of::OxmField::basic(of::OxmId::kEthType, 0x0800))
             .add(of::OxmField::basic(of::OxmId::kIpProto, 17))
             .add(of::OxmField::basic(of::OxmId::kUdpSrc, s))
             .add(of::OxmField::basic(of::OxmId::kUdpDst, d)));
  }
  for (uint8_t type = 133; type <= 136; ++type) {
    pass(of::Match()
             .add(of::OxmField::basic(of::OxmId::kEthType, 0x86dd))
             .add(of::OxmField::basic(of::OxmId::kIpProto, 58))
             .add(of::OxmField::basic(of::OxmId::kIcmpv6Type, type)));
  }
}

void Firewall::switch_connected(Datapath& dp) {
  {
    std::lock_guard lock(mu_);
    dps_[dp.dpid()] = &dp;
  }
  install_base(dp);
}

void Firewall::switch_disconnected(Datapath& dp) {
  std::lock_guard lock(mu_);
  auto it = dps_.find(dp.dpid());
  if (it != dps_.end() && it->second == &dp) dps_.erase(it);
}

void Firewall::install_connection(Datapath& dp, const ConnKey& k, bool allow) {
  of::FlowMod fm = make_flow(table_for(dp), kPriority, conn_match(k), {}, allow ? kAllowIdle : kDenyIdle);
  fm.cookie = kCookie;
  if (allow) fm.instructions.push_back(of::Instruction::goto_table(next_table()));
  auto st = dp.flow_mod(std::move(fm));
  if (!st.ok()) log::debug("firewall", "{}: flow-mod refused: {}", dp.name(), st.error().message);
}

Verdict Firewall::packet_in(Datapath& dp, PacketInEvent& ev) {
  const FlowKey& k = ev.key;
  bool of13 = dp.is_of13();
  auto narrow_type = [&](uint16_t type) {
    if (!of13) ev.narrow.add(of::OxmField::basic(of::OxmId::kEthType, type));
  };
  std::unique_lock lock(mu_);
  // Learn where hosts are (their IPv4 address -> switch port), for port targets.
  uint32_t src_ip = k.eth_type == 0x0806 ? k.arp_spa : k.eth_type == 0x0800 ? k.ipv4_src : 0;
  if (src_ip != 0 && ev.in_port != 0 && ev.in_port < of::port::kMax)
    hosts_[src_ip] = FwEndpoint{dp.dpid(), ev.in_port, mac_u64(k.eth_src), src_ip};
  // Packets that already passed our table (OF1.3) are the next app's business.
  if (of13 && ev.pi.table_id != table_for(dp)) return Verdict::kContinue;

  if (k.eth_type == 0x0806) {  // ARP, as Neutron allows it
    narrow_type(0x0806);
    return Verdict::kContinue;
  }
  if (k.eth_type == 0x86dd && k.ip_proto == 58 && k.icmp_type >= 133 && k.icmp_type <= 136) {
    narrow_type(0x86dd);
    return Verdict::kContinue;
  }
  if (k.eth_type != 0x0800) {
    ++denied_;
    return Verdict::kConsumed;  // default deny for everything else
  }
  bool l4ports = k.ip_proto == 6 || k.ip_proto == 17;
  ConnKey key{k.ip_proto, k.ipv4_src, k.ipv4_dst, l4ports ? k.tp_src : uint16_t(0),
              l4ports ? k.tp_dst : uint16_t(0)};
  bool dhcp = k.ip_proto == 17 && ((k.tp_src == 68 && k.tp_dst == 67) || (k.tp_src == 67 && k.tp_dst == 68));
  bool allow = dhcp;
  std::string why = dhcp ? "DHCP" : "";
  if (!allow) {
    if (auto it = conns_.find(key); it != conns_.end()) {
      allow = true;
      why = it->second.reverse ? "return traffic of an allowed connection" : "tracked connection";
    }
  }
  if (!allow) {
    FwPacket p;
    p.src = FwEndpoint{dp.dpid(), ev.in_port, mac_u64(k.eth_src), k.ipv4_src};
    p.dst = FwEndpoint{dp.dpid(), 0, mac_u64(k.eth_dst), k.ipv4_dst};
    if (auto h = hosts_.find(k.ipv4_dst); h != hosts_.end() && h->second.dpid == dp.dpid())
      p.dst.port = h->second.port;
    p.proto = k.ip_proto;
    p.tp_src = key.sport;
    p.tp_dst = key.dport;
    p.icmp_type = k.icmp_type;
    p.icmp_code = k.icmp_code;
    FwDecision d = rules_.decide(p);
    allow = d.allow;
    why = d.why;
    if (allow) {
      if (conns_.size() > kMaxConns) conns_.clear();
      conns_[key] = Conn{p, false};
      ConnKey rev{key.proto, key.dst, key.src, key.dport, key.sport};
      conns_.try_emplace(rev, Conn{p, true});
    }
  }
  if (allow)
    ++allowed_;
  else
    ++denied_;
  lock.unlock();
  log::debug("firewall", "{}: {} {}: {}", dp.name(), allow ? "allow" : "deny", conn_text(key), why);
  if (!allow) {
    install_connection(dp, key, false);
    return Verdict::kConsumed;
  }
  if (of13) {
    if (has_next()) {
      install_connection(dp, key, true);
      install_connection(dp, ConnKey{key.proto, key.dst, key.src, key.dport, key.sport}, true);
    }
  } else {
    for (auto& f : conn_match(key).fields) ev.narrow.add(std::move(f));
  }
  return Verdict::kContinue;
}

Status Firewall::reload() {
  auto rs = FwRuleSet::load_file(path_);
  if (!rs.ok()) return fail("firewall: {}", rs.error().message);
  size_t n_groups = rs->group_count();
  std::vector<std::pair<uint64_t, channel::ConnectionPtr>> targets;
  {
    std::lock_guard lock(mu_);
    rules_ = std::move(*rs);
    // Keep only the connections the new rules still allow (with their reverse).
    std::vector<ConnKey> drop;
    for (const auto& [k, c] : conns_) {
      if (c.reverse) continue;
      if (!rules_.decide(c.fwd).allow) {
        drop.push_back(k);
        drop.push_back(ConnKey{k.proto, k.dst, k.src, k.dport, k.sport});
      }
    }
    for (const auto& k : drop) conns_.erase(k);
    for (auto& [dpid, dp] : dps_) targets.emplace_back(dpid, dp->connection().shared_from_this());
  }
  log::info("firewall", "reloaded {} security groups from {}", n_groups, path_);
  for (auto& [dpid, conn] : targets) {
    conn->post([this, dpid = dpid] {
      Datapath* dp = nullptr;
      {
        std::lock_guard lock(mu_);
        auto it = dps_.find(dpid);
        if (it == dps_.end()) return;
        dp = it->second;
      }
      of::FlowMod del;
      del.command = of::FlowModCommand::kDelete;
      del.table_id = table_for(*dp);
      del.cookie = kCookie;
      del.cookie_mask = kCookieMask;
      if (!dp->is_of13()) {  // OF1.0 has no cookie mask: everything goes, base flows come back
        del.table_id = 0;    // (and the topology service's LLDP flow: Controller::reload)
        del.cookie = 0;
        del.cookie_mask = 0;
      }
      auto st = dp->flow_mod(std::move(del));
      if (!st.ok()) log::warn("firewall", "{}: cannot delete old flows: {}", dp->name(), st.error().message);
      install_base(*dp);  // the base flows were deleted with the rest
    });
  }
  return {};
}

}  // namespace flowlab::controller
