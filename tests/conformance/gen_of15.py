#!/usr/bin/env python3
"""Writes flowlab's OpenFlow 1.5 conformance cases (tests/conformance/of15/*.json)
for os-ken's switch tester with the target at 1.5
(`scripts/conformance.sh --version 15`, run through tests/conformance/tester_ext.py,
which asks a 1.5 switch for flow and meter descriptions; the tester switch
stays at 1.3).

- The 1.3 matches, actions, set-field variants, groups and meters of
  gen_of13.py, written the way 1.5 says them: the meter instruction becomes
  the meter action (first in apply-actions, 1.5's OFPAT_METER), group buckets
  get bucket ids and their weight / watch_port / watch_group as 1.5 bucket
  properties.
- What 1.5 added that the tester can see: tcp_flags, packet_type and
  actset_output matches, copy-field, the meter action (also as the only
  apply action in front of goto_table), 1.5 groups (weights, watch
  properties), and gen_of14.py's 1.4 cases (importance, pbb_uca, table-mods,
  standard bundles, which at 1.5 carry 1.5 flow-mods).
Run: python3 tests/conformance/gen_of15.py   (rewrites the of15 dir)."""
import copy
import os

import gen_of13
import gen_of14
from ofcase import *  # noqa: F401,F403 (the shared case helpers)

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "of15")
GT_SELECT = 1


def meter_action(mid):
    return {"OFPActionMeter": {"meter_id": mid}}


def to_15_flow(fm):
    """1.3's meter instruction -> 1.5's meter action, first in apply-actions."""
    ins = fm["OFPFlowMod"]["instructions"]
    meters = [i for i in ins if "OFPInstructionMeter" in i]
    if not meters:
        return fm
    mid = meters[0]["OFPInstructionMeter"]["meter_id"]
    rest = [i for i in ins if "OFPInstructionMeter" not in i]
    applies = [i for i in rest if "OFPInstructionActions" in i and i["OFPInstructionActions"]["type"] == 4]
    if applies:
        applies[0]["OFPInstructionActions"]["actions"].insert(0, meter_action(mid))
    else:
        rest.insert(0, apply(meter_action(mid)))
    fm["OFPFlowMod"]["instructions"] = rest
    return fm


def to_15_group(gm):
    """1.3's buckets (weight, watch_port, watch_group) -> 1.5's (bucket_id and properties)."""
    g = gm["OFPGroupMod"]
    buckets = []
    for i, b in enumerate(g["buckets"]):
        b = b["OFPBucket"]
        props = []
        if g["type"] == GT_SELECT:
            props.append({"OFPGroupBucketPropWeight": {"type": 0, "weight": b["weight"]}})
        if b["watch_port"] != ANY:
            props.append({"OFPGroupBucketPropWatch": {"type": 1, "watch": b["watch_port"]}})
        if b["watch_group"] != ANY:
            props.append({"OFPGroupBucketPropWatch": {"type": 2, "watch": b["watch_group"]}})
        buckets.append({"OFPBucket": {"bucket_id": i, "actions": b["actions"], "properties": props}})
    g["buckets"] = buckets
    return gm


def to_15(cases):
    cases = copy.deepcopy(cases)
    for c in cases:
        c["prerequisite"] = [to_15_flow(m) if "OFPFlowMod" in m else to_15_group(m) if "OFPGroupMod" in m else m
                             for m in c["prerequisite"]]
    return cases


def tcp_bits(bits, sp=11111, dp=2222):
    return "tcp(src_port=%d,dst_port=%d,bits=%d,option=b'\\x00\\x00\\x00\\x00')" % (sp, dp, bits)


SYN, ACK, FIN, RST, PSH = 0x002, 0x010, 0x001, 0x004, 0x008
TCPF = lambda bits: [eth(), ip4(), tcp_bits(bits), PAYLOAD]  # noqa: E731
TCP4 = [IPV4, oxm("ip_proto", 6)]
V6TCP = lambda bits: [eth(et=34525), "ipv6(src='2001:db8::1',dst='2001:db8::2',nxt=6)", tcp_bits(bits),  # noqa: E731
                      PAYLOAD]


def oxm_id(field):
    return {"OFPOxmId": {"type": field}}


def copy_field(n_bits, src, dst, src_off=0, dst_off=0):
    return {"OFPActionCopyField": {"n_bits": n_bits, "src_offset": src_off, "dst_offset": dst_off,
                                   "oxm_ids": [oxm_id(src), oxm_id(dst)]}}


def group15(gid, gtype, buckets):
    """buckets: (actions, [properties])"""
    return {"OFPGroupMod": {"group_id": gid, "type": gtype, "buckets": [
        {"OFPBucket": {"bucket_id": i, "actions": acts, "properties": props}}
        for i, (acts, props) in enumerate(buckets)]}}


WEIGHT = lambda w: {"OFPGroupBucketPropWeight": {"type": 0, "weight": w}}  # noqa: E731
WATCH_PORT = lambda p: {"OFPGroupBucketPropWatch": {"type": 1, "watch": p}}  # noqa: E731

def first_egress(table_id):
    """A 1.5 table features request (OFPTFC_MODIFY) marking `table_id` the first
    egress table; tester_ext.py sends it before the flows and ends egress
    processing before the next case."""
    return {"OFPTableFeaturesStatsRequest": {"flags": 0, "body": [{"OFPTableFeaturesStats": {
        "table_id": table_id, "command": 1, "features": 2 | 16, "name": "egress",
        "metadata_match": 0, "metadata_write": 0, "capabilities": 0, "max_entries": 0, "properties": []}}]}}


NEW = [
    # tcp_flags (OXM 42)
    simple("tcp_flags SYN without ACK (masked 0x002/0x012)", TCP4 + [oxm("tcp_flags", SYN, SYN | ACK)],
           TCPF(SYN), TCPF(SYN | ACK)),
    simple("tcp_flags exact ACK", TCP4 + [oxm("tcp_flags", ACK)], TCPF(ACK), TCPF(ACK | PSH)),
    simple("tcp_flags FIN set, any other bits (masked 0x001/0x001)", TCP4 + [oxm("tcp_flags", FIN, FIN)],
           TCPF(FIN | ACK), TCPF(RST)),
    simple("tcp_flags over ipv6", [IPV6, oxm("ip_proto", 6), oxm("tcp_flags", SYN, SYN)], V6TCP(SYN), V6TCP(ACK)),
    case("tcp_flags: SYN to the controller, the rest forwarded (two priorities)", [
        flow(match(*(TCP4 + [oxm("tcp_flags", SYN, SYN)])), [apply(out(0xfffffffd))], priority=20),
        flow(match(IN1), [apply(out())], priority=10)],
        [{"ingress": TCPF(SYN), "PACKET_IN": TCPF(SYN)}, egress(TCPF(ACK), TCPF(ACK))]),
    # packet_type (OXM 44): (0, 0) is Ethernet
    simple("packet_type Ethernet (0,0)", [oxm("packet_type", 0)], P),
    simple("packet_type Ethernet + eth_type ipv4", [oxm("packet_type", 0), IPV4], P,
           [eth(et=2054, dst="ff:ff:ff:ff:ff:ff"),
            "arp(opcode=1,src_mac='%s',src_ip='192.168.10.10',dst_ip='192.168.20.20')" % SRC]),
    # actset_output (OXM 43): the output port in the action set
    case("actset_output: table 1 matches the output port written in table 0", [
        flow(match(IN1), [write_actions(out()), goto(1)]),
        flow(match(oxm("actset_output", 2)), [apply(setf("eth_dst", "22:22:22:22:22:43"))],
             table_id=1)],
        [egress(P, [eth(dst="22:22:22:22:22:43"), ip4(), tcp(), PAYLOAD])]),
    # egress tables: table 1 is the first egress table; what table 0 outputs to
    # port 2 runs through it with actset_output 2
    case("egress table 1 rewrites eth_dst of what leaves by port 2 (actset_output 2)", [
        first_egress(1),
        flow(match(IN1), [write_actions(out())]),
        flow(match(oxm("actset_output", 3)), [apply(setf("eth_dst", "22:22:22:22:22:e3"))], table_id=1,
             priority=20),
        flow(match(oxm("actset_output", 2)), [apply(setf("eth_dst", "22:22:22:22:22:e2"))], table_id=1,
             priority=10)],
        [egress(P, [eth(dst="22:22:22:22:22:e2"), ip4(), tcp(), PAYLOAD])]),
    # copy-field (OFPAT_COPY_FIELD 28)
    case("copy_field ipv4_dst -> ipv4_src (32 bits)", [
        flow(match(IN1, IPV4), [apply(copy_field(32, "ipv4_dst", "ipv4_src"), out())])],
        [egress(P, [eth(), ip4(src="192.168.20.20"), tcp(), PAYLOAD])]),
    case("copy_field eth_src -> eth_dst (48 bits)", [
        flow(match(IN1), [apply(copy_field(48, "eth_src", "eth_dst"), out())])],
        [egress(P, [eth(dst=SRC), ip4(), tcp(), PAYLOAD])]),
    case("copy_field tcp_src -> tcp_dst (16 bits)", [
        flow(match(IN1, *TCP4), [apply(copy_field(16, "tcp_src", "tcp_dst"), out())])],
        [egress(P, [eth(), ip4(), tcp(dp=11111), PAYLOAD])]),
    # the meter action
    case("meter action alone in apply-actions, then goto_table 1", [
        meter(1, MFL_PKTPS | MFL_BURST, [{"OFPMeterBandDrop": {"rate": 300, "burst_size": 30}}]),
        flow(match(IN1), [apply(meter_action(1)), goto(1)]),
        flow(match(IN1), [apply(out())], table_id=1)],
        [{"ingress": stream(P), "egress": {"throughput": [tput([IN_T2], pktps=300)]}}]),
    case("two flows share one meter action (ipv4 and arp), ipv4 measured", [
        meter(1, MFL_PKTPS | MFL_BURST, [{"OFPMeterBandDrop": {"rate": 250, "burst_size": 25}}]),
        flow(match(IN1, IPV4), [apply(meter_action(1), out())]),
        flow(match(IN1, oxm("eth_type", 2054)), [apply(meter_action(1), out())])],
        [{"ingress": stream(P), "egress": {"throughput": [tput([IN_T2], pktps=250)]}}]),
    # 1.5 groups: bucket ids and properties
    case("select group, two weighted buckets to port 2 (weights 3 and 1)", [
        group15(1, 1, [([out()], [WEIGHT(3)]), ([out()], [WEIGHT(1)])]), flow(match(IN1), [apply(G(1))])],
        [egress(P, P)]),
    case("fast-failover, watch_port property: a dead port's bucket is skipped", [
        group15(1, 3, [([out("target_send_port_2")], [WATCH_PORT(7)]), ([out()], [WATCH_PORT(2)])]),
        flow(match(IN1), [apply(G(1))])], [egress(P, P)]),
    case("all group with bucket ids 0 and 1, a rewrite in the second", [
        group15(1, 0, [([out("target_send_port_2")], []), ([setf("eth_dst", "22:22:22:22:22:15"), out()], [])]),
        flow(match(IN1), [apply(G(1))])], [egress(P, [eth(dst="22:22:22:22:22:15"), ip4(), tcp(), PAYLOAD])]),
]

FILES = reuse({k: (d, to_15(c)) for k, (d, c) in gen_of13.FILES.items()}, gen_of14.REUSED, "1.5")
FILES["new_in_14"] = ["1.5: what 1.4 added (importance, pbb_uca, table-mod, standard bundles)", gen_of14.new_cases("1.5 bundle:")]
FILES["new_in_15"] = ["1.5: tcp_flags, packet_type, actset_output, copy-field, meter action, 1.5 groups", NEW]

# ---- ctest subset (tests/interop/conformance_test.cpp): fast, no meters ----
SMOKE = {"smoke15": ["smoke 1.5: fast subset of of15", (
    [c for c in FILES["action_output"][1] if c["description"] in ("output port 2", "goto_table 1 then output")] +
    [c for c in FILES["action_set_field"][1] if c["description"] == "set ipv4_dst"] +
    [c for c in FILES["group"][1] if c["description"] == "indirect with set_field"] +
    [c for c in FILES["new_in_14"][1] if "atomic ordered]" in c["description"]] +
    [c for c in NEW if c["description"].startswith(("tcp_flags", "packet_type", "select group", "all group"))])]}

if __name__ == "__main__":
    write(HERE, FILES)
    write(os.path.join(os.path.dirname(HERE), "smoke15"), SMOKE)
