#!/usr/bin/env bash
# bench-cluster.sh: a cluster of three `flowlab controller --cluster` nodes on
# a three-member etcd under faults, with flowlab switches and with OVS. A
# benchmark, not a test (tests/cluster/ holds the tests).
#
# Per backend: etcd 3.4 (Debian's /usr/bin/etcd) x 3 on loopback ports, data
# under /dev/shm; three controllers (learning-switch, --lease-ttl 1, peer
# links on loopback); SWITCHES switches (flowlab: one `flowlab switch` process
# each, fail-mode secure; ovs: netdev bridges in one ovs-vswitchd, OpenFlow13,
# fail_mode secure), each given all three controllers, each with two hosts A
# and B (namespaces, veths). scripts/cluster_probe.py sends from every A,
# every INTERVAL_MS (default 20):
#   - a new flow: an ARP request from a MAC never seen (two packet-ins: the
#     broadcast request, B's reply to the fresh MAC); answered = served;
#   - an established flow: an ICMP echo A -> B, flows installed before.
# Faults, REPS times each, in this order per repetition:
#   kill    the master of switch 1 killed with SIGKILL (target: a new master
#           serving packet-ins within 100 ms); then it is started again and
#           the rebalance measured as "rejoin" (a hand-off loses no packet-in)
#   stop    the master of switch 1 hung with SIGSTOP (lease expiry; target: a
#           new master within 2 s); then SIGCONT, measured as "resume": it
#           must step down (log), and no switch may change master more than
#           once while it rejoins (a fight would flip them back and forth)
#   etcd1   the etcd leader killed: no mastership change (dpid, master and
#           generation id identical in cluster-status 3 s later); restarted
#   quorum  the etcd leader and one more member killed: every node keeps its
#           masters (its --stats-json) and says "etcd unreachable"; service
#           goes on; both restarted, then the masters are compared again
#   none    no fault: a 3 s window measured the same way, the baseline of
#           each backend (not in the default list: --faults "none ...")
# Per fault: gap = the longest time, over every switch, without an answered
# new flow (last reply before the fault to the first after it); loss = the
# established probes without an echo reply within 1 s, summed over switches.
# Compared with ONOS's published 0.33-0.52 s (0.412 s with 3 nodes: last
# answered packet-in -> the new master's role request, a packet-in every 50 ms).
# Last, a balance check: BALANCE switches without hosts (flowlab: a TAP port
# each; ovs: bridges with no port) on a fresh cluster: every switch mastered,
# each node's share (the issue: 100 switches, each node 28-39 of them).
#
# Usage: sudo scripts/bench-cluster.sh [--quick] [--backend flowlab|ovs|all]
#          [--reps N] [--switches N] [--balance N] [--faults "kill stop etcd1 quorum"]
#          [--interval MS] [--flowlab BIN]
# Environment: REPS (20), SWITCHES (12), BALANCE (100; 0 skips it), INTERVAL_MS (20),
# FLOWLAB (build/release/flowlab), OUT (a file for the result lines).
# --quick: REPS=2 SWITCHES=3 BALANCE=12 (a smoke run, a few minutes).
# Prints a line per fault and repetition, then the table. Everything it makes
# (namespaces, veths, taps, processes, etcd data, OVS run dir) is removed on
# exit, error or Ctrl-C; each backend's logs are copied to
# /tmp/flowlab-cluster-logs/BACKEND/.
set -uo pipefail

HERE=$(cd "$(dirname "$0")/.." && pwd)
if [[ -z ${FLOWLAB:-} ]]; then
  FLOWLAB=$HERE/build/release/flowlab
  [[ -x $FLOWLAB ]] || FLOWLAB=$HERE/build/dev/flowlab
fi
REPS=${REPS:-20} SWITCHES=${SWITCHES:-12} BALANCE=${BALANCE:-100} INTERVAL_MS=${INTERVAL_MS:-20}
BACKENDS=all FAULTS="kill stop etcd1 quorum"
PY=/usr/bin/python3
PROBE=$HERE/scripts/cluster_probe.py
while [[ $# -gt 0 ]]; do
  case $1 in
    --quick) REPS=2 SWITCHES=3 BALANCE=12; shift ;;
    --backend) BACKENDS=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --switches) SWITCHES=$2; shift 2 ;;
    --balance) BALANCE=$2; shift 2 ;;
    --faults) FAULTS=$2; shift 2 ;;
    --interval) INTERVAL_MS=$2; shift 2 ;;
    --flowlab) FLOWLAB=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-cluster: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $BACKENDS == all ]] && BACKENDS="flowlab ovs"

die() { echo "bench-cluster: $*" >&2; exit 2; }
[[ $(id -u) == 0 ]] || die "needs root (namespaces, veths, OVS)"
[[ -x $FLOWLAB ]] || die "no flowlab binary at $FLOWLAB (make release, or FLOWLAB=BIN)"
[[ -x /usr/bin/etcd ]] || die "no /usr/bin/etcd (apt-get install etcd-server)"
[[ -x $PY ]] || die "no $PY"
[[ -f $PROBE ]] || die "no $PROBE"
for t in ip curl jq timeout stat awk; do command -v $t >/dev/null || die "no $t on PATH"; done
if [[ " $BACKENDS " == *" ovs "* ]]; then
  for t in ovsdb-tool ovsdb-server ovs-vswitchd ovs-vsctl; do
    command -v $t >/dev/null || die "no $t (apt-get install openvswitch-switch), or --backend flowlab"
  done
  [[ -f /usr/share/openvswitch/vswitch.ovsschema ]] || die "no /usr/share/openvswitch/vswitch.ovsschema"
fi
for b in $BACKENDS; do [[ $b == flowlab || $b == ovs ]] || die "--backend: flowlab, ovs or all, not $b"; done
for f in $FAULTS; do [[ $f =~ ^(kill|stop|etcd1|quorum|none)$ ]] || die "--faults: kill stop etcd1 quorum none, not $f"; done
for n in "$REPS" "$SWITCHES" "$INTERVAL_MS"; do [[ $n =~ ^[1-9][0-9]*$ ]] || die "REPS/SWITCHES/INTERVAL_MS: positive numbers"; done
[[ $BALANCE =~ ^[0-9]+$ ]] || die "BALANCE: a number (0 skips the balance check)"
(( SWITCHES <= 250 && BALANCE <= 1000 )) || die "SWITCHES <= 250, BALANCE <= 1000"

P=cl$(( $$ % 100000 ))   # name prefix, unique per run (interface names stay <= 15 characters)
RUN=$(mktemp -d /tmp/flowlab-bench-cluster.XXXXXX)
ETCD_DIR=$(mktemp -d /dev/shm/flowlab-bench-cluster-etcd.XXXXXX)
RESULTS=${OUT:-$RUN/results.txt}
: >"$RESULTS"
REC=$RUN/records.txt
CLUSTER=bench$$
NODES=3
CTL_PID=() CTL_PORT=() ETCD_PID=() ETCD_CPORT=() ETCD_PPORT=() PIDS=() NSS=() LINKS=()
PROBER= OVS_UP=

cleanup() {
  set +e
  [[ -n $PROBER ]] && kill "$PROBER" 2>/dev/null
  for p in "${CTL_PID[@]}" "${ETCD_PID[@]}"; do [[ -n $p ]] && kill -CONT "$p" 2>/dev/null; done
  for p in "${PIDS[@]}" "${CTL_PID[@]}"; do [[ -n $p ]] && kill "$p" 2>/dev/null; done
  sleep 0.3
  for p in $PROBER "${PIDS[@]}" "${CTL_PID[@]}" "${ETCD_PID[@]}"; do
    [[ -n $p ]] && { kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; }
  done
  PROBER= CTL_PID=() ETCD_PID=() PIDS=()
  if [[ -n $OVS_UP ]]; then
    for f in "$RUN"/ovs/ovs-vswitchd.pid "$RUN"/ovs/ovsdb-server.pid; do
      [[ -f $f ]] && kill "$(cat "$f")" 2>/dev/null
    done
    sleep 0.3
    for f in "$RUN"/ovs/ovs-vswitchd.pid "$RUN"/ovs/ovsdb-server.pid; do
      [[ -f $f ]] && kill -9 "$(cat "$f")" 2>/dev/null
    done
    OVS_UP=
  fi
  for l in "${LINKS[@]}"; do ip link del "$l" 2>/dev/null; done
  for n in "${NSS[@]}"; do ip netns del "$n" 2>/dev/null; done
  LINKS=() NSS=()
  rm -rf "${ETCD_DIR:?}"/* "$RUN/ovs"
}
trap 'cleanup; rm -rf "$RUN" "$ETCD_DIR"' EXIT
trap 'exit 130' INT TERM

now() { date +%s.%N; }
ms_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.0f", (b - a) * 1000 }'; }
log() { echo "$(date -u +%H:%M:%S) $*" >&2; }

free_ports() {  # free_ports N: N distinct free loopback TCP ports
  $PY - "$1" <<'PY'
import socket, sys
ss = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); ss.append(s)
print(" ".join(str(s.getsockname()[1]) for s in ss))
PY
}

# ---- etcd ----
etcd_endpoints() {
  local e= i
  for i in 0 1 2; do e+="${e:+,}http://127.0.0.1:${ETCD_CPORT[$i]}"; done
  echo "$e"
}
etcd_start() {  # etcd_start I (again on its data dir after a kill)
  local i=$1 init= j
  for j in 0 1 2; do init+="${init:+,}m$j=http://127.0.0.1:${ETCD_PPORT[$j]}"; done
  /usr/bin/etcd --name "m$i" --data-dir "$ETCD_DIR/m$i" \
    --listen-client-urls "http://127.0.0.1:${ETCD_CPORT[$i]}" --advertise-client-urls "http://127.0.0.1:${ETCD_CPORT[$i]}" \
    --listen-peer-urls "http://127.0.0.1:${ETCD_PPORT[$i]}" --initial-advertise-peer-urls "http://127.0.0.1:${ETCD_PPORT[$i]}" \
    --initial-cluster "$init" --initial-cluster-token "flowlab-bench-$$" --initial-cluster-state new \
    --heartbeat-interval 50 --election-timeout 500 --logger zap >>"$RUN/etcd-m$i.log" 2>&1 &
  ETCD_PID[$i]=$!
}
etcd_kill() { kill -9 "${ETCD_PID[$1]}" 2>/dev/null; wait "${ETCD_PID[$1]}" 2>/dev/null; ETCD_PID[$1]=; }
etcd_healthy() {  # every running member answers /health true
  local i
  for i in 0 1 2; do
    [[ -n ${ETCD_PID[$i]} ]] || continue
    curl -s --max-time 1 "http://127.0.0.1:${ETCD_CPORT[$i]}/health" | grep -q '"health":"true"' || return 1
  done
}
etcd_leader() {  # the index of the member that leads, or the first running one
  local i st id lead
  for i in 0 1 2; do
    [[ -n ${ETCD_PID[$i]} ]] || continue
    st=$(curl -s --max-time 1 -X POST -d '{}' "http://127.0.0.1:${ETCD_CPORT[$i]}/v3/maintenance/status")
    id=$(jq -r '.header.member_id // empty' <<<"$st" 2>/dev/null)
    lead=$(jq -r '.leader // empty' <<<"$st" 2>/dev/null)
    [[ -n $id && $id == "$lead" ]] && { echo "$i"; return; }
  done
  for i in 0 1 2; do [[ -n ${ETCD_PID[$i]} ]] && { echo "$i"; return; }; done
}
wait_for() {  # wait_for SECONDS CMD...: until CMD succeeds (every 0.1 s) or the time is up
  local end; end=$(awk -v t="$(now)" -v s="$1" 'BEGIN { printf "%.3f", t + s }'); shift
  while :; do
    "$@" && return 0
    awk -v e="$end" -v t="$(now)" 'BEGIN { exit !(t > e) }' && return 1
    sleep 0.1
  done
}

# ---- controllers ----
ctl_start() {  # ctl_start I
  local i=$1 before
  before=$(count "joined cluster" "$RUN/c$i.log")
  "$FLOWLAB" controller --cluster "$EP" --cluster-name "$CLUSTER" --node "c$i" \
    --listen "ptcp:${CTL_PORT[$i]}:127.0.0.1" --peer 127.0.0.1:0 --lease-ttl 1 \
    --stats-json "$RUN/c$i-stats.json" --app learning-switch --log-level info >>"$RUN/c$i.log" 2>&1 &
  CTL_PID[$i]=$!
  wait_for 20 joined "$i" "${before:-0}"
}
joined() { (( $(count "joined cluster" "$RUN/c$1.log") > $2 )); }
ctl_kill() { kill -9 "${CTL_PID[$1]}" 2>/dev/null; wait "${CTL_PID[$1]}" 2>/dev/null; CTL_PID[$1]=; }
status() { timeout 5 "$FLOWLAB" controller cluster-status --cluster "$EP" --cluster-name "$CLUSTER" --json 2>/dev/null; }
master_of() {  # master_of DPID: "NODE GENERATION" ("null 0" if none)
  status | jq -r --arg d "$(printf %016x "$1")" '.switches[] | select(.dpid == $d) | "\(.master) \(.generation_id)"'
}
snapshot() { status | jq -r '.switches[] | "\(.dpid) \(.master) \(.generation_id)"' | sort; }
stats_masters() {  # stats_masters I: switches the node's switches granted it MASTER (its --stats-json)
  jq -r '.role.switches_master // 0' "$RUN/c$1-stats.json" 2>/dev/null || echo 0
}
shares() {  # "c0=N c1=N c2=N unmastered=N switches=N" from cluster-status
  status | jq -r '[.switches[] | .master] as $m | ([range(0; 3) | "c\(.)" as $n | "\($n)=\([$m[] | select(. == $n)] | length)"]
    + ["unmastered=\([$m[] | select(. == null)] | length)", "switches=\($m | length)"]) | join(" ")'
}
balanced() {  # balanced N: N switches, all mastered, at most ceil(N/3) a node, the switches agree
  local n=$1 s cap=$(( ($1 + NODES - 1) / NODES )) total=0 i
  s=$(shares) || return 1
  [[ $s == *"unmastered=0 switches=$n"* ]] || return 1
  for i in 0 1 2; do
    local c; c=$(sed -n "s/.*c$i=\([0-9]*\).*/\1/p" <<<"$s")
    (( ${c:-0} <= cap )) || return 1
    total=$(( total + $(stats_masters "$i") ))
  done
  (( total == n ))
}
node_index() { echo "${1#c}"; }

cluster_up() {
  local ports; ports=($(free_ports 9))
  ETCD_CPORT=("${ports[@]:0:3}") ETCD_PPORT=("${ports[@]:3:3}") CTL_PORT=("${ports[@]:6:3}")
  ETCD_PID=("" "" "")
  for i in 0 1 2; do etcd_start $i; done
  wait_for 30 etcd_healthy || die "etcd did not become healthy in 30 s (see $RUN/etcd-m*.log)"
  EP=$(etcd_endpoints)
  for i in 0 1 2; do
    ctl_start $i || { tail -5 "$RUN/c$i.log" >&2; die "controller c$i did not join in 20 s"; }
  done
  CTL_ARGS=()
  for i in 0 1 2; do CTL_ARGS+=(--controller "tcp:127.0.0.1:${CTL_PORT[$i]}"); done
}

# ---- hosts and switches ----
mac() { printf '02:00:00:%02x:%02x:%02x' $(( $1 >> 8 )) $(( $1 & 255 )) "$2"; }
addr() { echo "10.$(( $1 >> 8 )).$(( $1 & 255 )).$2"; }
host() {  # host SW a|b: namespace $P${SW}a, eth0 = .1/.2, switch side $P$SW$a
  local s=$1 h=$2 n i
  [[ $h == a ]] && i=1 || i=2
  n="$P$s$h"
  ip netns add "$n" && NSS+=("$n")
  ip link add "$n" type veth peer name eth0 netns "$n" && LINKS+=("$n")
  ip -n "$n" link set eth0 address "$(mac "$s" $i)"
  ip -n "$n" addr add "$(addr "$s" $i)/24" dev eth0
  ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
  sysctl -qw "net.ipv6.conf.$n.disable_ipv6=1"
  ip -n "$n" link set eth0 up
  ip -n "$n" link set lo up
  ip link set "$n" up
  # static ARP both ways: the established flow is about forwarding, not ARP timers
  ip -n "$n" neigh replace "$(addr "$s" $(( 3 - i )))" lladdr "$(mac "$s" $(( 3 - i )))" dev eth0 nud permanent
  [[ $h == a ]] && ip -n "$n" link set eth0 promisc on
  return 0
}
ovs-vsctl() { command ovs-vsctl --timeout=10 --db="unix:$RUN/ovs/db.sock" "$@"; }
ovs_up() {
  mkdir -p "$RUN/ovs"
  export OVS_RUNDIR=$RUN/ovs OVS_LOGDIR=$RUN/ovs OVS_DBDIR=$RUN/ovs
  ovsdb-tool create "$RUN/ovs/conf.db" /usr/share/openvswitch/vswitch.ovsschema || die "ovsdb-tool create failed"
  OVS_UP=1
  ovsdb-server "$RUN/ovs/conf.db" --remote="punix:$RUN/ovs/db.sock" --pidfile="$RUN/ovs/ovsdb-server.pid" \
    --detach --log-file="$RUN/ovs/ovsdb-server.log" 2>>"$RUN/ovs/start.log" || die "ovsdb-server did not start"
  ovs-vsctl --no-wait init || die "ovs-vsctl init failed"
  ovs-vswitchd "unix:$RUN/ovs/db.sock" --pidfile="$RUN/ovs/ovs-vswitchd.pid" --detach \
    --log-file="$RUN/ovs/ovs-vswitchd.log" 2>>"$RUN/ovs/start.log" || die "ovs-vswitchd did not start"
}
ovs_bridge() {  # ovs_bridge DPID [PORT...]: a netdev bridge given the three controllers
  local d=$1 br="${P}b$1" n=1 args=() i ids=
  shift
  for i in 0 1 2; do
    args+=(-- --id=@c$i create controller "target=\"tcp:127.0.0.1:${CTL_PORT[$i]}\"" max_backoff=1000)
    ids+="${ids:+,}@c$i"
  done
  ovs-vsctl add-br "$br" -- set bridge "$br" datapath_type=netdev protocols=OpenFlow13 fail_mode=secure \
    other_config:datapath-id="$(printf %016x "$d")" other_config:disable-in-band=true || return 1
  LINKS+=("$br")
  for p in "$@"; do
    ovs-vsctl add-port "$br" "$p" -- set interface "$p" ofport_request=$n || return 1
    n=$((n + 1))
  done
  ovs-vsctl "${args[@]}" -- set bridge "$br" controller="$ids" >/dev/null
}
flowlab_switch() {  # flowlab_switch DPID PORT...
  local d=$1 args=() n=1
  shift
  for p in "$@"; do args+=(--port "$p=$n"); n=$((n + 1)); done
  "$FLOWLAB" switch --name "s$d" --dpid "$d" "${args[@]}" --fail-mode secure --reconnect-max 1 \
    "${CTL_ARGS[@]}" >"$RUN/s$d.log" 2>&1 &
  PIDS+=($!)
}

# every switch has answered a new flow and an echo in the last records
traffic_ok() {
  tail -n $(( SWITCHES * 400 )) "$REC" 2>/dev/null | awk -v n="$SWITCHES" '
    $5 != 0 { if ($1 == "n") a[$2] = 1; else b[$2] = 1 }
    END { c = 0; for (s in a) if (s in b) c++; exit !(c == n) }'
}

# ---- one window: OFFSET at the start, the fault at T, the end at TE ----
begin_window() { OFF=$(stat -c %s "$REC"); sleep 1; T=$(now); }
measure() {  # measure -> sets J (the window's JSON)
  J=$($PY "$PROBE" window "$REC" "$OFF" "$T" "$(now)" "$INTERVAL_MS")
}
record() {  # record BACKEND FAULT REP OK NOTE
  local g lost sent aff sw line
  g=$(jq -r '.gap_ms' <<<"$J") lost=$(jq -r '.est_lost' <<<"$J") sent=$(jq -r '.est_sent' <<<"$J")
  aff=$(jq -r '.affected' <<<"$J") sw=$(jq -r '.gap_switch' <<<"$J")
  line=$(printf '%-8s %-7s rep=%-3s gap_ms=%s lost=%s sent=%s affected=%s worst=s%s ok=%s %s' \
    "$1" "$2" "$3" "$g" "$lost" "$sent" "$aff" "$sw" "$4" "$5")
  echo "$line"
  echo "$line" >>"$RESULTS"
}
count() { local n; n=$(grep -c "$1" "$2" 2>/dev/null); echo "${n:-0}"; }
count_all() { local n=0 i; for i in 0 1 2; do n=$(( n + $(count "$1" "$RUN/c$i.log") )); done; echo $n; }

fault_kill() {  # fault_kill BACKEND REP
  local m gen i ok=yes note= revoked t_seen
  read -r m gen < <(master_of 1)
  [[ $m == c? ]] || { log "kill: switch 1 has no master ($m)"; return 1; }
  i=$(node_index "$m")
  revoked=$(count_all "revoking its lease")
  begin_window
  ctl_kill "$i"
  NEW_MASTER=
  if wait_for 10 new_master 1 "$m" "$gen"; then t_seen=$(ms_since "$T"); else ok=no t_seen=-; fi
  sleep 1.5
  measure
  (( $(count_all "revoking its lease") > revoked )) || { ok=no; note+=" no-revoke"; }
  record "$1" kill "$2" "$ok" "killed=$m new=${NEW_MASTER:-none} $(role_times) status_ms=$t_seen$note"
  # started again: the rebalance hands switches back to it
  begin_window
  ctl_start "$i" || log "c$i did not rejoin in 20 s"
  local ok2=yes
  wait_for 30 balanced "$SWITCHES" || ok2=no
  local took; took=$(ms_since "$T")
  sleep 1.5
  measure
  record "$1" rejoin "$2" "$ok2" "node=$m balanced_ms=$took shares=[$(shares | cut -d' ' -f1-3)]"
}
new_master() {  # new_master DPID OLD OLD_GEN: another node masters DPID with a larger generation id
  local m g
  read -r m g < <(master_of "$1")
  [[ $m == c? && $m != "$2" ]] && (( g > $3 )) && NEW_MASTER=$m
}

fault_stop() {  # fault_stop BACKEND REP
  local m gen i ok=yes note= t_seen downs refused
  read -r m gen < <(master_of 1)
  [[ $m == c? ]] || { log "stop: switch 1 has no master ($m)"; return 1; }
  i=$(node_index "$m")
  begin_window
  kill -STOP "${CTL_PID[$i]}"
  NEW_MASTER=
  if wait_for 10 new_master 1 "$m" "$gen"; then t_seen=$(ms_since "$T"); else ok=no t_seen=-; fi
  sleep 1.5
  measure
  record "$1" stop "$2" "$ok" "stopped=$m new=${NEW_MASTER:-none} $(role_times) status_ms=$t_seen"
  # resumed: it must step down, and the switches must not flip back and forth
  downs=$(count "stepping down from" "$RUN/c$i.log")
  refused=$(jq -r '(.role.role_refused // 0) + (.role.is_slave_errors // 0)' "$RUN/c$i-stats.json" 2>/dev/null || echo 0)
  begin_window
  kill -CONT "${CTL_PID[$i]}"
  local ok2=yes stepped=no
  wait_for 10 stepped_down "$i" "$downs" && stepped=yes || ok2=no
  # the master of every switch, sampled for 4 s while it rejoins
  : >"$RUN/flips"
  local end=$(( $(date +%s) + 4 ))
  while (( $(date +%s) < end )); do snapshot | awk '{ print $1, $2 }' >>"$RUN/flips"; sleep 0.3; done
  local fights; fights=$(awk '$2 != "null" { if (last[$1] != "" && last[$1] != $2) ch[$1]++; last[$1] = $2 }
    END { n = 0; for (d in ch) if (ch[d] > 1) n++; print n }' "$RUN/flips")
  (( fights == 0 )) || { ok2=no; cp "$RUN/flips" "$RUN/fight-rep$2.txt"; }
  local back=yes
  wait_for 10 balanced "$SWITCHES" || { ok2=no; in_cluster "$m" || back=no; }
  sleep 1
  local refused2; refused2=$(jq -r '(.role.role_refused // 0) + (.role.is_slave_errors // 0)' "$RUN/c$i-stats.json" 2>/dev/null || echo 0)
  measure
  record "$1" resume "$2" "$ok2" "node=$m stepped_down=$stepped rejoined=$back fights=$fights refused_late=$(( refused2 - refused )) shares=[$(shares | cut -d' ' -f1-3)]"
}
# Switch 1 after a kill or a stop, from the nodes' logs and the window: the
# fault -> the new master's role request (fault_to_role_ms), ONOS's measure
# (the last answered new flow before the fault -> that role request,
# last_pin_to_role_ms), and switch 1's own gap.
role_times() {
  local tr last
  tr=$($PY "$PROBE" logtime "$T" "dpid 0000000000000001: this node leads" "$RUN"/c[0-9].log)
  last=$(jq -r '.last_before["1"] // empty' <<<"$J")
  awk -v tr="$tr" -v t="$T" -v l="$last" -v g="$(jq -r '.gap_ms_per_switch["1"] // "-"' <<<"$J")" 'BEGIN {
    if (tr == "") printf "fault_to_role_ms=- last_pin_to_role_ms=- "
    else { printf "fault_to_role_ms=%.0f ", (tr - t) * 1000
           if (l == "") printf "last_pin_to_role_ms=- "; else printf "last_pin_to_role_ms=%.0f ", (tr - l) * 1000 }
    printf "s1_gap_ms=%s", g }'
}
stepped_down() { (( $(count "stepping down from" "$RUN/c$1.log") > $2 )); }

fault_etcd1() {  # fault_etcd1 BACKEND REP
  local before after l ok=yes changes
  before=$(snapshot)
  l=$(etcd_leader)
  begin_window
  etcd_kill "$l"
  sleep 3
  after=$(snapshot)
  measure
  changes=$(diff <(echo "$before") <(echo "$after") | grep -c '^>')
  [[ -n $after && $changes == 0 ]] || ok=no
  record "$1" etcd1 "$2" "$ok" "killed=m$l(leader) mastership_changes=$changes"
  etcd_start "$l"
  wait_for 20 etcd_healthy || log "etcd m$l not healthy 20 s after its restart"
}

fault_none() {  # fault_none BACKEND REP: the baseline, nothing done for 3 s
  local before changes ok=yes
  before=$(snapshot)
  begin_window
  sleep 3
  measure
  changes=$(diff <(echo "$before") <(snapshot) | grep -c '^>')
  [[ $changes == 0 ]] || ok=no
  record "$1" none "$2" "$ok" "mastership_changes=$changes"
}

fault_quorum() {  # fault_quorum BACKEND REP
  local before l o ok=yes said i kept=yes m0=() after changes
  before=$(snapshot)
  for i in 0 1 2; do m0[$i]=$(stats_masters "$i"); done
  said=$(count_all "etcd unreachable for")
  l=$(etcd_leader)
  o=$(( (l + 1) % 3 ))
  begin_window
  etcd_kill "$l"
  etcd_kill "$o"
  wait_for 15 all_said "$said" || ok=no
  local t_said; t_said=$(ms_since "$T")
  sleep 2
  for i in 0 1 2; do [[ $(stats_masters "$i") == "${m0[$i]}" ]] || kept=no; done
  [[ $kept == yes ]] || ok=no
  measure
  etcd_start "$l"
  etcd_start "$o"
  wait_for 30 etcd_healthy || { ok=no; log "etcd not healthy 30 s after the restarts"; }
  sleep 2
  after=$(snapshot)
  changes=$(diff <(echo "$before") <(echo "$after") | grep -c '^>')
  record "$1" quorum "$2" "$ok" "killed=m$l,m$o unreachable_logged_ms=$t_said masters_kept=$kept changes_after_quorum_back=$changes"
}
all_said() { (( $(count_all "etcd unreachable for") >= $1 + NODES )); }

in_cluster() { status | jq -e --arg n "$1" '[.nodes[].node] | index($n) != null' >/dev/null; }
# A node whose process runs but which has not been in the cluster (no key in
# etcd) for 5 s is stuck: recorded as a "stuck" line, killed and started again
# so that the next repetitions measure three nodes.
recover_stuck() {  # recover_stuck BACKEND REP FAULT
  local i line
  for i in 0 1 2; do
    [[ -n ${CTL_PID[$i]} ]] && kill -0 "${CTL_PID[$i]}" 2>/dev/null || continue
    in_cluster "c$i" && continue
    sleep 5
    in_cluster "c$i" && continue
    line=$(printf '%-8s stuck   rep=%-3s node=c%s after=%s: running, not in the cluster for 5 s; last cluster lines: %s' \
      "$1" "$2" "$i" "$3" "$(grep ' cluster: ' "$RUN/c$i.log" | tail -2 | cut -c1-160 | tr '\n' '|')")
    echo "$line"
    echo "$line" >>"$RESULTS"
    cp "$RUN/c$i.log" "$RUN/stuck-c$i-rep$2.txt"
    ctl_kill "$i"
    ctl_start "$i" || log "c$i did not join again in 20 s"
  done
}

# ---- a backend ----
run_backend() {  # run_backend flowlab|ovs
  local b=$1 s specs=()
  log "$b: etcd x3, controllers x3, $SWITCHES switches"
  : >"$REC"
  cluster_up
  [[ $b == ovs ]] && ovs_up
  for s in $(seq "$SWITCHES"); do
    host "$s" a
    host "$s" b
    if [[ $b == flowlab ]]; then
      flowlab_switch "$s" "$P${s}a" "$P${s}b"
    else
      ovs_bridge "$s" "$P${s}a" "$P${s}b" || die "ovs: bridge $s failed (see $RUN/ovs/ovs-vswitchd.log)"
    fi
    specs+=("$s,$P${s}a,eth0,$(mac "$s" 1),$(addr "$s" 1),$(mac "$s" 2),$(addr "$s" 2),$(addr "$s" 3)")
  done
  wait_for 60 balanced "$SWITCHES" || { status | head -c 2000 >&2; die "$b: $SWITCHES switches not mastered and balanced in 60 s"; }
  $PY "$PROBE" probe "$REC" "$INTERVAL_MS" "${specs[@]}" 2>"$RUN/probe.err" &
  PROBER=$!
  wait_for 20 traffic_ok || { cat "$RUN/probe.err" >&2; die "$b: not every switch serves new flows and echoes 20 s after the start"; }
  log "$b: $(shares), traffic on every switch; $REPS repetition(s) of: $FAULTS"
  sleep 2
  for r in $(seq "$REPS"); do
    for f in $FAULTS; do
      "fault_$f" "$b" "$r" || log "$b rep $r: $f not run"
      if ! wait_for 15 balanced "$SWITCHES"; then
        log "$b rep $r: not balanced 15 s after $f ($(shares))"
        recover_stuck "$b" "$r" "$f"
        wait_for 30 balanced "$SWITCHES" || log "$b rep $r: still not balanced ($(shares))"
      fi
      wait_for 10 traffic_ok || log "$b rep $r: traffic not back on every switch after $f"
    done
  done
  local keep=/tmp/flowlab-cluster-logs/$b
  rm -rf "$keep" && mkdir -p "$keep"
  cp "$RUN"/*.log "$RUN"/*.json "$RUN"/stuck-*.txt "$RUN"/fight-*.txt "$keep"/ 2>/dev/null
  [[ -d $RUN/ovs ]] && cp "$RUN"/ovs/*.log "$keep"/ 2>/dev/null
  cleanup
  rm -f "$RUN"/*.log "$RUN"/*.json "$RUN"/stuck-*.txt "$RUN"/fight-*.txt "$REC"
}

# ---- balance: BALANCE switches without hosts on a fresh cluster ----
run_balance() {  # run_balance flowlab|ovs
  local b=$1 d t0 line ok=yes
  log "balance: $BALANCE $b switches on 3 nodes"
  cluster_up
  [[ $b == ovs ]] && ovs_up
  t0=$(now)
  for d in $(seq "$BALANCE"); do
    if [[ $b == flowlab ]]; then
      LINKS+=("${P}t$d")
      flowlab_switch "$d" "tap:${P}t$d"
    else
      ovs_bridge "$d" || die "ovs: bridge $d failed"
    fi
  done
  wait_for 180 balanced "$BALANCE" || ok=no
  local took; took=$(ms_since "$t0")
  sleep 2
  local s; s=$(shares)
  local lo hi
  lo=$(awk -v n="$BALANCE" 'BEGIN { printf "%d", n * 0.28 }') hi=$(awk -v n="$BALANCE" 'BEGIN { printf "%d", n * 0.39 + 0.999 }')
  for i in 0 1 2; do
    local c; c=$(sed -n "s/.*c$i=\([0-9]*\).*/\1/p" <<<"$s")
    (( ${c:-0} >= lo && ${c:-0} <= hi )) || ok=no
  done
  line=$(printf '%-8s balance switches=%s %s granted=%s,%s,%s converged_ms=%s ok=%s (each node %s-%s)' "$b" "$BALANCE" "$s" \
    "$(stats_masters 0)" "$(stats_masters 1)" "$(stats_masters 2)" "$took" "$ok" "$lo" "$hi")
  echo "$line"
  echo "$line" >>"$RESULTS"
  cleanup
  rm -f "$RUN"/*.log "$RUN"/*.json
}

summary() {
  $PY - "$RESULTS" "$INTERVAL_MS" <<'PY'
import re, statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if " rep=" in l]
interval = sys.argv[2]
def val(r, k):
    for x in r:
        if x.startswith(k + "="):
            v = x.split("=", 1)[1]
            try: return float(v)
            except ValueError: return None
    return None
order = ["none", "kill", "rejoin", "stop", "resume", "etcd1", "quorum"]
target = {"none": "baseline (no fault)", "kill": "new master serving <= 100 ms", "stop": "new master <= 2 s", "rejoin": "no packet-in lost",
          "resume": "steps down, no fight", "etcd1": "no mastership change", "quorum": "masters kept, service on"}
print()
print(f"new flow every {interval} ms per switch; gap = longest time without an answered new flow (worst switch);")
print("loss = established echoes lost (all switches); ONOS published 330-520 ms (412 ms, 3 nodes)")
print(f"{'fault':<7} {'backend':<8} {'n':>3} {'gap med':>8} {'gap max':>8} {'loss med':>8} {'loss max':>8} {'ok':>6}  vs ONOS 330-520 ms / target")
for f in order:
    for b in ["flowlab", "ovs"]:
        rs = [r for r in rows if r[0] == b and r[1] == f]
        if not rs: continue
        g = [v for r in rs if (v := val(r, "gap_ms")) is not None]
        l = [v for r in rs if (v := val(r, "lost")) is not None]
        ok = sum(1 for r in rs if "ok=yes" in r)
        gm = statistics.median(g) if g else float("nan")
        cmp = "below" if gm < 330 else ("within" if gm <= 520 else "above")
        print(f"{f:<7} {b:<8} {len(rs):>3} {gm:>8.0f} {max(g) if g else float('nan'):>8.0f} "
              f"{statistics.median(l) if l else float('nan'):>8.0f} {max(l) if l else float('nan'):>8.0f} "
              f"{ok:>3}/{len(rs):<2}  {cmp}; {target[f]}")
stuck = [l.split() for l in open(sys.argv[1]) if " stuck " in l]
for b in ["flowlab", "ovs"]:
    n = [r for r in stuck if r[0] == b]
    if n:
        print(f"{b}: a node stuck out of the cluster {len(n)} time(s), after: " + ", ".join(r[4].rstrip(":") for r in n))
for l in open(sys.argv[1]):
    if " balance " in l:
        print(l.rstrip())
PY
}

log "$FLOWLAB ($("$FLOWLAB" --version 2>/dev/null | head -1)), REPS=$REPS SWITCHES=$SWITCHES BALANCE=$BALANCE interval ${INTERVAL_MS} ms, backends: $BACKENDS; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for b in $BACKENDS; do run_backend "$b"; done
if (( BALANCE > 0 )); then for b in $BACKENDS; do run_balance "$b"; done; fi
summary
[[ -n ${OUT:-} ]] || cp "$RESULTS" /tmp/flowlab-cluster-results.txt
log "done; result lines in ${OUT:-/tmp/flowlab-cluster-results.txt}; load: $(cut -d' ' -f1-3 /proc/loadavg)"
