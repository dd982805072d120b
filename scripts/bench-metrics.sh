#!/usr/bin/env bash
# bench-metrics.sh: what a Prometheus scraping every second costs a flowlab switch.
# Two hosts through one flowlab switch (learning-switch controller, offloads on),
# one iperf3 TCP stream h1 -> h2 for T seconds, run N times each way, interleaved
# (plain, scraped, plain, scraped, ...): `flowlab lab run` without and with
# `--metrics` (the lab's Prometheus scrapes the switch's and the controller's
# /metrics every 1 s, docs/LAB.md Metrics). Prints each run's Gbit/s, the two
# medians and their ratio (scraped / plain), with the commit, the time and the
# load average before and after (the machine may be shared: say so with the
# figures). Not a test: no pass/fail exit code.
#
#   sudo scripts/bench-metrics.sh [-b path/to/flowlab] [-t seconds] [-n runs] [-d tc|af-packet] [-o OUTDIR]
set -euo pipefail

BIN="${FLOWLAB_BINARY:-}"
DUR=5
RUNS=3
DATAPATH=""
OUT=""
while getopts "b:t:n:d:o:h" opt; do
  case $opt in
    b) BIN=$OPTARG ;;
    t) DUR=$OPTARG ;;
    n) RUNS=$OPTARG ;;
    d) DATAPATH=$OPTARG ;;
    o) OUT=$OPTARG ;;
    *) sed -n '2,13p' "$0"; exit 2 ;;
  esac
done
if [[ -z "$BIN" ]]; then
  for c in build/release/flowlab build/dev/flowlab build/test/flowlab; do
    [[ -x $c ]] && { BIN=$c; break; }
  done
fi
[[ -x "$BIN" ]] || { echo "bench-metrics: no flowlab binary (use -b PATH or FLOWLAB_BINARY)" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "bench-metrics: needs root" >&2; exit 2; }
for t in iperf3 jq prometheus; do
  command -v $t >/dev/null || { echo "bench-metrics: $t is not installed" >&2; exit 2; }
done
case "$DATAPATH" in
  "" ) ARGS="" ;;
  tc|af-packet) ARGS=", args: [--datapath, $DATAPATH]" ;;
  *) echo "bench-metrics: -d tc|af-packet" >&2; exit 2 ;;
esac
WORK=$(mktemp -d /tmp/bench-metrics.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
OUT=${OUT:-$WORK/out}
mkdir -p "$OUT"
YAML=$WORK/bench-metrics.yaml
cat > "$YAML" <<YML
name: bench-metrics
hosts:
  h1: {addr: 10.0.0.1/24}
  h2: {addr: 10.0.0.2/24}
switches:
  s1: {kind: flowlab, controller: c1$ARGS}
controllers:
  c1: {kind: flowlab, apps: [learning-switch]}
links:
  - endpoints: [h1:eth0, s1:p1]
  - endpoints: [h2:eth0, s1:p2]
tests:
  - {name: tcp, type: iperf3-tcp, from: h1, to: h2, duration: $DUR}
YML

median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

COMMIT=$(git -C "$(dirname "$0")/.." rev-parse --short HEAD 2>/dev/null || echo "?")
echo "bench-metrics: $BIN, commit $COMMIT, $(date -u '+%d %b %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  one iperf3 TCP stream, ${DUR} s, h1 -> s1 -> h2; ${RUNS} runs each way, interleaved; datapath ${DATAPATH:-default}"
PLAIN=() SCRAPED=()
for i in $(seq 1 "$RUNS"); do
  for mode in plain scraped; do
    dir=$OUT/$mode-$i
    flag=()
    [[ $mode == scraped ]] && flag=(--metrics)
    if ! "$BIN" lab run "$YAML" --out "$dir" "${flag[@]}" >"$dir.log" 2>&1; then
      echo "bench-metrics: run $mode-$i failed (see $dir.log)" >&2
      tail -5 "$dir.log" >&2
      exit 1
    fi
    g=$(jq -r '[.results[] | select(.test == "tcp") | .metrics.gbps][0] // "nan"' "$dir/results.json")
    printf '  %-8s run %d: %6.2f Gbit/s\n' "$mode" "$i" "$g"
    if [[ $mode == plain ]]; then PLAIN+=("$g"); else SCRAPED+=("$g"); fi
  done
done
MP=$(printf '%s\n' "${PLAIN[@]}" | median)
MS=$(printf '%s\n' "${SCRAPED[@]}" | median)
echo "  plain:   $(printf '%.2f ' "${PLAIN[@]}")-> median $(printf '%.2f' "$MP") Gbit/s"
echo "  scraped: $(printf '%.2f ' "${SCRAPED[@]}")-> median $(printf '%.2f' "$MS") Gbit/s"
awk -v p="$MP" -v s="$MS" 'BEGIN { if (p > 0) printf "  ratio scraped/plain: %.3f (%+.1f %%)\n", s / p, (s / p - 1) * 100 }'
echo "  load after: $(cut -d' ' -f1-3 /proc/loadavg); results in $OUT"
