#!/usr/bin/env python3
"""The traffic of scripts/bench-cluster.sh: new flows and established ones.

    cluster_probe.py probe RECORDS INTERVAL_MS SPEC...
    cluster_probe.py window RECORDS OFFSET T_FAULT T_END INTERVAL_MS
    cluster_probe.py logtime AFTER REGEX FILE...

`probe` runs until SIGTERM/SIGINT. Each SPEC is
SW,NETNS,IFNAME,MAC,IP,PEER_MAC,PEER_IP,ARP_IP: host A of switch SW (in
NETNS, promiscuous), facing host B (PEER_*) on the same switch. Every
INTERVAL_MS, per switch, two probes leave A through one AF_PACKET socket:
  - a new flow: an ARP request for PEER_IP from a MAC never used in the last
    65536 probes of that switch (0a:SS:xx:xx:xx:xx, sender ARP_IP, an address
    no host holds). The learning switch gets a packet-in for it (broadcast:
    flooded, no flow) and one for B's unicast reply to that MAC (a flow to a
    destination it just learned); the reply reaching A is a new flow served;
  - an established flow: an ICMP echo request from A's own MAC/IP to B,
    whose flows both ways were installed before any fault.
One line per probe when it is answered or given up (1 s) - "n|e SW SEQ T_SENT
T_REPLY" (epoch seconds, T_REPLY 0 = no answer) - flushed every 100 ms.

`window` reads RECORDS from byte OFFSET and prints, as JSON, for a fault at
T_FAULT observed until T_END: per switch the longest time without an answered
new flow (replies from T_FAULT - 0.5 s to T_END, the last one before the fault
included; still none at T_END counts up to T_END), the established probes sent
in [T_FAULT - 0.5, T_END - 1] and how many were lost, and the totals; and
per switch the last answered new flow before the fault and the first after.

`logtime` prints the time (epoch s) of the first line matching REGEX in the
flowlab logs FILE... stamped at AFTER or later (the logs' stamps are UTC
milliseconds, so 1 ms before AFTER counts), or nothing.
"""
import ctypes
import datetime
import re
import json
import os
import select
import signal
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
CLONE_NEWNET = 0x40000000
TIMEOUT_S = 1.0


def mac_bytes(s):
    return bytes(int(x, 16) for x in s.split(":"))


def ip_bytes(s):
    return socket.inet_aton(s)


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def socket_in(netns, ifname):
    libc = ctypes.CDLL(None, use_errno=True)
    home = os.open("/proc/self/ns/net", os.O_RDONLY)
    fd = os.open("/run/netns/" + netns, os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), "setns " + netns)
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        s.bind((ifname, 0))
        s.setblocking(False)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    finally:
        libc.setns(home, CLONE_NEWNET)
        os.close(fd)
        os.close(home)
    return s


class Switch:
    def __init__(self, spec):
        sw, ns, ifname, mac, ip, pmac, pip, arp_ip = spec.split(",")
        self.sw = int(sw)
        self.sock = socket_in(ns, ifname)
        self.mac, self.ip = mac_bytes(mac), ip_bytes(ip)
        self.pmac, self.pip = mac_bytes(pmac), ip_bytes(pip)
        self.arp_ip = ip_bytes(arp_ip)
        self.seq_n = 0
        self.seq_e = 0
        self.pending_n = {}  # fresh MAC -> (seq, t_sent)
        self.pending_e = {}  # icmp seq -> (seq, t_sent)
        self.ident = (os.getpid() + self.sw) & 0xFFFF

    def fresh_mac(self, seq):
        return bytes([0x0A, self.sw & 0xFF, 0x5E, (seq >> 16) & 0xFF, (seq >> 8) & 0xFF, seq & 0xFF])

    def send_new(self, now):
        seq = self.seq_n
        self.seq_n += 1
        m = self.fresh_mac(seq & 0xFFFF)
        arp = struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1) + m + self.arp_ip + b"\0" * 6 + self.pip
        frame = b"\xff" * 6 + m + b"\x08\x06" + arp
        self.pending_n[m] = (seq, now)
        try:
            self.sock.send(frame)
        except OSError:
            pass

    def send_est(self, now):
        seq = self.seq_e
        self.seq_e += 1
        payload = struct.pack("!d", now) + b"\0" * 48
        icmp = struct.pack("!BBHHH", 8, 0, 0, self.ident, seq & 0xFFFF) + payload
        icmp = icmp[:2] + struct.pack("!H", csum(icmp)) + icmp[4:]
        iph = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(icmp), seq & 0xFFFF, 0, 64, 1, 0, self.ip, self.pip)
        iph = iph[:10] + struct.pack("!H", csum(iph)) + iph[12:]
        frame = self.pmac + self.mac + b"\x08\x00" + iph + icmp
        self.pending_e[seq & 0xFFFF] = (seq, now)
        try:
            self.sock.send(frame)
        except OSError:
            pass

    def receive(self, now, out):
        while True:
            try:
                f = self.sock.recv(2048)
            except BlockingIOError:
                return
            except OSError:
                return
            if len(f) < 42:
                continue
            et = f[12:14]
            if et == b"\x08\x06" and f[20:22] == b"\x00\x02":  # ARP reply
                tha = f[32:38]
                p = self.pending_n.pop(tha, None)
                if p and f[28:32] == self.pip:
                    out.append(f"n {self.sw} {p[0]} {p[1]:.6f} {now:.6f}\n")
            elif et == b"\x08\x00" and f[23] == 1 and f[26:30] == self.pip:
                ihl = (f[14] & 0x0F) * 4
                o = 14 + ihl
                if len(f) >= o + 8 and f[o] == 0:  # echo reply
                    ident, seq = struct.unpack("!HH", f[o + 4:o + 8])
                    if ident != self.ident:
                        continue
                    p = self.pending_e.pop(seq, None)
                    if p:
                        out.append(f"e {self.sw} {p[0]} {p[1]:.6f} {now:.6f}\n")

    def expire(self, now, out):
        for kind, pend in (("n", self.pending_n), ("e", self.pending_e)):
            old = [k for k, (_, t) in pend.items() if now - t > TIMEOUT_S]
            for k in old:
                seq, t = pend.pop(k)
                out.append(f"{kind} {self.sw} {seq} {t:.6f} 0\n")


def probe(records, interval_ms, specs):
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    sws = [Switch(s) for s in specs]
    step = interval_ms / 1000.0
    by_fd = {s.sock.fileno(): s for s in sws}
    # the switches' sends are spread over the interval
    t0 = time.time() + 0.05
    nxt = [t0 + step * i / len(sws) for i in range(len(sws))]
    out = []
    last_flush = last_expire = time.time()
    with open(records, "a", buffering=1 << 16) as f:
        while not stop:
            now = time.time()
            wait = max(0.0, min(nxt) - now)
            r, _, _ = select.select(list(by_fd), [], [], min(wait, 0.05))
            now = time.time()
            for fd in r:
                by_fd[fd].receive(now, out)
            for i, s in enumerate(sws):
                if now >= nxt[i]:
                    s.send_new(now)
                    s.send_est(now)
                    nxt[i] += step
                    if nxt[i] < now - step:  # fell behind (machine busy): no burst to catch up
                        nxt[i] = now + step
            if now - last_expire > 0.1:
                for s in sws:
                    s.expire(now, out)
                last_expire = now
            if now - last_flush > 0.1:
                f.write("".join(out))
                out.clear()
                f.flush()
                last_flush = now
        f.write("".join(out))


def window(records, offset, t_fault, t_end, interval_ms):
    t_fault, t_end = float(t_fault), float(t_end)
    lo = t_fault - 0.5
    replies = {}
    sent = {}
    lost = {}
    with open(records) as f:
        f.seek(int(offset))
        if int(offset):
            f.readline()  # the offset may fall inside a line
        for line in f:
            p = line.split()
            if len(p) != 5:
                continue
            kind, sw, ts, tr = p[0], int(p[1]), float(p[3]), float(p[4])
            if kind == "n":
                if tr and lo <= tr <= t_end:
                    replies.setdefault(sw, []).append(tr)
            elif lo <= ts <= t_end - TIMEOUT_S:
                sent[sw] = sent.get(sw, 0) + 1
                if not tr:
                    lost[sw] = lost.get(sw, 0) + 1
    gaps, last_before, first_after = {}, {}, {}
    for sw in set(replies) | set(sent):
        ts = sorted(replies.get(sw, []))
        before = [x for x in ts if x < t_fault]
        after = [x for x in ts if x >= t_fault]
        if before:
            last_before[str(sw)] = before[-1]
        if after:
            first_after[str(sw)] = after[0]
        seq = ([before[-1]] if before else [lo]) + after
        g = max((b - a for a, b in zip(seq, seq[1:])), default=0.0)
        g = max(g, t_end - seq[-1])  # not served again by T_END
        gaps[sw] = round(g * 1000, 1)
    worst = max(gaps, key=gaps.get) if gaps else None
    print(json.dumps({
        "gap_ms": gaps[worst] if worst is not None else None,
        "gap_switch": worst,
        "gap_ms_per_switch": {str(k): v for k, v in sorted(gaps.items())},
        "affected": sum(1 for v in gaps.values() if v > 3 * interval_ms + 50),
        "est_sent": sum(sent.values()),
        "est_lost": sum(lost.values()),
        "est_lost_per_switch": {str(k): v for k, v in sorted(lost.items()) if v},
        "last_before": last_before,
        "first_after": first_after,
    }))


def logtime(after, regex, files):
    after, pat, best = float(after) - 0.001, re.compile(regex), None
    for path in files:
        try:
            for line in open(path, errors="replace"):
                if not pat.search(line):
                    continue
                try:
                    t = datetime.datetime.strptime(line[:23], "%Y-%m-%dT%H:%M:%S.%f")
                except ValueError:
                    continue
                t = t.replace(tzinfo=datetime.timezone.utc).timestamp()
                if t >= after and (best is None or t < best):
                    best = t
                    break
        except OSError:
            pass
    if best is not None:
        print(f"{best:.3f}")


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "probe":
        probe(sys.argv[2], float(sys.argv[3]), sys.argv[4:])
    elif len(sys.argv) == 7 and sys.argv[1] == "window":
        window(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], float(sys.argv[6]))
    elif len(sys.argv) >= 5 and sys.argv[1] == "logtime":
        logtime(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        sys.exit(__doc__)
