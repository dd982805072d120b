#!/usr/bin/env bash
# bench-flows.sh: big flow tables, flowlab switch vs Open vSwitch userspace
# (datapath_type=netdev, userspace TSO) in the same run. Not a test: needs root,
# iperf3, ovs-vswitchd/ovsdb-server/ovs-vsctl/ovs-ofctl, python3.
#
#   sudo scripts/bench-flows.sh [-b path/to/flowlab] [-n "1000 10000 100000 1000000"] [-t seconds]
#                               [-m "ofctl bundle controller"] [-f "0:100 ..."] [-o out.json]
#
# 1. Adding flows: the same file of `priority=20,ip,nw_dst=A.B.C.D,actions=output:2`
#    lines (N distinct hosts) is added to each switch by each method (-m):
#    ofctl: `flowlab ofctl add-flows` to flowlab, `ovs-ofctl add-flows` to OVS;
#    bundle: the same with `--bundle` (one ONF bundle, OF1.3);
#    controller: `flowlab controller --app static-flows --flows FILE` (bundles of
#    4096 flow-mods, two in flight) to the switch that connects to it, timed by
#    the app from the handshake to the last commit reply.
#    Reported: seconds to add (ofctl/bundle: until the barrier or commit reply),
#    the switch's RSS growth per flow (ofctl/bundle), seconds to dump them (and
#    the count dumped, which must be N); the table is emptied in between.
# 2. Forwarding: TCP (iperf3, h1 -> h2) through each switch with the two port
#    flows `in_port=1->2`, `in_port=2->1` at priority 10 and B background flows
#    at priority 20 spread over M masks (nw_dst prefixes /32../23 times nw_src
#    prefixes; `udp`, so TCP never matches them, but every lookup that misses
#    the flow cache searches their subtables first): B = 0, 1k, 100k, 1M at
#    M = 100, and B = 100k at M = 1 and 10 (-f "B:M ..." to choose). Then the
#    latency: 200 pings h1 -> h2 5 ms apart, median and p99 round trip (us).
#
# Layout as bench-switch.sh: namespaces h1 (10.0.0.1), h2 (10.0.0.2) and a
# switch namespace holding p1, p2; everything is removed on exit or Ctrl-C.
set -euo pipefail
source "$(dirname "$0")/bench-lib.sh"

BIN=""
SIZES="1000 10000 100000 1000000"
DUR=5
OUT=""
METHODS="ofctl bundle controller"
FWD_CASES="0:100 1000:100 100000:100 1000000:100 100000:1 100000:10"
while getopts "b:n:t:o:m:f:h" opt; do
  case $opt in
    b) BIN=$OPTARG ;;
    n) SIZES=$OPTARG ;;
    t) DUR=$OPTARG ;;
    o) OUT=$OPTARG ;;
    m) METHODS=$OPTARG ;;
    f) FWD_CASES=$OPTARG ;;
    *) sed -n '2,31p' "$0"; exit 2 ;;
  esac
done
BIN=$(bench_binary bench-flows "$BIN")
bench_require bench-flows iperf3 ip ovs-vsctl ovs-vswitchd ovsdb-server ovsdb-tool ovs-ofctl python3

TAG="bf$$"
H1="${TAG}h1"; H2="${TAG}h2"; SW="${TAG}sw"
RUN=$(mktemp -d /tmp/flowlab-bench-flows.XXXXXX)
FLOWLAB_PID=""
CTL_PID=""
FL="tcp:127.0.0.1:6634"
CTL_PORT=6635

cleanup() {
  set +e
  [[ -n "$CTL_PID" ]] && kill "$CTL_PID" 2>/dev/null && wait "$CTL_PID" 2>/dev/null
  [[ -n "$FLOWLAB_PID" ]] && kill "$FLOWLAB_PID" 2>/dev/null && wait "$FLOWLAB_PID" 2>/dev/null
  ovs_stop
  for ns in $H1 $H2 $SW; do ip netns pids $ns 2>/dev/null | xargs -r kill 2>/dev/null; ip netns del $ns 2>/dev/null; done
  rm -rf "$RUN"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now() { date +%s.%N; }
secs() { python3 -c "import sys; print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$1" "$2"; }
rss_kb() { awk '/^VmRSS/ {print $2}' /proc/"$1"/status; }

setup_topology() { bench_two_hosts $H1 $H2 10.0.0.1/24 10.0.0.2/24; }

# ---- flow files -----------------------------------------------------------
hosts_file() {  # N -> file of N host flows
  local f=$RUN/hosts-$1.txt
  [[ -f $f ]] || python3 - "$1" > "$f" <<'EOF'
import sys
n = int(sys.argv[1])
out = []
for i in range(n):
    a = 0x0b000000 + i  # 11.0.0.0 onwards
    out.append("priority=20,ip,nw_dst=%d.%d.%d.%d,actions=output:2" % (a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255))
print("\n".join(out))
EOF
  echo "$f"
}
masks_file() {  # B M -> file of B udp flows over M masks (+ the two port flows)
  local f=$RUN/masks-$1-$2.txt
  [[ -f $f ]] || python3 - "$1" "$2" > "$f" <<'EOF'
import sys
b, m = int(sys.argv[1]), int(sys.argv[2])
src_lens = [0, 8, 12, 16, 20, 24, 26, 28, 30, 32]
out = ["priority=10,in_port=1,actions=output:2", "priority=10,in_port=2,actions=output:1"]
def ip(a): return "%d.%d.%d.%d" % (a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255)
for i in range(b):
    k, j = i % m, i // m
    dl, sl = 32 - k % 10, src_lens[k // 10]
    dst = (j << (32 - dl)) & 0xffffffff
    f = "priority=20,udp,nw_dst=%s/%d" % (ip(dst), dl)
    if sl:
        f += ",nw_src=%s/%d" % (ip(0x0c000000 & ((0xffffffff << (32 - sl)) & 0xffffffff)), sl)
    out.append(f + ",actions=output:2")
print("\n".join(out))
EOF
  echo "$f"
}

# ---- backends -------------------------------------------------------------
SWITCH_PID=""
start_flowlab() {  # [extra switch arguments]
  # Not through in_ns (a shell function): $! must be the switch itself, for its RSS.
  ip netns exec $SW "$BIN" switch --name bench --port p1 --port p2 --listen ptcp:6634:127.0.0.1 --log-level warn "$@" &
  FLOWLAB_PID=$!
  SWITCH_PID=$FLOWLAB_PID
  for _ in $(seq 50); do in_ns $SW "$BIN" ofctl show $FL >/dev/null 2>&1 && break; sleep 0.1; done
}
stop_flowlab() {
  [[ -n "$FLOWLAB_PID" ]] || return 0
  kill "$FLOWLAB_PID"; wait "$FLOWLAB_PID" || true
  FLOWLAB_PID=""
}
# -t: seconds per step (a 1M-flow dump is built whole before its first reply).
fl_add() { in_ns $SW "$BIN" ofctl -t 60 add-flows $FL "$1"; }
fl_bundle() { in_ns $SW "$BIN" ofctl -t 600 --bundle add-flows $FL "$1"; }
fl_dump() { in_ns $SW "$BIN" ofctl -t 120 --no-stats dump-flows $FL; }
fl_del() { in_ns $SW "$BIN" ofctl -t 120 del-flows $FL || true; }

start_ovs() { ovs_start true; SWITCH_PID=$OVS_PID; }
stop_ovs() { ovs_stop; }
ovs_add() { ovs-ofctl -O OpenFlow13 add-flows br0 "$1"; }
ovs_bundle() { ovs-ofctl -O OpenFlow13 --bundle add-flows br0 "$1"; }
ovs_dump() { ovs-ofctl -O OpenFlow13 --no-stats dump-flows br0; }
ovs_del() { ovs-ofctl del-flows br0 || true; }

# ---- measurements ---------------------------------------------------------
declare -A R
measure_adds() {  # backend method add dump del
  local b=$1 m=$2 add=$3 dump=$4 del=$5 n f t0 t1 r0 r1 cnt
  for n in $SIZES; do
    f=$(hosts_file "$n")
    $del; sleep 1
    r0=$(rss_kb "$SWITCH_PID")
    t0=$(now)
    if $add "$f" > $RUN/add.err 2>&1; then R[$b,$m,add,$n]=$(secs "$t0" "$(now)"); else R[$b,$m,add,$n]=fail; tail -3 $RUN/add.err >&2; fi
    r1=$(rss_kb "$SWITCH_PID")
    # RSS growth says something only on the first method: later ones reuse the heap the last del-flows freed.
    [[ $m == "${METHODS%% *}" ]] && R[$b,$m,bytes,$n]=$(( (r1 - r0) * 1024 / n ))
    measure_dump $b $m $n $dump
  done
  $del
}
measure_dump() {  # backend method n dump
  local t0 t1 cnt
  t0=$(now)
  cnt=$($4 2>/dev/null | grep -c "nw_dst=" || true)
  t1=$(now)
  R[$1,$2,dump,$3]=$(secs "$t0" "$t1"); R[$1,$2,count,$3]=$cnt
  echo "bench-flows: $1 $2 $3 flows: add ${R[$1,$2,add,$3]} s, ${R[$1,$2,bytes,$3]:--} B/flow, dump ${R[$1,$2,dump,$3]} s ($cnt dumped)" >&2
}

# controller: flowlab controller --app static-flows, the switch connected to
# it by `connect` (run after the controller listens); the add time is the
# app's own (handshake to the last commit reply).
start_static_flows() {  # file
  # Not through in_ns: $! must be the controller itself, to stop it.
  ip netns exec $SW "$BIN" controller --listen ptcp:$CTL_PORT:127.0.0.1 --app static-flows --flows "$1" \
      --log-level info > $RUN/ctl.log 2>&1 &
  CTL_PID=$!
  for _ in $(seq 600); do  # the file is read and checked before it listens
    in_ns $SW bash -c "exec 3<>/dev/tcp/127.0.0.1/$CTL_PORT" 2>/dev/null && break; sleep 0.1; done
}
stop_static_flows() {
  [[ -n "$CTL_PID" ]] || return 0
  kill "$CTL_PID" 2>/dev/null || true; wait "$CTL_PID" 2>/dev/null || true; CTL_PID=""
}
measure_controller_adds() {  # backend connect disconnect dump del
  local b=$1 connect=$2 disconnect=$3 dump=$4 del=$5 n f line
  for n in $SIZES; do
    f=$(hosts_file "$n")
    $del; sleep 1
    start_static_flows "$f"
    $connect
    line=""
    for _ in $(seq 12000); do  # 20 minutes at most
      line=$(grep -a -m1 "static-flows: .* \(installed\|sent\) in" $RUN/ctl.log || true)
      [[ -n $line ]] && break
      kill -0 "$CTL_PID" 2>/dev/null || break
      sleep 0.1
    done
    if [[ $line =~ installed\ in\ .*\ in\ ([0-9.]+)\ s ]]; then R[$b,controller,add,$n]=${BASH_REMATCH[1]}
    else R[$b,controller,add,$n]=fail; echo "bench-flows: $b controller $n: ${line:-no result}" >&2; tail -3 $RUN/ctl.log >&2; fi
    measure_dump $b controller $n $dump
    stop_static_flows
    $disconnect
  done
  $del
}
fl_connect() { stop_flowlab; start_flowlab --controller tcp:127.0.0.1:$CTL_PORT; }
fl_disconnect() { stop_flowlab; start_flowlab; }
ovs_connect() { ovs-vsctl --db=$OVSDB set-controller br0 tcp:127.0.0.1:$CTL_PORT; }
ovs_disconnect() { ovs-vsctl --db=$OVSDB del-controller br0; }

measure_tcp() {
  in_ns $H2 iperf3 -s -1 -p 5201 -D --pidfile $RUN/iperf3.pid >/dev/null 2>&1; sleep 0.3
  timeout $((DUR + 15)) ip netns exec $H1 iperf3 -c 10.0.0.2 -p 5201 -t "$DUR" -J 2>/dev/null > $RUN/tcp.json || true
  python3 -c "import json; d=json.load(open('$RUN/tcp.json')); print('%.3f' % (d['end']['sum_received']['bits_per_second']/1e9))" 2>/dev/null || echo fail
  [[ -f $RUN/iperf3.pid ]] && kill "$(cat $RUN/iperf3.pid)" 2>/dev/null; rm -f $RUN/iperf3.pid; sleep 0.2
}
# 200 pings 5 ms apart: "median p99" round trip in us.
measure_latency() {
  in_ns $H1 ping -c 200 -i 0.005 -W 1 10.0.0.2 2>/dev/null | python3 -c '
import re, sys
t = sorted(float(m.group(1)) * 1000 for m in (re.search(r"time=([0-9.]+) ms", l) for l in sys.stdin) if m)
print("%d %d" % (t[len(t) // 2], t[min(len(t) - 1, len(t) * 99 // 100)]) if len(t) >= 100 else "fail fail")'
}
measure_forwarding() {  # backend add del
  local b=$1 add=$2 del=$3 c n m lat
  for c in $FWD_CASES; do
    n=${c%%:*}; m=${c##*:}
    $del; sleep 1
    $add "$(masks_file "$n" "$m")" > $RUN/add.err 2>&1 || { tail -3 $RUN/add.err >&2; R[$b,fwd,$c]=fail; continue; }
    in_ns $H1 ping -c 2 -W 2 10.0.0.2 >/dev/null 2>&1 || true
    R[$b,fwd,$c]=$(measure_tcp)
    lat=$(measure_latency)
    R[$b,p50,$c]=${lat% *}; R[$b,p99,$c]=${lat#* }
    echo "bench-flows: $b forwarding with $n flows over $m masks: ${R[$b,fwd,$c]} Gbit/s, ping p50 ${R[$b,p50,$c]} us p99 ${R[$b,p99,$c]} us" >&2
  done
  $del
}

has() { [[ " $METHODS " == *" $1 "* ]]; }
setup_topology
echo "bench-flows: flowlab ..." >&2
start_flowlab
has ofctl && measure_adds flowlab ofctl fl_add fl_dump fl_del
has bundle && measure_adds flowlab bundle fl_bundle fl_dump fl_del
has controller && measure_controller_adds flowlab fl_connect fl_disconnect fl_dump fl_del
[[ -n $FWD_CASES ]] && measure_forwarding flowlab fl_add fl_del
stop_flowlab
echo "bench-flows: ovs ..." >&2
start_ovs
has ofctl && measure_adds ovs ofctl ovs_add ovs_dump ovs_del
has bundle && measure_adds ovs bundle ovs_bundle ovs_dump ovs_del
has controller && measure_controller_adds ovs ovs_connect ovs_disconnect ovs_dump ovs_del
[[ -n $FWD_CASES ]] && measure_forwarding ovs ovs_add ovs_del
stop_ovs

printf "\n%-10s %-9s | %-28s | %-20s | %s\n" method flows "add s (flowlab / ovs)" "bytes/flow (fl / ovs)" "dump s (flowlab / ovs)"
for m in $METHODS; do
  for n in $SIZES; do
    printf "%-10s %-9s | %8s / %-8s %9s | %8s / %-9s | %6s / %-6s (%s / %s dumped)\n" $m $n "${R[flowlab,$m,add,$n]}" \
      "${R[ovs,$m,add,$n]}" "$(ratio "${R[ovs,$m,add,$n]}" "${R[flowlab,$m,add,$n]}")" "${R[flowlab,$m,bytes,$n]:--}" \
      "${R[ovs,$m,bytes,$n]:--}" "${R[flowlab,$m,dump,$n]}" "${R[ovs,$m,dump,$n]}" "${R[flowlab,$m,count,$n]}" "${R[ovs,$m,count,$n]}"
  done
done
printf "(the ratio after the add times: how many times faster flowlab adds; controller: static-flows, bundles of 4096)\n"
if [[ -n $FWD_CASES ]]; then
  printf "\n%-22s | %10s %10s | %-12s | %s\n" "background flows:masks" "flowlab" "ovs" "fl vs empty" "ping p50/p99 us (flowlab | ovs)"
  for c in $FWD_CASES; do
    printf "%-22s | %10s %10s | %-12s | %s / %s | %s / %s\n" "$c" "${R[flowlab,fwd,$c]}" "${R[ovs,fwd,$c]}" \
      "$(ratio "${R[flowlab,fwd,$c]}" "${R[flowlab,fwd,0:100]:-}")" "${R[flowlab,p50,$c]}" "${R[flowlab,p99,$c]}" \
      "${R[ovs,p50,$c]}" "${R[ovs,p99,$c]}"
  done
  printf "(TCP Gbit/s h1 -> h2, %s s; then 200 pings 5 ms apart)\n" "$DUR"
fi
printf "\ntargets: adding 1M flows >= 3x faster than OVS; forwarding with 100k flows over 100 masks >= 0.9x the empty table\n"

if [[ -n "$OUT" ]]; then
  {
    echo "{"
    for b in flowlab ovs; do
      printf '  "%s": {' $b
      for m in $METHODS; do
        for n in $SIZES; do
          printf '"%s_add_%s": "%s", "%s_bytes_per_flow_%s": "%s", "%s_dump_%s": "%s", "%s_dumped_%s": "%s", ' \
            $m $n "${R[$b,$m,add,$n]}" $m $n "${R[$b,$m,bytes,$n]:-}" $m $n "${R[$b,$m,dump,$n]}" $m $n "${R[$b,$m,count,$n]}"
        done
      done
      for c in $FWD_CASES; do
        printf '"fwd_%s": "%s", "ping_p50_us_%s": "%s", "ping_p99_us_%s": "%s", ' "${c/:/_}" "${R[$b,fwd,$c]}" \
          "${c/:/_}" "${R[$b,p50,$c]}" "${c/:/_}" "${R[$b,p99,$c]}"
      done
      printf '"methods": "%s"' "$METHODS"
      [[ $b == flowlab ]] && echo "}," || echo "}"
    done
    echo "}"
  } > "$OUT"
fi
