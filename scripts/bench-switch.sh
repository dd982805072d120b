#!/usr/bin/env bash
# bench-switch.sh: the two-host topology through each switch in one run —
# flowlab switch on its eBPF/TC fast path (--datapath tc) and on AF_PACKET
# (--datapath af-packet), static flows via ovs-ofctl and no controller; Open
# vSwitch userspace (datapath_type=netdev) with userspace-tso-enable (and
# without, with -a); a Linux bridge — plus "direct", the two hosts on one veth
# pair (the senders' own ceiling) — with veth offloads at their defaults.
# Prints TCP Gbit/s, CPU ns per KB, UDP 64-byte and 1470-byte packet rates
# received (flowlab pktgen as the sender: sendmmsg, 64 flows, -g threads), ping RTT and
# tcp-rr latency (p50), medians of -r repeats, and each one's ratio to the
# bridge. Not a test: needs root, iperf3, ovs-vswitchd/ovsdb-server/ovs-ofctl.
#
#   sudo scripts/bench-switch.sh [-b path/to/flowlab] [-t seconds] [-r repeats] [-o results.json] [-a] [-g pktgen-threads] [-P dir]
#
# -P dir: also profile (perf record -a -g, the whole machine) the first TCP
# and UDP 64 B run of each backend into dir/BACKEND-{tcp,udp64}.data and print
# where the cycles go (scripts/perf-shares.py): the forwarding element's share
# and the Amdahl bound it sets. Profiling perturbs the figures: use a separate
# invocation (e.g. -r 1) for the profile and one without -P for the figures.
#
# Layout: namespaces h1 (10.0.0.1) and h2 (10.0.0.2), and a switch namespace
# holding the other ends of their veths (p1, p2). Every backend runs in the
# switch namespace in turn; everything is removed on exit, including Ctrl-C.
set -euo pipefail
source "$(dirname "$0")/bench-lib.sh"

BIN=""
DUR=5
REPEATS=3
OUT=""
THREADS=1
ALL_OVS=0
PKTGEN_THREADS=2
PROFILE_DIR=""
while getopts "b:t:r:o:j:g:P:ah" opt; do
  case $opt in
    b) BIN=$OPTARG ;;
    t) DUR=$OPTARG ;;
    r) REPEATS=$OPTARG ;;
    o) OUT=$OPTARG ;;
    j) THREADS=$OPTARG ;;
    a) ALL_OVS=1 ;;
    g) PKTGEN_THREADS=$OPTARG ;;
    P) PROFILE_DIR=$OPTARG ;;
    *) sed -n '2,18p' "$0"; exit 2 ;;
  esac
done
BIN=$(bench_binary bench-switch "$BIN")
bench_require bench-switch iperf3 ping ip ovs-vsctl ovs-vswitchd ovsdb-server ovsdb-tool ovs-ofctl python3
if [[ -n "$PROFILE_DIR" ]]; then
  command -v perf >/dev/null || { echo "bench-switch: -P needs perf (linux-perf)" >&2; exit 2; }
  mkdir -p "$PROFILE_DIR"
fi

TAG="fb$$"
H1="${TAG}h1"; H2="${TAG}h2"; SW="${TAG}sw"; D1="${TAG}d1"; D2="${TAG}d2"
RUN=$(mktemp -d /tmp/flowlab-bench.XXXXXX)
# pktgen runs as "fl-pktgen" (a symlink: its comm), so a profile tells the
# sender from other flowlab processes on a shared machine.
PKTGEN=$RUN/fl-pktgen
ln -s "$(realpath "$BIN")" "$PKTGEN"
FLOWLAB_PID="" FLOWLAB_DP=""
BPF_STATS0=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null || echo 0)

cleanup() {
  set +e
  sysctl -qw kernel.bpf_stats_enabled="$BPF_STATS0" 2>/dev/null
  [[ -n "$FLOWLAB_PID" ]] && kill "$FLOWLAB_PID" 2>/dev/null && wait "$FLOWLAB_PID" 2>/dev/null
  [[ -n "$PERF_PID" ]] && kill "$PERF_PID" 2>/dev/null
  ovs_stop
  for ns in $H1 $H2 $SW $D1 $D2; do ip netns pids $ns 2>/dev/null | xargs -r kill 2>/dev/null; ip netns del $ns 2>/dev/null; done
  rm -rf "$RUN"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

setup_topology() {
  bench_two_hosts $H1 $H2 10.0.0.1/24 10.0.0.2/24
  bench_direct_pair $D1 $D2 10.0.0.1/24 10.0.0.2/24
}

# ---- backends -------------------------------------------------------------
OF_PORT=6633
start_flowlab() {  # $1 = tc | af-packet
  OF_PORT=$((OF_PORT + 1))  # a fresh port per run: the last one may still be in TIME_WAIT
  # Not through in_ns: $! must be the switch itself (ip netns exec execs it),
  # not a subshell that a kill would leave the switch running behind.
  ip netns exec $SW "$BIN" switch --name bench --port p1 --port p2 --threads "$THREADS" --datapath "$1" \
      --listen ptcp:$OF_PORT:127.0.0.1 --log-level warn --stats-file $RUN/flowlab-$1.json &
  FLOWLAB_PID=$! FLOWLAB_DP=$1
  SWITCH_PIDS=$FLOWLAB_PID
  for _ in $(seq 50); do in_ns $SW ovs-ofctl -O OpenFlow13 show tcp:127.0.0.1:$OF_PORT >/dev/null 2>&1 && break; sleep 0.1; done
  in_ns $SW ovs-ofctl -O OpenFlow13 add-flow tcp:127.0.0.1:$OF_PORT in_port=1,actions=output:2
  in_ns $SW ovs-ofctl -O OpenFlow13 add-flow tcp:127.0.0.1:$OF_PORT in_port=2,actions=output:1
}
stop_flowlab() {
  [[ -n "$FLOWLAB_PID" ]] || return 0
  # The program's own cost per packet, from one more UDP 64 B run that is not
  # counted: the kernel times each BPF program run only while bpf_stats is on
  # (two clock reads a run), a cost the measured runs must not carry against
  # the bridge and the direct pair.
  if [[ $FLOWLAB_DP == tc ]]; then
    sysctl -qw kernel.bpf_stats_enabled=1
    measure_udp 18 >/dev/null
  fi
  kill "$FLOWLAB_PID" 2>/dev/null || true; wait "$FLOWLAB_PID" || true
  FLOWLAB_PID=""; SWITCH_PIDS=""
  sysctl -qw kernel.bpf_stats_enabled="$BPF_STATS0"
  for f in $RUN/flowlab-*.json; do
    [[ -f $f ]] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); f=d.get('fast_path') or {}; print('bench-switch:', d['name'], 'fast_path', json.dumps(f)); r=f.get('prog_runs') or 0; r and print('bench-switch: the TC program took %.0f ns per run (%d runs of one extra UDP 64 B run, kernel bpf_stats)' % (f['prog_ns'] / r, r))" "$f" >&2
    rm -f "$f"
  done
}

start_ovs() {  # $1 = true/false userspace TSO
  ovs_start "$1"
  SWITCH_PIDS=$OVS_PID
  ovs-ofctl add-flow br0 in_port=1,actions=output:2
  ovs-ofctl add-flow br0 in_port=2,actions=output:1
}
stop_ovs() { SWITCH_PIDS=""; ovs_stop; }

# ---- measurements ---------------------------------------------------------
# Busy CPU time of the whole machine (all cores, jiffies) from /proc/stat.
busy_jiffies() { awk '/^cpu / {print $2+$3+$4+$7+$8+$9}' /proc/stat; }
# CPU time (utime+stime, jiffies) of the switch's processes and of the
# ksoftirqd threads: with the kernel's tick-based accounting (no
# CONFIG_IRQ_TIME_ACCOUNTING) softirq work is charged to the task it ran in,
# so this plus the two iperf3 processes is the path's CPU, without the other
# work a shared machine does meanwhile.
SWITCH_PIDS=""
task_jiffies() {
  local sum=0 p
  for p in $SWITCH_PIDS $(pgrep -x 'ksoftirqd/[0-9]+' 2>/dev/null || pgrep ksoftirqd); do
    [[ -r /proc/$p/stat ]] || continue
    sum=$((sum + $(awk '{print $14+$15}' /proc/$p/stat 2>/dev/null || echo 0)))
  done
  echo $sum
}
# bash `times`, second line: the children's user and system time in seconds.
times_secs() { python3 -c "import re,sys; t=open(sys.argv[1]).read().split('\n')[1].split(); print(sum(int(m)*60+float(s) for m,s in (re.match(r'(\d+)m([\d.]+)s',x).groups() for x in t)))" "$1" 2>/dev/null || echo 0; }
# Prints "GBPS CORES NS_PER_KB MACHINE_NS_PER_KB": TCP Gbit/s received, cores
# busy during the run (the whole machine), the path's CPU ns per KB carried
# (iperf3 client and server, the switch's processes, ksoftirqd) and the whole
# machine's busy ns per KB (meaningless when others load the machine).
measure_tcp() {
  ( ip netns exec $H2 iperf3 -s -1 -p 5201 >/dev/null 2>&1; times > $RUN/srv.times ) &
  local srv=$!
  sleep 0.3
  local hz b0 b1 t0 t1 j0 j1
  hz=$(getconf CLK_TCK); b0=$(busy_jiffies); j0=$(task_jiffies); t0=$(date +%s.%N)
  ( timeout $((DUR + 15)) ip netns exec $H1 iperf3 -c 10.0.0.2 -p 5201 -t "$DUR" -J 2>/dev/null > $RUN/tcp.json; times > $RUN/cli.times ) || true
  b1=$(busy_jiffies); j1=$(task_jiffies); t1=$(date +%s.%N)
  ( sleep $((DUR + 5)); kill $srv 2>/dev/null ) & local guard=$!
  wait $srv 2>/dev/null; kill $guard 2>/dev/null; wait $guard 2>/dev/null
  local cs ss
  cs=$(times_secs $RUN/cli.times); ss=$(times_secs $RUN/srv.times)
  json_get "'%.3f %.2f %.1f %.1f' % (d['end']['sum_received']['bits_per_second']/1e9, ($b1-$b0)/$hz/($t1-$t0), (($j1-$j0)/$hz+$cs+$ss)*1e9/(d['end']['sum_received']['bytes']/1024), ($b1-$b0)/$hz*1e9/(d['end']['sum_received']['bytes']/1024))" < $RUN/tcp.json
  rm -f $RUN/srv.times $RUN/cli.times; sleep 0.2
}
# Received packets per second at h2's eth0 while `flowlab pktgen` sends from
# h1 (64 UDP flows, sendmmsg, $PKTGEN_THREADS sending threads). $1 = payload bytes.
measure_udp() {
  local r0 r1 t0 t1
  r0=$(in_ns $H2 cat /sys/class/net/eth0/statistics/rx_packets); t0=$(date +%s.%N)
  timeout $((DUR + 15)) ip netns exec $H1 "$PKTGEN" pktgen --dst 10.0.0.2 --size "$1" --flows 64 --threads "$PKTGEN_THREADS" --seconds "$DUR" >/dev/null 2>&1 || true
  sleep 0.1
  r1=$(in_ns $H2 cat /sys/class/net/eth0/statistics/rx_packets); t1=$(date +%s.%N)
  python3 -c "print('%.0f' % (($r1-$r0)/($t1-$t0-0.1)))" 2>/dev/null || echo fail
}
measure_ping() {
  in_ns $H1 ping -c 20 -i 0.05 -q 10.0.0.2 2>/dev/null | awk -F/ '/rtt|round-trip/ {printf "%.3f\n", $5; found=1} END {if (!found) print "fail"}'
}
# tcp-rr: 1-byte request/response over one TCP connection; p50 in microseconds.
measure_rr() {
  in_ns $H2 "$BIN" lab tcp-rr-server --port 7001 --timeout 20 >/dev/null 2>&1 &
  local srv=$!; sleep 0.3
  timeout 30 ip netns exec $H1 "$BIN" lab tcp-rr-client --host 10.0.0.2 --port 7001 --count 3000 --size 1 2>/dev/null |
    json_get "'%.1f' % d['rtt_p50_us']"
  kill $srv 2>/dev/null; wait $srv 2>/dev/null || true
}

# -P: perf samples the whole machine for the middle of one measurement
# (it starts 0.5 s in and stops a second before the end).
PERF_PID=""
profile_start() {
  local secs=$((DUR > 2 ? DUR - 2 : 1))
  ( sleep 0.5; exec perf record -a -g -q -o "$PROFILE_DIR/$1.data" -- sleep "$secs" ) >/dev/null 2>&1 &
  PERF_PID=$!
}
profile_stop() {
  [[ -n "$PERF_PID" ]] || return 0
  wait "$PERF_PID" 2>/dev/null || true
  PERF_PID=""
}

declare -A R
run_backend() {  # name start stop
  local name=$1 start=$2 stop=$3
  echo "bench-switch: $name ..." >&2
  $start
  in_ns $H1 ping -c 2 -W 2 10.0.0.2 >/dev/null 2>&1 || true   # warm up ARP / learning
  local tcp=() cores=() nskb=() mnskb=() u64=() u1470=() rtt=() rr=() m rep=0
  for _ in $(seq "$REPEATS"); do
    rep=$((rep + 1))
    [[ -n "$PROFILE_DIR" && $rep == 1 ]] && profile_start "$name-tcp"
    read -r -a m <<< "$(measure_tcp)"
    profile_stop
    tcp+=("${m[0]}"); cores+=("${m[1]:-fail}"); nskb+=("${m[2]:-fail}"); mnskb+=("${m[3]:-fail}")
    [[ -n "$PROFILE_DIR" && $rep == 1 ]] && profile_start "$name-udp64"
    u64+=("$(measure_udp 18)")
    profile_stop
    u1470+=("$(measure_udp 1470)"); rtt+=("$(measure_ping)"); rr+=("$(measure_rr)")
  done
  echo "bench-switch: $name runs: TCP ${tcp[*]} Gbit/s; UDP64 ${u64[*]} pps; UDP1470 ${u1470[*]} pps" >&2
  R[$name,tcp]=$(median "${tcp[@]}"); R[$name,cores]=$(median "${cores[@]}"); R[$name,nskb]=$(median "${nskb[@]}"); R[$name,mnskb]=$(median "${mnskb[@]}")
  R[$name,u64]=$(median "${u64[@]}")
  R[$name,u1470]=$(median "${u1470[@]}"); R[$name,rtt]=$(median "${rtt[@]}"); R[$name,rr]=$(median "${rr[@]}")
  $stop
}

setup_topology
BACKENDS=(flowlab-tc flowlab-afp)
run_backend flowlab-tc "start_flowlab tc" stop_flowlab
run_backend flowlab-afp "start_flowlab af-packet" stop_flowlab
if [[ $ALL_OVS == 1 ]]; then run_backend ovs "start_ovs false" stop_ovs; BACKENDS+=(ovs); fi
run_backend ovs-tso "start_ovs true" stop_ovs
run_backend bridge bridge_start bridge_stop
# The senders' ceiling: the same measurements on a direct veth pair.
H1_SAVED=$H1; H2_SAVED=$H2; H1=$D1; H2=$D2
run_backend direct true true
H1=$H1_SAVED; H2=$H2_SAVED
BACKENDS+=(ovs-tso bridge direct)

printf "\n%-12s %10s %9s %10s %10s %12s %12s %9s %10s\n" backend "TCP Gbit/s" "TCP cores" "TCP ns/KB" "machine" "UDP64 pps" "UDP1470 pps" "ping ms" "rr p50 us"
for b in "${BACKENDS[@]}"; do
  printf "%-12s %10s %9s %10s %10s %12s %12s %9s %10s\n" $b "${R[$b,tcp]}" "${R[$b,cores]}" "${R[$b,nskb]}" "${R[$b,mnskb]}" \
    "${R[$b,u64]}" "${R[$b,u1470]}" "${R[$b,rtt]}" "${R[$b,rr]}"
done
printf "(medians of %s; TCP cores: the machine's busy cores during the TCP run, iperf3 included, of %s;\n" "$REPEATS" "$(nproc)"
printf " TCP ns/KB: CPU time per KB carried of the path (iperf3 client + server, the switch's processes, ksoftirqd);\n"
printf " machine: the whole machine's busy time per KB (includes whatever else runs); direct: no switch, the senders' ceiling;\n"
printf " UDP: flowlab pktgen with %s sending threads; uptime at the end: %s)\n" "$PKTGEN_THREADS" "$(uptime | sed 's/.*load/load/')"
# ratio_table REF KEY...: every backend's medians against REF's, one column a key.
declare -A COLUMN=([tcp]=TCP [nskb]=ns/KB [u64]=UDP64 [u1470]=UDP1470 [rtt]=ping [rr]=rr)
ratio_table() {
  local ref=$1 b k; shift
  printf "%-12s" backend; for k in "$@"; do printf " %9s" "${COLUMN[$k]}"; done; echo
  for b in "${BACKENDS[@]}"; do
    [[ $b == "$ref" ]] && continue
    printf "%-12s" "$b"; for k in "$@"; do printf " %9s" "$(ratio "${R[$b,$k]}" "${R[$ref,$k]}")"; done; echo
  done
}
printf "\nratio to the Linux bridge (rates: higher is better; ping, rr, ns/KB: lower is better)\n"
ratio_table bridge tcp nskb u64 u1470 rtt rr
printf "\nratio to the direct veth pair (the physical limit: the same hosts with no switch)\n"
ratio_table direct tcp nskb u64 u1470
printf "\ntargets (flowlab-tc vs bridge): TCP >= 1.2x, UDP64 >= 1.5x, ping <= 1.0x, ns/KB <= 1.0x\n"
printf "targets (flowlab-tc vs the direct pair): TCP >= 0.95x, UDP64 >= 0.95x\n"

if [[ -n "$OUT" ]]; then
  {
    echo "{"
    first=1
    for b in "${BACKENDS[@]}"; do
      [[ $first == 1 ]] || echo ","
      first=0
      printf '  "%s": {"tcp_gbps": "%s", "tcp_cores": "%s", "tcp_ns_per_kb": "%s", "machine_ns_per_kb": "%s", "udp64_pps": "%s", "udp1470_pps": "%s", "ping_ms": "%s", "tcp_rr_p50_us": "%s"}' \
        $b "${R[$b,tcp]}" "${R[$b,cores]}" "${R[$b,nskb]}" "${R[$b,mnskb]}" "${R[$b,u64]}" "${R[$b,u1470]}" "${R[$b,rtt]}" "${R[$b,rr]}"
    done
    echo; echo "}"
  } > "$OUT"
fi

if [[ -n "$PROFILE_DIR" ]]; then
  printf "\nprofile (perf record -a -g; %s):\n" "$PROFILE_DIR"
  for b in flowlab-tc bridge direct; do
    for m in tcp udp64; do
      [[ -f $PROFILE_DIR/$b-$m.data ]] && python3 "$(dirname "$0")/perf-shares.py" "$b" "$m" "$PROFILE_DIR/$b-$m.data"
    done
  done
fi
