"""Helpers shared by the conformance case generators (gen_of13.py, gen_of14.py,
gen_of15.py): os-ken packet-library expressions for the test packets, and the
os-ken JSON dicts (OFPFlowMod, OFPGroupMod, OFPMeterMod, matches, actions,
instructions) of os-ken's switch tester format (os_ken/tests/switch/tester.py):
a JSON list whose first string is the file description, then test objects with
"description", "prerequisite" and "tests" (ingress packet + egress /
PACKET_IN / table-miss, or a packet stream + throughput for meter rate
checks). Ports are the tester's names (target_recv_port=1,
target_send_port_1=2, target_send_port_2=3)."""
import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ANY = 0xffffffff
PAYLOAD = "b'flowlab-conformance-payload-0123456789abcdef'"
DST, SRC = "22:22:22:22:22:22", "12:11:11:11:11:11"


def eth(et=2048, dst=DST, src=SRC):
    return "ethernet(dst='%s',src='%s',ethertype=%d)" % (dst, src, et)


def ip4(proto=6, src="192.168.10.10", dst="192.168.20.20", ttl=64, tos=32):
    return "ipv4(tos=%d,proto=%d,src='%s',dst='%s',ttl=%d)" % (tos, proto, src, dst, ttl)


def tcp(sp=11111, dp=2222):
    return "tcp(src_port=%d,dst_port=%d,option=b'\\x00\\x00\\x00\\x00')" % (sp, dp)


def udp(sp=11111, dp=2222):
    return "udp(src_port=%d,dst_port=%d)" % (sp, dp)


def tcp_pkt(**kw):
    return [eth(), ip4(**kw), tcp(), PAYLOAD]


def oxm(field, value, mask=None):
    d = {"field": field, "value": value}
    if mask is not None:
        d["mask"] = mask
    return {"OXMTlv": d}


def match(*fields):
    return {"OFPMatch": {"oxm_fields": list(fields)}}


def out(port="target_send_port_1"):
    return {"OFPActionOutput": {"port": port}}


def setf(field, value):
    return {"OFPActionSetField": {"field": oxm(field, value)}}


def apply(*actions):
    return {"OFPInstructionActions": {"type": 4, "actions": list(actions)}}


def flow(m, instructions, table_id=0, priority=None):
    body = {"table_id": table_id, "match": m, "instructions": instructions}
    if priority is not None:
        body["priority"] = priority
    return {"OFPFlowMod": body}


def group(gid, gtype, buckets):
    return {"OFPGroupMod": {"group_id": gid, "type": gtype, "buckets": [
        {"OFPBucket": {"weight": w, "watch_port": wp, "watch_group": ANY,
                       "actions": acts}} for (w, wp, acts) in buckets]}}


def meter(mid, flags, bands):
    return {"OFPMeterMod": {"meter_id": mid, "flags": flags, "bands": bands}}


def G(gid):
    return {"OFPActionGroup": {"group_id": gid}}


def case(desc, prereq, tests):
    return {"description": desc, "prerequisite": prereq, "tests": tests}


def egress(ing, eg):
    return {"ingress": ing, "egress": eg}


def miss(ing):
    return {"ingress": ing, "table-miss": [0]}


def simple(desc, fields, pkt, miss_pkt=None):
    """flow: match fields -> output port 2; pkt must come out unchanged,
    miss_pkt (if any) must miss table 0."""
    tests = [egress(pkt, pkt)]
    if miss_pkt:
        tests.append(miss(miss_pkt))
    return case(desc, [flow(match(*fields), [apply(out())])], tests)


IN1 = oxm("in_port", "target_recv_port")
IPV4 = oxm("eth_type", 2048)
IPV6 = oxm("eth_type", 34525)
P = tcp_pkt()


# ---- meters (rate checks over duration_time; tester allows +-10 %) ----
def stream(pkt, pktps=1000, secs=6):
    return {"packets": {"data": pkt, "pktps": pktps, "duration_time": secs}}


def tput(fields, **rate):
    d = {"OFPMatch": {"oxm_fields": fields}}
    d.update(rate)
    return d


IN_T2 = oxm("in_port", "tester_recv_port_1")
MFL_KBPS, MFL_PKTPS, MFL_BURST, MFL_STATS = 1, 2, 4, 8


def write(dirname, files):
    os.makedirs(dirname, exist_ok=True)
    for name, (desc, cases) in files.items():
        with open(os.path.join(dirname, name + ".json"), "w") as f:
            json.dump([desc] + cases, f, indent=2)
            f.write("\n")
    print("wrote %d files, %d cases to %s" % (len(files), sum(len(c) for _, c in files.values()), dirname))


def goto(table_id):
    return {"OFPInstructionGotoTable": {"table_id": table_id}}


def write_actions(*actions):
    return {"OFPInstructionActions": {"type": 3, "actions": list(actions)}}


def reuse(files, names, version):
    """The cases of the named files of another version's generator (deep
    copies), each file's description prefixed with the version it runs at."""
    out = {}
    for name in names:
        desc, cases = files[name]
        out[name] = ["%s %s" % (version, desc), copy.deepcopy(cases)]
    return out
