// Trace (see trace.h) as text and as JSON. Flows, instructions, action sets
// and ports print in ovs-ofctl's spellings (openflow/text).
#include <fmt/format.h>

#include "datapath/trace.h"
#include "openflow/text/flow_text.h"

namespace flowlab::dp {
namespace {

std::string_view group_type_name(of::GroupType t) {
  switch (t) {
    case of::GroupType::kAll:
      return "all";
    case of::GroupType::kSelect:
      return "select";
    case of::GroupType::kIndirect:
      return "indirect";
    case of::GroupType::kFastFailover:
      return "ff";
  }
  return "?";
}

std::string_view reason_name(of::PacketInReason r) {
  switch (r) {
    case of::PacketInReason::kNoMatch:
      return "no_match";
    case of::PacketInReason::kAction:
      return "action";
    case of::PacketInReason::kInvalidTtl:
      return "invalid_ttl";
  }
  return "?";
}

std::string_view fast_path_name(Trace::FastPath f) {
  return f == Trace::FastPath::kCacheable ? "cacheable" : "not cacheable";
}

std::string group_text(const TraceGroup& g) {
  if (!g.exists) return fmt::format("group {}: does not exist", g.group_id);
  std::string b;
  for (uint32_t i : g.buckets) b += fmt::format("{}{}", b.empty() ? "" : ",", i);
  return fmt::format("group {} ({}): bucket{} {} of {}", g.group_id, group_type_name(g.type),
                     g.buckets.size() == 1 ? "" : "s", b.empty() ? "none" : b, g.n_buckets);
}

std::string output_text(const TraceOutput& o) {
  std::string s = of::format_port(o.port);
  if (o.port == of::port::kController)
    s += fmt::format(" (reason {}, max_len {})", reason_name(o.reason), o.max_len);
  if (o.queue_id) s += fmt::format(" queue {}", o.queue_id);
  return s + " via " + o.via;
}

std::string json_str(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
        else
          out += c;
    }
  }
  return out + "\"";
}

std::string json_groups(const std::vector<TraceGroup>& gs) {
  std::string s = "[";
  for (size_t i = 0; i < gs.size(); ++i) {
    const TraceGroup& g = gs[i];
    std::string b;
    for (uint32_t x : g.buckets) b += fmt::format("{}{}", b.empty() ? "" : ",", x);
    s += fmt::format("{}{{\"group_id\":{},\"exists\":{}", i ? "," : "", g.group_id, g.exists);
    if (g.exists) s += fmt::format(",\"type\":\"{}\",\"n_buckets\":{}", group_type_name(g.type), g.n_buckets);
    s += fmt::format(",\"buckets\":[{}]}}", b);
  }
  return s + "]";
}

// The tables' blocks, each line after `indent` (the egress tables' are nested under their output).
std::string tables_text(const std::vector<TraceTable>& tables, const std::string& indent) {
  std::string s;
  for (const TraceTable& tt : tables) {
    if (!tt.matched) {
      s += fmt::format("\n{}Table {}: no flow matched\n", indent, tt.table_id);
      continue;
    }
    s += fmt::format("\n{}Table {}: {}, cookie={:#x}\n", indent, tt.table_id,
                     of::format_match(tt.match, tt.priority), tt.cookie);
    s += fmt::format("{}    instructions: {}\n", indent, of::format_instructions(tt.instructions));
    if (tt.meter_id)
      s += fmt::format("{}    meter {}{} (not charged by the trace)\n", indent, tt.meter_id,
                       tt.meter_exists ? "" : ": does not exist, skipped");
    for (const TraceGroup& g : tt.groups) s += indent + "    " + group_text(g) + "\n";
    if (!tt.action_set.empty())
      s += fmt::format("{}    action set: {}\n", indent, of::format_actions(tt.action_set));
    if (tt.goto_table >= 0) s += fmt::format("{}    goto table {}\n", indent, tt.goto_table);
  }
  return s;
}

// An output's egress tables under it (as ovs-appctl ofproto/trace nests a
// resubmit), then its verdict: delivered (where copies leave) or dropped.
std::string egress_text(const TraceEgress& e) {
  const std::string in = "        ";
  std::string s = fmt::format("{}egress tables, actset_output={}:\n", in, of::format_port(e.port));
  std::string body = tables_text(e.tables, in);
  if (!e.set_groups.empty()) {
    body += "\n" + in + "Action set:\n";
    for (const TraceGroup& g : e.set_groups) body += in + "    " + group_text(g) + "\n";
  }
  for (const std::string& n : e.notes) body += fmt::format("{}Note: {}\n", in, n);
  // The blank lines that separate ingress tables would split the nested block: dropped.
  for (size_t at = 0; (at = body.find("\n\n", at)) != std::string::npos;) body.erase(at, 1);
  s += body.starts_with("\n") ? body.substr(1) : body;
  if (e.delivered())
    s += fmt::format("{}-> delivered\n", in);
  else
    s += fmt::format("{}-> dropped: {}\n", in, e.drop_reason);
  for (const TraceOutput& o : e.outputs)
    if (o.port != e.port) s += in + "   also output " + output_text(o) + "\n";
  return s;
}

}  // namespace

std::string format_trace_text(const Trace& t) {
  std::string s = fmt::format("Packet: in_port={}, {} bytes\n", of::format_port(t.in_port), t.packet_len);
  s += tables_text(t.tables, "");
  if (!t.set_groups.empty()) {
    s += "\nAction set:\n";
    for (const TraceGroup& g : t.set_groups) s += "    " + group_text(g) + "\n";
  }
  for (const std::string& n : t.notes) s += fmt::format("\nNote: {}", n);
  if (!t.notes.empty()) s += "\n";
  s += "\nFinal:";
  if (t.outputs.empty()) {
    s += " drop: " + t.drop_reason + "\n";
  } else {
    s += "\n";
    for (const TraceOutput& o : t.outputs) {
      s += "    output " + output_text(o) + "\n";
      if (o.egress) s += egress_text(*o.egress);
    }
    if (!t.drop_reason.empty()) s += "    then drop: " + t.drop_reason + "\n";
  }
  if (t.fast_path != Trace::FastPath::kNotAsked)
    s += fmt::format("Kernel fast path: {}\n", fast_path_name(t.fast_path));
  return s;
}

namespace {

std::string json_tables(const std::vector<TraceTable>& tables) {
  std::string s = "[";
  for (size_t i = 0; i < tables.size(); ++i) {
    const TraceTable& tt = tables[i];
    s += fmt::format("{}{{\"table\":{},\"matched\":{}", i ? "," : "", tt.table_id, tt.matched);
    if (tt.matched) {
      s += fmt::format(",\"priority\":{},\"cookie\":\"{:#x}\",\"match\":{},\"instructions\":{}", tt.priority,
                       tt.cookie, json_str(of::format_match(tt.match)),
                       json_str(of::format_instructions(tt.instructions)));
      if (tt.meter_id) s += fmt::format(",\"meter\":{},\"meter_exists\":{}", tt.meter_id, tt.meter_exists);
      s += fmt::format(",\"groups\":{},\"action_set\":{}", json_groups(tt.groups),
                       json_str(tt.action_set.empty() ? "" : of::format_actions(tt.action_set)));
      if (tt.goto_table >= 0) s += fmt::format(",\"goto_table\":{}", tt.goto_table);
    }
    s += "}";
  }
  return s + "]";
}

std::string json_notes(const std::vector<std::string>& notes) {
  std::string s = "[";
  for (size_t i = 0; i < notes.size(); ++i) s += (i ? "," : "") + json_str(notes[i]);
  return s + "]";
}

std::string json_outputs(const std::vector<TraceOutput>& outputs) {
  std::string s = "[";
  for (size_t i = 0; i < outputs.size(); ++i) {
    const TraceOutput& o = outputs[i];
    s += fmt::format("{}{{\"port\":{},\"port_no\":{},\"queue\":{},\"via\":{}", i ? "," : "",
                     json_str(of::format_port(o.port)), o.port, o.queue_id, json_str(o.via));
    if (o.port == of::port::kController)
      s += fmt::format(",\"reason\":\"{}\",\"max_len\":{}", reason_name(o.reason), o.max_len);
    if (const TraceEgress* e = o.egress.get())
      s += fmt::format(
          ",\"egress\":{{\"actset_output\":{},\"tables\":{},\"action_set_groups\":{},\"outputs\":{},"
          "\"verdict\":\"{}\",\"drop\":{},\"notes\":{}}}",
          e->port, json_tables(e->tables), json_groups(e->set_groups), json_outputs(e->outputs),
          e->delivered() ? "delivered" : "dropped", e->delivered() ? "null" : json_str(e->drop_reason),
          json_notes(e->notes));
    s += "}";
  }
  return s + "]";
}

}  // namespace

std::string format_trace_json(const Trace& t) {
  std::string s = fmt::format("{{\"in_port\":{},\"packet_len\":{},\"version\":{},\"tables\":", t.in_port,
                              t.packet_len, t.version);
  s += json_tables(t.tables);
  s += fmt::format(",\"action_set_groups\":{},\"outputs\":", json_groups(t.set_groups));
  s += json_outputs(t.outputs);
  s += ",\"drop\":";
  s += t.drop_reason.empty() ? "null" : json_str(t.drop_reason);
  s += ",\"notes\":" + json_notes(t.notes);
  if (t.fast_path != Trace::FastPath::kNotAsked)
    s += fmt::format(",\"fast_path\":\"{}\"", fast_path_name(t.fast_path));
  return s + "}\n";
}

}  // namespace flowlab::dp
