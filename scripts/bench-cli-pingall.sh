#!/usr/bin/env bash
# Benchmark (not a test): Mininet's CLI `pingall` on a lab of N hosts (issue #25: under
# 2 s at 100 hosts), for each switch kind given.
#
#   sudo scripts/bench-cli-pingall.sh [--flowlab BIN] [--hosts N] [--switches "lxbr flowlab"] [--repeat R]
#
# Per switch kind, R times: `flowlab lab up --topo single,N --switch K` (flowlab's
# switches with the default controller, the learning switch), then through
# `flowlab lab cli ID` on a pipe `time pingall` twice: the first on the fresh lab
# ("cold": the learning switch has no flow yet, every pair's first echo goes to the
# controller), the second right after ("warm": the flows learned by the first are
# still installed), then `lab down`. Prints each run's elapsed times and results,
# then the medians. The load (`uptime`) is printed before and after: record it.
set -euo pipefail
export LC_ALL=C

FLOWLAB=${FLOWLAB:-build/release/flowlab}
HOSTS=100
SWITCHES="lxbr flowlab"
REPEAT=3
while [ $# -gt 0 ]; do
  case "$1" in
    --flowlab) FLOWLAB=$2; shift 2 ;;
    --hosts) HOSTS=$2; shift 2 ;;
    --switches) SWITCHES=$2; shift 2 ;;
    --repeat) REPEAT=$2; shift 2 ;;
    *) echo "bench-cli-pingall: unknown option $1" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "bench-cli-pingall: needs root (namespaces)" >&2; exit 2; }
[ -x "$FLOWLAB" ] || { echo "bench-cli-pingall: no flowlab binary at $FLOWLAB (build/release, target flowlab)" >&2; exit 2; }

WORK=$(mktemp -d /tmp/bench-cli-pingall.XXXXXX)
LAB=
cleanup() {
  [ -n "$LAB" ] && "$FLOWLAB" lab down "$LAB" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

median() { sort -g | awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]; else print "-"}'; }

echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(date -u '+%F %T') UTC"
echo "load before: $(uptime)"
for sw in $SWITCHES; do
  : >"$WORK/cold-$sw"
  : >"$WORK/warm-$sw"
  for r in $(seq 1 "$REPEAT"); do
    LAB=$("$FLOWLAB" lab up --topo "single,$HOSTS" --switch "$sw" --out "$WORK/out" 2>"$WORK/up.err" |
          awk '/ is up /{print $2}')
    [ -n "$LAB" ] || { echo "lab up failed:"; cat "$WORK/up.err"; exit 1; }
    printf 'time pingall\ntime pingall\n' | "$FLOWLAB" lab cli "$LAB" >"$WORK/cli.out" 2>&1
    "$FLOWLAB" lab down "$LAB" >/dev/null
    LAB=
    mapfile -t secs < <(awk '/Elapsed time/{print $4}' "$WORK/cli.out")
    mapfile -t res < <(grep '^\*\*\* Results' "$WORK/cli.out")
    [ ${#secs[@]} = 2 ] || { echo "no answer from the CLI:"; cat "$WORK/cli.out"; exit 1; }
    echo "${secs[0]}" >>"$WORK/cold-$sw"
    echo "${secs[1]}" >>"$WORK/warm-$sw"
    printf 'single,%s %-8s run %s: cold %6.3f s (%s)  warm %6.3f s (%s)\n' "$HOSTS" "$sw" "$r" \
      "${secs[0]}" "${res[0]#\*\*\* Results: }" "${secs[1]}" "${res[1]#\*\*\* Results: }"
  done
done
echo "load after: $(uptime)"
echo
echo "| switch | hosts | first pingall (cold), median s | second (warm), median s |"
echo "|---|---|---|---|"
for sw in $SWITCHES; do
  echo "| $sw | $HOSTS | $(median <"$WORK/cold-$sw") | $(median <"$WORK/warm-$sw") |"
done
