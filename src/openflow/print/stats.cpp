// ofp-print, multipart (stats) bodies: flows, ports, port descriptions, tables,
// queues, groups, meters — laid out as `ovs-ofctl dump-*` of OVS 3.1 prints them.
#include <fmt/format.h>

#include <array>

#include "openflow/print/internal.h"
#include "openflow/print/print.h"
#include "openflow/text/flow_text.h"

namespace flowlab::of {
namespace {

std::string counter(uint64_t v) { return v == UINT64_MAX ? "?" : fmt::format("{}", v); }

std::string bits(uint32_t v, std::initializer_list<std::pair<int, std::string_view>> names) {
  std::string s;
  uint32_t known = 0;
  for (auto [bit, name] : names) {
    known |= 1u << bit;
    if (v & (1u << bit)) {
      s += name;
      s += ' ';
    }
  }
  if (v & ~known) s += fmt::format("{:#x} ", v & ~known);
  if (s.empty()) return "0";
  s.pop_back();
  return s;
}

std::string features(uint32_t f, uint8_t version) {
  if (version == kOf10)
    return bits(f, {{0, "10MB-HD"},
                    {1, "10MB-FD"},
                    {2, "100MB-HD"},
                    {3, "100MB-FD"},
                    {4, "1GB-HD"},
                    {5, "1GB-FD"},
                    {6, "10GB-FD"},
                    {7, "COPPER"},
                    {8, "FIBER"},
                    {9, "AUTO_NEG"},
                    {10, "AUTO_PAUSE"},
                    {11, "AUTO_PAUSE_ASYM"}});
  return bits(f, {{0, "10MB-HD"},
                  {1, "10MB-FD"},
                  {2, "100MB-HD"},
                  {3, "100MB-FD"},
                  {4, "1GB-HD"},
                  {5, "1GB-FD"},
                  {6, "10GB-FD"},
                  {7, "40GB-FD"},
                  {8, "100GB-FD"},
                  {9, "1TB-FD"},
                  {10, "OTHER"},
                  {11, "COPPER"},
                  {12, "FIBER"},
                  {13, "AUTO_NEG"},
                  {14, "AUTO_PAUSE"},
                  {15, "AUTO_PAUSE_ASYM"}});
}

}  // namespace

std::string format_port_desc(const PortDesc& p, uint8_t version) {
  std::string s = fmt::format(" {}({}): addr:{}\n", format_port(p.port_no), p.name, p.hw_addr.to_string());
  s += "     config:     " +
       bits(p.config, {{0, "PORT_DOWN"},
                       {1, "NO_STP"},
                       {2, "NO_RECV"},
                       {3, "NO_RECV_STP"},
                       {4, "NO_FLOOD"},
                       {5, "NO_FWD"},
                       {6, "NO_PACKET_IN"}}) +
       "\n";
  s += "     state:      " + bits(p.state, {{0, "LINK_DOWN"}, {1, "BLOCKED"}, {2, "LIVE"}}) + "\n";
  if (p.curr) s += "     current:    " + features(p.curr, version) + "\n";
  if (p.advertised) s += "     advertised: " + features(p.advertised, version) + "\n";
  if (p.supported) s += "     supported:  " + features(p.supported, version) + "\n";
  if (p.peer) s += "     peer:       " + features(p.peer, version) + "\n";
  if (version != kOf10)
    s += fmt::format("     speed: {} Mbps now, {} Mbps max\n", p.curr_speed / 1000, p.max_speed / 1000);
  return s;
}

std::string format_port_stats(const PortStats& ps, uint8_t version) {
  std::string s = fmt::format(
      "  port {:>2}: rx pkts={}, bytes={}, drop={}, errs={}, frame={}, over={}, crc={}\n",
      format_port(ps.port_no), counter(ps.rx_packets), counter(ps.rx_bytes), counter(ps.rx_dropped),
      counter(ps.rx_errors), counter(ps.rx_frame_err), counter(ps.rx_over_err), counter(ps.rx_crc_err));
  s += fmt::format("           tx pkts={}, bytes={}, drop={}, errs={}, coll={}\n", counter(ps.tx_packets),
                   counter(ps.tx_bytes), counter(ps.tx_dropped), counter(ps.tx_errors),
                   counter(ps.collisions));
  if (version != kOf10 && ps.duration_sec != UINT32_MAX)
    s += fmt::format("           duration={}\n", format_duration(ps.duration_sec, ps.duration_nsec));
  return s;
}

std::string format_table_stats(const std::vector<TableStats>& tables, uint8_t version) {
  std::string s;
  auto same = [](const TableStats& a, const TableStats& b) {
    return a.active_count == b.active_count && a.lookup_count == b.lookup_count &&
           a.matched_count == b.matched_count && a.name == b.name && a.max_entries == b.max_entries &&
           a.wildcards == b.wildcards;
  };
  for (size_t i = 0; i < tables.size();) {
    const TableStats& t = tables[i];
    if (i > 0 && same(t, tables[i - 1])) {
      size_t j = i;
      while (j + 1 < tables.size() && same(tables[j + 1], t)) ++j;
      if (j == i)
        s += fmt::format("  table {}: ditto\n", t.table_id);
      else
        s += fmt::format("  tables {}...{}: ditto\n", t.table_id, tables[j].table_id);
      i = j + 1;
      continue;
    }
    if (version == kOf10 && !t.name.empty())
      s += fmt::format("  table {} (\"{}\"):\n", t.table_id, t.name);
    else
      s += fmt::format("  table {}:\n", t.table_id);
    s += fmt::format("    active={}, lookup={}, matched={}\n", t.active_count, counter(t.lookup_count),
                     counter(t.matched_count));
    if (version == kOf10 && t.max_entries) s += fmt::format("    max_entries={}\n", t.max_entries);
    s += "\n";
    ++i;
  }
  return s;
}

namespace print {

std::string queue_properties(const std::vector<QueueProperty>& props) {
  std::string s;
  for (const QueueProperty& p : props) {
    if (p.type == QueuePropType::kMinRate)
      s += fmt::format(" min_rate:{}.{}%", p.rate / 10, p.rate % 10);
    else if (p.type == QueuePropType::kMaxRate)
      s += fmt::format(" max_rate:{}.{}%", p.rate / 10, p.rate % 10);
    else
      s += fmt::format(" property({})", static_cast<uint16_t>(p.type));
  }
  return s;
}

std::string multipart_kind(MultipartType t) {
  if (uint16_t(t) == 14) return "TABLE_DESC";    // OF1.4
  if (uint16_t(t) == 15) return "QUEUE_DESC";    // OF1.4
  if (uint16_t(t) == 16) return "FLOW_MONITOR";  // OF1.4
  switch (t) {
    case MultipartType::kDesc:
      return "DESC";
    case MultipartType::kFlow:
      return "FLOW";
    case MultipartType::kAggregate:
      return "AGGREGATE";
    case MultipartType::kTable:
      return "TABLE";
    case MultipartType::kPortStats:
      return "PORT";
    case MultipartType::kQueue:
      return "QUEUE";
    case MultipartType::kGroup:
      return "GROUP";
    case MultipartType::kGroupDesc:
      return "GROUP_DESC";
    case MultipartType::kGroupFeatures:
      return "GROUP_FEATURES";
    case MultipartType::kMeter:
      return "METER";
    case MultipartType::kMeterConfig:
      return "METER_CONFIG";
    case MultipartType::kMeterFeatures:
      return "METER_FEATURES";
    case MultipartType::kTableFeatures:
      return "TABLE_FEATURES";
    case MultipartType::kControllerStatus:  // OF1.5
      return "CONTROLLER_STATUS";
    case MultipartType::kPortDesc:
      return "PORT_DESC";
    case MultipartType::kExperimenter:
      return "EXPERIMENTER";
  }
  return fmt::format("MULTIPART({})", static_cast<uint16_t>(t));
}

// ", eviction=on, vacancy=on vacancy:20,80" (a 1.4 table-mod, as ovs-ofctl prints it).
std::string table_config(uint32_t config, const std::optional<TableVacancy>& vacancy) {
  std::string s = fmt::format(", eviction={}", config & table_config::kEviction ? "on" : "off");
  if (!(config & table_config::kVacancyEvents)) return s + ", vacancy=off";
  s += ", vacancy=on";
  if (vacancy) s += fmt::format(" vacancy:{},{}", vacancy->down, vacancy->up);
  return s;
}

namespace {

// One ofp_table_desc as ovs-ofctl dump-table-desc prints it.
std::string table_desc(const TableDesc& t) {
  std::string s = fmt::format("\n  table {}:\n   eviction={} eviction_flags=", t.table_id,
                              t.config & table_config::kEviction ? "on" : "off");
  if (!t.eviction_flags) {
    s += "(default)";
  } else {
    std::string flags;
    const std::pair<uint32_t, std::string_view> kNames[] = {{eviction_flag::kOther, "OTHER"},
                                                            {eviction_flag::kImportance, "IMPORTANCE"},
                                                            {eviction_flag::kLifetime, "LIFETIME"}};
    for (const auto& [bit, name] : kNames)
      if (*t.eviction_flags & bit) flags += (flags.empty() ? "" : "|") + std::string(name);
    s += flags.empty() ? "0" : flags;
  }
  s += fmt::format("\n   vacancy={}", t.config & table_config::kVacancyEvents ? "on" : "off");
  if ((t.config & table_config::kVacancyEvents) && t.vacancy)
    s += fmt::format(" vacancy_down={}% vacancy_up={}% vacancy={}%", t.vacancy->down, t.vacancy->up,
                     t.vacancy->vacancy);
  return s + "\n";
}

std::string table_features(const std::vector<TableFeatures>& tables) {
  std::string s;
  for (const TableFeatures& t : tables) {
    s += fmt::format("\n  table {} (\"{}\"):\n", t.table_id, t.name);
    s += fmt::format("    metadata: match={:#x} write={:#x}\n", t.metadata_match, t.metadata_write);
    s += fmt::format("    max_entries={}\n", t.max_entries);
    if (t.command || t.features) {  // OF1.5
      constexpr std::array<std::string_view, 4> kCommands = {"replace", "modify", "enable", "disable"};
      const std::string cmd =
          t.command < kCommands.size() ? std::string(kCommands[t.command]) : fmt::format("{}", t.command);
      s += fmt::format("    command={} features={}\n", cmd,
                       bits(t.features, {{0, "ingress"}, {1, "egress"}, {4, "first_egress"}}));
    }
    s += fmt::format("    {} properties", t.properties.size());
  }
  return s;
}

std::string group_stats(const GroupStats& g) {
  std::string s = fmt::format(" group_id={},duration={},ref_count={},packet_count={},byte_count={}",
                              g.group_id, format_duration(g.duration_sec, g.duration_nsec), g.ref_count,
                              counter(g.packet_count), counter(g.byte_count));
  for (size_t i = 0; i < g.buckets.size(); ++i)
    s += fmt::format(",bucket{}:packet_count={},byte_count={}", i, counter(g.buckets[i].packet_count),
                     counter(g.buckets[i].byte_count));
  return s;
}

std::string meter_stats(const MeterStats& m) {
  std::string s =
      fmt::format("meter:{} flow_count:{} packet_in_count:{} byte_in_count:{} duration:{} bands:\n",
                  m.meter_id, m.flow_count, counter(m.packet_in_count), counter(m.byte_in_count),
                  format_duration(m.duration_sec, m.duration_nsec));
  for (size_t i = 0; i < m.bands.size(); ++i)
    s += fmt::format("{}: packet_count:{} byte_count:{}\n", i, counter(m.bands[i].packet_band_count),
                     counter(m.bands[i].byte_band_count));
  return s;
}

std::string group_type_name(int t) {
  static constexpr std::string_view kNames[] = {"all", "select", "indirect", "fast failover"};
  return t < 4 ? std::string(kNames[t]) : fmt::format("type {}", t);
}

}  // namespace

// Body of a multipart reply: text after the header's ':' (starting with ' ' or '\n').
std::string reply_body(const MultipartReply& r, uint8_t version) {
  return std::visit(
      [&](const auto& b) -> std::string {
        using T = std::decay_t<decltype(b)>;
        std::string s;
        if constexpr (std::is_same_v<T, DescReply>) {
          s = fmt::format(
              "\nManufacturer: {}\nHardware: {}\nSoftware: {}\nSerial Num: {}\nDP Description: {}",
              b.mfr_desc, b.hw_desc, b.sw_desc, b.serial_num, b.dp_desc);
        } else if constexpr (std::is_same_v<T, FlowStatsReply>) {
          for (const FlowStats& f : b.stats) s += "\n" + format_flow_stats(f);
        } else if constexpr (std::is_same_v<T, AggregateStatsReply>) {
          s = fmt::format(" packet_count={} byte_count={} flow_count={}", b.packet_count, b.byte_count,
                          b.flow_count);
        } else if constexpr (std::is_same_v<T, TableStatsReply>) {
          s = "\n" + format_table_stats(b.stats, version);
          while (!s.empty() && s.back() == '\n') s.pop_back();
        } else if constexpr (std::is_same_v<T, PortStatsReply>) {
          s = fmt::format(" {} ports\n", b.stats.size());
          for (const PortStats& p : b.stats) s += format_port_stats(p, version);
          s.pop_back();
        } else if constexpr (std::is_same_v<T, QueueStatsReply>) {
          s = fmt::format(" {} queues", b.stats.size());
          for (const QueueStats& q : b.stats) {
            s += fmt::format("\n  port {} queue {}: bytes={}, pkts={}, errors={}", format_port(q.port_no),
                             q.queue_id, counter(q.tx_bytes), counter(q.tx_packets), counter(q.tx_errors));
            if (version != kOf10) s += ", duration=" + format_duration(q.duration_sec, q.duration_nsec);
          }
        } else if constexpr (std::is_same_v<T, GroupStatsReply>) {
          for (const GroupStats& g : b.stats) s += "\n" + group_stats(g);
        } else if constexpr (std::is_same_v<T, GroupDescReply>) {
          for (const GroupDesc& g : b.groups) s += "\n " + format_group_desc(g);
        } else if constexpr (std::is_same_v<T, GroupFeaturesReply>) {
          s = fmt::format("\n Group table:\n    Types:  {:#x}\n    Capabilities:  {:#x}", b.types,
                          b.capabilities);
          for (int i = 0; i < 4; ++i)
            if (b.types & (1u << i))
              s += fmt::format("\n    {} group:\n       max_groups={:#x}\n       actions: {:#x}",
                               group_type_name(i), b.max_groups[size_t(i)], b.actions[size_t(i)]);
        } else if constexpr (std::is_same_v<T, MeterStatsReply>) {
          s = "\n";
          for (const MeterStats& m : b.stats) s += meter_stats(m);
          s.pop_back();
        } else if constexpr (std::is_same_v<T, MeterConfigReply>) {
          for (const MeterConfig& m : b.configs) s += "\n" + format_meter_config(m);
        } else if constexpr (std::is_same_v<T, MeterFeaturesReply>) {
          s = fmt::format("\nmax_meter:{} max_bands:{} max_color:{}\nband_types: {}\ncapabilities: {}",
                          b.max_meter, b.max_bands, b.max_color,
                          bits(b.band_types, {{1, "drop"}, {2, "dscp_remark"}}),
                          bits(b.capabilities, {{0, "kbps"}, {1, "pktps"}, {2, "burst"}, {3, "stats"}}));
        } else if constexpr (std::is_same_v<T, TableFeaturesReply>) {
          s = table_features(b.tables);
        } else if constexpr (std::is_same_v<T, PortDescReply>) {
          s = "\n";
          for (const PortDesc& p : b.ports) s += format_port_desc(p, version);
          s.pop_back();
        } else if constexpr (std::is_same_v<T, TableDescReply>) {
          for (const TableDesc& t : b.tables) s += table_desc(t);
          if (!s.empty()) s.pop_back();
        } else if constexpr (std::is_same_v<T, QueueDescReply>) {
          for (const QueueDesc& q : b.queues)
            s += "\n port=" + format_port(q.port_no) + fmt::format(" queue {}:", q.queue_id) +
                 queue_properties(q.properties);
        } else if constexpr (std::is_same_v<T, FlowMonitorReply>) {
          s = flow_monitor_reply(b);
        } else if constexpr (std::is_same_v<T, ControllerStatusReply>) {
          for (const ControllerStatusEntry& e : b.controllers) s += "\n" + controller_status(e);
        } else if constexpr (std::is_same_v<T, ExperimenterMultipart>) {
          s = fmt::format(" experimenter={:#x} exp_type={}", b.experimenter, b.exp_type);
          if (!b.data.empty()) s += "\n" + format_hexdump(b.data), s.pop_back();
        }
        return s;
      },
      r.body);
}

std::string request_body(const MultipartRequest& r) {
  return std::visit(
      [&](const auto& b) -> std::string {
        using T = std::decay_t<decltype(b)>;
        std::string s;
        if constexpr (std::is_same_v<T, FlowStatsRequest> || std::is_same_v<T, AggregateStatsRequest>) {
          if (b.table_id != table::kAll) s += fmt::format(" table={}", b.table_id);
          if (b.out_port != port::kAny) s += " out_port=" + format_port(b.out_port);
          if (b.out_group != group::kAny) s += fmt::format(" out_group={}", b.out_group);
          if (b.cookie_mask) s += fmt::format(" cookie={:#x}/{:#x}", b.cookie, b.cookie_mask);
          if (!b.match.empty()) s += " " + format_match(b.match);
        } else if constexpr (std::is_same_v<T, PortStatsRequest>) {
          s = " port_no=" + format_port(b.port_no);
        } else if constexpr (std::is_same_v<T, QueueStatsRequest> || std::is_same_v<T, QueueDescRequest>) {
          s = " port=" + format_port(b.port_no) +
              (b.queue_id == 0xffffffff ? std::string(" queue=ALL") : fmt::format(" queue={}", b.queue_id));
        } else if constexpr (std::is_same_v<T, GroupStatsRequest>) {
          s = b.group_id == group::kAll ? " group_id=ALL" : fmt::format(" group_id={}", b.group_id);
        } else if constexpr (std::is_same_v<T, GroupDescRequest>) {
          s = " group_id=ALL";
        } else if constexpr (std::is_same_v<T, MeterStatsRequest> || std::is_same_v<T, MeterConfigRequest>) {
          s = b.meter_id == meter::kAll ? " meter=all" : fmt::format(" meter={}", b.meter_id);
        } else if constexpr (std::is_same_v<T, TableFeaturesRequest>) {
          s = table_features(b.tables);
        } else if constexpr (std::is_same_v<T, PortDescRequest>) {
          s = " port=ANY";
        } else if constexpr (std::is_same_v<T, FlowMonitorRequest>) {
          s = flow_monitor_request(b);
        } else if constexpr (std::is_same_v<T, ExperimenterMultipart>) {
          s = fmt::format(" experimenter={:#x} exp_type={}", b.experimenter, b.exp_type);
        }
        return s;
      },
      r.body);
}

}  // namespace print
}  // namespace flowlab::of
