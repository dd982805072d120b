#!/usr/bin/env python3
"""A measuring OpenFlow 1.3 controller for scripts/bench-pin-flood.sh.

Accepts one switch on 127.0.0.1:PORT, installs the table miss -> controller
(whole frames), reads every message as fast as it can (packet-ins are only
counted: the slow, busy controller of issue #14), answers the switch's echo
requests (its packet-in pacing probes among them), and every 20 ms after the
warm-up sends an echo request, a flow-mod (priority 30, ip, nw_dst=11.x.y.z,
output:2) and a barrier, timing the echo reply and the barrier reply (the
flow-mod is applied when the barrier is answered). Prints one JSON object:
packet-ins read in the measuring window (and per second) and in all, rounds, echo and barrier p50/p99/max in ms,
errors, and whether the switch stayed connected.

    pin_flood_controller.py PORT SECONDS [WARMUP_S]
"""
import json
import socket
import struct
import sys
import threading
import time

OFP13 = 4
HELLO, ERROR, ECHO_REQ, ECHO_REP, FEATURES_REQ, PACKET_IN, FLOW_MOD, BARRIER_REQ, BARRIER_REP = (
    0, 1, 2, 3, 5, 10, 14, 20, 21)


def header(t, length, xid):
    return struct.pack("!BBHI", OFP13, t, length, xid)


def flow_mod(xid, priority, match_oxm, out_port):
    # match: OFPMT_OXM, padded to 8 bytes
    mlen = 4 + len(match_oxm)
    match = struct.pack("!HH", 1, mlen) + match_oxm + b"\0" * ((8 - mlen % 8) % 8)
    action = struct.pack("!HHIH6x", 0, 16, out_port, 0xFFFF)  # output, max_len no buffer
    inst = struct.pack("!HH4x", 4, 8 + len(action)) + action  # APPLY_ACTIONS
    body = struct.pack("!QQBBHHHIIIH2x", 0, 0, 0, 0, 0, 0, priority, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    msg = body + match + inst
    return header(FLOW_MOD, 8 + len(msg), xid) + msg


def oxm(field, value):  # OFPXMC_OPENFLOW_BASIC, no mask
    return struct.pack("!HBB", 0x8000, field << 1, len(value)) + value


def pct(v, q):
    if not v:
        return None
    v = sorted(v)
    return round(v[min(len(v) - 1, int(q * (len(v) - 1) + 0.5))], 2)


def main():
    port, seconds = int(sys.argv[1]), float(sys.argv[2])
    warm = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", port))
    ls.listen(1)
    ls.settimeout(60)
    print(json.dumps({"listening": port}), file=sys.stderr, flush=True)
    s, _ = ls.accept()
    print(json.dumps({"connected": port}), file=sys.stderr, flush=True)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    wlock = threading.Lock()

    def send(b):
        with wlock:
            s.sendall(b)

    send(header(HELLO, 8, 1))
    send(header(FEATURES_REQ, 8, 2))
    send(flow_mod(3, 0, b"", 0xFFFFFFFD))  # table miss -> controller
    sent_at = {}  # xid -> (kind, t0)
    echo_ms, barrier_ms = [], []
    stats = {"packet_ins": 0, "errors": 0, "closed": False}
    pin_t = []  # (time, count) for the rate

    def reader():
        buf = b""
        while True:
            try:
                d = s.recv(1 << 20)
            except OSError:
                d = b""
            if not d:
                stats["closed"] = True
                return
            buf += d
            off = 0
            n = len(buf)
            while n - off >= 8:
                _, t, length, xid = struct.unpack_from("!BBHI", buf, off)
                if length < 8 or n - off < length:
                    break
                if t == PACKET_IN:
                    stats["packet_ins"] += 1
                elif t == ECHO_REQ:  # the switch's keepalive and pacing probes
                    send(header(ECHO_REP, length, xid) + buf[off + 8:off + length])
                elif t in (ECHO_REP, BARRIER_REP):
                    k = sent_at.pop(xid, None)
                    if k:
                        (echo_ms if k[0] == "echo" else barrier_ms).append((time.monotonic() - k[1]) * 1000)
                elif t == ERROR and xid >= 100:
                    stats["errors"] += 1
                off += length
            buf = buf[off:]

    th = threading.Thread(target=reader, daemon=True)
    th.start()
    t_start = time.monotonic()
    time.sleep(warm)
    p0, t0 = stats["packet_ins"], time.monotonic()
    xid, rounds = 100, 0
    end = t0 + seconds
    while time.monotonic() < end and not stats["closed"]:
        i = rounds
        now = time.monotonic()
        sent_at[xid] = ("echo", now)
        sent_at[xid + 2] = ("barrier", now)
        fm = flow_mod(xid + 1, 30, oxm(5, b"\x08\x00") + oxm(12, bytes([11, 0, (i >> 8) & 255, i & 255])), 2)
        send(header(ECHO_REQ, 8, xid) + fm + header(BARRIER_REQ, 8, xid + 2))
        xid += 3
        rounds += 1
        time.sleep(0.02)
    dt = time.monotonic() - t0
    pins = stats["packet_ins"] - p0
    time.sleep(2)  # late replies
    out = {
        "packet_ins": pins, "packet_ins_per_s": round(pins / dt) if dt > 0 else 0,
        "packet_ins_total": stats["packet_ins"], "window_s": round(dt, 2), "rounds": rounds,
        "echo_answered": len(echo_ms), "barrier_answered": len(barrier_ms),
        "echo_ms": {"p50": pct(echo_ms, 0.5), "p99": pct(echo_ms, 0.99), "max": pct(echo_ms, 1.0)},
        "barrier_ms": {"p50": pct(barrier_ms, 0.5), "p99": pct(barrier_ms, 0.99), "max": pct(barrier_ms, 1.0)},
        "errors": stats["errors"], "switch_disconnected": stats["closed"],
        "over_100ms": sum(1 for v in echo_ms + barrier_ms if v > 100),
        "elapsed_s": round(time.monotonic() - t_start, 1),
    }
    print(json.dumps(out), flush=True)
    s.close()


if __name__ == "__main__":
    main()
