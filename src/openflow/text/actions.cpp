// Flow text parser, action part: "output:2,set_field:1.2.3.4->ip_dst,goto_table:1".
//
// Plain actions go into one apply-actions instruction; instructions (meter,
// apply_actions(...), clear_actions, write_actions(...), write_metadata,
// goto_table) may appear in any order and are emitted in the OF1.3 execution
// order. OF1.0-style actions become their OF1.3 form (mod_nw_src ->
// set_field ipv4_src, strip_vlan -> pop_vlan, mod_vlan_vid on an untagged match
// -> push_vlan + set_field, enqueue -> set_queue + output), as ovs-ofctl does.
#include <fmt/format.h>

#include "openflow/text/flow_text.h"
#include "openflow/text/internal.h"

namespace flowlab::of::text {
namespace {

struct ActionParser {
  const Match& match;
  uint8_t version;
  bool vlan_pushed = false;

  bool match_has_vlan() const {
    const OxmField* v = match.find(OxmId::kVlanVid);
    return v && (v->value_u64() & kVlanPresent) && (v->mask_u64() & kVlanPresent);
  }
  std::optional<uint64_t> match_proto() const {
    const OxmField* p = match.find(OxmId::kIpProto);
    if (!p || p->has_mask) return std::nullopt;
    return p->value_u64();
  }

  TResult<uint64_t> arg_number(std::string_view name, std::string_view arg, size_t off, uint64_t max) {
    if (arg.empty()) return text_fail(off, fmt::format("{} needs an argument ({}:N)", name, name));
    return parse_uint_at(arg, off, max, name);
  }

  // mod_vlan_vid / mod_vlan_pcp on a flow that may be untagged push a tag first (OF1.3).
  void maybe_push_vlan(ActionList& out) {
    if (version == kOf10 || vlan_pushed || match_has_vlan()) return;
    out.push_back(Action::push_vlan(0x8100));
    vlan_pushed = true;
  }

  std::optional<TextError> set_field(ActionList& out, std::string_view arg, size_t off) {
    size_t arrow = arg.find("->");
    if (arrow == std::string_view::npos)
      return TextError{"set_field needs VALUE->FIELD, e.g. set_field:10.0.0.1->ip_dst", off};
    std::string_view fname = arg.substr(arrow + 2);
    auto id = field_by_name(fname);
    if (!id) {
      if (fname == "nw_src")
        id = OxmId::kIpv4Src;
      else if (fname == "nw_dst")
        id = OxmId::kIpv4Dst;
      else if (fname == "icmp_type")
        id = OxmId::kIcmpv4Type;
      else if (fname == "icmp_code")
        id = OxmId::kIcmpv4Code;
      else if (fname == "nw_proto")
        id = OxmId::kIpProto;
      else
        return TextError{fmt::format("set_field: unknown field '{}'", fname), off + arrow + 2};
    }
    auto f = parse_field(*id, arg.substr(0, arrow), off, true);
    if (!f.ok()) return f.error();
    out.push_back(Action::set_field(std::move(*f)));
    return std::nullopt;
  }

  std::optional<TextError> set_simple(ActionList& out, OxmId id, std::string_view name, std::string_view arg,
                                      size_t off) {
    if (arg.empty()) return TextError{fmt::format("{} needs an argument", name), off};
    auto f = parse_field(id, arg, off, false);
    if (!f.ok()) return f.error();
    out.push_back(Action::set_field(std::move(*f)));
    return std::nullopt;
  }

  std::optional<TextError> output(ActionList& out, std::string_view arg, size_t off) {
    auto p = parse_port(arg);
    if (!p.ok()) return TextError{p.error().message, off};
    out.push_back(Action::output(*p, *p == port::kController ? kControllerMaxLenNoBuffer : 0));
    return std::nullopt;
  }

  // "controller", "controller:128", "controller(max_len=128,reason=...)".
  std::optional<TextError> controller(ActionList& out, std::string_view arg, size_t off, bool parens) {
    uint64_t max_len = kControllerMaxLenNoBuffer;
    if (!parens && !arg.empty()) {
      auto v = parse_uint_at(arg, off, 0xffff, "controller max_len");
      if (!v.ok()) return v.error();
      max_len = *v;
    } else if (parens) {
      auto pieces = split_pieces(arg, off);
      if (!pieces.ok()) return pieces.error();
      for (const Piece& p : *pieces) {
        KeyValue kv = split_key_value(p);
        if (kv.key == "max_len") {
          auto v = parse_uint_at(kv.value, kv.value_offset, 0xffff, "max_len");
          if (!v.ok()) return v.error();
          max_len = *v;
        } else if (kv.key == "reason" || kv.key == "id") {
          // Accepted for ovs-ofctl compatibility; OF1.3 output has no such field.
        } else {
          return TextError{fmt::format("controller: unknown argument '{}'", kv.key), kv.key_offset};
        }
      }
    }
    out.push_back(Action::output(port::kController, uint16_t(max_len)));
    return std::nullopt;
  }

  std::optional<TextError> tp_port(ActionList& out, bool src, std::string_view arg, size_t off,
                                   std::string_view name) {
    auto proto = match_proto();
    OxmId id;
    if (proto && *proto == 6)
      id = src ? OxmId::kTcpSrc : OxmId::kTcpDst;
    else if (proto && *proto == 17)
      id = src ? OxmId::kUdpSrc : OxmId::kUdpDst;
    else if (proto && *proto == 132)
      id = src ? OxmId::kSctpSrc : OxmId::kSctpDst;
    else
      return TextError{fmt::format("{} needs a tcp, udp or sctp match to know which port to set", name), off};
    return set_simple(out, id, name, arg, off);
  }

  // One plain action; `name` is lower-case, `arg` the text after ':' or inside '()'.
  std::optional<TextError> action(ActionList& out, std::string_view name, std::string_view arg,
                                  size_t name_off, size_t arg_off, bool parens) {
    auto no_arg = [&]() -> std::optional<TextError> {
      if (!arg.empty()) return TextError{fmt::format("{} takes no argument", name), arg_off};
      return std::nullopt;
    };
    auto simple = [&](ActionType t) -> std::optional<TextError> {
      if (auto e = no_arg()) return e;
      out.push_back(Action::simple(t));
      return std::nullopt;
    };
    if (name == "output") {
      if (arg.empty()) return TextError{"output needs a port (output:N)", name_off};
      if (lower(arg) == "controller") return controller(out, "", arg_off, false);
      return output(out, arg, arg_off);
    }
    if (name == "controller") return controller(out, arg, arg_off, parens);
    if (name == "flood" || name == "all" || name == "in_port" || name == "normal" || name == "local" ||
        name == "table") {
      if (auto e = no_arg()) return e;
      return output(out, name, name_off);
    }
    if (!name.empty() && name[0] >= '0' && name[0] <= '9' && arg.empty() && !parens)
      return output(out, name, name_off);
    if (name == "enqueue") {
      size_t sep = arg.find_first_of(":,");
      if (sep == std::string_view::npos) return TextError{"enqueue needs PORT:QUEUE (enqueue:1:2)", arg_off};
      auto p = parse_port(arg.substr(0, sep));
      if (!p.ok()) return TextError{p.error().message, arg_off};
      auto q = parse_uint_at(arg.substr(sep + 1), arg_off + sep + 1, 0xffffffff, "enqueue queue");
      if (!q.ok()) return q.error();
      if (version == kOf10) {
        Action a;
        a.type = ActionType::kEnqueue;
        a.port = *p;
        a.queue_id = uint32_t(*q);
        out.push_back(a);
      } else {
        out.push_back(Action::set_queue(uint32_t(*q)));
        out.push_back(Action::output(*p));
      }
      return std::nullopt;
    }
    if (name == "group") {
      auto v = arg_number(name, arg, arg_off, 0xffffffff);
      if (!v.ok()) return v.error();
      out.push_back(Action::group(uint32_t(*v)));
      return std::nullopt;
    }
    if (name == "set_queue") {
      auto v = arg_number(name, arg, arg_off, 0xffffffff);
      if (!v.ok()) return v.error();
      out.push_back(Action::set_queue(uint32_t(*v)));
      return std::nullopt;
    }
    if (name == "push_vlan" || name == "push_mpls" || name == "push_pbb" || name == "pop_mpls") {
      uint64_t eth = name == "push_vlan" ? 0x8100 : name == "push_pbb" ? 0x88e7 : 0x8847;
      if (!arg.empty() || name == "pop_mpls") {
        auto v = arg_number(name, arg, arg_off, 0xffff);
        if (!v.ok()) return v.error();
        eth = *v;
      }
      Action a;
      a.type = name == "push_vlan"   ? ActionType::kPushVlan
               : name == "push_mpls" ? ActionType::kPushMpls
               : name == "push_pbb"  ? ActionType::kPushPbb
                                     : ActionType::kPopMpls;
      a.ethertype = uint16_t(eth);
      out.push_back(a);
      if (a.type == ActionType::kPushVlan) vlan_pushed = true;
      return std::nullopt;
    }
    if (name == "pop_vlan" || name == "strip_vlan") return simple(ActionType::kPopVlan);
    if (name == "pop_pbb") return simple(ActionType::kPopPbb);
    if (name == "dec_ttl") return simple(ActionType::kDecNwTtl);
    if (name == "dec_mpls_ttl") return simple(ActionType::kDecMplsTtl);
    if (name == "copy_ttl_in") return simple(ActionType::kCopyTtlIn);
    if (name == "copy_ttl_out") return simple(ActionType::kCopyTtlOut);
    if (name == "set_mpls_ttl" || name == "mod_nw_ttl" || name == "set_nw_ttl") {
      auto v = arg_number(name, arg, arg_off, 255);
      if (!v.ok()) return v.error();
      out.push_back(name == "set_mpls_ttl" ? Action::set_mpls_ttl(uint8_t(*v))
                                           : Action::set_nw_ttl(uint8_t(*v)));
      return std::nullopt;
    }
    if (name == "set_field") return set_field(out, arg, arg_off);
    if (name == "move" || name == "copy_field") {
      auto a = parse_copy_field(arg, arg_off);
      if (!a.ok()) return a.error();
      out.push_back(std::move(*a));
      return std::nullopt;
    }
    if (name == "mod_dl_src") return set_simple(out, OxmId::kEthSrc, name, arg, arg_off);
    if (name == "mod_dl_dst") return set_simple(out, OxmId::kEthDst, name, arg, arg_off);
    if (name == "mod_nw_src") return set_simple(out, OxmId::kIpv4Src, name, arg, arg_off);
    if (name == "mod_nw_dst") return set_simple(out, OxmId::kIpv4Dst, name, arg, arg_off);
    if (name == "mod_tp_src") return tp_port(out, true, arg, arg_off, name);
    if (name == "mod_tp_dst") return tp_port(out, false, arg, arg_off, name);
    if (name == "mod_nw_ecn") return set_simple(out, OxmId::kIpEcn, name, arg, arg_off);
    if (name == "mod_nw_tos") {
      auto v = arg_number(name, arg, arg_off, 255);
      if (!v.ok()) return v.error();
      if (*v & 3) return TextError{"mod_nw_tos value must be a multiple of 4 (the DSCP bits)", arg_off};
      out.push_back(Action::set_field(make_field(OxmId::kIpDscp, *v >> 2)));
      return std::nullopt;
    }
    if (name == "mod_vlan_vid" || name == "set_vlan_vid") {
      auto v = arg_number(name, arg, arg_off, 0xfff);
      if (!v.ok()) return v.error();
      maybe_push_vlan(out);
      out.push_back(Action::set_field(make_field(OxmId::kVlanVid, *v | kVlanPresent)));
      return std::nullopt;
    }
    if (name == "mod_vlan_pcp" || name == "set_vlan_pcp") {
      auto v = arg_number(name, arg, arg_off, 7);
      if (!v.ok()) return v.error();
      maybe_push_vlan(out);
      out.push_back(Action::set_field(make_field(OxmId::kVlanPcp, *v)));
      return std::nullopt;
    }
    if (name == "drop") return TextError{"drop must be the only action", name_off};
    return TextError{fmt::format("unknown action '{}'", name), name_off};
  }

  // Splits "name:arg" / "name(arg)" / "name=arg".
  static void split_action(const Piece& p, std::string_view& name, std::string_view& arg, size_t& arg_off,
                           bool& parens) {
    size_t i = p.text.find_first_of(":(=");
    parens = false;
    if (i == std::string_view::npos) {
      name = p.text;
      arg = {};
      arg_off = p.offset + p.text.size();
      return;
    }
    name = p.text.substr(0, i);
    if (p.text[i] == '(') {
      parens = true;
      size_t close = p.text.rfind(')');
      arg = p.text.substr(i + 1, close > i ? close - i - 1 : 0);
    } else {
      arg = p.text.substr(i + 1);
    }
    arg_off = p.offset + i + 1;
  }

  TResult<ActionList> actions(std::string_view s, size_t base) {
    auto pieces = split_pieces(s, base);
    if (!pieces.ok()) return unexpected(pieces.error());
    ActionList out;
    if (pieces->size() == 1 && lower((*pieces)[0].text) == "drop") return out;
    for (const Piece& p : *pieces) {
      std::string_view name, arg;
      size_t arg_off;
      bool parens;
      split_action(p, name, arg, arg_off, parens);
      if (auto e = action(out, lower(name), arg, p.offset, arg_off, parens)) return unexpected(*e);
    }
    return out;
  }

  TResult<InstructionList> instructions(std::string_view s, size_t base) {
    auto pieces = split_pieces(s, base);
    if (!pieces.ok()) return unexpected(pieces.error());
    if (pieces->empty()) return text_fail(base, "empty action list (write actions=drop to drop)");
    std::optional<Instruction> meter, apply, clear, write, metadata, go;
    ActionList plain;
    bool saw_drop = false;
    auto once = [&](std::optional<Instruction>& slot, Instruction i,
                    const Piece& p) -> std::optional<TextError> {
      if (slot) return TextError{fmt::format("instruction '{}' appears twice", p.text), p.offset};
      slot = std::move(i);
      return std::nullopt;
    };
    auto need_of13 = [&](const Piece& p, std::string_view name) -> std::optional<TextError> {
      if (version == kOf10)
        return TextError{fmt::format("instruction '{}' needs OpenFlow 1.1 or later", name), p.offset};
      return std::nullopt;
    };
    for (const Piece& p : *pieces) {
      std::string_view raw_name, arg;
      size_t arg_off;
      bool parens;
      split_action(p, raw_name, arg, arg_off, parens);
      std::string name = lower(raw_name);
      std::optional<TextError> err;
      if (name == "drop" && arg.empty()) {
        saw_drop = true;
      } else if (name == "meter") {
        if (!(err = need_of13(p, name))) {
          auto v = arg_number(name, arg, arg_off, 0xffffffff);
          if (!v.ok()) return unexpected(v.error());
          err = once(meter, Instruction::meter(uint32_t(*v)), p);
        }
      } else if (name == "goto_table") {
        if (!(err = need_of13(p, name))) {
          auto v = arg_number(name, arg, arg_off, 254);
          if (!v.ok()) return unexpected(v.error());
          err = once(go, Instruction::goto_table(uint8_t(*v)), p);
        }
      } else if (name == "clear_actions") {
        if (!arg.empty())
          err = TextError{"clear_actions takes no argument", arg_off};
        else if (!(err = need_of13(p, name)))
          err = once(clear, Instruction::clear(), p);
      } else if (name == "write_metadata") {
        if (!(err = need_of13(p, name))) {
          size_t slash = arg.find('/');
          auto v = arg_number(name, arg.substr(0, slash), arg_off, UINT64_MAX);
          if (!v.ok()) return unexpected(v.error());
          uint64_t mask = UINT64_MAX;
          if (slash != std::string_view::npos) {
            auto m =
                parse_uint_at(arg.substr(slash + 1), arg_off + slash + 1, UINT64_MAX, "write_metadata mask");
            if (!m.ok()) return unexpected(m.error());
            mask = *m;
          }
          err = once(metadata, Instruction::write_metadata(*v, mask), p);
        }
      } else if ((name == "write_actions" || name == "apply_actions") && parens) {
        if (name == "write_actions" && (err = need_of13(p, name))) return unexpected(*err);
        auto acts = actions(arg, arg_off);
        if (!acts.ok()) return unexpected(acts.error());
        err = name == "write_actions" ? once(write, Instruction::write(std::move(*acts)), p)
                                      : once(apply, Instruction::apply(std::move(*acts)), p);
      } else {
        err = action(plain, name, arg, p.offset, arg_off, parens);
      }
      if (err) return unexpected(*err);
    }
    if (saw_drop && (pieces->size() > 1))
      return text_fail((*pieces)[0].offset, "drop must be the only action");
    if (!plain.empty()) {
      if (apply) return text_fail(base, "plain actions and apply_actions(...) cannot be mixed");
      apply = Instruction::apply(std::move(plain));
    }
    InstructionList out;
    for (auto* slot : {&meter, &apply, &clear, &write, &metadata, &go})
      if (*slot) out.push_back(std::move(**slot));
    return out;
  }
};

}  // namespace

TResult<InstructionList> parse_instructions_at(std::string_view s, size_t base, const Match& match,
                                               uint8_t version) {
  ActionParser p{match, version};
  return p.instructions(s, base);
}

TResult<ActionList> parse_actions_at(std::string_view s, size_t base, const Match& match, uint8_t version) {
  ActionParser p{match, version};
  return p.actions(s, base);
}

}  // namespace flowlab::of::text
