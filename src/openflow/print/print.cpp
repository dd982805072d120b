// ofp-print: one line of header ("OFPT_X (OF1.3) (xid=0x..):") then the body of
// each message type, modelled on `ovs-ofctl ofp-print` of OVS 3.1.
#include "openflow/print/print.h"

#include <fmt/format.h>

#include "openflow/errors.h"
#include "openflow/print/internal.h"
#include "openflow/text/flow_text.h"

namespace flowlab::of {
namespace {

std::string version_tag(uint8_t v) {
  switch (v) {
    case kOf10:
      return "";
    case 0x02:
      return " (OF1.1)";
    case 0x03:
      return " (OF1.2)";
    case kOf13:
      return " (OF1.3)";
    case kOf14:
      return " (OF1.4)";
    case kOf15:
      return " (OF1.5)";
    default:
      return fmt::format(" (OF 0x{:02x})", v);
  }
}

std::string flow_mod_command(FlowModCommand c) {
  switch (c) {
    case FlowModCommand::kAdd:
      return "ADD";
    case FlowModCommand::kModify:
      return "MOD";
    case FlowModCommand::kModifyStrict:
      return "MOD_STRICT";
    case FlowModCommand::kDelete:
      return "DEL";
    case FlowModCommand::kDeleteStrict:
      return "DEL_STRICT";
  }
  return fmt::format("cmd:{}", static_cast<int>(c));
}

std::string mod_command(uint16_t c) {
  switch (c) {
    case 0:
      return "ADD";
    case 1:
      return "MOD";
    case 2:
      return "DEL";
    default:
      return fmt::format("cmd:{}", c);
  }
}

std::string flow_mod(const FlowMod& fm) {
  std::string s = " " + flow_mod_command(fm.command);
  if (fm.table_id != 0) s += fmt::format(" table:{}", fm.table_id);
  s += " " + format_match(fm.match, fm.priority);
  if (s.back() != ' ') s += ' ';
  if (fm.cookie_mask)
    s += fmt::format("cookie:{:#x}/{:#x} ", fm.cookie, fm.cookie_mask);
  else if (fm.cookie)
    s += fmt::format("cookie:{:#x} ", fm.cookie);
  if (fm.idle_timeout) s += fmt::format("idle:{} ", fm.idle_timeout);
  if (fm.hard_timeout) s += fmt::format("hard:{} ", fm.hard_timeout);
  if (fm.buffer_id != kNoBuffer) s += fmt::format("buf:{:#x} ", fm.buffer_id);
  if (fm.out_port != port::kAny) s += "out_port:" + format_port(fm.out_port) + " ";
  if (fm.out_group != group::kAny) s += fmt::format("out_group:{} ", fm.out_group);
  static constexpr std::pair<uint16_t, std::string_view> kFlags[] = {
      {flow_mod_flags::kSendFlowRem, "send_flow_rem"},
      {flow_mod_flags::kCheckOverlap, "check_overlap"},
      {flow_mod_flags::kResetCounts, "reset_counts"},
      {flow_mod_flags::kNoPktCounts, "no_packet_counts"},
      {flow_mod_flags::kNoBytCounts, "no_byte_counts"}};
  for (auto [bit, name] : kFlags)
    if (fm.flags & bit) s += fmt::format("{} ", name);
  return s + "actions=" + format_instructions(fm.instructions);
}

std::string packet_in_reason(uint8_t r) {
  switch (r) {
    case 0:
      return "no_match";
    case 1:
      return "action";
    case 2:
      return "invalid_ttl";
    default:
      return fmt::format("{}", r);
  }
}

std::string role_name(ControllerRole r) {
  switch (r) {
    case ControllerRole::kNoChange:
      return "nochange";
    case ControllerRole::kEqual:
      return "equal";
    case ControllerRole::kMaster:
      return "primary";
    case ControllerRole::kSlave:
      return "secondary";
  }
  return fmt::format("{}", static_cast<uint32_t>(r));
}

std::string async_config(const AsyncConfig& a) {
  std::string s;
  auto names = [](uint32_t mask, std::initializer_list<std::string_view> n) {
    std::string r;
    int i = 0;
    for (std::string_view name : n) {
      if (mask & (1u << i)) r += fmt::format(" {}", name);
      ++i;
    }
    return r.empty() ? std::string(" (off)") : r;
  };
  for (int i = 0; i < 2; ++i) {
    s += i == 0 ? "\n primary:" : "\n\n secondary:";
    s += "\n       PACKET_IN:" + names(a.packet_in_mask[size_t(i)], {"no_match", "action", "invalid_ttl"});
    s += "\n     PORT_STATUS:" + names(a.port_status_mask[size_t(i)], {"add", "delete", "modify"});
    s += "\n    FLOW_REMOVED:" +
         names(a.flow_removed_mask[size_t(i)], {"idle", "hard", "delete", "group_delete"});
  }
  return s;
}

std::string capabilities(uint32_t c, uint8_t version) {
  std::string s;
  auto add = [&](int bit, std::string_view n) {
    if (c & (1u << bit)) s += fmt::format(" {}", n);
  };
  add(0, "FLOW_STATS");
  add(1, "TABLE_STATS");
  add(2, "PORT_STATS");
  add(3, version == kOf10 ? "STP" : "GROUP_STATS");
  add(5, "IP_REASM");
  add(6, "QUEUE_STATS");
  if (version == kOf10)
    add(7, "ARP_MATCH_IP");
  else
    add(8, "PORT_BLOCKED");
  return s;
}

std::string of10_actions(uint32_t a) {
  static constexpr std::pair<int, std::string_view> kNames[] = {
      {0, "output"},     {11, "enqueue"},   {1, "set_vlan_vid"}, {2, "set_vlan_pcp"},
      {3, "strip_vlan"}, {4, "mod_dl_src"}, {5, "mod_dl_dst"},   {6, "mod_nw_src"},
      {7, "mod_nw_dst"}, {8, "mod_nw_tos"}, {9, "mod_tp_src"},   {10, "mod_tp_dst"}};
  std::string s;
  for (auto [bit, n] : kNames)
    if (a & (1u << bit)) s += fmt::format(" {}", n);
  return s;
}

std::string body(const Message& m) {
  uint8_t v = m.version;
  return std::visit(
      [&](const auto& b) -> std::string {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, Hello>) {
          std::string s;
          for (const HelloElement& e : b.elements) {
            if (e.type != static_cast<uint16_t>(HelloElemType::kVersionBitmap)) {
              s += fmt::format("\n unknown hello element type {} ({} bytes)", e.type, e.data.size());
              continue;
            }
            std::string list;
            for (size_t w = 0; w < e.bitmaps.size(); ++w)
              for (int bit = 0; bit < 32; ++bit)
                if (e.bitmaps[w] & (1u << bit))
                  list += fmt::format("{}0x{:02x}", list.empty() ? "" : ", ", w * 32 + size_t(bit));
            s += "\n version bitmap: " + list;
          }
          return s;
        } else if constexpr (std::is_same_v<T, ErrorMsg>) {
          std::string s;
          if (b.type == 0xffff) {
            s = fmt::format(" OFPET_EXPERIMENTER experimenter={:#x} exp_type={}", b.experimenter, b.code);
          } else {
            ErrorType t = static_cast<ErrorType>(b.type);
            uint16_t code = b.code;
            if (v == kOf10) error_from_of10(b.type, b.code, t, code);
            s = " " + error_code_name(t, code);
          }
          if (!b.data.empty()) {
            s += "\n" + format_hexdump(b.data);
            s.pop_back();
          }
          return s;
        } else if constexpr (std::is_same_v<T, EchoRequest> || std::is_same_v<T, EchoReply>) {
          std::string s = fmt::format(" {} bytes of payload", b.data.size());
          if (!b.data.empty()) s += "\n" + format_hexdump(b.data), s.pop_back();
          return s;
        } else if constexpr (std::is_same_v<T, ExperimenterMsg>) {
          std::string s = fmt::format(" experimenter={:#x} exp_type={}", b.experimenter, b.exp_type);
          if (!b.data.empty()) s += "\n" + format_hexdump(b.data), s.pop_back();
          return s;
        } else if constexpr (std::is_same_v<T, FeaturesReply>) {
          std::string s =
              fmt::format(" dpid:{:016x}\nn_tables:{}, n_buffers:{}", b.datapath_id, b.n_tables, b.n_buffers);
          if (v != kOf10 && b.auxiliary_id) s += fmt::format(", auxiliary_id:{}", b.auxiliary_id);
          s += "\ncapabilities:" + capabilities(b.capabilities, v);
          if (v == kOf10) {
            s += "\nactions:" + of10_actions(b.reserved);
            for (const PortDesc& p : b.ports) s += "\n" + format_port_desc(p, v), s.pop_back();
          }
          return s;
        } else if constexpr (std::is_same_v<T, GetConfigReply> || std::is_same_v<T, SetConfig>) {
          static constexpr std::string_view kFrags[] = {"normal", "drop", "reassemble", "nx-match"};
          return fmt::format(" frags={} miss_send_len={}", kFrags[b.flags & config_flags::kFragMask],
                             b.miss_send_len);
        } else if constexpr (std::is_same_v<T, PacketIn>) {
          std::string s = " ";
          if (v != kOf10) s += fmt::format("table_id={} cookie={:#x} ", b.table_id, b.cookie);
          s += fmt::format("total_len={} ", b.total_len);
          std::string match = format_match(b.match);
          if (!match.empty()) s += match + " ";
          s += fmt::format("(via {}) data_len={}", packet_in_reason(b.reason), b.data.size());
          if (b.buffer_id != kNoBuffer) s += fmt::format(" buffer=0x{:08x}", b.buffer_id);
          return s;
        } else if constexpr (std::is_same_v<T, FlowRemoved>) {
          std::string s = " " + format_match(b.match, b.priority);
          s += fmt::format(" reason={}", print::flow_removed_reason(b.reason));
          if (v != kOf10) s += fmt::format(" table_id={}", b.table_id);
          if (b.cookie) s += fmt::format(" cookie:{:#x}", b.cookie);
          s += " duration" + format_duration(b.duration_sec, b.duration_nsec);
          s += fmt::format(" idle{}", b.idle_timeout);
          if (b.hard_timeout) s += fmt::format(" hard{}", b.hard_timeout);
          return s + fmt::format(" pkts{} bytes{}", b.packet_count, b.byte_count);
        } else if constexpr (std::is_same_v<T, PortStatus>) {
          static constexpr std::string_view kReasons[] = {"ADD", "DEL", "MOD"};
          std::string r = b.reason < 3 ? std::string(kReasons[b.reason]) : fmt::format("reason {}", b.reason);
          std::string s = " " + r + ":" + format_port_desc(b.desc, v);
          s.pop_back();
          return s;
        } else if constexpr (std::is_same_v<T, PacketOut>) {
          std::string s = " in_port=" + format_port(b.in_port) + " actions=" + format_actions(b.actions);
          if (b.buffer_id == kNoBuffer)
            s += fmt::format(" data_len={}", b.data.size());
          else
            s += fmt::format(" buffer=0x{:08x}", b.buffer_id);
          return s;
        } else if constexpr (std::is_same_v<T, FlowMod>) {
          return flow_mod(b);
        } else if constexpr (std::is_same_v<T, GroupMod>) {
          std::string s = " " + mod_command(static_cast<uint16_t>(b.command)) + " ";
          if (b.command == GroupModCommand::kDelete)
            return s + (b.group_id == group::kAll ? std::string("group_id=ALL")
                                                  : fmt::format("group_id={}", b.group_id));
          return s + format_group_desc(GroupDesc{b.type, b.group_id, b.buckets});
        } else if constexpr (std::is_same_v<T, PortMod>) {
          std::string s =
              fmt::format(" port: {}: addr:{}\n     config: {:#x}\n     mask:   {:#x}\n     advertise: ",
                          format_port(b.port_no), b.hw_addr.to_string(), b.config, b.mask);
          return s + (b.advertise ? fmt::format("{:#x}", b.advertise) : std::string("UNCHANGED"));
        } else if constexpr (std::is_same_v<T, TableMod>) {
          std::string s = b.table_id == table::kAll ? std::string(" table_id: ALL_TABLES")
                                                    : fmt::format(" table_id: {}", b.table_id);
          if (v >= kOf14)  // ovs-ofctl's 1.4 form
            return (b.table_id == table::kAll ? std::string(" table_id: ALL_TABLES")
                                              : fmt::format(" table_id={}", b.table_id)) +
                   print::table_config(b.config, b.vacancy);
          if (b.config) s += fmt::format(", config: {:#x}", b.config);
          return s;
        } else if constexpr (std::is_same_v<T, MultipartRequest>) {
          std::string s = (b.flags & kMultipartMore) ? " flags=[more]" : "";
          return s + print::request_body(b);
        } else if constexpr (std::is_same_v<T, MultipartReply>) {
          std::string s = (b.flags & kMultipartMore) ? " flags=[more]" : "";
          return s + print::reply_body(b, v);
        } else if constexpr (std::is_same_v<T, QueueGetConfigRequest>) {
          return " port=" + format_port(b.port);
        } else if constexpr (std::is_same_v<T, QueueGetConfigReply>) {
          std::string s = " port=" + format_port(b.port);
          for (const PacketQueue& q : b.queues) {
            s += fmt::format("\nqueue {}:", q.queue_id) + print::queue_properties(q.properties);
          }
          return s;
        } else if constexpr (std::is_same_v<T, RoleRequest> || std::is_same_v<T, RoleReply>) {
          std::string s = " role=" + role_name(b.role);
          if (b.role != ControllerRole::kNoChange || b.generation_id)
            s += fmt::format(" generation_id={}", b.generation_id);
          return s;
        } else if constexpr (std::is_same_v<T, GetAsyncReply> || std::is_same_v<T, SetAsync>) {
          return async_config(b);
        } else if constexpr (std::is_same_v<T, ControllerStatus>) {
          return print::controller_status(b.status);
        } else if constexpr (std::is_same_v<T, MeterMod>) {
          std::string s = " " + mod_command(static_cast<uint16_t>(b.command)) + " ";
          if (b.command == MeterModCommand::kDelete)
            return s + (b.meter_id == meter::kAll ? std::string("meter=all")
                                                  : fmt::format("meter={}", b.meter_id));
          return s + format_meter_config(MeterConfig{b.flags, b.meter_id, b.bands});
        } else {
          return "";  // hello-like messages without a body
        }
      },
      m.body);
}

}  // namespace

namespace print {
std::string controller_status(const ControllerStatusEntry& e) {
  static constexpr std::string_view kReasons[] = {"request",          "channel_status",     "role",
                                                  "controller_added", "controller_removed", "short_id",
                                                  "experimenter"};
  const auto reason = size_t(e.reason);
  const std::string reason_text =
      reason < std::size(kReasons) ? std::string(kReasons[reason]) : std::to_string(reason);
  std::string s =
      fmt::format(" short_id={} role={} reason={} channel_status={}", e.short_id, role_name(e.role),
                  reason_text, e.channel_status == ChannelStatus::kUp ? "up" : "down");
  if (e.uri) s += " uri=" + *e.uri;
  if (!e.other_properties.empty()) s += fmt::format(" properties={}B", e.other_properties.size());
  return s;
}
}  // namespace print

std::string format_message_header(const Message& m) {
  std::string name;
  if (const auto* r = std::get_if<MultipartRequest>(&m.body))
    name = "OFPST_" + print::multipart_kind(multipart_type(r->body)) + " request";
  else if (const auto* p = std::get_if<MultipartReply>(&m.body))
    name = "OFPST_" + print::multipart_kind(multipart_type(p->body)) + " reply";
  else
    name = std::string(to_string(m.type()));
  return fmt::format("{}{} (xid={:#x}):", name, version_tag(m.version), m.xid);
}

std::string format_message(const Message& m) { return format_message_header(m) + body(m) + "\n"; }

std::string format_hexdump(ByteSpan b) {
  std::string s;
  for (size_t off = 0; off < b.size(); off += 16) {
    s += fmt::format("{:08x}  ", off);
    std::string ascii;
    for (size_t i = 0; i < 16; ++i) {
      if (off + i < b.size()) {
        uint8_t c = b[off + i];
        s += fmt::format("{:02x}", c);
        ascii += (c >= 0x20 && c < 0x7f) ? char(c) : '.';
      } else {
        s += "  ";
        ascii += ' ';
      }
      if (i == 7 && off + i < b.size())
        s += '-';
      else
        s += ' ';
    }
    s += "|" + ascii + "|\n";
  }
  return s;
}

}  // namespace flowlab::of
