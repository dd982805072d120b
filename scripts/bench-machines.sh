#!/usr/bin/env bash
# bench-machines.sh: a lab across machines against the same box's own figures,
# every row in this one invocation, each figure the median of -n runs (the
# lab's --repeat). Rows:
#   shaped:   scenarios/openstack-cross-host.yaml (flowlab case) on 2 emulated
#             machines with a 1 Gbit/s underlay: cross-host TCP / the payload a
#             1 Gbit/s, 1500-byte underlay carries through VXLAN (1398 bytes of
#             TCP in each 1514-byte frame: 923 Mbit/s). Target >= 0.95.
#   unshaped: scenarios/two-machines.yaml on 2 emulated machines: TCP across the
#             VXLAN tunnel / TCP over a plain veth pair between two namespaces on
#             a bridge, built here as the emulation builds its machines. Target >= 0.8.
#   agents:   the same run with --exec-on-agents (every test command through the
#             hosts' agents, as from another machine): TCP and ping / unshaped's.
#   scale:    --topo tree,2,F with pingall (-t TEST: another --test, e.g. pingpair
#             for tree,2,32, whose pingall is 1M pairs), on -m machines vs on this
#             one machine alone, interleaved -n times: bring-up and teardown / the
#             one machine's (medians). Target <= 2.
#   pingall:  --topo tree,2,P (-p P, default 32: 1,024 hosts, 1,047,552 ordered pairs)
#             on Linux bridges, no controller, --test pingall, on -m machines vs on
#             this one machine, interleaved -n times: up, down and the pingall's
#             wall time / the one machine's (medians), and the pairs reached.
#             Target: up and down <= 2, every pair reached.
#   up:       the pingall row's lab (tree,2,P on bridges, -m machines vs one) with
#             --test none: bring-up and teardown alone, interleaved -n times, and
#             each agent's phases (results.json's phases.up.machine_*). Not in the
#             default rows (the pingall row measures the same two figures).
# Each run starts after -s seconds (3): the kernel frees the previous run's
# namespaces after its `lab down` returned, and would charge the next run.
# Not a test (no pass/fail exit code; figures depend on the machine): it prints
# a table; results.json and report.html of each row stay in the out dir.
#
#   sudo scripts/bench-machines.sh [-b path/to/flowlab] [-n RUNS] [-f FANOUT] [-p FANOUT] [-m MACHINES] [-t TEST] [-o OUTDIR] [-r ROW,...] [-s SETTLE_S]
set -euo pipefail

BIN="${FLOWLAB_BINARY:-}"
RUNS=3
FANOUT=8
MACHINES=4
OUT=""
ROWS="shaped,unshaped,agents,scale,pingall"
SCALE_TEST=pingall
PFANOUT=32
SETTLE=3
while getopts "b:n:f:p:m:t:o:r:s:h" opt; do
  case $opt in
    b) BIN=$OPTARG ;;
    n) RUNS=$OPTARG ;;
    f) FANOUT=$OPTARG ;;
    p) PFANOUT=$OPTARG ;;
    m) MACHINES=$OPTARG ;;
    t) SCALE_TEST=$OPTARG ;;
    o) OUT=$OPTARG ;;
    r) ROWS=$OPTARG ;;
    s) SETTLE=$OPTARG ;;
    *) sed -n '2,32p' "$0"; exit 2 ;;
  esac
done
if [[ -z "$BIN" ]]; then
  for c in build/release/flowlab build/test/flowlab; do
    [[ -x $c ]] && { BIN=$c; break; }
  done
fi
[[ -x "$BIN" ]] || { echo "bench-machines: no flowlab binary (use -b PATH or FLOWLAB_BINARY)" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "bench-machines: needs root" >&2; exit 2; }
for t in iperf3 ip python3 /usr/bin/etcd; do
  command -v $t >/dev/null || { echo "bench-machines: $t is not installed" >&2; exit 2; }
done
SRC=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/bench-machines.XXXXXX)
OUT=${OUT:-$(mktemp -d /tmp/bench-machines-out.XXXXXX)}
mkdir -p "$OUT"
TAG="flbm$$"
cleanup() {
  for ns in "$TAG-ul" "$TAG-a" "$TAG-b"; do ip netns del "$ns" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
want() { [[ ",$ROWS," == *",$1,"* ]]; }
run_lab() {  # NAME ARGS...: one lab run into $OUT/NAME, its log beside it
  local name=$1; shift
  # The kernel frees a run's namespaces after its `lab down` returns (its netns
  # work queue, under the RTNL lock): without a pause, each run pays for the
  # previous one's 1,000+ namespaces and the interleaved rows charge each other.
  sleep "$SETTLE"
  echo "bench-machines: $name: flowlab lab run $*" >&2
  "$BIN" lab run "$@" --out "$OUT/$name" >"$OUT/$name.log" 2>&1 ||
    { echo "bench-machines: $name failed:" >&2; tail -5 "$OUT/$name.log" >&2; }
}

want shaped && run_lab shaped "$SRC/scenarios/openstack-cross-host.yaml" --only flowlab-offloads \
  --machines 2 --underlay-rate 1G --repeat "$RUNS"
if want unshaped || want agents; then
  run_lab unshaped "$SRC/scenarios/two-machines.yaml" --machines 2 --repeat "$RUNS"
  # The same two "machines" by hand: a namespace each, a veth each onto one bridge.
  ip netns add "$TAG-ul"; ip netns add "$TAG-a"; ip netns add "$TAG-b"
  ip -n "$TAG-ul" link add br0 type bridge; ip -n "$TAG-ul" link set br0 up
  for m in a b; do
    ip -n "$TAG-$m" link add ul0 type veth peer name "port$m" netns "$TAG-ul"
    ip -n "$TAG-ul" link set "port$m" master br0 up
    ip -n "$TAG-$m" addr add "203.0.113.$([[ $m == a ]] && echo 1 || echo 2)/24" dev ul0
    ip -n "$TAG-$m" link set ul0 up
  done
  : >"$OUT/plain.json"
  for i in $(seq "$RUNS"); do
    ip netns exec "$TAG-b" iperf3 -s -1 -p 5301 >/dev/null 2>&1 &
    sleep 0.5
    ip netns exec "$TAG-a" iperf3 -c 203.0.113.2 -p 5301 -t 3 -J | python3 -c \
      'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"])' >>"$OUT/plain.json"
    wait
  done
fi
want agents && run_lab agents "$SRC/scenarios/two-machines.yaml" --machines 2 --exec-on-agents --repeat "$RUNS"
if want scale; then
  for i in $(seq "$RUNS"); do
    uptime >"$OUT/scale-load-$i.txt"
    run_lab "scale-one-$i" --topo "tree,2,$FANOUT" --switch flowlab --controller flowlab:learning-switch \
      --test "$SCALE_TEST"
    run_lab "scale-machines-$i" --topo "tree,2,$FANOUT" --switch flowlab --controller flowlab:learning-switch \
      --test "$SCALE_TEST" --machines "$MACHINES"
  done
fi
if want up; then
  for i in $(seq "$RUNS"); do
    uptime >"$OUT/up-load-$i.txt"
    run_lab "up-one-$i" --topo "tree,2,$PFANOUT" --switch linux-bridge --controller none --test none
    run_lab "up-machines-$i" --topo "tree,2,$PFANOUT" --switch linux-bridge --controller none \
      --test none --machines "$MACHINES"
  done
fi
if want pingall; then
  for i in $(seq "$RUNS"); do
    uptime >"$OUT/pingall-load-$i.txt"
    run_lab "pingall-one-$i" --topo "tree,2,$PFANOUT" --switch linux-bridge --controller none --test pingall
    run_lab "pingall-machines-$i" --topo "tree,2,$PFANOUT" --switch linux-bridge --controller none \
      --test pingall --machines "$MACHINES"
  done
fi

python3 - "$OUT" "$MACHINES" "$FANOUT" "$RUNS" "$SCALE_TEST" "$PFANOUT" <<'PY'
import json, os, statistics, sys
out, machines, fanout, runs, scale_test = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
pfanout = sys.argv[6]

def doc(name):
    try:
        with open(os.path.join(out, name, "results.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None

def metric(d, test, key):
    if not d:
        return None
    for r in d["results"]:
        if r["test"] == test and r.get("status") == "ok":
            return r["metrics"].get(key)
    return None

def phases(d):
    if not d:
        return None, None
    p = d["cases"][0].get("phases", {})
    return sum(p.get("up", {}).get(k, 0) for k in p.get("up", {}) if not k.startswith("machine_")), \
        sum(p.get("down", {}).values())

rows = []
s = doc("shaped")
if s:
    g = metric(s, "cross-host", "gbps")
    bound = 1e9 * (1500 - 50 - 52) / (1500 + 14) / 1e9
    rows.append(("shaped", "cross-host TCP over a 1G underlay", g, bound, ">= 0.95"))
u = doc("unshaped")
plain = []
if os.path.exists(os.path.join(out, "plain.json")):
    plain = [float(x) / 1e9 for x in open(os.path.join(out, "plain.json")) if x.strip()]
if u:
    rows.append(("unshaped", "TCP across VXLAN vs a plain veth (Gbit/s)", metric(u, "tcp-across", "gbps"),
                 statistics.median(plain) if plain else None, ">= 0.8"))
a = doc("agents")
if a and u:
    rows.append(("agents", "TCP, commands through the agents (Gbit/s)", metric(a, "tcp-across", "gbps"),
                 metric(u, "tcp-across", "gbps"), "~1"))
    rows.append(("agents", "ping rtt through the agents (ms)", metric(a, "ping", "rtt_avg_ms"),
                 metric(u, "ping", "rtt_avg_ms"), "~1"))
    ta, tu = a["cases"][0].get("tests_elapsed_s"), u["cases"][0].get("tests_elapsed_s")
    rows.append(("agents", "the tests' wall time (s)", ta, tu, "-"))
def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None

ones = [d for d in (doc(f"scale-one-{i}") for i in range(1, runs + 1)) if d]
manys = [d for d in (doc(f"scale-machines-{i}") for i in range(1, runs + 1)) if d]
if ones and manys:
    (u1, d1), (um, dm) = zip(*map(phases, ones)), zip(*map(phases, manys))
    rows.append(("scale", f"tree,2,{fanout} up on {machines} machines vs one (s, n={len(manys)}/{len(ones)})",
                 med(um), med(u1), "<= 2"))
    rows.append(("scale", f"tree,2,{fanout} down on {machines} machines vs one (s)", med(dm), med(d1), "<= 2"))
    if scale_test == "pingall":
        p1 = med([metric(d, "pingall", "pairs_reached") for d in ones])
        pm = med([metric(d, "pingall", "pairs_reached") for d in manys])
        rows.append(("scale", "pingall pairs reached", pm, p1, "= 1"))
    else:
        ok1 = sum(all(r.get("status") == "ok" for r in d["results"]) for d in ones)
        okm = sum(all(r.get("status") == "ok" for r in d["results"]) for d in manys)
        rows.append(("scale", f"runs whose {scale_test} passed", okm, ok1, "all"))
    for d, name in [(x, "one") for x in ones] + [(x, machines) for x in manys]:
        p = d["cases"][0].get("phases", {})
        print(f"scale {name}: up {json.dumps(p.get('up', {}))} down {json.dumps(p.get('down', {}))}",
              file=sys.stderr)
ones = [d for d in (doc(f"pingall-one-{i}") for i in range(1, runs + 1)) if d]
manys = [d for d in (doc(f"pingall-machines-{i}") for i in range(1, runs + 1)) if d]
if ones and manys:
    (u1, d1), (um, dm) = zip(*map(phases, ones)), zip(*map(phases, manys))
    n = f"n={len(manys)}/{len(ones)}"
    rows.append(("pingall", f"tree,2,{pfanout} bridges up on {machines} machines vs one (s, {n})",
                 med(um), med(u1), "<= 2"))
    rows.append(("pingall", f"tree,2,{pfanout} bridges down (s)", med(dm), med(d1), "<= 2"))
    def elapsed(d):
        for r in d["results"]:
            if r["test"] == "pingall":
                return r.get("elapsed_s")
    rows.append(("pingall", "pingall wall time (s)", med([elapsed(d) for d in manys]),
                 med([elapsed(d) for d in ones]), "-"))
    pairs = med([metric(d, "pingall", "pairs") for d in ones])
    rows.append(("pingall", f"pairs reached on {machines} machines / pairs",
                 med([metric(d, "pingall", "pairs_reached") for d in manys]), pairs, "= 1"))
    rows.append(("pingall", "pairs reached on one machine / pairs",
                 med([metric(d, "pingall", "pairs_reached") for d in ones]), pairs, "= 1"))
ones = [d for d in (doc(f"up-one-{i}") for i in range(1, runs + 1)) if d]
manys = [d for d in (doc(f"up-machines-{i}") for i in range(1, runs + 1)) if d]
if ones and manys:
    (u1, d1), (um, dm) = zip(*map(phases, ones)), zip(*map(phases, manys))
    n = f"n={len(manys)}/{len(ones)}"
    rows.append(("up", f"tree,2,{pfanout} bridges up on {machines} machines vs one (s, {n})",
                 med(um), med(u1), "<= 2"))
    rows.append(("up", f"tree,2,{pfanout} bridges down (s)", med(dm), med(d1), "<= 2"))
    for i, (o, m) in enumerate(zip(ones, manys), 1):
        for d, name in ((o, "one"), (m, machines)):
            p = d["cases"][0].get("phases", {})
            print(f"up {i} {name}: up {json.dumps(p.get('up', {}))} down {json.dumps(p.get('down', {}))}",
                  file=sys.stderr)
print(f"{'row':9} {'figure':50} {'measured':>10} {'reference':>10} {'ratio':>7}  target")
for row, what, m, ref, target in rows:
    ratio = f"{m / ref:.3f}" if m is not None and ref else "-"
    fm = f"{m:.4g}" if isinstance(m, (int, float)) else "-"
    fr = f"{ref:.4g}" if isinstance(ref, (int, float)) else "-"
    print(f"{row:9} {what:50} {fm:>10} {fr:>10} {ratio:>7}  {target}")
PY
echo "bench-machines: runs in $OUT" >&2
