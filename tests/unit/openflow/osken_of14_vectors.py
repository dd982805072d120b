#!/usr/bin/python3
"""OpenFlow 1.4 wire vectors from os-ken (Debian's python3-os-ken).

Prints one line per vector: "<name> <hex bytes> <json of the fields>".
Messages a controller sends are serialised by os-ken's ofproto_v1_4_parser
classes; messages only a switch sends (os-ken parses them but cannot
serialise them) are packed with os-ken's own ofproto_v1_4 layouts and then
parsed back by os-ken, which must read the fields they were built with.
Used by tests/unit/openflow/of14_codec_test.cpp.
"""
import json
import struct
import sys

from os_ken.ofproto import ofproto_parser
from os_ken.ofproto import ofproto_v1_4 as ofp
from os_ken.ofproto import ofproto_v1_4_parser as p


class _Dp:
    ofproto = ofp
    ofproto_parser = p


DP = _Dp()


def out(name, msg, fields):
    msg.set_xid(0x1234)
    msg.serialize()
    print(name, bytes(msg.buf).hex(), json.dumps(fields))


def packed(name, msg_type, body, fields, check):
    """A switch-to-controller message: header + body, parsed back by os-ken."""
    buf = bytearray(struct.pack(ofp.OFP_HEADER_PACK_STR, ofp.OFP_VERSION, msg_type,
                                ofp.OFP_HEADER_SIZE + len(body), 0x1234)) + body
    msg = ofproto_parser.msg(DP, ofp.OFP_VERSION, msg_type, len(buf), 0x1234, bytes(buf))
    check(msg)
    print(name, bytes(buf).hex(), json.dumps(fields))


def port_bytes(port_no, name, curr_speed, extra_optical=False):
    props = struct.pack(ofp.OFP_PORT_DESC_PROP_ETHERNET_PACK_STR, ofp.OFPPDPT_ETHERNET,
                        ofp.OFP_PORT_DESC_PROP_ETHERNET_SIZE, 0x2840, 0x2040, 0x2fff, 0,
                        curr_speed, 10000000)
    if extra_optical:
        props += struct.pack(ofp.OFP_PORT_DESC_PROP_OPTICAL_PACK_STR, ofp.OFPPDPT_OPTICAL,
                             ofp.OFP_PORT_DESC_PROP_OPTICAL_SIZE, 1, 2, 3, 4, 5, 6, 7, 8, 9)
    return struct.pack(ofp.OFP_PORT_PACK_STR, port_no, ofp.OFP_PORT_SIZE + len(props),
                       bytes.fromhex("0a0000000001") if port_no == 1 else bytes.fromhex("0a0000000002"),
                       name.encode(), 0x1, 0x4) + props


def main():
    match = p.OFPMatch(in_port=1, eth_type=0x0800, ipv4_dst="10.0.0.2")
    inst = [p.OFPInstructionActions(ofp.OFPIT_APPLY_ACTIONS, [p.OFPActionOutput(2, 0xffe5)])]
    out("flow_mod_importance",
        p.OFPFlowMod(DP, cookie=7, table_id=1, command=ofp.OFPFC_ADD, idle_timeout=10, priority=300,
                     buffer_id=ofp.OFP_NO_BUFFER, out_port=ofp.OFPP_ANY, out_group=ofp.OFPG_ANY,
                     flags=ofp.OFPFF_SEND_FLOW_REM, importance=42, match=match, instructions=inst),
        {"type": 14, "importance": 42, "priority": 300, "table_id": 1})
    out("hello", p.OFPHello(DP), {"type": 0})
    out("features_request", p.OFPFeaturesRequest(DP), {"type": 5})
    out("echo_request", p.OFPEchoRequest(DP, data=b"ping"), {"type": 2})
    out("barrier_request", p.OFPBarrierRequest(DP), {"type": 20})
    out("role_request", p.OFPRoleRequest(DP, ofp.OFPCR_ROLE_MASTER, 99), {"type": 24})
    out("port_desc_request", p.OFPPortDescStatsRequest(DP, 0), {"type": 18})
    out("flow_stats_request",
        p.OFPFlowStatsRequest(DP, 0, 0xff, ofp.OFPP_ANY, ofp.OFPG_ANY, 0, 0, p.OFPMatch()), {"type": 18})
    out("meter_mod",
        p.OFPMeterMod(DP, ofp.OFPMC_ADD, ofp.OFPMF_KBPS, 1, [p.OFPMeterBandDrop(1000, 0)]), {"type": 29})
    out("group_mod",
        p.OFPGroupMod(DP, ofp.OFPGC_ADD, ofp.OFPGT_ALL, 5,
                      [p.OFPBucket(actions=[p.OFPActionOutput(2)]), p.OFPBucket(actions=[p.OFPActionOutput(3)])]),
        {"type": 15})
    out("packet_out",
        p.OFPPacketOut(DP, ofp.OFP_NO_BUFFER, ofp.OFPP_CONTROLLER, [p.OFPActionOutput(ofp.OFPP_FLOOD)],
                       b"\xff" * 6 + b"\x0a\x00\x00\x00\x00\x01" + b"\x08\x06" + b"\x00" * 28),
        {"type": 13})
    out("port_mod_ethernet",
        p.OFPPortMod(DP, 3, "0a:00:00:00:00:03", ofp.OFPPC_PORT_DOWN, ofp.OFPPC_PORT_DOWN,
                     [p.OFPPortModPropEthernet(type_=ofp.OFPPMPT_ETHERNET, advertise=0x2840)]),
        {"type": 16, "port_no": 3, "config": 1, "mask": 1, "advertise": 0x2840, "ethernet": True})
    out("port_mod_no_props",
        p.OFPPortMod(DP, 2, "0a:00:00:00:00:02", 0, ofp.OFPPC_NO_FWD, []),
        {"type": 16, "port_no": 2, "config": 0, "mask": 32, "advertise": 0, "ethernet": False})
    out("set_async",
        p.OFPSetAsync(DP, [p.OFPAsyncConfigPropReasons(type_=ofp.OFPACPT_PACKET_IN_MASTER, mask=0x7),
                           p.OFPAsyncConfigPropReasons(type_=ofp.OFPACPT_PORT_STATUS_SLAVE, mask=0x1),
                           p.OFPAsyncConfigPropReasons(type_=ofp.OFPACPT_TABLE_STATUS_MASTER, mask=0x18)]),
        {"type": 28, "props": [[1, 7], [2, 1], [9, 0x18]]})
    out("bundle_open",
        p.OFPBundleCtrlMsg(DP, 7, ofp.OFPBCT_OPEN_REQUEST, ofp.OFPBF_ATOMIC | ofp.OFPBF_ORDERED, []),
        {"type": 33, "bundle_id": 7, "ctrl": 0, "flags": 3})
    out("bundle_commit", p.OFPBundleCtrlMsg(DP, 7, ofp.OFPBCT_COMMIT_REQUEST, ofp.OFPBF_ATOMIC, []),
        {"type": 33, "bundle_id": 7, "ctrl": 4, "flags": 1})
    inner = p.OFPFlowMod(DP, table_id=0, command=ofp.OFPFC_ADD, priority=10, buffer_id=ofp.OFP_NO_BUFFER,
                         out_port=ofp.OFPP_ANY, out_group=ofp.OFPG_ANY, match=p.OFPMatch(in_port=2),
                         instructions=inst)
    inner.set_xid(0x1234)
    inner.serialize()
    out("bundle_add_flow_mod", p.OFPBundleAddMsg(DP, 7, ofp.OFPBF_ATOMIC, inner, []),
        {"type": 34, "bundle_id": 7, "flags": 1, "inner_len": len(inner.buf)})

    def check_port_status(m):
        assert m.reason == ofp.OFPPR_MODIFY and m.desc.port_no == 1 and m.desc.name == b"t1"
        assert m.desc.properties[0].curr_speed == 1000000
    packed("port_status", ofp.OFPT_PORT_STATUS,
           struct.pack("!B7x", ofp.OFPPR_MODIFY) + port_bytes(1, "t1", 1000000),
           {"type": 12, "reason": 2, "port_no": 1, "name": "t1", "curr_speed": 1000000, "state": 4},
           check_port_status)

    def check_port_desc(m):
        assert [x.port_no for x in m.body] == [1, 2]
        assert m.body[1].properties[1].type == ofp.OFPPDPT_OPTICAL
    packed("port_desc_reply", ofp.OFPT_MULTIPART_REPLY,
           struct.pack("!HH4x", ofp.OFPMP_PORT_DESC, 0) + port_bytes(1, "t1", 1000000) +
           port_bytes(2, "t2", 10000000, extra_optical=True),
           {"type": 19, "ports": [1, 2], "optical_bytes": ofp.OFP_PORT_DESC_PROP_OPTICAL_SIZE}, check_port_desc)

    def check_role_status(m):
        assert m.role == ofp.OFPCR_ROLE_SLAVE and m.reason == ofp.OFPCRR_MASTER_REQUEST
        assert m.generation_id == 0x1122334455667788
    packed("role_status", ofp.OFPT_ROLE_STATUS,
           struct.pack(ofp.OFP_ROLE_STATUS_PACK_STR, ofp.OFPCR_ROLE_SLAVE, ofp.OFPCRR_MASTER_REQUEST,
                       0x1122334455667788),
           {"type": 30, "role": 3, "reason": 0, "generation_id": 0x1122334455667788}, check_role_status)

    vacancy = struct.pack(ofp.OFP_TABLE_MOD_PROP_VACANCY_PACK_STR, ofp.OFPTMPT_VACANCY,
                          ofp.OFP_TABLE_MOD_PROP_VACANCY_SIZE, 20, 80, 15)

    def check_table_status(m):
        assert m.reason == ofp.OFPTR_VACANCY_DOWN and m.table.table_id == 2
        assert m.table.properties[0].vacancy == 15
    packed("table_status", ofp.OFPT_TABLE_STATUS,
           struct.pack("!B7x", ofp.OFPTR_VACANCY_DOWN) +
           struct.pack(ofp.OFP_TABLE_DESC_PACK_STR, 8 + len(vacancy), 2, ofp.OFPTC_VACANCY_EVENTS) + vacancy,
           {"type": 31, "reason": 3, "table_id": 2, "config": 8, "props_len": len(vacancy)}, check_table_status)

    def check_get_async(m):
        assert [(x.type, x.mask) for x in m.properties] == [(0, 1), (1, 7)]
    packed("get_async_reply", ofp.OFPT_GET_ASYNC_REPLY,
           struct.pack("!HHIHHI", ofp.OFPACPT_PACKET_IN_SLAVE, 8, 1, ofp.OFPACPT_PACKET_IN_MASTER, 8, 7),
           {"type": 27, "props": [[0, 1], [1, 7]]}, check_get_async)

    stats = struct.pack(ofp.OFP_FLOW_STATS_0_PACK_STR, 0, 1, 5, 6, 300, 10, 0, 0, 42, 7, 100, 6400)
    mbytes = bytearray()
    mlen = match.serialize(mbytes, 0)
    inst_bytes = bytearray()
    ilen = inst[0].serialize(inst_bytes, 0)
    entry = bytearray(stats + bytes(mbytes) + bytes(inst_bytes))
    struct.pack_into("!H", entry, 0, len(entry))

    def check_flow_stats(m):
        assert m.body[0].importance == 42 and m.body[0].packet_count == 100
    packed("flow_stats_reply", ofp.OFPT_MULTIPART_REPLY,
           struct.pack("!HH4x", ofp.OFPMP_FLOW, 0) + bytes(entry),
           {"type": 19, "importance": 42, "packet_count": 100, "match_len": mlen, "inst_len": ilen},
           check_flow_stats)

    eth = struct.pack(ofp.OFP_PORT_STATS_PROP_ETHERNET_PACK_STR, ofp.OFPPSPT_ETHERNET,
                      ofp.OFP_PORT_STATS_PROP_ETHERNET_SIZE, 11, 12, 13, 14)
    pstats = struct.pack(ofp.OFP_PORT_STATS_PACK_STR, ofp.OFP_PORT_STATS_SIZE + len(eth), 3, 9, 500,
                         1, 2, 3, 4, 5, 6, 7, 8) + eth

    def check_port_stats(m):
        s = m.body[0]
        assert s.port_no == 3 and s.rx_packets == 1 and s.tx_errors == 8
        assert s.properties[0].rx_frame_err == 11 and s.properties[0].collisions == 14
    packed("port_stats_reply", ofp.OFPT_MULTIPART_REPLY,
           struct.pack("!HH4x", ofp.OFPMP_PORT_STATS, 0) + pstats,
           {"type": 19, "port_no": 3, "rx_packets": 1, "tx_errors": 8, "rx_frame_err": 11, "collisions": 14},
           check_port_stats)

    qstats = struct.pack(ofp.OFP_QUEUE_STATS_PACK_STR, ofp.OFP_QUEUE_STATS_SIZE, 2, 1, 1000, 10, 0, 4, 5)

    def check_queue_stats(m):
        assert m.body[0].port_no == 2 and m.body[0].tx_bytes == 1000
    # Request forward: os-ken serialises the group-mod / meter-mod inside.
    gm = p.OFPGroupMod(DP, ofp.OFPGC_ADD, ofp.OFPGT_ALL, 6,
                       [p.OFPBucket(actions=[p.OFPActionOutput(2, 0)])])
    gm.set_xid(0x77)
    out("request_forward_group_mod", p.OFPRequestForward(DP, gm),
        {"type": 32, "inner_type": 15, "group_id": 6, "inner_xid": 0x77})
    mm = p.OFPMeterMod(DP, ofp.OFPMC_ADD, ofp.OFPMF_PKTPS, 3, [p.OFPMeterBandDrop(rate=100)])
    mm.set_xid(0x78)
    out("request_forward_meter_mod", p.OFPRequestForward(DP, mm),
        {"type": 32, "inner_type": 29, "meter_id": 3, "inner_xid": 0x78})

    packed("queue_stats_reply", ofp.OFPT_MULTIPART_REPLY,
           struct.pack("!HH4x", ofp.OFPMP_QUEUE_STATS, 0) + qstats,
           {"type": 19, "port_no": 2, "queue_id": 1, "tx_bytes": 1000}, check_queue_stats)

    # Table configuration: table-mod with both properties, the table-desc
    # request (os-ken serialises them) and a reply packed with os-ken's layouts.
    out("table_mod_eviction_vacancy",
        p.OFPTableMod(DP, 3, ofp.OFPTC_EVICTION | ofp.OFPTC_VACANCY_EVENTS,
                      [p.OFPTableModPropEviction(type_=ofp.OFPTMPT_EVICTION, flags=ofp.OFPTMPEF_IMPORTANCE),
                       p.OFPTableModPropVacancy(type_=ofp.OFPTMPT_VACANCY, vacancy_down=20, vacancy_up=80,
                                                vacancy=0)]),
        {"type": 17, "table_id": 3, "config": 12, "eviction_flags": 2, "down": 20, "up": 80})
    out("table_mod_plain", p.OFPTableMod(DP, ofp.OFPTT_ALL, 0, []),
        {"type": 17, "table_id": 255, "config": 0})
    out("table_desc_request", p.OFPTableDescStatsRequest(DP, 0),
        {"type": 18, "mp_type": 14})
    desc0 = struct.pack(ofp.OFP_TABLE_DESC_PACK_STR, 8, 0, 0)
    evict = struct.pack(ofp.OFP_TABLE_MOD_PROP_EVICTION_PACK_STR, ofp.OFPTMPT_EVICTION,
                        ofp.OFP_TABLE_MOD_PROP_EVICTION_SIZE, 6)
    desc1 = struct.pack(ofp.OFP_TABLE_DESC_PACK_STR, 8 + len(evict) + len(vacancy), 1,
                        ofp.OFPTC_EVICTION) + evict + vacancy

    def check_table_desc(m):
        assert [t.table_id for t in m.body] == [0, 1]
        assert m.body[1].config == ofp.OFPTC_EVICTION
        assert m.body[1].properties[0].flags == 6 and m.body[1].properties[1].vacancy_up == 80
    packed("table_desc_reply", ofp.OFPT_MULTIPART_REPLY,
           struct.pack("!HH4x", ofp.OFPMP_TABLE_DESC, 0) + desc0 + desc1,
           {"type": 19, "tables": 2, "eviction_flags": 6, "down": 20, "up": 80, "vacancy": 15},
           check_table_desc)

    # Queue description: the request os-ken serialises; a reply packed with
    # os-ken's layouts (flowlab's switch has no queues, a peer's may), parsed
    # back by os-ken.
    out("queue_desc_request", p.OFPQueueDescStatsRequest(DP, 0, 3, ofp.OFPQ_ALL),
        {"type": 18, "mp_type": 15, "port_no": 3, "queue_id": 0xffffffff})
    out("queue_desc_request_any", p.OFPQueueDescStatsRequest(DP, 0),
        {"type": 18, "mp_type": 15, "port_no": 0xffffffff, "queue_id": 0xffffffff})
    rates = (struct.pack(ofp.OFP_QUEUE_DESC_PROP_MIN_RATE_PACK_STR, ofp.OFPQDPT_MIN_RATE,
                         ofp.OFP_QUEUE_DESC_PROP_MIN_RATE_SIZE, 50) +
             struct.pack(ofp.OFP_QUEUE_DESC_PROP_MAX_RATE_PACK_STR, ofp.OFPQDPT_MAX_RATE,
                         ofp.OFP_QUEUE_DESC_PROP_MAX_RATE_SIZE, 1000))
    exp = struct.pack(ofp.OFP_QUEUE_DESC_PROP_EXPERIMENTER_PACK_STR, ofp.OFPQDPT_EXPERIMENTER,
                      ofp.OFP_QUEUE_DESC_PROP_EXPERIMENTER_SIZE + 4, 0x2320, 7) + struct.pack("!I", 9)
    exp += bytes((8 - len(exp) % 8) % 8)
    q1 = struct.pack(ofp.OFP_QUEUE_DESC_PACK_STR, 1, 0, ofp.OFP_QUEUE_DESC_SIZE + len(rates)) + rates
    q2 = struct.pack(ofp.OFP_QUEUE_DESC_PACK_STR, 2, 5, ofp.OFP_QUEUE_DESC_SIZE + len(exp)) + exp

    def check_queue_desc(m):
        assert [(q.port_no, q.queue_id) for q in m.body] == [(1, 0), (2, 5)]
        assert m.body[0].properties[0].rate == 50 and m.body[0].properties[1].rate == 1000
        assert m.body[1].properties[0].experimenter == 0x2320 and m.body[1].properties[0].exp_type == 7
        assert m.body[1].properties[0].data == [9]
    packed("queue_desc_reply", ofp.OFPT_MULTIPART_REPLY,
           struct.pack("!HH4x", ofp.OFPMP_QUEUE_DESC, 0) + q1 + q2,
           {"type": 19, "queues": 2, "min_rate": 50, "max_rate": 1000, "experimenter": 0x2320, "exp_type": 7},
           check_queue_desc)
    packed("queue_desc_reply_empty", ofp.OFPT_MULTIPART_REPLY,
           struct.pack("!HH4x", ofp.OFPMP_QUEUE_DESC, 0), {"type": 19, "queues": 0},
           lambda m: None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
