#!/usr/bin/env python3
"""Writes flowlab's OpenFlow 1.4 conformance cases (tests/conformance/of14/*.json)
for os-ken's switch tester with the target at 1.4
(`scripts/conformance.sh --version 14`, the tester switch stays at 1.3).

Two kinds of cases:
- the 1.3 matches, actions, set-field variants, groups and meters of
  gen_of13.py, unchanged, now encoded and answered at 1.4 (version 5 on the
  wire: the 1.4 codec and its bridge to the model);
- what 1.4 added that the tester can see: the flow-mod's importance, the pbb_uca
  field (a 1.4 OXM), table-mods with the eviction and vacancy configs and
  properties (accepted, the table still forwards; tester_ext.py sends them),
  and flow-mods sent in standard bundles
  (OFPT_BUNDLE_CONTROL / OFPT_BUNDLE_ADD_MESSAGE, flags ATOMIC and ORDERED).
  A case whose description carries "[bundle FLAGS]" has each of its flow-mods
  sent in a bundle of its own (open, add, commit, then a barrier);
  "[one bundle FLAGS]" sends all of the case's flow-mods in one bundle. The
  tester does that through tests/conformance/tester_ext.py.
Run: python3 tests/conformance/gen_of14.py   (rewrites the of14 dir)."""
import os

import gen_of13
from ofcase import *  # noqa: F401,F403 (the shared case helpers)

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "of14")

# Every 1.3 file, the issue files too (issue13: PBB push/pop and other
# rarities; issue28: icmpv4 after pop_mpls, meters at twice their band): os-ken's
# own 1.4 set repeats its 1.3 matches, actions, groups and meters, PBB included.
REUSED = ["match_basic", "match_l3", "match_l4", "match_more", "match_rare", "action_output",
          "action_set_field", "action_tags", "action_more", "action_set", "action_rewrite", "group", "meter",
          "issue13", "issue28"]


def with_importance(fm, importance):
    fm["OFPFlowMod"]["importance"] = importance
    return fm


PBB = oxm("eth_type", 0x88e7)
PBB_P = lambda sid, uca=0: [eth(et=0x88e7), "itag(sid=%d,uca=%d)" % (sid, uca), eth(), ip4(), tcp(), PAYLOAD]  # noqa: E731
TO_1 = [flow(match(IN1), [goto(1)]), flow(match(IN1), [apply(out())], table_id=1)]


TC_EVICTION, TC_VACANCY_EVENTS, TMPEF_IMPORTANCE = 4, 8, 2


def table_mod(table_id, config, properties):
    return {"OFPTableMod": {"table_id": table_id, "config": config, "properties": properties}}


def new_cases(tag):
    """The cases of what 1.4 added; `tag` prefixes bundle descriptions (the
    same cases serve 1.5, whose bundles carry 1.5 flow-mods)."""
    return [
        case("flow-mod importance 100 (1.4 field): installed and forwarding",
             [with_importance(flow(match(IN1), [apply(out())]), 100)], [egress(P, P)]),
        case("two flows of different importance: the higher priority one forwards", [
            with_importance(flow(match(IN1), [apply(setf("eth_dst", "22:22:22:22:22:01"), out())], priority=10), 7),
            with_importance(flow(match(IN1, IPV4), [apply(setf("eth_dst", "22:22:22:22:22:02"), out())],
                                 priority=20), 1)],
            [egress(P, [eth(dst="22:22:22:22:22:02"), ip4(), tcp(), PAYLOAD])]),
        simple("match pbb_uca (1.4 OXM)", [PBB, oxm("pbb_uca", 1)], PBB_P(5, 1), PBB_P(5, 0)),
        case("set-field pbb_uca (1.4 OXM)", [flow(match(IN1, PBB), [apply(setf("pbb_uca", 1), out())])],
             [egress(PBB_P(100), PBB_P(100, 1))]),
        case("table-mod: eviction (config 4, importance property) on table 0, then flows forward",
             [table_mod(0, TC_EVICTION, [{"OFPTableModPropEviction": {"type": 2, "flags": TMPEF_IMPORTANCE}}]),
              flow(match(IN1), [apply(out())])], [egress(P, P)]),
        case("table-mod: vacancy events (config 8, down 10 %, up 90 %) on table 1, goto_table 1 forwards",
             [table_mod(1, TC_VACANCY_EVENTS, [{"OFPTableModPropVacancy": {"type": 3, "vacancy_down": 10,
                                                                         "vacancy_up": 90, "vacancy": 0}}])] + TO_1,
             [egress(P, P)]),
        case("%s flow-mod in an atomic bundle [bundle atomic]" % tag, [flow(match(IN1), [apply(out())])],
             [egress(P, P)]),
        case("%s flow-mod in a bundle without flags [bundle]" % tag,
             [flow(match(IN1, IPV4), [apply(setf("ipv4_dst", "10.0.0.9"), out())])],
             [egress(P, [eth(), ip4(dst="10.0.0.9"), tcp(), PAYLOAD])]),
        case("%s goto_table pair in one atomic ordered bundle [one bundle atomic ordered]" % tag, TO_1,
             [egress(P, P)]),
        case("%s three tables in one ordered bundle, table 2 rewrites [one bundle ordered]" % tag, [
            flow(match(IN1), [goto(1)]),
            flow(match(IN1), [write_actions(out()), goto(2)], table_id=1),
            flow(match(IN1, IPV4), [apply(setf("ipv4_src", "10.0.0.7"))], table_id=2)],
            [egress(P, [eth(), ip4(src="10.0.0.7"), tcp(), PAYLOAD])]),
        case("%s bundled flow misses what it does not match [bundle atomic]" % tag,
             [flow(match(IN1, oxm("eth_dst", "22:22:22:22:22:33")), [apply(out())])], [miss(P)]),
        case("%s bundled packet-in flow [bundle atomic ordered]" % tag,
             [flow(match(IN1), [apply(out(0xfffffffd))])], [{"ingress": P, "PACKET_IN": P}]),
    ]


FILES = reuse(gen_of13.FILES, REUSED, "1.4")
FILES["new_in_14"] = ["1.4: importance, pbb_uca, table-mod, standard bundles", new_cases("1.4 bundle:")]

# ---- ctest subset (tests/interop/conformance_test.cpp): fast, no meters ----
SMOKE = {"smoke14": ["smoke 1.4: fast subset of of14", (
    [c for c in FILES["action_output"][1] if c["description"] in ("output port 2", "goto_table 1 then output")] +
    [c for c in FILES["match_l3"][1] if c["description"] == "ipv4_src (masked)"] +
    [c for c in FILES["group"][1] if c["description"] == "indirect with set_field"] +
    [c for c in FILES["new_in_14"][1] if "bundle" in c["description"] or "importance 100" in c["description"]
     or c["description"].startswith("table-mod")])]}

if __name__ == "__main__":
    write(HERE, FILES)
    write(os.path.join(os.path.dirname(HERE), "smoke14"), SMOKE)
