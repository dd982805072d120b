#!/usr/bin/env bash
# Benchmark (not a test): flowlab cbench against flowlab controller
# (learning-switch) and os-ken's learning switch, same settings, one invocation.
# Prints each result and the ratio flowlab / os-ken, for OpenFlow 1.3 and 1.0.
#
#   scripts/bench-cbench.sh [FLOWLAB_BINARY] [extra cbench args...]
# Environment: MODE=throughput|latency (default throughput), SWITCHES (16),
# LOOPS (5), MS (1000), MACS (100000), THREADS (controller threads, 1).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/release/flowlab}
shift || true
shared=${FLOWLAB_SHARED_DIR:-$root/../shared}
mode=${MODE:-throughput}
switches=${SWITCHES:-16}
loops=${LOOPS:-5}
ms=${MS:-1000}
macs=${MACS:-100000}
threads=${THREADS:-1}
work=$(mktemp -d /tmp/flowlab-bench-cbench.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {
  for _ in $(seq 1 900); do
    (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "bench-cbench: nothing listens on $1" >&2
  return 1
}
cbench() {  # port protocol -> prints avg responses/s, keeps the full output
  local out="$work/cbench-$1-$2.json"
  "$bin" cbench --controller "tcp:127.0.0.1:$1" --switches "$switches" --macs "$macs" --loops "$loops" \
    --ms "$ms" --protocol "$2" --json $([ "$mode" = throughput ] && echo --throughput) > "$out"
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); s=j["summary"]; l=j.get("latency_us",{});
print("%.0f %.1f %.1f" % (s["avg"], l.get("median",0), l.get("p99",0)))' "$out"
}

printf "cbench %s mode, %s switches, %s MACs, %s loops of %s ms, flowlab controller threads %s\n" \
  "$mode" "$switches" "$macs" "$loops" "$ms" "$threads"
printf "%-10s %-28s %14s %12s %10s\n" protocol controller responses/s median_us p99_us
for proto in OpenFlow13 OpenFlow10; do
  app=learning_switch_13.py
  [ "$proto" = OpenFlow10 ] && app=learning_switch_10.py
  p1=$(free_port)
  "$bin" controller --listen "ptcp:$p1" --app learning-switch --threads "$threads" --log-level warn \
    > "$work/flowlab-$proto.log" 2>&1 & pids+=($!)
  wait_port "$p1"
  read -r f_avg f_med f_p99 < <(cbench "$p1" "$proto")
  kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null || true
  printf "%-10s %-28s %14s %12s %10s\n" "$proto" "flowlab learning-switch" "$f_avg" "$f_med" "$f_p99"

  p2=$(free_port)
  /usr/bin/python3 /usr/bin/osken-manager --ofp-listen-host 127.0.0.1 --ofp-tcp-listen-port "$p2" \
    "$shared/peers/$app" > "$work/osken-$proto.log" 2>&1 & pids+=($!)
  wait_port "$p2"
  read -r o_avg o_med o_p99 < <(cbench "$p2" "$proto")
  kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null || true
  printf "%-10s %-28s %14s %12s %10s\n" "$proto" "os-ken $app" "$o_avg" "$o_med" "$o_p99"
  python3 -c 'import sys; f,o=float(sys.argv[1]),float(sys.argv[2]); print("%-10s ratio flowlab/os-ken = %.1fx" % (sys.argv[3], f/o if o else float("inf")))' \
    "$f_avg" "$o_avg" "$proto"
done
