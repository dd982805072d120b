#!/usr/bin/env bash
# bench-capture.sh: what capturing every link costs a TCP stream.
# A two-switch lab of Linux bridges (h1 - s1 - s2 - h2, no controller, offloads on:
# the lab process's only work in the data path is the capture), one iperf3 TCP
# stream h1 -> h2 for T seconds, run without capture and with `--capture MODE`,
# N times each way, interleaved (off, on, off, on, ...), at each offered rate:
# `max` (unpaced, as fast as it goes) and e.g. `10G` (iperf3 -b 10G). Prints each
# run's Gbit/s and, with capture, the frames written and dropped at the ring
# (results.json's kernel_drops, summed over the links) and the capture threads'
# CPU time (cpu_seconds: their writes, not the kernel's copy into the rings,
# which runs in the senders' softirqs), then per rate the two
# medians and their ratio (on / off), with the commit, the time and the load
# average before and after (the machine may be shared: say so with the figures).
# The run folders (captures included) go to a temporary directory, removed at the
# end unless -o is given. Not a test: no pass/fail exit code.
#
#   sudo scripts/bench-capture.sh [-b path/to/flowlab] [-n runs] [-r max,10G] [-c all|LINKS] [-m MB] [-o OUTDIR]
set -euo pipefail

BIN="${FLOWLAB_BINARY:-}"
RUNS=3
RATES="max,10G"
CAPTURE=all
MAX_MB=""
OUT=""
while getopts "b:n:r:c:m:o:h" opt; do
  case $opt in
    b) BIN=$OPTARG ;;
    n) RUNS=$OPTARG ;;
    r) RATES=$OPTARG ;;
    c) CAPTURE=$OPTARG ;;
    m) MAX_MB=$OPTARG ;;
    o) OUT=$OPTARG ;;
    *) sed -n '2,15p' "$0"; exit 2 ;;
  esac
done
source "$(dirname "$0")/bench-lib.sh"
BIN=$(bench_binary bench-capture "$BIN")
bench_require bench-capture iperf3 jq
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "bench-capture: -n takes a positive count" >&2; exit 2; }
WORK=$(mktemp -d /tmp/bench-capture.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
OUT=${OUT:-$WORK/out}
mkdir -p "$OUT"
EXTRA=()
[[ -n $MAX_MB ]] && EXTRA=(--capture-max "$MAX_MB")

COMMIT=$(git -C "$(dirname "$0")/.." rev-parse --short HEAD 2>/dev/null || echo "?")
echo "bench-capture: $BIN, commit $COMMIT, $(date -u '+%d %b %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  --topo linear,2 --switch linux-bridge --controller none: one iperf3 TCP stream h1 -> h2, 5 s;"
echo "  capture off vs --capture $CAPTURE ${EXTRA[*]}; $RUNS runs each way, interleaved; rates: $RATES"
SUMMARY=()
IFS=, read -r -a RATE_LIST <<<"$RATES"
for rate in "${RATE_LIST[@]}"; do
  test_arg=iperf
  [[ $rate != max ]] && test_arg="iperf,$rate"
  OFF=() ON=()
  for i in $(seq 1 "$RUNS"); do
    for mode in off on; do
      dir=$OUT/$rate-$mode-$i
      flag=()
      [[ $mode == on ]] && flag=(--capture "$CAPTURE" "${EXTRA[@]}")
      if ! "$BIN" lab run --topo linear,2 --switch linux-bridge --controller none --test "$test_arg" \
          --out "$dir" "${flag[@]}" >"$dir.log" 2>&1; then
        echo "bench-capture: run $rate-$mode-$i failed (see $dir.log)" >&2
        tail -5 "$dir.log" >&2
        exit 1
      fi
      res=$dir/results.json
      g=$(jq -r '[.results[] | select(.test == "iperf3-tcp") | .metrics.gbps][0] // "nan"' "$res")
      extra=""
      if [[ $mode == on ]]; then
        extra=$(jq -r '[.cases[0].capture[]?]
          | (map(.bytes) | add // 0) as $b | (map(.cpu_seconds // 0) | add) as $c
          | "written \(map(.packets) | add // 0) frames, \($b / 1e7 | round / 100) GB; ring drops \(map(.kernel_drops) | add // 0)"
            + (if $c > 0 then "; capture threads \($c * 100 | round / 100) CPU s, \($c / ($b / 1e9) * 100 | round / 100) s/GB" else "" end)' "$res")
      fi
      printf '  %-4s %-3s run %d: %6.2f Gbit/s  %s\n' "$rate" "$mode" "$i" "$g" "$extra"
      g=$(printf '%.2f' "$g")
      if [[ $mode == off ]]; then OFF+=("$g"); else ON+=("$g"); fi
      # The captures can be GBs: keep the record, not the files, unless -o asked for them.
      [[ $OUT == "$WORK/out" ]] && rm -rf "$dir"/*/capture
    done
  done
  mo=$(median "${OFF[@]}")
  mc=$(median "${ON[@]}")
  echo "  $rate off: ${OFF[*]} -> median $mo Gbit/s"
  echo "  $rate on:  ${ON[*]} -> median $mc Gbit/s"
  SUMMARY+=("$(awk -v r="$rate" -v o="$mo" -v c="$mc" \
    'BEGIN { if (o > 0) printf "  %-4s on/off: %.3f (%+.1f %%)", r, c / o, (c / o - 1) * 100; else printf "  %-4s on/off: -", r }')")
done
printf '%s\n' "${SUMMARY[@]}"
where=""
[[ $OUT != "$WORK/out" ]] && where="; run folders in $OUT"
echo "  load after: $(cut -d' ' -f1-3 /proc/loadavg)$where"
