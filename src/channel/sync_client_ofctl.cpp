// `flowlab ofctl` commands: each builds requests from ovs-ofctl text, runs them
// through a SyncClient and prints the replies the way ovs-ofctl does.
#include "channel/sync_client_ofctl.h"

#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "channel/ofctl_monitor.h"
#include "channel/sync_client.h"
#include "openflow/of13/flowlab_trace.h"
#include "openflow/print/print.h"
#include "openflow/text/flow_packet.h"
#include "openflow/text/flow_text.h"

namespace flowlab::channel {
namespace {

using namespace flowlab::of;  // NOLINT(google-build-using-namespace)

Result<std::string> read_file(const std::string& path) {
  if (path == "-") return std::string(std::istreambuf_iterator<char>(std::cin), {});
  std::ifstream f(path, std::ios::binary);
  if (!f) return fail("cannot open '{}'", path);
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) return fail("cannot read '{}'", path);
  return ss.str();
}

Result<uint32_t> parse_u32(std::string_view s, std::string_view what) {
  auto r = of::parse_port(s);  // accepts decimal, hex and names; the names never apply here
  if (!r.ok() || s.empty() || !(s[0] >= '0' && s[0] <= '9')) return fail("{} '{}' is not a number", what, s);
  return *r;
}

// trace's request from its arguments: flow text (args[1]) or --packet HEX, and --in-port.
Result<TraceRequest> trace_request(const std::vector<std::string>& args, const OfctlOptions& opts) {
  TraceRequest r;
  r.format = opts.trace_json ? TraceFormat::kJson : TraceFormat::kText;
  const bool has_flow = args.size() > 1;
  if (has_flow == !opts.trace_packet_hex.empty())
    return fail("trace needs either flow text or --packet HEX (not both)");
  if (has_flow) {
    auto p = packet_from_flow_text(args[1]);
    if (!p.ok()) return fail("trace: {}", p.error().message);
    r.in_port = p->in_port;
    r.packet = std::move(p->frame);
  } else {
    if (!from_hex(opts.trace_packet_hex, r.packet))
      return fail("trace: --packet '{}' is not an even number of hex digits", opts.trace_packet_hex);
    if (r.packet.size() < kMinTraceFrame || r.packet.size() > kMaxTraceFrame)
      return fail("trace: --packet is {} bytes (an Ethernet frame is {} to {})", r.packet.size(),
                  kMinTraceFrame, kMaxTraceFrame);
  }
  if (!opts.trace_in_port.empty()) {
    auto p = of::parse_port(opts.trace_in_port);
    if (!p.ok()) return fail("trace: --in-port: {}", p.error().message);
    if (has_flow && r.in_port && r.in_port != *p)
      return fail("trace: --in-port {} differs from the flow's in_port {}", *p, r.in_port);
    r.in_port = *p;
  }
  if (r.in_port == 0) return fail("trace needs an in_port (in the flow text or --in-port N)");
  return r;
}

// mod-table's TABLE and SETTING (ovs-ofctl's OF1.4 ones): the table (or
// OFPTT_ALL) and what changes in its config.
struct TableSetting {
  uint8_t table = 0;
  uint32_t set = 0, clear = 0;  // table_config bits
  std::optional<TableVacancy> vacancy;
};

Result<TableSetting> parse_table_setting(std::string_view table, std::string_view setting) {
  TableSetting t;
  if (table == "all") {
    t.table = table::kAll;
  } else {
    FLOWLAB_ASSIGN_OR_RETURN(uint32_t id, parse_u32(table, "mod-table: table"));
    if (id > table::kMax) return fail("mod-table: table {} (0..254 or all)", id);
    t.table = uint8_t(id);
  }
  if (setting == "evict") {
    t.set = table_config::kEviction;
  } else if (setting == "noevict") {
    t.clear = table_config::kEviction;
  } else if (setting == "novacancy") {
    t.clear = table_config::kVacancyEvents;
  } else if (setting.starts_with("vacancy:")) {
    std::string_view v = setting.substr(8);
    const size_t comma = v.find(',');
    unsigned down = 0, up = 0;
    auto num = [](std::string_view s, unsigned& out) {
      if (s.empty() || s.size() > 3 || s.find_first_not_of("0123456789") != std::string_view::npos)
        return false;
      out = unsigned(std::stoul(std::string(s)));
      return out <= 100;
    };
    if (comma == std::string_view::npos || !num(v.substr(0, comma), down) || !num(v.substr(comma + 1), up) ||
        down > up)
      return fail("mod-table: '{}': vacancy:LOW,HIGH takes two percentages, LOW <= HIGH", setting);
    t.set = table_config::kVacancyEvents;
    t.vacancy = TableVacancy{uint8_t(down), uint8_t(up), 0};
  } else {
    return fail("mod-table: setting '{}' (evict, noevict, vacancy:LOW,HIGH or novacancy)", setting);
  }
  return t;
}

Message msg(MessageBody body) { return Message{kOf13, 0, std::move(body)}; }

Message multipart(MultipartRequestBody body) { return msg(MultipartRequest{0, std::move(body)}); }

struct Session {
  SyncClient client;
  const OfctlOptions& opts;
  std::string& out;

  uint8_t version() const { return client.version(); }

  Result<std::vector<Message>> ask(Message m) { return client.transact(std::move(m)); }

  Status print_all(Message m) {
    FLOWLAB_ASSIGN_OR_RETURN(auto replies, ask(std::move(m)));
    for (const Message& r : replies) out += format_message(r);
    return ok_status();
  }

  Status show() {
    FLOWLAB_ASSIGN_OR_RETURN(auto features, ask(msg(FeaturesRequest{})));
    for (const Message& r : features) out += format_message(r);
    if (version() != kOf10) FLOWLAB_TRY(print_all(multipart(PortDescRequest{})));
    return print_all(msg(GetConfigRequest{}));
  }

  Status dump_flows(std::string_view match) {
    FLOWLAB_ASSIGN_OR_RETURN(FlowStatsRequest req, parse_flow_stats_request(match, version()));
    FLOWLAB_ASSIGN_OR_RETURN(auto replies, ask(multipart(std::move(req))));
    for (size_t i = 0; i < replies.size(); ++i) {
      const Message& r = replies[i];
      if (i == 0 && !opts.no_stats)
        out += format_message_header(r) + "\n";  // ovs-ofctl --no-stats: no header
      const auto* mp = std::get_if<MultipartReply>(&r.body);
      const auto* fs = mp ? std::get_if<FlowStatsReply>(&mp->body) : nullptr;
      if (!fs) return fail("unexpected reply to a flow stats request: {}", format_message_header(r));
      for (const FlowStats& f : fs->stats) out += format_flow_stats(f, !opts.no_stats) + "\n";
    }
    return ok_status();
  }

  Status dump_aggregate(std::string_view match) {
    FLOWLAB_ASSIGN_OR_RETURN(FlowStatsRequest req, parse_flow_stats_request(match, version()));
    AggregateStatsRequest agg;
    static_cast<FlowStatsRequest&>(agg) = std::move(req);
    return print_all(multipart(std::move(agg)));
  }

  Status flow_mods(const std::vector<std::string>& texts, FlowModCommand cmd) {
    FlowParseOptions o;
    o.command = cmd;
    o.version = version();
    bool del = cmd == FlowModCommand::kDelete || cmd == FlowModCommand::kDeleteStrict;
    o.default_table = del ? table::kAll : 0;
    o.allow_actions = !del;
    o.require_actions = cmd == FlowModCommand::kAdd;
    std::vector<Message> msgs;
    for (const std::string& t : texts) {
      FLOWLAB_ASSIGN_OR_RETURN(FlowMod fm, parse_flow_mod(t, o));
      if (del && fm.priority == 0x8000 && cmd == FlowModCommand::kDelete) fm.priority = 0;
      msgs.push_back(msg(std::move(fm)));
    }
    if (opts.bundle) {
      size_t i = 0;
      return client.send_bundle([&]() -> Result<std::optional<Message>> {
        if (i == msgs.size()) return std::optional<Message>();
        return std::optional<Message>(std::move(msgs[i++]));
      });
    }
    return client.send_with_barrier(std::move(msgs));
  }

  // Streams the file: parsed line by line while earlier windows are on the wire
  // (SyncClient::stream_with_barriers), so a million flows need neither a
  // million messages in memory nor one reply within a single timeout.
  Status add_flows_file(const std::string& path) {
    FLOWLAB_ASSIGN_OR_RETURN(std::string text, read_file(path));
    std::istringstream in(text);
    int lineno = 0;
    FlowParseOptions o;
    o.version = version();
    o.require_actions = true;
    auto next = [&]() -> Result<std::optional<Message>> {
      std::string line;
      while (std::getline(in, line)) {
        ++lineno;
        size_t b = line.find_first_not_of(" \t\r");
        if (b == std::string::npos || line[b] == '#') continue;
        size_t e = line.find_last_not_of(" \t\r");
        auto fm = parse_flow_mod(std::string_view(line).substr(b, e - b + 1), o);
        if (!fm.ok()) return fail("{}:{}: {}", path, lineno, fm.error().message);
        return std::optional<Message>(msg(std::move(*fm)));
      }
      return std::optional<Message>();
    };
    return opts.bundle ? client.send_bundle(next) : client.stream_with_barriers(next);
  }

  Status dump_ports(const std::vector<std::string>& args) {
    PortStatsRequest req;
    if (args.size() > 1) {
      FLOWLAB_ASSIGN_OR_RETURN(req.port_no, of::parse_port(args[1]));
    }
    return print_all(multipart(req));
  }

  // ovs-ofctl's queue-get-config: a queue description request at 1.4 and
  // later (port ANY and queue ALL unless given), queue_get_config before.
  Status queue_get_config(const std::vector<std::string>& args) {
    uint32_t port = port::kAny;
    if (args.size() > 1 && args[1] != "ANY" && args[1] != "any") {
      FLOWLAB_ASSIGN_OR_RETURN(port, of::parse_port(args[1]));
    }
    uint32_t queue = 0xffffffff;  // OFPQ_ALL
    if (args.size() > 2) {
      if (version() < kOf14) return fail("queue-get-config: a QUEUE needs OpenFlow 1.4 (-O OpenFlow14)");
      if (args[2] != "ALL" && args[2] != "all") {
        FLOWLAB_ASSIGN_OR_RETURN(queue, parse_u32(args[2], "queue-get-config: queue"));
      }
    }
    if (version() >= kOf14) return print_all(multipart(QueueDescRequest{port, queue}));
    return print_all(msg(QueueGetConfigRequest{port}));
  }

  Status dump_ports_desc() {
    if (version() != kOf10) return print_all(multipart(PortDescRequest{}));
    FLOWLAB_ASSIGN_OR_RETURN(auto replies, ask(msg(FeaturesRequest{})));
    for (const Message& r : replies) out += format_message(r);
    return ok_status();
  }

  Status group_mod(const std::vector<std::string>& args, GroupModCommand cmd) {
    std::string text = args.size() > 1 ? args[1] : "";
    FLOWLAB_ASSIGN_OR_RETURN(GroupMod gm, parse_group_mod(text, cmd));
    return client.send_with_barrier({msg(std::move(gm))});
  }

  Status meter_mod(const std::vector<std::string>& args, MeterModCommand cmd) {
    std::string text = args.size() > 1 ? args[1] : "";
    FLOWLAB_ASSIGN_OR_RETURN(MeterMod mm, parse_meter_mod(text, cmd));
    return client.send_with_barrier({msg(std::move(mm))});
  }

  Result<uint32_t> meter_arg(const std::vector<std::string>& args) {
    if (args.size() < 2) return meter::kAll;
    std::string_view a = args[1];
    if (a.starts_with("meter=")) a.remove_prefix(6);
    if (a == "all") return meter::kAll;
    return parse_u32(a, "meter");
  }

  Status packet_out(const std::vector<std::string>& args) {
    std::vector<Message> msgs;
    if (args.size() == 2) {
      FLOWLAB_ASSIGN_OR_RETURN(PacketOut po, parse_packet_out(args[1], version()));
      msgs.push_back(msg(std::move(po)));
    } else {
      FLOWLAB_ASSIGN_OR_RETURN(uint32_t in_port, of::parse_port(args[1]));
      FLOWLAB_ASSIGN_OR_RETURN(ActionList actions, parse_actions(args[2], {}, version()));
      for (size_t i = 3; i < args.size(); ++i) {
        PacketOut po;
        po.in_port = in_port;
        po.actions = actions;
        if (!from_hex(args[i], po.data)) return fail("packet {} is not hex: '{}'", i - 2, args[i]);
        msgs.push_back(msg(std::move(po)));
      }
    }
    return client.send_with_barrier(std::move(msgs));
  }

  Status need_of14(std::string_view what) {
    if (version() < kOf14) return fail("{} needs OpenFlow 1.4 (-O OpenFlow14)", what);
    return ok_status();
  }

  // The table's config is read first (table-desc) and only the setting's bit
  // changes: a table-mod sets the whole config, so `evict` then
  // `vacancy:L,H` keeps eviction on. OFPTT_ALL starts from table 0's.
  Status mod_table(const std::vector<std::string>& args) {
    FLOWLAB_TRY(need_of14("mod-table"));
    FLOWLAB_ASSIGN_OR_RETURN(TableSetting t, parse_table_setting(args.at(1), args.at(2)));
    FLOWLAB_ASSIGN_OR_RETURN(auto replies, ask(multipart(TableDescRequest{})));
    uint32_t config = 0;
    const uint8_t from = t.table == table::kAll ? 0 : t.table;
    bool found = false;
    for (const Message& r : replies)
      if (const auto* mp = std::get_if<MultipartReply>(&r.body))
        if (const auto* td = std::get_if<TableDescReply>(&mp->body))
          for (const TableDesc& d : td->tables)
            if (d.table_id == from) config = d.config, found = true;
    if (!found) return fail("mod-table: the switch has no table {}", from);
    TableMod tm{t.table, (config | t.set) & ~t.clear, std::nullopt, t.vacancy};
    return client.send_with_barrier({msg(tm)});
  }

  // OF1.5: a table features request (OFPTFC_MODIFY) whose one entry marks
  // TABLE first egress; `none`: OFPTFC_REPLACE with table 0 alone, no table
  // marked (egress processing off). The switch answers with its features.
  Status set_first_egress(const std::string& arg) {
    if (version() != kOf15) return fail("set-first-egress-table needs OpenFlow 1.5 (-O OpenFlow15)");
    TableFeatures t;
    t.features = table_features::kIngressTable;
    t.command = table_features::kReplace;
    if (arg != "none") {
      FLOWLAB_ASSIGN_OR_RETURN(uint32_t id, parse_u32(arg, "set-first-egress-table: table"));
      if (id == 0 || id > table::kMax) return fail("set-first-egress-table: table {} (1..254 or none)", id);
      t.table_id = uint8_t(id);
      t.command = table_features::kModify;
      t.features = table_features::kEgressTable | table_features::kFirstEgress;
    }
    t.name = fmt::format("table{}", t.table_id);
    FLOWLAB_ASSIGN_OR_RETURN(auto replies, ask(multipart(TableFeaturesRequest{{std::move(t)}})));
    (void)replies;
    return ok_status();
  }

  Status trace(const std::vector<std::string>& args) {
    FLOWLAB_ASSIGN_OR_RETURN(TraceRequest req, trace_request(args, opts));
    if (version() != kOf13) return fail("trace needs OpenFlow 1.3 (the switch negotiated OpenFlow 1.0)");
    FLOWLAB_ASSIGN_OR_RETURN(auto replies, ask(msg(encode_trace_request(req))));
    for (const Message& m : replies) {
      const auto* e = std::get_if<ExperimenterMsg>(&m.body);
      if (!e) return fail("unexpected reply to a trace request: {}", format_message_header(m));
      auto r = decode_trace_reply(*e);
      if (!r.ok()) return fail("bad trace reply: {}", r.error().message);
      out += r->text;
    }
    return ok_status();
  }

  Status run(std::string_view name, const std::vector<std::string>& args) {
    std::string a1 = args.size() > 1 ? args[1] : "";
    bool strict = opts.strict;
    if (name == "show") return show();
    if (name == "dump-flows") return dump_flows(a1);
    if (name == "dump-aggregate") return dump_aggregate(a1);
    if (name == "add-flow") return flow_mods({a1}, FlowModCommand::kAdd);
    if (name == "add-flows") return add_flows_file(a1);
    if (name == "mod-flows")
      return flow_mods({a1}, strict ? FlowModCommand::kModifyStrict : FlowModCommand::kModify);
    if (name == "del-flows")
      return flow_mods({a1}, strict ? FlowModCommand::kDeleteStrict : FlowModCommand::kDelete);
    if (name == "dump-ports") return dump_ports(args);
    if (name == "dump-ports-desc") return dump_ports_desc();
    if (name == "queue-get-config") return queue_get_config(args);
    if (name == "dump-tables") return print_all(multipart(TableStatsRequest{}));
    if (name == "dump-table-desc") {
      FLOWLAB_TRY(need_of14("dump-table-desc"));
      return print_all(multipart(TableDescRequest{}));
    }
    if (name == "mod-table") return mod_table(args);
    if (name == "dump-table-features") return print_all(multipart(TableFeaturesRequest{}));
    if (name == "set-first-egress-table") return set_first_egress(a1);
    if (name == "dump-desc") return print_all(multipart(DescRequest{}));
    if (name == "add-group") return group_mod(args, GroupModCommand::kAdd);
    if (name == "mod-group") return group_mod(args, GroupModCommand::kModify);
    if (name == "del-groups") return group_mod(args, GroupModCommand::kDelete);
    if (name == "insert-buckets" || name == "remove-buckets") {  // OF1.5
      if (version() != kOf15) return fail("{} needs OpenFlow 1.5 (-O OpenFlow15)", name);
      return group_mod(
          args, name == "insert-buckets" ? GroupModCommand::kInsertBucket : GroupModCommand::kRemoveBucket);
    }
    if (name == "dump-groups") return print_all(multipart(GroupDescRequest{}));
    if (name == "dump-group-stats") return print_all(multipart(GroupStatsRequest{}));
    if (name == "add-meter") return meter_mod(args, MeterModCommand::kAdd);
    if (name == "mod-meter") return meter_mod(args, MeterModCommand::kModify);
    if (name == "del-meters") return meter_mod(args, MeterModCommand::kDelete);
    if (name == "dump-meters") {
      FLOWLAB_ASSIGN_OR_RETURN(uint32_t id, meter_arg(args));
      return print_all(multipart(MeterConfigRequest{id}));
    }
    if (name == "meter-stats") {
      FLOWLAB_ASSIGN_OR_RETURN(uint32_t id, meter_arg(args));
      return print_all(multipart(MeterStatsRequest{id}));
    }
    if (name == "packet-out") return packet_out(args);
    if (name == "trace") return trace(args);
    if (name == "monitor") return run_monitor(client, args, opts);
    return fail("command '{}' is not implemented", name);
  }
};

}  // namespace

const std::vector<OfctlCommand>& ofctl_commands() {
  static const std::vector<OfctlCommand> kCommands = {
      {"show", 1, 1, false, "show SWITCH"},
      {"dump-desc", 1, 1, false, "dump-desc SWITCH"},
      {"dump-flows", 1, 2, false, "dump-flows SWITCH [MATCH]"},
      {"dump-aggregate", 1, 2, false, "dump-aggregate SWITCH [MATCH]"},
      {"add-flow", 2, 2, false, "add-flow SWITCH FLOW"},
      {"add-flows", 2, 2, false, "add-flows SWITCH FILE"},
      {"mod-flows", 2, 2, false, "mod-flows SWITCH FLOW"},
      {"del-flows", 1, 2, false, "del-flows SWITCH [MATCH]"},
      {"dump-ports", 1, 2, false, "dump-ports SWITCH [PORT]"},
      {"dump-ports-desc", 1, 1, false, "dump-ports-desc SWITCH"},
      {"queue-get-config", 1, 3, false, "queue-get-config SWITCH [PORT [QUEUE]]  (QUEUE: OpenFlow 1.4)"},
      {"dump-tables", 1, 1, false, "dump-tables SWITCH"},
      {"dump-table-desc", 1, 1, false, "dump-table-desc SWITCH  (OpenFlow 1.4)"},
      {"mod-table", 3, 3, false,
       "mod-table SWITCH TABLE evict|noevict|vacancy:LOW,HIGH|novacancy  (OpenFlow 1.4)"},
      {"dump-table-features", 1, 1, false, "dump-table-features SWITCH"},
      {"set-first-egress-table", 2, 2, false, "set-first-egress-table SWITCH TABLE|none  (OpenFlow 1.5)"},
      {"add-group", 2, 2, false, "add-group SWITCH GROUP"},
      {"mod-group", 2, 2, false, "mod-group SWITCH GROUP"},
      {"del-groups", 1, 2, false, "del-groups SWITCH [GROUP]"},
      {"insert-buckets", 2, 2, false, "insert-buckets SWITCH GROUP  (OpenFlow 1.5)"},
      {"remove-buckets", 2, 2, false, "remove-buckets SWITCH GROUP  (OpenFlow 1.5)"},
      {"dump-groups", 1, 1, false, "dump-groups SWITCH"},
      {"dump-group-stats", 1, 1, false, "dump-group-stats SWITCH"},
      {"add-meter", 2, 2, false, "add-meter SWITCH METER"},
      {"mod-meter", 2, 2, false, "mod-meter SWITCH METER"},
      {"del-meters", 1, 2, false, "del-meters SWITCH [METER]"},
      {"dump-meters", 1, 2, false, "dump-meters SWITCH [METER]"},
      {"meter-stats", 1, 2, false, "meter-stats SWITCH [METER]"},
      {"packet-out", 2, -1, false,
       "packet-out SWITCH \"in_port=P,packet=HEX,actions=A\" | packet-out SWITCH IN_PORT ACTIONS HEX..."},
      {"trace", 1, 2, false,
       "trace SWITCH FLOW | trace SWITCH --packet HEX --in-port N  [--format json]: the switch's own "
       "pipeline, "
       "read-only"},
      {"monitor", 1, 2, false,
       "monitor SWITCH [watch:[!initial,!add,!delete,!modify,!actions,!own,id=N,table=N,out_port=P,MATCH]] "
       "[--count N]  (OpenFlow 1.4)"},
      {"ofp-parse", 1, 1, true, "ofp-parse FILE"},
      {"ofp-print", 1, 1, true, "ofp-print HEX"},
  };
  return kCommands;
}

const OfctlCommand* find_ofctl_command(std::string_view name) {
  for (const auto& c : ofctl_commands())
    if (c.name == name) return &c;
  return nullptr;
}

Status check_ofctl_args(const OfctlCommand& cmd, const std::vector<std::string>& args,
                        const OfctlOptions& opts) {
  if (cmd.name == "mod-table") {
    FLOWLAB_TRY(parse_table_setting(args.at(1), args.at(2)));
    return ok_status();
  }
  if (cmd.name == "monitor") {
    if (args.size() > 1) FLOWLAB_TRY(parse_watch(args[1], kOf14));
    return ok_status();
  }
  if (cmd.name != "trace") return ok_status();
  FLOWLAB_TRY(trace_request(args, opts));
  return ok_status();
}

Status run_ofctl(const OfctlCommand& cmd, const std::vector<std::string>& args, const OfctlOptions& opts,
                 std::string& out) {
  if (cmd.name == "ofp-parse") {
    FLOWLAB_ASSIGN_OR_RETURN(std::string data, read_file(args.at(0)));
    auto bytes = ByteSpan(reinterpret_cast<const uint8_t*>(data.data()), data.size());
    auto st = format_message_stream(bytes, out);
    if (!st.ok()) return fail("{}: {}", args[0], st.error().message);
    return ok_status();
  }
  if (cmd.name == "ofp-print") {
    Bytes b;
    if (!from_hex(args.at(0), b)) return fail("ofp-print: '{}' is not an even number of hex digits", args[0]);
    return format_message_stream(b, out);
  }
  std::vector<uint8_t> versions = opts.versions;
  if (versions.empty()) versions = {kOf13, kOf10};
  FLOWLAB_ASSIGN_OR_RETURN(SyncClient client, SyncClient::connect(args.at(0), versions, opts.timeout));
  Session s{std::move(client), opts, out};
  return s.run(cmd.name, args);
}

}  // namespace flowlab::channel
