#!/usr/bin/python3
"""OpenFlow 1.4 / 1.5 flow monitoring wire vectors from os-ken (python3-os-ken).

Usage: osken_monitor_vectors.py 14|15. Prints one line per vector:
"<name> <hex bytes> <json of the fields>", the format every os-ken vector
script here prints (tests/unit/openflow/osken_vectors.h reads it).
Requests are serialised by os-ken's OFPFlowMonitorRequest; replies (os-ken
parses them but cannot serialise them) are packed with os-ken's own layouts
(OFP_FLOW_UPDATE_*_PACK_STR, OFPMatch.serialize, OFPInstruction*.serialize)
and parsed back by OFPFlowMonitorReply, which must read the fields they were
built with (os-ken's parser patched to read every event:
tests/interop/peers/osken_flow_updates.py). Used by tests/unit/openflow/flow_monitor_codec_test.cpp.
"""
import json
import os
import struct
import sys

from os_ken.ofproto import ofproto_parser

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "interop", "peers"))
import osken_flow_updates  # noqa: E402  (os-ken reads only INITIAL and PAUSED without it)

if sys.argv[1:] == ["15"]:
    from os_ken.ofproto import ofproto_v1_5 as ofp
    from os_ken.ofproto import ofproto_v1_5_parser as p
else:
    from os_ken.ofproto import ofproto_v1_4 as ofp
    from os_ken.ofproto import ofproto_v1_4_parser as p


class _Dp:
    ofproto = ofp
    ofproto_parser = p


DP = _Dp()
XID = 0x1234
osken_flow_updates.use(p, ofp)


def out(name, msg, fields):
    msg.set_xid(XID)
    msg.serialize()
    print(name, bytes(msg.buf).hex(), json.dumps(fields))


def request(name, flags, monitor_id, out_port, out_group, monitor_flags, table_id, command, match, fields):
    out(name, p.OFPFlowMonitorRequest(DP, flags, monitor_id, out_port, out_group, monitor_flags, table_id,
                                      command, match),
        dict(fields, monitor_id=monitor_id, out_port=out_port, out_group=out_group, monitor_flags=monitor_flags,
             table_id=table_id, command=command, n_match=len(match._fields2)))


def full(event, table_id, reason, idle, hard, priority, cookie, match, instructions):
    body = bytearray(struct.pack(ofp.OFP_FLOW_UPDATE_FULL_0_PACK_STR, 0, event, table_id, reason, idle, hard,
                                 priority, cookie))
    mlen = match.serialize(body, len(body))
    body += bytes((8 - mlen % 8) % 8)
    for inst in instructions:
        at = len(body)
        inst.serialize(body, at)
    struct.pack_into("!H", body, 0, len(body))
    return bytes(body)


def reply(name, updates, check, fields):
    """A multipart reply of flow updates, parsed back by os-ken."""
    body = b"".join(updates)
    buf = bytearray(struct.pack(ofp.OFP_HEADER_PACK_STR, ofp.OFP_VERSION, ofp.OFPT_MULTIPART_REPLY,
                                ofp.OFP_MULTIPART_REPLY_SIZE + len(body), XID) +
                    struct.pack(ofp.OFP_MULTIPART_REPLY_PACK_STR, ofp.OFPMP_FLOW_MONITOR, 0)) + body
    msg = ofproto_parser.msg(DP, ofp.OFP_VERSION, ofp.OFPT_MULTIPART_REPLY, len(buf), XID, bytes(buf))
    assert isinstance(msg, p.OFPFlowMonitorReply), type(msg)
    check(msg.body)
    print(name, bytes(buf).hex(), json.dumps(fields))


def main():
    all_flags = (ofp.OFPFMF_INITIAL | ofp.OFPFMF_ADD | ofp.OFPFMF_REMOVED | ofp.OFPFMF_MODIFY |
                 ofp.OFPFMF_INSTRUCTIONS | ofp.OFPFMF_NO_ABBREV | ofp.OFPFMF_ONLY_OWN)
    request("monitor_request_all", 0, 10000, ofp.OFPP_ANY, ofp.OFPG_ANY, all_flags, ofp.OFPTT_ALL,
            ofp.OFPFMC_ADD, p.OFPMatch(), {})
    request("monitor_request_filtered", 0, 7, 2, ofp.OFPG_ANY, ofp.OFPFMF_ADD | ofp.OFPFMF_REMOVED, 3,
            ofp.OFPFMC_MODIFY, p.OFPMatch(in_port=1, eth_type=0x0800, ipv4_dst=("10.0.0.0", "255.0.0.0")), {})
    request("monitor_request_delete", 0, 7, ofp.OFPP_ANY, 5, 0, ofp.OFPTT_ALL, ofp.OFPFMC_DELETE,
            p.OFPMatch(), {})

    match = p.OFPMatch(in_port=1, eth_type=0x0800, ipv4_dst="10.0.0.2")
    if ofp.OFP_VERSION == 6:  # 1.5: the meter is an action
        actions = [p.OFPActionMeter(5), p.OFPActionOutput(2, 0xffe5)]
        insts = [p.OFPInstructionActions(ofp.OFPIT_APPLY_ACTIONS, actions), p.OFPInstructionGotoTable(3)]
    else:
        insts = [p.OFPInstructionMeter(5, ofp.OFPIT_METER),
                 p.OFPInstructionActions(ofp.OFPIT_APPLY_ACTIONS, [p.OFPActionOutput(2, 0xffe5)]),
                 p.OFPInstructionGotoTable(3)]
    added = full(ofp.OFPFME_ADDED, 1, 0, 30, 60, 300, 0x12, match, insts)
    initial = full(ofp.OFPFME_INITIAL, 0, 0, 0, 0, 5, 0, p.OFPMatch(), [])
    removed = full(ofp.OFPFME_REMOVED, 1, ofp.OFPRR_IDLE_TIMEOUT, 30, 0, 300, 0x12, match, [])
    modified = full(ofp.OFPFME_MODIFIED, 2, 0, 0, 0, 9, 0xffffffffffffffff,
                    p.OFPMatch(eth_dst=("00:00:00:00:00:01", "ff:ff:ff:00:00:00")),
                    [p.OFPInstructionActions(ofp.OFPIT_WRITE_ACTIONS, [p.OFPActionOutput(ofp.OFPP_CONTROLLER, 128)])])
    abbrev = struct.pack(ofp.OFP_FLOW_UPDATE_ABBREV_PACK_STR, ofp.OFP_FLOW_UPDATE_ABBREV_SIZE, ofp.OFPFME_ABBREV,
                         0xabcd)
    paused = struct.pack(ofp.OFP_FLOW_UPDATE_PAUSED_PACK_STR, ofp.OFP_FLOW_UPDATE_PAUSED_SIZE, ofp.OFPFME_PAUSED)
    resumed = struct.pack(ofp.OFP_FLOW_UPDATE_PAUSED_PACK_STR, ofp.OFP_FLOW_UPDATE_PAUSED_SIZE,
                          ofp.OFPFME_RESUMED)

    def check_added(body):
        u = body[0]
        assert (u.event, u.table_id, u.idle_timeout, u.hard_timeout, u.priority, u.cookie) == (
            ofp.OFPFME_ADDED, 1, 30, 60, 300, 0x12)
        assert u.match["ipv4_dst"] == "10.0.0.2" and len(u.instructions) == len(insts)

    reply("monitor_reply_added", [added], check_added,
          {"events": [ofp.OFPFME_ADDED], "table_id": 1, "idle_timeout": 30, "hard_timeout": 60, "priority": 300,
           "cookie": 0x12, "n_match": 3, "n_instructions": 3, "meter": 5, "goto": 3})

    def check_all(body):
        assert [u.event for u in body] == [ofp.OFPFME_INITIAL, ofp.OFPFME_REMOVED, ofp.OFPFME_MODIFIED,
                                           ofp.OFPFME_ABBREV, ofp.OFPFME_PAUSED, ofp.OFPFME_RESUMED]
        assert body[1].reason == ofp.OFPRR_IDLE_TIMEOUT and body[3].xid == 0xabcd
        assert body[2].cookie == 0xffffffffffffffff

    reply("monitor_reply_events", [initial, removed, modified, abbrev, paused, resumed], check_all,
          {"events": [0, 2, 3, 4, 5, 6], "reason": ofp.OFPRR_IDLE_TIMEOUT, "abbrev_xid": 0xabcd})
    reply("monitor_reply_empty", [], lambda body: None, {"events": []})


if __name__ == "__main__":
    main()
