#!/usr/bin/python3
"""OpenFlow 1.5 wire vectors from os-ken (Debian's python3-os-ken).

Prints one line per vector: "<name> <hex bytes> <json of the fields>".
Messages a controller sends are serialised by os-ken's ofproto_v1_5_parser
classes; messages only a switch sends (os-ken parses them but cannot
serialise them) are packed with os-ken's ofproto_v1_5 layouts and its
OFPMatch / OFPStats / instruction serialisers, then parsed back by os-ken,
which must read the fields they were built with.
Used by tests/unit/openflow/of15_codec_test.cpp.
"""
import json
import struct

from os_ken.ofproto import ofproto_parser
from os_ken.ofproto import ofproto_v1_5 as ofp
from os_ken.ofproto import ofproto_v1_5_parser as p


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


def ser(obj):
    """Bytes of an os-ken match / stats / instruction (padded as on the wire)."""
    buf = bytearray()
    n = obj.serialize(buf, 0)
    if isinstance(obj, p.OFPMatch):
        n = (n + 7) // 8 * 8
        buf += bytes(max(0, n - len(buf)))
    return bytes(buf[:n]) if n else bytes(buf)


def instr_bytes(insts):
    b = bytearray()
    for i in insts:
        i.serialize(b, len(b))
    return bytes(b)


def main():
    out("hello", p.OFPHello(DP, elements=[p.OFPHelloElemVersionBitmap([1, 4, 5, 6])]), {"type": 0})
    out("features_request", p.OFPFeaturesRequest(DP), {"type": 5})

    tcp = p.OFPMatch(packet_type=0, in_port=1, eth_type=0x0800, ip_proto=6, tcp_flags=(0x002, 0x012))
    out("flow_mod_tcp_flags_packet_type",
        p.OFPFlowMod(DP, cookie=7, table_id=0, command=ofp.OFPFC_ADD, priority=300, buffer_id=ofp.OFP_NO_BUFFER,
                     out_port=ofp.OFPP_ANY, out_group=ofp.OFPG_ANY, importance=5, match=tcp,
                     instructions=[p.OFPInstructionActions(ofp.OFPIT_APPLY_ACTIONS, [p.OFPActionOutput(2, 0)])]),
        {"type": 14, "priority": 300, "importance": 5, "fields": 5})
    out("flow_mod_meter_action",
        p.OFPFlowMod(DP, cookie=8, table_id=0, command=ofp.OFPFC_ADD, priority=10, buffer_id=ofp.OFP_NO_BUFFER,
                     out_port=ofp.OFPP_ANY, out_group=ofp.OFPG_ANY, match=p.OFPMatch(in_port=1),
                     instructions=[p.OFPInstructionActions(ofp.OFPIT_APPLY_ACTIONS,
                                                           [p.OFPActionMeter(5), p.OFPActionOutput(2, 0)]),
                                   p.OFPInstructionGotoTable(1)]),
        {"type": 14, "meter_id": 5})
    out("flow_mod_meter_only",
        p.OFPFlowMod(DP, cookie=9, table_id=0, command=ofp.OFPFC_ADD, priority=11, buffer_id=ofp.OFP_NO_BUFFER,
                     out_port=ofp.OFPP_ANY, out_group=ofp.OFPG_ANY, match=p.OFPMatch(),
                     instructions=[p.OFPInstructionActions(ofp.OFPIT_APPLY_ACTIONS, [p.OFPActionMeter(7)])]),
        {"type": 14, "meter_id": 7})
    out("flow_mod_actset_output",
        p.OFPFlowMod(DP, cookie=10, table_id=2, command=ofp.OFPFC_ADD, priority=20, buffer_id=ofp.OFP_NO_BUFFER,
                     out_port=ofp.OFPP_ANY, out_group=ofp.OFPG_ANY, match=p.OFPMatch(actset_output=2),
                     instructions=[p.OFPInstructionActions(ofp.OFPIT_APPLY_ACTIONS,
                                                           [p.OFPActionSetField(eth_dst="0a:00:00:00:00:ee")])]),
        {"type": 14, "table_id": 2, "actset_output": 2})
    out("table_features_first_egress",
        p.OFPTableFeaturesStatsRequest(DP, body=[
            p.OFPTableFeaturesStats(table_id=2, command=ofp.OFPTFC_MODIFY,
                                    features=ofp.OFPTFF_EGRESS_TABLE | ofp.OFPTFF_FIRST_EGRESS, name=b"table2",
                                    metadata_match=0, metadata_write=0, capabilities=0, max_entries=0,
                                    properties=[])]),
        {"type": 18, "table_id": 2, "command": ofp.OFPTFC_MODIFY,
         "features": ofp.OFPTFF_EGRESS_TABLE | ofp.OFPTFF_FIRST_EGRESS})
    out("packet_out",
        p.OFPPacketOut(DP, buffer_id=ofp.OFP_NO_BUFFER, match=p.OFPMatch(in_port=3),
                       actions=[p.OFPActionOutput(ofp.OFPP_FLOOD, 0)], data=bytes(range(60))),
        {"type": 13, "in_port": 3, "data_len": 60})
    out("group_mod_select",
        p.OFPGroupMod(DP, command=ofp.OFPGC_ADD, type_=ofp.OFPGT_SELECT, group_id=4,
                      command_bucket_id=ofp.OFPG_BUCKET_ALL,
                      buckets=[p.OFPBucket(0, [p.OFPActionOutput(1, 0)], [p.OFPGroupBucketPropWeight(type_=ofp.OFPGBPT_WEIGHT, weight=3)]),
                               p.OFPBucket(1, [p.OFPActionOutput(2, 0)], [p.OFPGroupBucketPropWeight(type_=ofp.OFPGBPT_WEIGHT, weight=1)])]),
        {"type": 15, "group_id": 4, "weights": [3, 1]})
    out("group_mod_ff",
        p.OFPGroupMod(DP, command=ofp.OFPGC_ADD, type_=ofp.OFPGT_FF, group_id=5,
                      command_bucket_id=ofp.OFPG_BUCKET_ALL,
                      buckets=[p.OFPBucket(0, [p.OFPActionOutput(1, 0)],
                                           [p.OFPGroupBucketPropWatch(type_=ofp.OFPGBPT_WATCH_PORT, watch=1),
                                            p.OFPGroupBucketPropWatch(type_=ofp.OFPGBPT_WATCH_GROUP, watch=9)])]),
        {"type": 15, "group_id": 5, "watch_port": 1, "watch_group": 9})
    out("group_mod_delete",
        p.OFPGroupMod(DP, command=ofp.OFPGC_DELETE, type_=ofp.OFPGT_ALL, group_id=ofp.OFPG_ALL,
                      command_bucket_id=ofp.OFPG_BUCKET_ALL),
        {"type": 15})
    out("flow_desc_request",
        p.OFPFlowDescStatsRequest(DP, 0, ofp.OFPTT_ALL, ofp.OFPP_ANY, ofp.OFPG_ANY, 0, 0, p.OFPMatch(in_port=1)),
        {"type": 18})
    out("aggregate_request",
        p.OFPAggregateStatsRequest(DP, 0, ofp.OFPTT_ALL, ofp.OFPP_ANY, ofp.OFPG_ANY, 0, 0, p.OFPMatch()),
        {"type": 18})
    out("group_desc_request", p.OFPGroupDescStatsRequest(DP, 0, ofp.OFPG_ALL), {"type": 18})
    out("flow_stats_request",
        p.OFPFlowStatsRequest(DP, 0, ofp.OFPTT_ALL, ofp.OFPP_ANY, ofp.OFPG_ANY, 0, 0, p.OFPMatch(in_port=1)),
        {"type": 18, "multipart": 17})
    out("port_desc_request", p.OFPPortDescStatsRequest(DP, 0), {"type": 18})
    out("meter_mod",
        p.OFPMeterMod(DP, command=ofp.OFPMC_ADD, flags=ofp.OFPMF_KBPS, meter_id=5,
                      bands=[p.OFPMeterBandDrop(rate=1000, burst_size=0)]),
        {"type": 29})
    out("bundle_open",
        p.OFPBundleCtrlMsg(DP, 7, ofp.OFPBCT_OPEN_REQUEST, ofp.OFPBF_ATOMIC, []), {"type": 33})
    inner = p.OFPFlowMod(DP, cookie=1, table_id=0, command=ofp.OFPFC_ADD, priority=5,
                         buffer_id=ofp.OFP_NO_BUFFER, out_port=ofp.OFPP_ANY, out_group=ofp.OFPG_ANY,
                         match=p.OFPMatch(in_port=2),
                         instructions=[p.OFPInstructionActions(ofp.OFPIT_APPLY_ACTIONS,
                                                               [p.OFPActionMeter(3), p.OFPActionOutput(1, 0)])])
    inner.set_xid(0x1234)
    out("bundle_add_flow_mod", p.OFPBundleAddMsg(DP, 7, ofp.OFPBF_ATOMIC, inner, []), {"type": 34})

    copy_ip = p.OFPMatch(eth_type=0x0800, ip_proto=6)
    out("flow_mod_copy_field",
        p.OFPFlowMod(DP, cookie=10, table_id=0, command=ofp.OFPFC_ADD, priority=20, buffer_id=ofp.OFP_NO_BUFFER,
                     out_port=ofp.OFPP_ANY, out_group=ofp.OFPG_ANY, match=copy_ip,
                     instructions=[p.OFPInstructionActions(ofp.OFPIT_APPLY_ACTIONS, [
                         p.OFPActionMeter(2),
                         p.OFPActionCopyField(48, 0, 0, ["eth_src", "eth_dst"]),
                         p.OFPActionCopyField(8, 0, 8, ["ipv4_src", "ipv4_dst"]),
                         p.OFPActionOutput(2, 0)])]),
        {"type": 14, "n_bits": [48, 8], "dst_offset": [0, 8]})
    out("packet_out_copy_field",
        p.OFPPacketOut(DP, buffer_id=ofp.OFP_NO_BUFFER, match=p.OFPMatch(in_port=1),
                       actions=[p.OFPActionCopyField(16, 0, 0, ["tcp_src", "tcp_dst"]), p.OFPActionOutput(2, 0)],
                       data=bytes(range(60))),
        {"type": 13, "n_bits": 16})
    out("group_mod_copy_field",
        p.OFPGroupMod(DP, command=ofp.OFPGC_ADD, type_=ofp.OFPGT_ALL, group_id=6,
                      command_bucket_id=ofp.OFPG_BUCKET_ALL,
                      buckets=[p.OFPBucket(0, [p.OFPActionCopyField(48, 0, 0, ["eth_src", "eth_dst"]),
                                               p.OFPActionOutput(1, 0)], [])]),
        {"type": 15, "group_id": 6})

    # ---- switch to controller ----
    m = p.OFPMatch(in_port=1, eth_type=0x0800, ip_proto=6, tcp_flags=0x002)

    def check_removed(msg):
        assert msg.table_id == 1 and msg.reason == ofp.OFPRR_IDLE_TIMEOUT and msg.priority == 300
        assert msg.cookie == 7 and msg.stats["packet_count"] == 10 and list(msg.stats["duration"]) == [30, 500]

    st = p.OFPStats(duration=(30, 500), packet_count=10, byte_count=1500)
    packed("flow_removed", ofp.OFPT_FLOW_REMOVED,
           struct.pack(ofp.OFP_FLOW_REMOVED_PACK_STR0, 1, ofp.OFPRR_IDLE_TIMEOUT, 300, 10, 0, 7) + ser(m) + ser(st),
           {"type": 11, "packet_count": 10, "byte_count": 1500, "duration_sec": 30}, check_removed)

    ins = instr_bytes([p.OFPInstructionActions(ofp.OFPIT_APPLY_ACTIONS, [p.OFPActionMeter(5),
                                                                         p.OFPActionOutput(2, 0)])])
    fst = p.OFPStats(duration=(12, 34), packet_count=100, byte_count=6400)
    entry = ser(m) + ser(fst) + ins
    desc = struct.pack(ofp.OFP_FLOW_DESC_0_PACK_STR, ofp.OFP_FLOW_DESC_0_SIZE + len(entry), 1, 300, 10, 0,
                       ofp.OFPFF_SEND_FLOW_REM, 42, 7) + entry

    def check_desc(msg):
        d = msg.body[0]
        assert d.priority == 300 and d.importance == 42 and d.stats["byte_count"] == 6400
        assert d.instructions[0].actions[0].meter_id == 5

    packed("flow_desc_reply", ofp.OFPT_MULTIPART_REPLY,
           struct.pack(ofp.OFP_MULTIPART_REPLY_PACK_STR, ofp.OFPMP_FLOW_DESC, 0) + desc,
           {"type": 19, "packet_count": 100, "byte_count": 6400, "importance": 42, "meter_id": 5}, check_desc)

    ist = p.OFPStats(duration=(12, 34), idle_time=(5, 6), packet_count=100, byte_count=6400)
    entry = ser(m) + ser(ist)
    fstats = struct.pack(ofp.OFP_FLOW_STATS_0_PACK_STR, ofp.OFP_FLOW_STATS_0_SIZE + len(entry), 1,
                         ofp.OFPFSR_STATS_REQUEST, 300) + entry

    def check_fstats(msg):
        f = msg.body[0]
        assert f.priority == 300 and f.table_id == 1 and list(f.stats["idle_time"]) == [5, 6]

    packed("flow_stats_reply", ofp.OFPT_MULTIPART_REPLY,
           struct.pack(ofp.OFP_MULTIPART_REPLY_PACK_STR, ofp.OFPMP_FLOW_STATS, 0) + fstats,
           {"type": 19, "idle_sec": 5, "idle_nsec": 6, "packet_count": 100}, check_fstats)

    rst = p.OFPStats(duration=(30, 500), idle_time=(7, 8), packet_count=10, byte_count=1500)
    packed("flow_removed_idle", ofp.OFPT_FLOW_REMOVED,
           struct.pack(ofp.OFP_FLOW_REMOVED_PACK_STR0, 1, ofp.OFPRR_IDLE_TIMEOUT, 300, 10, 0, 7) + ser(m) + ser(rst),
           {"type": 11, "idle_sec": 7, "idle_nsec": 8},
           lambda msg: None if list(msg.stats["idle_time"]) == [7, 8] else 1 / 0)

    ast = p.OFPStats(flow_count=3, packet_count=200, byte_count=9000)

    def check_agg(msg):
        assert msg.body.stats["flow_count"] == 3 and msg.body.stats["packet_count"] == 200

    packed("aggregate_reply", ofp.OFPT_MULTIPART_REPLY,
           struct.pack(ofp.OFP_MULTIPART_REPLY_PACK_STR, ofp.OFPMP_AGGREGATE_STATS, 0) + ser(ast),
           {"type": 19, "flow_count": 3, "packet_count": 200, "byte_count": 9000}, check_agg)

    bucket_buf = bytearray()
    # One bucket: os-ken's OFPBucket.parser reads a bucket's properties up to
    # `len` bytes past them (into the next bucket), so it parses the last only.
    for bid, port, weight in ((0, 3, 5),):
        b = p.OFPBucket(bid, [p.OFPActionOutput(port, 0)],
                        [p.OFPGroupBucketPropWeight(type_=ofp.OFPGBPT_WEIGHT, weight=weight)])
        b.serialize(bucket_buf, len(bucket_buf))
    buckets = bytes(bucket_buf)
    gdesc = struct.pack(ofp.OFP_GROUP_DESC_PACK_STR, ofp.OFP_GROUP_DESC_SIZE + len(buckets), ofp.OFPGT_SELECT, 4,
                        len(buckets)) + buckets

    def check_gdesc(msg):
        g = msg.body[0]
        assert g.group_id == 4 and len(g.buckets) == 1 and g.buckets[0].actions[0].port == 3

    packed("group_desc_reply", ofp.OFPT_MULTIPART_REPLY,
           struct.pack(ofp.OFP_MULTIPART_REPLY_PACK_STR, ofp.OFPMP_GROUP_DESC, 0) + gdesc,
           {"type": 19, "group_id": 4, "weights": [5]}, check_gdesc)

    pin_match = ser(p.OFPMatch(in_port=2))

    def check_pin(msg):
        assert msg.match["in_port"] == 2 and len(msg.data) == 42

    packed("packet_in", ofp.OFPT_PACKET_IN,
           struct.pack(ofp.OFP_PACKET_IN_PACK_STR, ofp.OFP_NO_BUFFER, 42, ofp.OFPR_TABLE_MISS, 0, 0) + pin_match +
           bytes(2) + bytes(range(42)),
           {"type": 10, "in_port": 2}, check_pin)

    # Controller status (os-ken parses it, cannot serialise it): one
    # ofp_controller_status with the URI property, padded to 8.
    out("controller_status_request", p.OFPControllerStatusStatsRequest(DP, 0), {"type": 18, "multipart": 18})

    def status_entry(short_id, role, reason, channel, uri):
        prop = struct.pack(ofp.OFP_CONTROLLER_STATUS_PROP_URI_PACK_STR, ofp.OFPCSPT_URI, 4 + len(uri)) + uri
        prop += bytes((8 - len(prop) % 8) % 8)
        return struct.pack(ofp.OFP_CONTROLLER_STATUS_PACK_STR, ofp.OFP_CONTROLLER_STATUS_SIZE + len(prop),
                           short_id, role, reason, channel) + prop

    uri = b"tcp:127.0.0.1:6653"

    def check_status(st, reason, channel):
        assert (st.short_id, st.role, st.reason, st.channel_status) == (2, ofp.OFPCR_ROLE_SLAVE, reason, channel)
        assert st.properties[0].uri == uri, st.properties

    packed("controller_status", ofp.OFPT_CONTROLLER_STATUS,
           status_entry(2, ofp.OFPCR_ROLE_SLAVE, ofp.OFPCSR_CHANNEL_STATUS, ofp.OFPCT_STATUS_DOWN, uri),
           {"type": 35, "short_id": 2, "uri": uri.decode()},
           lambda m: check_status(m.status, ofp.OFPCSR_CHANNEL_STATUS, ofp.OFPCT_STATUS_DOWN))
    # One entry: os-ken reads an entry's properties up to `length` bytes past
    # its fixed part, so with two it would take the second for properties.
    packed("controller_status_reply", ofp.OFPT_MULTIPART_REPLY,
           struct.pack(ofp.OFP_MULTIPART_REPLY_PACK_STR, ofp.OFPMP_CONTROLLER_STATUS, 0) +
           status_entry(2, ofp.OFPCR_ROLE_SLAVE, ofp.OFPCSR_REQUEST, ofp.OFPCT_STATUS_UP, uri),
           {"type": 19, "multipart": 18, "short_id": 2, "uri": uri.decode()},
           lambda m: check_status(m.body[0], ofp.OFPCSR_REQUEST, ofp.OFPCT_STATUS_UP))


if __name__ == "__main__":
    main()
