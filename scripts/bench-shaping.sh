#!/usr/bin/env bash
# bench-shaping.sh: does each shaping parameter hold? One `flowlab lab run` of a
# generated scenario: host pairs joined by a direct shaped link each (no switch,
# so only the link is measured), then
#   rate:  iperf3 TCP over links of bw 10M, 100M, 1G, 10G (and 1G + 5 ms delay,
#          through the delay line)       -> within 5 % of bw? bw is a wire rate
#          (HTB counts every frame's Ethernet, IP and TCP headers), so iperf3's
#          goodput is scaled by 1514/1448 (MTU 1500, TCP timestamps) to compare;
#          an unshaped pair (r0) shows what the machine can carry at all, a pair
#          shaped at 100G (w100g) what the wire namespace's path carries when the
#          shaper is not the limit; 10G and 1G + delay also with 4 streams. Each
#          rate row prints the mean busy % of every core during the test (the
#          lab's sampler): 100 % on both is a CPU bound, not the shaper's.
#   delay: ping x 100 over links of delay 1, 5, 20, 50 ms -> RTT within 10 % of 2 x delay?
#          (an unshaped pair, p0, gives the RTT of the path without any delay)
#   loss:  the probe (one UDP datagram per 100 us) over links of loss 1, 5, 20 %
#          -> measured loss within the binomial 99.9 % bounds (3.3 sd)?
# Not a test (no pass/fail exit code, timings depend on the machine): it prints a
# table and leaves results.json + report.html in the out dir.
#
#   sudo scripts/bench-shaping.sh [-b path/to/flowlab] [-t seconds] [-o OUTDIR] [-r ROW,ROW...]
# -r runs only the named rows (e.g. -r r10g,r10gx4,w100g), for a quick re-run.
set -euo pipefail

BIN="${FLOWLAB_BINARY:-}"
DUR=5
OUT=""
ROWS=""
while getopts "b:t:o:r:h" opt; do
  case $opt in
    b) BIN=$OPTARG ;;
    t) DUR=$OPTARG ;;
    o) OUT=$OPTARG ;;
    r) ROWS=$OPTARG ;;
    *) sed -n '2,22p' "$0"; exit 2 ;;
  esac
done
if [[ -z "$BIN" ]]; then
  for c in build/release/flowlab build/dev/flowlab; do
    [[ -x $c ]] && { BIN=$c; break; }
  done
fi
[[ -x "$BIN" ]] || { echo "bench-shaping: no flowlab binary (use -b PATH or FLOWLAB_BINARY)" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "bench-shaping: needs root" >&2; exit 2; }
for t in iperf3 ping ip tc python3; do
  command -v $t >/dev/null || { echo "bench-shaping: $t is not installed" >&2; exit 2; }
done
WORK=$(mktemp -d /tmp/bench-shaping.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
OUT=${OUT:-$WORK/out}
YAML=$WORK/bench-shaping.yaml

# name bw delay loss test [streams]
PAIRS=(
  "r0 - - - rate"
  "r0x4 - - - rate 4"
  "w100g 100G - - rate 4"
  "r10m 10M - - rate"
  "r100m 100M - - rate"
  "r1g 1G - - rate"
  "r10g 10G - - rate"
  "r10gx4 10G - - rate 4"
  "r1gd 1G 5ms - rate"
  "r1gdx4 1G 5ms - rate 4"
  "p0 - - - delay"
  "d1 - 1ms - delay"
  "d5 - 5ms - delay"
  "d20 - 20ms - delay"
  "d50 - 50ms - delay"
  "l1 - - 1% loss"
  "l5 - - 5% loss"
  "l20 - - 20% loss"
)
if [[ -n $ROWS ]]; then
  KEEP=()
  for p in "${PAIRS[@]}"; do
    [[ ",$ROWS," == *",${p%% *},"* ]] && KEEP+=("$p")
  done
  [[ ${#KEEP[@]} -gt 0 ]] || { echo "bench-shaping: -r $ROWS names no row (rows: $(printf '%s ' "${PAIRS[@]%% *}"))" >&2; exit 2; }
  PAIRS=("${KEEP[@]}")
fi
{
  echo "name: bench-shaping"
  echo "description: each shaping parameter on its own direct link"
  echo "hosts:"
  i=0
  for p in "${PAIRS[@]}"; do
    read -r n bw delay loss kind _ <<<"$p"
    i=$((i + 1))
    echo "  ${n}a: {addr: 10.$i.0.1/24}"
    echo "  ${n}b: {addr: 10.$i.0.2/24}"
  done
  echo "links:"
  for p in "${PAIRS[@]}"; do
    read -r n bw delay loss kind _ <<<"$p"
    echo "  - endpoints: [${n}a:eth0, ${n}b:eth0]"
    [[ $bw != - ]] && echo "    bw: $bw"
    [[ $delay != - ]] && echo "    delay: $delay"
    [[ $loss != - ]] && echo "    loss: $loss"
  done
  echo "tests:"
  for p in "${PAIRS[@]}"; do
    read -r n bw delay loss kind streams <<<"$p"
    case $kind in
      rate) echo "  - {name: $n, type: iperf3-tcp, from: ${n}a, to: ${n}b, duration: $DUR, streams: ${streams:-1}}" ;;
      delay) echo "  - {name: $n, type: ping, from: ${n}a, to: ${n}b, count: 100, interval: 0.02}" ;;
      loss) echo "  - {name: $n, type: probe, from: ${n}a, to: ${n}b, duration: 3, interval: 100us}" ;;
    esac
  done
} >"$YAML"

echo "bench-shaping: $BIN lab run (scenario $YAML)" >&2
"$BIN" lab run "$YAML" --out "$OUT" >"$WORK/run.log" 2>&1 || {
  echo "bench-shaping: the run failed; its log:" >&2
  tail -30 "$WORK/run.log" >&2
}
[[ -f $OUT/results.json ]] || exit 1
[[ $OUT == "$WORK/out" ]] && cp -r "$OUT" "/tmp/bench-shaping-results" && OUT=/tmp/bench-shaping-results

python3 - "$OUT/results.json" "${PAIRS[@]}" <<'PY'
import json, math, sys
doc = json.load(open(sys.argv[1]))
res = {r["test"]: r for r in doc["results"]}
links = {l["link"].split(":")[0][:-1]: l for c in doc["cases"] for l in c.get("links", [])}
units = {"k": 1e3, "M": 1e6, "G": 1e9}
print(f"{'link':7} {'parameter':22} {'target':>12} {'measured':>12} {'error':>8}  {'bound':<26} holds  mechanisms")
for p in sys.argv[2:]:
    n, bw, delay, loss, kind = p.split()[:5]
    streams = int(p.split()[5]) if len(p.split()) > 5 else 1
    r = res.get(n, {})
    m = r.get("metrics", {})
    mech = ",".join(links.get(n, {}).get("a_to_b", {}).get("mechanisms", []))
    if r.get("status") != "ok":
        print(f"{n:7} {kind:22} {'':>12} {r.get('status','missing'):>12}  {r.get('reason','')[:60]}")
        continue
    if kind == "rate":
        got = m["gbps"]
        wire = got * 1514 / 1448
        cores = r.get("samples", {}).get("cores", {})
        cpu = " cpu " + "/".join(f"{v.get('busy_mean_pct', 0):.0f}" for _, v in sorted(cores.items())) + "%" if cores else ""
        mech += f" [x{streams}, rtx {m.get('retransmits', 0):.0f}{cpu}]"
        if bw == "-":
            print(f"{n:7} {'unshaped (ceiling)':22} {'-':>12} {got:>10.4g} G {'':>8}  {'TCP goodput, no shaping':<26} {'-':5}  {mech}")
            continue
        target = float(bw[:-1]) * units[bw[-1]] / 1e9
        err = (wire - target) / target * 100
        label = f"bw {bw}" + (f" + delay {delay}" if delay != "-" else "")
        print(f"{n:7} {label:22} {target:>10.4g} G {wire:>10.4g} G {err:>+7.1f}%  {f'wire rate (goodput {got:.4g})':<26} {'yes' if abs(err) <= 5 else 'NO':5}  {mech}")
    elif kind == "delay":
        got, mn = m["rtt_avg_ms"], m["rtt_min_ms"]
        if delay == "-":
            print(f"{n:7} {'RTT, unshaped (floor)':22} {'-':>12} {got:>9.4g} ms {'':>8}  {f'avg (min {mn:.4g} ms)':<26} {'-':5}  {mech or 'bpf-redirect'}")
            continue
        target = 2 * float(delay[:-2])
        err = (got - target) / target * 100
        print(f"{n:7} {'RTT, delay ' + delay:22} {target:>9.4g} ms {got:>9.4g} ms {err:>+7.1f}%  {f'avg (min {mn:.4g} ms)':<26} {'yes' if abs(err) <= 10 else 'NO':5}  {mech}")
    else:
        p0 = float(loss[:-1]) / 100
        sent = m["sent"]
        got = m["loss_pct"] / 100
        sd = math.sqrt(p0 * (1 - p0) / sent)
        lo, hi = p0 - 3.3 * sd, p0 + 3.3 * sd
        bound = f"[{lo*100:.2f}, {hi*100:.2f}] % of {sent}"
        print(f"{n:7} {'loss ' + loss:22} {p0*100:>10.4g} % {got*100:>10.4g} % {(got-p0)/sd:>+6.1f}sd  {bound:<26} {'yes' if lo <= got <= hi else 'NO':5}  {mech}")
print(f"\nresults: {sys.argv[1]}")
PY
