#!/usr/bin/env bash
# bench-churn.sh: connection churn between two namespaces through each switch in one
# run: flowlab's switch on its eBPF/TC fast path (flowlab-tc) and on AF_PACKET
# (flowlab-afp), Open vSwitch userspace (datapath_type=netdev, userspace TSO; ovs) and
# the Linux bridge, each switch with two flow sets:
#   learning  flowlab's controller, `--app learning-switch` (the same controller for OVS)
#   prefix    100 static ip nw_dst /24 routes (10.0.1.0/24 -> port 1, 10.0.2.0/24 ..
#             10.0.100.0/24 -> port 2, plus ARP by in_port), added by ofctl; no controller
# (the bridge has neither: it runs once, as `bridge`), and `direct`: the same two
# hosts on one veth pair, no switch, the end hosts' own ceiling. The load is `flowlab lab
# tcp-crr-client`: every transaction a new TCP connection (connect, a --size-byte
# request and response, the server closes first), h1 -> h2.
#
# Per switch and flow set, in each of -r passes over them all: a closed-loop run (--max, -j connections in
# flight) gives the most connections/s M; then open-loop runs offered at 0.3, 0.5,
# 0.7, 0.85, 1.0, 1.15, 1.3 x M, climbing until two steps in a row fail; a step
# passes when completed >= 95 % of offered and p99 latency <= -l us (default 200 ms:
# well under a lost SYN's 1 s retransmission, so a step with more than 1 % of its
# connections retransmitting, or with a queue that keeps growing, fails; on a shared
# 2-core machine the generator's own scheduling delays reach tens of ms at p99 far
# below any knee, so a tighter bound measures the neighbours). The knee is the
# highest passing step. Reported at
# the knee (medians of -r repeats): connections/s completed, p99 latency, upcalls per
# connection (flowlab-tc: packets the TC program sent up; flowlab-afp: misses of the
# user-space exact-match flow cache, i.e. classifier lookups; ovs: dpif-netdev's
# `missed` lookups, each an upcall to ofproto), kernel/fast-path hits per
# connection, packet-ins per connection, and CPU per connection: the switch's own
# processes (switch + controller) and the whole path's (those, the client, the
# server, ksoftirqd), from /proc/PID/stat and the client's getrusage.
# Not a test: needs root, ovs-vswitchd/ovsdb-server/ovs-vsctl/ovs-ofctl/ovs-appctl.
#
#   sudo scripts/bench-churn.sh [-b path/to/flowlab] [-t seconds] [-r repeats] [-s bytes] [-j parallel]
#        [-l p99-bound-us] [-d "flowlab-tc flowlab-afp ovs bridge direct"] [-f "learning prefix"]
#        [-o results.json] [-P profile-dir]
#
# -P dir: also profile the whole machine (perf record -a -g) during the first
# closed-loop run of each switch into dir/NAME.data and write the top of its
# report (dir/NAME.txt); a separate invocation, profiling perturbs the figures.
#
# Layout: namespaces h1 (10.0.1.1/16, the client) and h2 (10.0.2.1/16, the server)
# on one L2 segment, and a switch namespace holding the other ends of their veths
# (p1, p2). The client's namespace gets ip_local_port_range 1024-65535; TIME_WAIT
# stays on the server (it closes first), so client ports are reused at once.
# Everything is removed on exit, including Ctrl-C.
set -euo pipefail
source "$(dirname "$0")/bench-lib.sh"

BIN=""
DUR=3
REPEATS=3
SIZE=64
PARALLEL=16
P99_BOUND_US=200000
DATAPATHS="flowlab-tc flowlab-afp ovs bridge direct"
FLOWSETS="learning prefix"
OUT=""
PROFILE_DIR=""
while getopts "b:t:r:s:j:l:d:f:o:P:h" opt; do
  case $opt in
    b) BIN=$OPTARG ;;
    t) DUR=$OPTARG ;;
    r) REPEATS=$OPTARG ;;
    s) SIZE=$OPTARG ;;
    j) PARALLEL=$OPTARG ;;
    l) P99_BOUND_US=$OPTARG ;;
    d) DATAPATHS=$OPTARG ;;
    f) FLOWSETS=$OPTARG ;;
    o) OUT=$OPTARG ;;
    P) PROFILE_DIR=$OPTARG ;;
    *) sed -n '2,44p' "$0"; exit 2 ;;
  esac
done
BIN=$(bench_binary bench-churn "$BIN")
bench_require bench-churn ip python3 ovs-vsctl ovs-vswitchd ovsdb-server ovsdb-tool ovs-ofctl ovs-appctl
if [[ -n "$PROFILE_DIR" ]]; then
  command -v perf >/dev/null || { echo "bench-churn: -P needs perf (linux-perf)" >&2; exit 2; }
  mkdir -p "$PROFILE_DIR"
fi

TAG="bc$$"
H1="${TAG}h1"; H2="${TAG}h2"; SW="${TAG}sw"; D1="${TAG}d1"; D2="${TAG}d2"
RUN=$(mktemp -d /tmp/flowlab-bench-churn.XXXXXX)
SERVER_ADDR=10.0.2.1
CRR_PORT=7003
FLOWLAB_PID=""; CTL_PID=""; SERVER_PID=""; DSERVER_PID=""; PERF_PID=""
CLIENT_NS=$H1; CPU_SERVER_PID=""   # where the client runs, the server whose CPU counts (direct: D1, D2's)
SWITCH_PIDS=""
OF_PORT=6640; CTL_PORT=6650; METRICS_PORT=9400   # fresh ports per start: the last may be in TIME_WAIT

stop_pid() { [[ -n "$1" ]] && kill "$1" 2>/dev/null && wait "$1" 2>/dev/null; return 0; }
cleanup() {
  set +e
  stop_pid "$PERF_PID"; stop_pid "$FLOWLAB_PID"; stop_pid "$CTL_PID"; stop_pid "$SERVER_PID"; stop_pid "$DSERVER_PID"
  ovs_stop
  for ns in $H1 $H2 $SW $D1 $D2; do ip netns pids $ns 2>/dev/null | xargs -r kill 2>/dev/null; ip netns del $ns 2>/dev/null; done
  rm -rf "$RUN"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 100 /24 routes; the churn's two hosts are in 10.0.1.0/24 and 10.0.2.0/24.
prefix_flows() {
  echo "priority=100,arp,in_port=1,actions=output:2"
  echo "priority=100,arp,in_port=2,actions=output:1"
  echo "priority=10,ip,nw_dst=10.0.1.0/24,actions=output:1"
  for n in $(seq 2 100); do echo "priority=10,ip,nw_dst=10.0.$n.0/24,actions=output:2"; done
}

# ---- switches -------------------------------------------------------------
start_controller() {
  CTL_PORT=$((CTL_PORT + 1))
  # Not through in_ns: $! must be the controller itself.
  ip netns exec $SW "$BIN" controller --listen ptcp:$CTL_PORT:127.0.0.1 --app learning-switch > $RUN/ctl.log 2>&1 &
  CTL_PID=$!
  for _ in $(seq 50); do in_ns $SW bash -c "exec 3<>/dev/tcp/127.0.0.1/$CTL_PORT" 2>/dev/null && break; sleep 0.1; done
}
start_switch() {  # DATAPATH FLOWSET
  local dp=$1 fs=$2 ctl=()
  [[ $fs == learning ]] && start_controller
  case $dp in
    flowlab-tc|flowlab-afp)
      OF_PORT=$((OF_PORT + 1)); METRICS_PORT=$((METRICS_PORT + 1))
      [[ $fs == learning ]] && ctl=(--controller "tcp:127.0.0.1:$CTL_PORT")
      ip netns exec $SW "$BIN" switch --name churn --port p1 --port p2 \
          --datapath "$([[ $dp == flowlab-tc ]] && echo tc || echo af-packet)" \
          --listen ptcp:$OF_PORT:127.0.0.1 --metrics 127.0.0.1:$METRICS_PORT --log-level warn "${ctl[@]}" &
      FLOWLAB_PID=$!
      for _ in $(seq 50); do in_ns $SW "$BIN" ofctl show tcp:127.0.0.1:$OF_PORT >/dev/null 2>&1 && break; sleep 0.1; done
      [[ $fs == prefix ]] && in_ns $SW "$BIN" ofctl add-flows tcp:127.0.0.1:$OF_PORT $RUN/prefix.flows
      SWITCH_PIDS="$FLOWLAB_PID $CTL_PID" ;;
    ovs)
      ovs_start true
      if [[ $fs == learning ]]; then ovs-vsctl --db=$OVSDB set-controller br0 tcp:127.0.0.1:$CTL_PORT
      else ovs-ofctl -O OpenFlow13 add-flows br0 $RUN/prefix.flows; fi
      SWITCH_PIDS="$OVS_PID $CTL_PID" ;;
    bridge)
      bridge_start
      SWITCH_PIDS="" ;;
    direct)
      CLIENT_NS=$D1; CPU_SERVER_PID=$DSERVER_PID
      SWITCH_PIDS="" ;;
  esac
  # Ready when a ping gets through (learning: the controller has the switch).
  for _ in $(seq 30); do in_ns $CLIENT_NS ping -c 1 -W 1 $SERVER_ADDR >/dev/null 2>&1 && return 0; sleep 0.3; done
  echo "bench-churn: $dp $fs: h1 cannot reach h2" >&2
  return 1
}
stop_switch() {  # DATAPATH
  case $1 in
    flowlab-*) stop_pid "$FLOWLAB_PID"; FLOWLAB_PID="" ;;
    ovs) ovs_stop ;;
    bridge) bridge_stop ;;
    direct) CLIENT_NS=$H1; CPU_SERVER_PID=$SERVER_PID ;;
  esac
  stop_pid "$CTL_PID"; CTL_PID=""; SWITCH_PIDS=""
  in_ns $H1 ip neigh flush dev eth0 2>/dev/null; in_ns $H2 ip neigh flush dev eth0 2>/dev/null
  return 0
}

# "UPCALLS HITS PACKET_INS" of the switch so far ("- - -" for the bridge).
counters() {  # DATAPATH
  case $1 in
    flowlab-*)
      in_ns $SW python3 - "$METRICS_PORT" "$1" <<'EOF' 2>/dev/null || echo "fail fail fail"
import sys, urllib.request
text = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode()
m = {}
for line in text.splitlines():
    if line and not line.startswith("#"):
        name, value = line.rsplit(" ", 1)
        name = name.split("{")[0]
        m[name] = m.get(name, 0) + float(value)
if sys.argv[2] == "flowlab-tc":
    up, hits = m["flowlab_fast_path_upcalls_total"], m["flowlab_fast_path_hits_total"]
else:  # every packet is in user space; the slow path is the classifier behind the exact-match cache
    up, hits = m["flowlab_flow_cache_misses_total"], m["flowlab_flow_cache_hits_total"]
print("%d %d %d" % (up, hits, m.get("of_packet_ins_total", 0)))
EOF
      ;;
    ovs)
      local hit missed pins
      read -r hit missed < <(ovs-appctl dpctl/show 2>/dev/null | sed -n 's/.*lookups: hit:\([0-9]*\) missed:\([0-9]*\).*/\1 \2/p')
      # The learning app's table-miss flow: its packets are the packet-ins.
      pins=$(ovs-ofctl -O OpenFlow13 dump-flows br0 2>/dev/null | awk '/priority=0[ ,]/ && /CONTROLLER/ {sub(/.*n_packets=/, ""); sub(/,.*/, ""); s += $0} END {print s + 0}')
      echo "${missed:-fail} ${hit:-fail} ${pins:-fail}" ;;
    *) echo "- - -" ;;
  esac
}
ksoftirqd_pids() { pgrep -x 'ksoftirqd/[0-9]+' 2>/dev/null || pgrep ksoftirqd || true; }

PROFILE_NAME=""
# One client run; prints a JSON line: the client's object plus the switch's counter
# deltas and the CPU the switch's processes and the whole path spent meanwhile.
crr_step() {  # DATAPATH CLIENT-MODE-ARGS...
  local dp=$1; shift
  local c0 c1 sj0 sj1 oj0 oj1 hz
  hz=$(getconf CLK_TCK)
  local kpids  # the ksoftirqd threads, a list split on purpose
  kpids=$(ksoftirqd_pids)
  c0=$(counters "$dp"); sj0=$(proc_jiffies $SWITCH_PIDS); oj0=$(proc_jiffies $CPU_SERVER_PID $kpids)
  if [[ -n "$PROFILE_NAME" ]]; then
    ( sleep 0.5; exec perf record -a -g -q -o "$PROFILE_DIR/$PROFILE_NAME.data" -- sleep "$(python3 -c "print(max(1, $DUR - 1))")" ) >/dev/null 2>&1 &
    PERF_PID=$!
  fi
  timeout "$(python3 -c "print(int($DUR) + 30)")" ip netns exec $CLIENT_NS "$BIN" lab tcp-crr-client --host $SERVER_ADDR \
      --port $CRR_PORT --duration "$DUR" --size "$SIZE" "$@" > $RUN/step.json 2> $RUN/step.err || true
  if [[ -n "$PERF_PID" ]]; then wait "$PERF_PID" 2>/dev/null || true; PERF_PID=""; fi
  c1=$(counters "$dp"); sj1=$(proc_jiffies $SWITCH_PIDS); oj1=$(proc_jiffies $CPU_SERVER_PID $kpids)
  python3 - "$RUN/step.json" "$c0" "$c1" "$((sj1 - sj0))" "$((oj1 - oj0))" "$hz" <<'EOF' || { echo '{"fail": true}'; tail -2 $RUN/step.err >&2; }
import json, sys
d = json.load(open(sys.argv[1]))
c0, c1 = sys.argv[2].split(), sys.argv[3].split()
sj, oj, hz = int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
n = max(1, d["completed"])
for i, k in enumerate(("upcalls", "hits", "packet_ins")):
    if "-" in (c0[i], c1[i]):
        d[k + "_per_conn"] = "-"  # the bridge has no such counter
    elif "fail" in (c0[i], c1[i]):
        d[k + "_per_conn"] = None
    else:
        d[k + "_per_conn"] = (float(c1[i]) - float(c0[i])) / n
d["switch_cpu_us_per_conn"] = sj / hz * 1e6 / n
d["path_cpu_us_per_conn"] = (sj + oj + hz * d["cpu_s"]) / hz * 1e6 / n
print(json.dumps(d))
EOF
}

# ---- one pass: each switch and flow set in turn, max then the knee -------
# A repeat is a pass over every configuration (started, warmed, measured,
# stopped), so a shared machine's load drifting during the run weighs on every
# row alike; the medians are over the passes.
declare -A R S
CONFIGS=()
field() { python3 -c "import json,sys; d=json.loads(sys.argv[1]); v=d.get(sys.argv[2]); print('fail' if v is None else v)" "$1" "$2"; }
KEYS="max knee p99 up hits pins scpu pcpu"
measure_once() {  # DATAPATH FLOWSET REP
  local dp=$1 fs=$2 rep=$3 name=$1 f rate line best="" mx ok fails=0
  [[ $fs != - ]] && name="$dp/$fs"
  echo "bench-churn: $name (pass $rep) ..." >&2
  if ! start_switch "$dp" "$fs"; then
    stop_switch "$dp"
    for k in $KEYS; do S[$name,$k]+=" fail"; done
    [[ $rep == 1 ]] && CONFIGS+=("$name")
    return 0
  fi
  crr_step "$dp" --max --parallel "$PARALLEL" > /dev/null   # warm: learning, ARP
  [[ -n "$PROFILE_DIR" && $rep == 1 ]] && PROFILE_NAME=${name//\//-}
  line=$(crr_step "$dp" --max --parallel "$PARALLEL"); PROFILE_NAME=""
  mx=$(field "$line" connections_per_s)
  S[$name,max]+=" $mx"
  if [[ $mx != fail ]]; then
    for f in 0.3 0.5 0.7 0.85 1.0 1.15 1.3; do
      rate=$(python3 -c "print(max(1, round($mx * $f)))")
      line=$(crr_step "$dp" --rate "$rate")
      ok=$(python3 -c "
import json, sys
d = json.loads(sys.argv[1])
print(1 if not d.get('fail') and d['connections_per_s'] >= 0.95 * $rate and d['latency_p99_us'] <= $P99_BOUND_US else 0)" "$line")
      echo "bench-churn: $name pass $rep: offered $rate/s: $(field "$line" connections_per_s)/s completed, p99 $(field "$line" latency_p99_us) us, failed $(field "$line" failed) $([[ $ok == 1 ]] && echo pass || echo FAIL)" >&2
      # Two failed steps in a row end the climb (one may be a shared machine's hiccup).
      if [[ $ok == 1 ]]; then best=$line; fails=0; else fails=$((fails + 1)); [[ $fails == 2 ]] && break; fi
    done
  fi
  stop_switch "$dp"
  if [[ -z $best ]]; then
    for k in knee p99 up hits pins scpu pcpu; do S[$name,$k]+=" fail"; done
  else
    S[$name,knee]+=" $(field "$best" connections_per_s)"; S[$name,p99]+=" $(field "$best" latency_p99_us)"
    S[$name,up]+=" $(field "$best" upcalls_per_conn)"; S[$name,hits]+=" $(field "$best" hits_per_conn)"
    S[$name,pins]+=" $(field "$best" packet_ins_per_conn)"; S[$name,scpu]+=" $(field "$best" switch_cpu_us_per_conn)"
    S[$name,pcpu]+=" $(field "$best" path_cpu_us_per_conn)"
  fi
  local bj=${best:-"{}"}
  echo "bench-churn: $name pass $rep: max ${mx}/s, knee $(field "$bj" connections_per_s)/s, p99 $(field "$bj" latency_p99_us) us, per conn: upcalls $(field "$bj" upcalls_per_conn), hits $(field "$bj" hits_per_conn), packet-ins $(field "$bj" packet_ins_per_conn), switch CPU $(field "$bj" switch_cpu_us_per_conn) us, path CPU $(field "$bj" path_cpu_us_per_conn) us; uptime: $(uptime | sed 's/.*load/load/')" >&2
  S[$name,load]="$(uptime | sed 's/.*load average: //')"
  if [[ $rep == 1 ]]; then
    CONFIGS+=("$name")
    if [[ -n "$PROFILE_DIR" && -f $PROFILE_DIR/${name//\//-}.data ]]; then
      # Shares by process (the shared machine's other work included), then the top symbols.
      { perf report -i "$PROFILE_DIR/${name//\//-}.data" --no-children --sort comm -g none --percent-limit 1 --stdio
        perf report -i "$PROFILE_DIR/${name//\//-}.data" --no-children --sort comm,sym -g none --percent-limit 0.5 --stdio
      } 2>/dev/null | grep -v '^#' | grep -v '^$' | head -80 > "$PROFILE_DIR/${name//\//-}.txt" || true
    fi
  fi
}

bench_two_hosts $H1 $H2 10.0.1.1/16 $SERVER_ADDR/16
bench_direct_pair $D1 $D2 10.0.1.1/16 $SERVER_ADDR/16
for ns in $H1 $D1; do in_ns $ns sysctl -qw net.ipv4.ip_local_port_range="1024 65535"; done
prefix_flows > $RUN/prefix.flows
# The server: one process for the whole run (it never idles out; stopped at the end).
ip netns exec $H2 "$BIN" lab tcp-crr-server --port $CRR_PORT --timeout 86400 > $RUN/server.json 2> $RUN/server.err &
SERVER_PID=$!; CPU_SERVER_PID=$SERVER_PID
ip netns exec $D2 "$BIN" lab tcp-crr-server --port $CRR_PORT --timeout 86400 > $RUN/dserver.json 2> $RUN/dserver.err &
DSERVER_PID=$!
sleep 0.3

for rep in $(seq "$REPEATS"); do
  for dp in $DATAPATHS; do
    if [[ $dp == bridge || $dp == direct ]]; then measure_once $dp - $rep; continue; fi
    for fs in $FLOWSETS; do measure_once "$dp" "$fs" $rep; done
  done
done
for c in "${CONFIGS[@]}"; do
  # shellcheck disable=SC2086  # the samples are a space-separated list
  for k in $KEYS; do R[$c,$k]=$(median ${S[$c,$k]}); done
  R[$c,load]=${S[$c,load]}
done

printf "\n%-22s %10s %10s %9s %10s %10s %10s %11s %11s  %s\n" "switch/flow set" "knee c/s" "max c/s" "p99 us" \
  "upcalls/c" "hits/c" "pins/c" "switch us/c" "path us/c" "load (1/5/15)"
for c in "${CONFIGS[@]}"; do
  printf "%-22s %10s %10s %9s %10s %10s %10s %11s %11s  %s\n" "$c" "${R[$c,knee]:-fail}" "${R[$c,max]:-fail}" \
    "${R[$c,p99]:-fail}" "${R[$c,up]:-fail}" "${R[$c,hits]:-fail}" "${R[$c,pins]:-fail}" "${R[$c,scpu]:-fail}" \
    "${R[$c,pcpu]:-fail}" "${R[$c,load]:-}"
done
printf "(medians of %s; knee: the highest open-loop step with >= 95%% completed and p99 <= %s us, %s s a step;\n" \
  "$REPEATS" "$P99_BOUND_US" "$DUR"
printf " max: closed loop, %s in flight; per connection at the knee: upcalls (tc: TC program upcalls; afp: flow-cache\n" "$PARALLEL"
printf " misses; ovs: dpif-netdev missed), fast-path/cache hits, packet-ins, CPU us of the switch's processes and of\n"
printf " the whole path (client, server, switch, controller, ksoftirqd); %s-byte request/response; uptime at the end: %s)\n" \
  "$SIZE" "$(uptime | sed 's/.*load/load/')"
printf "\nratios of connections/s at the knee (targets: flowlab-tc >= 1.0x the bridge and >= 3x OVS)\n"
for fs in $FLOWSETS; do
  printf "%-10s flowlab-tc vs bridge %6s, vs ovs %6s, vs direct %6s; flowlab-afp vs ovs %6s; ovs vs direct %6s\n" "$fs" \
    "$(ratio "${R[flowlab-tc/$fs,knee]:-fail}" "${R[bridge,knee]:-fail}")" \
    "$(ratio "${R[flowlab-tc/$fs,knee]:-fail}" "${R[ovs/$fs,knee]:-fail}")" \
    "$(ratio "${R[flowlab-tc/$fs,knee]:-fail}" "${R[direct,knee]:-fail}")" \
    "$(ratio "${R[flowlab-afp/$fs,knee]:-fail}" "${R[ovs/$fs,knee]:-fail}")" \
    "$(ratio "${R[ovs/$fs,knee]:-fail}" "${R[direct,knee]:-fail}")"
done

if [[ -n "$OUT" ]]; then
  {
    echo "{"
    first=1
    for c in "${CONFIGS[@]}"; do
      [[ $first == 1 ]] || echo ","
      first=0
      printf '  "%s": {"knee_cps": "%s", "max_cps": "%s", "p99_us": "%s", "upcalls_per_conn": "%s", "hits_per_conn": "%s", "packet_ins_per_conn": "%s", "switch_cpu_us_per_conn": "%s", "path_cpu_us_per_conn": "%s", "load": "%s"}' \
        "$c" "${R[$c,knee]:-fail}" "${R[$c,max]:-fail}" "${R[$c,p99]:-fail}" "${R[$c,up]:-fail}" "${R[$c,hits]:-fail}" \
        "${R[$c,pins]:-fail}" "${R[$c,scpu]:-fail}" "${R[$c,pcpu]:-fail}" "${R[$c,load]:-}"
    done
    echo; echo "}"
  } > "$OUT"
fi
