#!/usr/bin/env python3
"""bench-rest-server.py: the REST server's start-up cost and request rate, one
flowlab binary against another (the peer: e.g. main's), in one invocation.

Start-up: `flowlab controller -a hub -l ptcp:0:127.0.0.1 --rest 127.0.0.1:0`
from spawn to its "REST API ... on http://" log line (printed once the socket
listens), STARTS times each after one start each not counted, interleaved;
medians. Request rate: GET
/stats/switches against a controller with no switch, for SECONDS, on one
kept-alive connection and with a new connection per request (Connection:
close), RUNS times each, interleaved; medians of requests/s. The client is
Python's http.client, one thread: a ratio between the two servers, not the
server's ceiling. Prints the commit, the time and the load before and after.
Not a test: no pass/fail exit code.

  scripts/bench-rest-server.py -a build/release/flowlab -b /tmp/flowlab-main [--starts 10] [--runs 3] [--seconds 3]
"""
import argparse
import http.client
import os
import re
import selectors
import signal
import statistics
import subprocess
import sys
import time

LISTENING = re.compile(rb"REST API .* on http://127\.0\.0\.1:(\d+)/")


def start(binary):
    """Starts a controller with --rest; returns (process, port, seconds to listening)."""
    t0 = time.perf_counter()
    p = subprocess.Popen([binary, "controller", "-a", "hub", "-l", "ptcp:0:127.0.0.1", "--rest", "127.0.0.1:0"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    sel = selectors.DefaultSelector()
    sel.register(p.stdout, selectors.EVENT_READ)
    seen = b""
    deadline = t0 + 10
    while time.perf_counter() < deadline:
        if not sel.select(timeout=0.5):
            continue
        chunk = os.read(p.stdout.fileno(), 65536)
        if not chunk:
            break
        seen += chunk
        m = LISTENING.search(seen)
        if m:
            return p, int(m.group(1)), time.perf_counter() - t0
    stop(p)
    sys.exit(f"bench-rest-server: {binary} did not listen within 10 s:\n{seen.decode(errors='replace')}")


def stop(p):
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(timeout=5)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    p.stdout.close()


def rate(port, seconds, keep_alive):
    """Requests per second of GET /stats/switches for `seconds`."""
    n = 0
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    headers = {} if keep_alive else {"Connection": "close"}
    end = time.perf_counter() + seconds
    t0 = time.perf_counter()
    while time.perf_counter() < end:
        conn.request("GET", "/stats/switches", headers=headers)
        r = conn.getresponse()
        body = r.read()
        if r.status != 200 or body != b"[]":
            sys.exit(f"bench-rest-server: unexpected answer {r.status} {body[:100]!r}")
        n += 1
        if not keep_alive:
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    conn.close()
    return n / (time.perf_counter() - t0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-a", required=True, help="the flowlab binary measured")
    ap.add_argument("-b", required=True, help="the peer binary (e.g. main's, built the same way)")
    ap.add_argument("--starts", type=int, default=10)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=3)
    args = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    commit = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "?"
    load = lambda: " ".join(open("/proc/loadavg").read().split()[:3])
    print(f"bench-rest-server: a={args.a} b={args.b}, commit {commit}, "
          f"{time.strftime('%d %b %H:%M UTC', time.gmtime())}, load {load()}")
    binaries = {"a": args.a, "b": args.b}

    for binary in binaries.values():  # one start each to warm the page cache, not counted
        stop(start(binary)[0])
    starts = {k: [] for k in binaries}
    for _ in range(args.starts):
        for k, binary in binaries.items():
            p, _, s = start(binary)
            starts[k].append(s)
            stop(p)
    for k in binaries:
        print(f"  start to listening, {k}: " + " ".join(f"{s * 1000:.1f}" for s in starts[k]) +
              f" ms; median {statistics.median(starts[k]) * 1000:.1f} ms")
    print(f"  start-up ratio a/b: {statistics.median(starts['a']) / statistics.median(starts['b']):.3f}")

    for keep_alive in (True, False):
        what = "one kept-alive connection" if keep_alive else "a connection per request"
        rates = {k: [] for k in binaries}
        for _ in range(args.runs):
            for k, binary in binaries.items():
                p, port, _ = start(binary)
                try:
                    rates[k].append(rate(port, args.seconds, keep_alive))
                finally:
                    stop(p)
        for k in binaries:
            print(f"  GET /stats/switches, {what}, {k}: " + " ".join(f"{r:.0f}" for r in rates[k]) +
                  f" req/s; median {statistics.median(rates[k]):.0f}")
        print(f"  request rate ratio a/b ({what}): "
              f"{statistics.median(rates['a']) / statistics.median(rates['b']):.3f}")
    print(f"  load after: {load()}")


if __name__ == "__main__":
    main()
