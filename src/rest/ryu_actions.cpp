// Ryu action JSON <-> of::Action / of::Instruction (see ryu_json.h).
#include <algorithm>
#include <array>
#include <limits>
#include <string_view>

#include "openflow/text/flow_text.h"
#include "rest/ryu_json.h"

namespace flowlab::rest {

namespace {

struct ReservedPort {
  std::string_view name;
  uint32_t port;
};
constexpr std::array kReservedPorts = {
    ReservedPort{"IN_PORT", of::port::kInPort}, ReservedPort{"TABLE", of::port::kTable},
    ReservedPort{"NORMAL", of::port::kNormal},  ReservedPort{"FLOOD", of::port::kFlood},
    ReservedPort{"ALL", of::port::kAll},        ReservedPort{"CONTROLLER", of::port::kController},
    ReservedPort{"LOCAL", of::port::kLocal},    ReservedPort{"ANY", of::port::kAny},
};

constexpr uint16_t kControllerMaxLen = 0xffe5;  // OFPCML_MAX, Ryu's default max_len

Result<std::string> text_of(const Json& obj, std::string_view key, std::string_view type) {
  auto it = obj.find(key);
  if (it == obj.end()) return fail("action {} needs '{}'", type, key);
  if (it->is_number_unsigned()) return std::to_string(it->get<uint64_t>());
  if (it->is_string() && plain_value(it->get_ref<const std::string&>())) return it->get<std::string>();
  return fail("action {}: '{}' must be a non-negative number or a plain string", type, key);
}

// OF1.0-era actions Ryu's ofctl_v1_0 names, as ovs-ofctl text: type -> (verb, argument key).
struct TextAction {
  std::string_view type, verb, key;
};
constexpr std::array kTextActions = {
    TextAction{"SET_VLAN_VID", "mod_vlan_vid", "vlan_vid"},
    TextAction{"SET_VLAN_PCP", "mod_vlan_pcp", "vlan_pcp"},
    TextAction{"SET_DL_SRC", "mod_dl_src", "dl_src"},
    TextAction{"SET_DL_DST", "mod_dl_dst", "dl_dst"},
    TextAction{"SET_NW_SRC", "mod_nw_src", "nw_src"},
    TextAction{"SET_NW_DST", "mod_nw_dst", "nw_dst"},
    TextAction{"SET_NW_TOS", "mod_nw_tos", "nw_tos"},
    TextAction{"SET_TP_SRC", "mod_tp_src", "tp_src"},
    TextAction{"SET_TP_DST", "mod_tp_dst", "tp_dst"},
};

// Appends the action(s) one Ryu action object stands for (OF1.0's strip_vlan
// and enqueue may become two in OF1.3 terms).
Status append_action(const Json& a, const of::Match& match, uint8_t version, of::ActionList& out) {
  if (!a.is_object()) return fail("action: expected an object like {{\"type\": \"OUTPUT\", \"port\": 2}}");
  auto t = a.find("type");
  if (t == a.end() || !t->is_string()) return fail("action: needs a \"type\" string");
  const std::string& type = t->get_ref<const std::string&>();
  using of::Action;
  using of::ActionType;
  auto simple = [&](ActionType at) -> Status {
    out.push_back(Action::simple(at));
    return {};
  };
  auto ethertype = [&](auto make) -> Status {
    FLOWLAB_ASSIGN_OR_RETURN(uint64_t e, uint_field(a, "ethertype", 1ull << 32, 0xffff));
    if (e > 0xffff) return fail("action {} needs 'ethertype'", type);
    out.push_back(make(uint16_t(e)));
    return {};
  };
  auto u8 = [&](std::string_view key) -> Result<uint8_t> {
    FLOWLAB_ASSIGN_OR_RETURN(uint64_t v, uint_field(a, key, 1ull << 32, 0xff));
    if (v > 0xff) return fail("action {} needs '{}'", type, key);
    return uint8_t(v);
  };
  auto u32 = [&](std::string_view key) -> Result<uint32_t> {
    FLOWLAB_ASSIGN_OR_RETURN(uint64_t v, uint_field(a, key, 1ull << 32, 0xffffffff));
    if (v > 0xffffffff) return fail("action {} needs '{}'", type, key);
    return uint32_t(v);
  };
  if (type == "OUTPUT") {
    if (!a.contains("port")) return fail("action OUTPUT needs 'port'");
    FLOWLAB_ASSIGN_OR_RETURN(uint32_t port, port_from_json(a["port"], "action OUTPUT port"));
    FLOWLAB_ASSIGN_OR_RETURN(uint64_t max_len, uint_field(a, "max_len", kControllerMaxLen, 0xffff));
    out.push_back(Action::output(port, uint16_t(max_len)));
    return {};
  }
  if (type == "COPY_TTL_OUT") return simple(ActionType::kCopyTtlOut);
  if (type == "COPY_TTL_IN") return simple(ActionType::kCopyTtlIn);
  if (type == "DEC_MPLS_TTL") return simple(ActionType::kDecMplsTtl);
  if (type == "POP_VLAN" || type == "STRIP_VLAN") return simple(ActionType::kPopVlan);
  if (type == "DEC_NW_TTL") return simple(ActionType::kDecNwTtl);
  if (type == "POP_PBB") return simple(ActionType::kPopPbb);
  if (type == "PUSH_VLAN") return ethertype([](uint16_t e) { return Action::push_vlan(e); });
  if (type == "PUSH_MPLS") return ethertype([](uint16_t e) { return Action::push_mpls(e); });
  if (type == "POP_MPLS") return ethertype([](uint16_t e) { return Action::pop_mpls(e); });
  if (type == "PUSH_PBB")
    return ethertype([](uint16_t e) {
      Action x = Action::simple(ActionType::kPushPbb);
      x.ethertype = e;
      return x;
    });
  if (type == "SET_MPLS_TTL") {
    FLOWLAB_ASSIGN_OR_RETURN(uint8_t ttl, u8("mpls_ttl"));
    out.push_back(Action::set_mpls_ttl(ttl));
    return {};
  }
  if (type == "SET_NW_TTL") {
    FLOWLAB_ASSIGN_OR_RETURN(uint8_t ttl, u8("nw_ttl"));
    out.push_back(Action::set_nw_ttl(ttl));
    return {};
  }
  if (type == "SET_QUEUE") {
    FLOWLAB_ASSIGN_OR_RETURN(uint32_t q, u32("queue_id"));
    out.push_back(Action::set_queue(q));
    return {};
  }
  if (type == "GROUP") {
    FLOWLAB_ASSIGN_OR_RETURN(uint32_t g, u32("group_id"));
    out.push_back(Action::group(g));
    return {};
  }
  // The rest is written in ovs-ofctl text and parsed by flow_text, so each
  // field's value syntax and prerequisites are checked in one place.
  std::string text;
  if (type == "SET_FIELD") {
    auto f = a.find("field");
    if (f == a.end() || !f->is_string() || !plain_value(f->get_ref<const std::string&>()))
      return fail("action SET_FIELD needs a 'field' name such as \"eth_dst\"");
    if (!of::oxm_info_by_name(f->get_ref<const std::string&>()))
      return fail("action SET_FIELD: unknown field '{}'", f->get<std::string>());
    FLOWLAB_ASSIGN_OR_RETURN(auto v, text_of(a, "value", type));
    text = fmt::format("set_field:{}->{}", v, f->get<std::string>());
  } else if (type == "ENQUEUE") {
    FLOWLAB_ASSIGN_OR_RETURN(auto p, text_of(a, "port", type));
    FLOWLAB_ASSIGN_OR_RETURN(auto q, text_of(a, "queue_id", type));
    text = fmt::format("enqueue:{}:{}", p, q);
  } else {
    for (const auto& ta : kTextActions)
      if (ta.type == type) {
        FLOWLAB_ASSIGN_OR_RETURN(auto v, text_of(a, ta.key, type));
        text = fmt::format("{}:{}", ta.verb, v);
      }
  }
  if (text.empty()) return fail("action: unknown type '{}'", type);
  auto parsed = of::parse_actions(text, match, version);
  if (!parsed.ok()) return fail("action {}: {}", type, plain_text_error(parsed.error().message));
  out.insert(out.end(), parsed->begin(), parsed->end());
  return {};
}

int instruction_rank(of::InstructionType t) {
  using of::InstructionType;
  switch (t) {
    case InstructionType::kMeter:
      return 0;
    case InstructionType::kApplyActions:
      return 1;
    case InstructionType::kClearActions:
      return 2;
    case InstructionType::kWriteActions:
      return 3;
    case InstructionType::kWriteMetadata:
      return 4;
    case InstructionType::kGotoTable:
      return 5;
    default:
      return 6;
  }
}

}  // namespace

Result<uint64_t> uint_field(const Json& obj, std::string_view key, uint64_t def, uint64_t max) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return def;
  uint64_t v = 0;
  if (it->is_number_unsigned()) {
    v = it->get<uint64_t>();
  } else if (it->is_string()) {
    const std::string& s = it->get_ref<const std::string&>();
    bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    std::string_view digits = hex ? std::string_view(s).substr(2) : std::string_view(s);
    if (digits.empty() || digits.size() > 20) return fail("'{}': '{}' is not a number", key, s);
    for (char c : digits) {
      int d = c >= '0' && c <= '9'          ? c - '0'
              : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
              : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10
                                            : -1;
      uint64_t base = hex ? 16 : 10;
      if (d < 0) return fail("'{}': '{}' is not a number", key, s);
      if (v > (std::numeric_limits<uint64_t>::max() - uint64_t(d)) / base)
        return fail("'{}': {} is out of range (at most {})", key, s, max);
      v = v * base + uint64_t(d);
    }
  } else if (it->is_number_integer()) {
    return fail("'{}': {} is negative", key, it->get<int64_t>());
  } else {
    return fail("'{}': expected a number, got {}", key, it->type_name());
  }
  if (v > max) return fail("'{}': {} is out of range (at most {})", key, v, max);
  return v;
}

Result<uint32_t> port_from_json(const Json& j, std::string_view what) {
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    for (const auto& r : kReservedPorts)
      if (s == r.name) return r.port;
  }
  Json wrap = {{"port", j}};
  auto v = uint_field(wrap, "port", 0, 0xffffffff);
  if (!v.ok())
    return fail(
        "{}: expected a port number or one of IN_PORT, TABLE, NORMAL, FLOOD, ALL, "
        "CONTROLLER, LOCAL, ANY",
        what);
  return uint32_t(*v);
}

Json port_to_json(uint32_t port) {
  for (const auto& r : kReservedPorts)
    if (port == r.port) return std::string(r.name);
  return port;
}

Result<of::ActionList> actions_from_json(const Json& actions, uint8_t version) {
  if (actions.is_null()) return of::ActionList{};
  if (!actions.is_array()) return fail("actions: expected a list, got {}", actions.type_name());
  of::ActionList out;
  for (const auto& a : actions) FLOWLAB_TRY(append_action(a, {}, version, out));
  return out;
}

Result<of::InstructionList> instructions_from_json(const Json& actions, const of::Match& match,
                                                   uint8_t version) {
  if (actions.is_null()) return of::InstructionList{};
  if (!actions.is_array()) return fail("actions: expected a list, got {}", actions.type_name());
  of::InstructionList out;
  of::ActionList apply;
  auto once = [&](of::InstructionType t, std::string_view name) -> Status {
    for (const auto& i : out)
      if (i.type == t) return fail("actions: {} given twice", name);
    if (version < of::kOf13) return fail("actions: {} needs OpenFlow 1.3 (this switch speaks 1.0)", name);
    return {};
  };
  for (const auto& a : actions) {
    std::string type =
        a.is_object() && a.contains("type") && a["type"].is_string() ? a["type"].get<std::string>() : "";
    if (type == "WRITE_ACTIONS") {
      FLOWLAB_TRY(once(of::InstructionType::kWriteActions, type));
      if (!a.contains("actions")) return fail("WRITE_ACTIONS needs 'actions'");
      of::ActionList w;
      if (!a["actions"].is_array()) return fail("WRITE_ACTIONS: 'actions' must be a list");
      for (const auto& x : a["actions"]) FLOWLAB_TRY(append_action(x, match, version, w));
      out.push_back(of::Instruction::write(std::move(w)));
    } else if (type == "CLEAR_ACTIONS") {
      FLOWLAB_TRY(once(of::InstructionType::kClearActions, type));
      out.push_back(of::Instruction::clear());
    } else if (type == "GOTO_TABLE") {
      FLOWLAB_TRY(once(of::InstructionType::kGotoTable, type));
      if (!a.contains("table_id")) return fail("GOTO_TABLE needs 'table_id'");
      FLOWLAB_ASSIGN_OR_RETURN(uint64_t t, uint_field(a, "table_id", 0, of::table::kMax));
      out.push_back(of::Instruction::goto_table(uint8_t(t)));
    } else if (type == "WRITE_METADATA") {
      FLOWLAB_TRY(once(of::InstructionType::kWriteMetadata, type));
      if (!a.contains("metadata")) return fail("WRITE_METADATA needs 'metadata'");
      FLOWLAB_ASSIGN_OR_RETURN(uint64_t md, uint_field(a, "metadata", 0, UINT64_MAX));
      FLOWLAB_ASSIGN_OR_RETURN(uint64_t mask, uint_field(a, "metadata_mask", UINT64_MAX, UINT64_MAX));
      out.push_back(of::Instruction::write_metadata(md, mask));
    } else if (type == "METER") {
      FLOWLAB_TRY(once(of::InstructionType::kMeter, type));
      if (!a.contains("meter_id")) return fail("METER needs 'meter_id'");
      FLOWLAB_ASSIGN_OR_RETURN(uint64_t id, uint_field(a, "meter_id", 0, 0xffffffff));
      out.push_back(of::Instruction::meter(uint32_t(id)));
    } else {
      FLOWLAB_TRY(append_action(a, match, version, apply));
    }
  }
  if (!apply.empty()) out.push_back(of::Instruction::apply(std::move(apply)));
  std::stable_sort(out.begin(), out.end(), [](const auto& x, const auto& y) {
    return instruction_rank(x.type) < instruction_rank(y.type);
  });
  return out;
}

std::string action_to_string(const of::Action& a) {
  using of::ActionType;
  auto port = [](uint32_t p) {
    Json j = port_to_json(p);
    return j.is_string() ? j.get<std::string>() : std::to_string(p);
  };
  switch (a.type) {
    case ActionType::kOutput:
      return "OUTPUT:" + port(a.port);
    case ActionType::kCopyTtlOut:
      return "COPY_TTL_OUT";
    case ActionType::kCopyTtlIn:
      return "COPY_TTL_IN";
    case ActionType::kSetMplsTtl:
      return fmt::format("SET_MPLS_TTL:{}", a.ttl);
    case ActionType::kDecMplsTtl:
      return "DEC_MPLS_TTL";
    case ActionType::kPushVlan:
      return fmt::format("PUSH_VLAN:{}", a.ethertype);
    case ActionType::kPopVlan:
      return "POP_VLAN";
    case ActionType::kPushMpls:
      return fmt::format("PUSH_MPLS:{}", a.ethertype);
    case ActionType::kPopMpls:
      return fmt::format("POP_MPLS:{}", a.ethertype);
    case ActionType::kSetQueue:
      return fmt::format("SET_QUEUE:{}", a.queue_id);
    case ActionType::kGroup:
      return fmt::format("GROUP:{}", a.group_id);
    case ActionType::kSetNwTtl:
      return fmt::format("SET_NW_TTL:{}", a.ttl);
    case ActionType::kDecNwTtl:
      return "DEC_NW_TTL";
    case ActionType::kPushPbb:
      return fmt::format("PUSH_PBB:{}", a.ethertype);
    case ActionType::kPopPbb:
      return "POP_PBB";
    case ActionType::kCopyField:
      return fmt::format("COPY_FIELD:{{n_bits:{},src_offset:{},dst_offset:{},src:0x{:08x},dst:0x{:08x}}}",
                         a.copy.n_bits, a.copy.src_offset, a.copy.dst_offset, a.copy.src, a.copy.dst);
    case ActionType::kEnqueue:
      return fmt::format("ENQUEUE:{}:{}", port(a.port), a.queue_id);
    case ActionType::kSetField: {
      of::Match m;
      m.add(a.field);
      Json j = match_to_json(m);
      const auto* info = a.field.is_basic() ? of::oxm_info(a.field.id()) : nullptr;
      if (!info || j.empty()) return "SET_FIELD: {unknown}";
      // Ryu prints the OXM name with the value; vlan_vid keeps OFPVID_PRESENT.
      std::string value = a.field.id() == of::OxmId::kVlanVid ? std::to_string(a.field.value_u64())
                          : j.begin()->is_string()            ? j.begin()->get<std::string>()
                                                              : j.begin()->dump();
      return fmt::format("SET_FIELD: {{{}:{}}}", info->name, value);
    }
    case ActionType::kExperimenter:
      return fmt::format("EXPERIMENTER: {{experimenter:{}}}", a.experimenter);
  }
  return "UNKNOWN";
}

Json actions_to_json(const of::ActionList& actions) {
  Json out = Json::array();
  for (const auto& a : actions) out.push_back(action_to_string(a));
  return out;
}

Json instructions_to_json(const of::InstructionList& insts) {
  Json out = Json::array();
  for (const auto& i : insts) {
    switch (i.type) {
      case of::InstructionType::kApplyActions:
        for (const auto& a : i.actions) out.push_back(action_to_string(a));
        break;
      case of::InstructionType::kWriteActions:
        if (!i.actions.empty()) out.push_back(Json{{"WRITE_ACTIONS", actions_to_json(i.actions)}});
        break;
      case of::InstructionType::kClearActions:
        out.push_back("CLEAR_ACTIONS");
        break;
      case of::InstructionType::kGotoTable:
        out.push_back(fmt::format("GOTO_TABLE:{}", i.table_id));
        break;
      case of::InstructionType::kWriteMetadata:
        out.push_back(i.metadata_mask
                          ? fmt::format("WRITE_METADATA:0x{:x}/0x{:x}", i.metadata, i.metadata_mask)
                          : fmt::format("WRITE_METADATA:0x{:x}", i.metadata));
        break;
      case of::InstructionType::kMeter:
        out.push_back(fmt::format("METER:{}", i.meter_id));
        break;
      default:
        break;
    }
  }
  return out;
}

}  // namespace flowlab::rest
