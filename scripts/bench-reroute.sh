#!/usr/bin/env bash
# bench-reroute.sh: how fast a controller gets a looped network forwarding,
# and how long traffic stops when a link fails. A benchmark, not a test.
#
# Ring of 4 switches (s1-s2-s3-s4-s1), h1 on s1, h2 on s2 (neighbours); the
# s1-s2 cable runs through a wire namespace (two veths on a Linux bridge with
# group_fwd_mask 0x4000 so LLDP passes; for os-ken's STP rows the two veths
# redirect to each other with tc mirred instead, since no bridge forwards
# BPDUs and STP would not see that cable at all). h1 pings h2 every 10 ms. Figures:
#   (a) controller start -> first echo reply (switches connect right after
#       the controller starts; nothing learned before);
#   (b) longest time without a reply when the s1-s2 cable loses carrier at
#       both ends (both switches send port-status);
#   (c) the same when the cable silently drops every frame (TC ingress drop
#       on both wire-namespace veths, TC_ACT_SHOT) while both ports stay up.
# Switches: flowlab (`flowlab switch`, fail-mode secure) or OVS
# (ovs-vswitchd, datapath_type=netdev, private run dir). Controllers: flowlab
# shortest-path, os-ken stp_switch_13.py, os-ken shortest_path_13.py
# (--observe-links), from ../shared/peers with Debian's /usr/bin/python3.
#
# Switch kinds: flowlab (default datapath: tc, the eBPF fast path), flowlab-afp
# (`--datapath af-packet`, no BPF program to load at start), ovs.
#
# Usage: sudo scripts/bench-reroute.sh [--switch flowlab|flowlab-afp|ovs|all]
#          [--controller flowlab|osken-stp|osken-sp|all] [--flowlab BIN] [--cap S]
#          [--repeat N] [--stp-repeat N] [--interval S]
# Default: every switch kind with every controller (`--all` is the same), one
# run each; --repeat 3 runs each combination 3 times and adds a median line.
# Prints one line per run: switch controller a_ms b_ms c_ms, the ping's real
# spacing, and for flowlab controllers where (b)'s time went (from the logs).
# Everything it makes (namespaces, veths, bridges, qdiscs, processes) is
# removed on exit, error or Ctrl-C.
set -euo pipefail

HERE=$(cd "$(dirname "$0")/.." && pwd)
if [[ -z ${FLOWLAB:-} ]]; then  # a Release build when there is one
  FLOWLAB=$HERE/build/release/flowlab
  [[ -x $FLOWLAB ]] || FLOWLAB=$HERE/build/dev/flowlab
fi
if [[ -z ${PEERS:-} ]]; then  # ../shared/peers from /work/main, ../../shared/peers from a worktree
  PEERS=$HERE/../shared/peers
  [[ -d $PEERS ]] || PEERS=$HERE/../../shared/peers
fi
SWITCHES=all CONTROLLERS=all CAP= REPEAT=1 STP_REPEAT=
# iputils ping 20221126 on this kernel sends every ~16 ms with -i 0.01 and
# every ~10.5 ms with -i 0.009 (measured on loopback); the issue asks for a
# ping every 10 ms, so 0.009 is the default. The real spacing is printed.
INTERVAL=0.009
while [[ $# -gt 0 ]]; do
  case $1 in
    --switch) SWITCHES=$2; shift 2 ;;
    --controller) CONTROLLERS=$2; shift 2 ;;
    --flowlab) FLOWLAB=$2; shift 2 ;;
    --cap) CAP=$2; shift 2 ;;
    --repeat) REPEAT=$2; shift 2 ;;
    --stp-repeat) STP_REPEAT=$2; shift 2 ;;
    --interval) INTERVAL=$2; shift 2 ;;
    --all) shift ;;
    *) echo "bench-reroute: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $SWITCHES == all ]] && SWITCHES="flowlab flowlab-afp ovs"
[[ $CONTROLLERS == all ]] && CONTROLLERS="flowlab osken-stp osken-sp"
[[ $(id -u) == 0 ]] || { echo "bench-reroute: needs root" >&2; exit 2; }
[[ -x $FLOWLAB ]] || { echo "bench-reroute: no flowlab binary at $FLOWLAB" >&2; exit 2; }
STP_REPEAT=${STP_REPEAT:-$REPEAT}
if [[ $CONTROLLERS == *osken* ]]; then
  for f in stp_switch_13.py shortest_path_13.py; do
    [[ -f $PEERS/$f ]] || { echo "bench-reroute: no $PEERS/$f (set PEERS=DIR)" >&2; exit 2; }
  done
  [[ -x /usr/bin/osken-manager ]] || { echo "bench-reroute: /usr/bin/osken-manager not installed" >&2; exit 2; }
fi
for n in "$REPEAT" "$STP_REPEAT"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "bench-reroute: --repeat/--stp-repeat need a positive number" >&2; exit 2; }
done
echo "bench-reroute: $FLOWLAB, ping -i $INTERVAL, $REPEAT run(s) per combination" >&2

P=rr$(( $$ % 10000 ))          # name prefix, unique per run
RUN=$(mktemp -d /tmp/flowlab-reroute.XXXXXX)
W=${P}w                         # wire namespace
PIDS=()

cleanup() {
  set +e
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  sleep 0.3
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  PIDS=()
  for f in "$RUN"/ovs-vswitchd.pid "$RUN"/ovsdb-server.pid; do
    [[ -f $f ]] && kill "$(cat "$f")" 2>/dev/null
  done
  sleep 0.2
  for l in h1 h2 a1 b2 c2 c3 d3 d4 e4 e1; do ip link del "$P$l" 2>/dev/null; done
  for s in 1 2 3 4; do ip link del "${P}s$s" 2>/dev/null; done  # OVS netdev bridges' tap devices
  for n in "$W" "${P}h1" "${P}h2"; do ip netns del "$n" 2>/dev/null; done
  rm -f "$RUN"/*.pid "$RUN"/conf.db "$RUN"/db.sock "$RUN"/.conf.db.~lock~
}
trap 'cleanup; rm -rf "$RUN"' EXIT
trap 'exit 130' INT TERM

now() { date +%s.%N; }

host() {  # host NAME IP MAC: namespace NAME with eth0 = IP, switch side $P<NAME>
  ip netns add "$P$1"
  ip link add "$P$1" type veth peer name "$P$1x"
  ip link set "$P$1x" netns "$P$1"
  ip -n "$P$1" link set "$P$1x" name eth0
  ip -n "$P$1" link set eth0 address "$3"
  ip -n "$P$1" addr add "$2/24" dev eth0
  ip -n "$P$1" link set eth0 up
  ip -n "$P$1" link set lo up
}
cable() {  # cable A B: a veth pair between two switch ports in the root namespace
  ip link add "$P$1" type veth peer name "$P$2"
}
topology() {
  host h1 10.0.0.1 02:00:00:00:01:01
  host h2 10.0.0.2 02:00:00:00:01:02
  # Static ARP: the figures are about forwarding, not about ARP retry timers
  # (h2 stays unknown to the controller until it answers the first echo).
  ip -n "${P}h1" neigh replace 10.0.0.2 lladdr 02:00:00:00:01:02 dev eth0 nud permanent
  ip -n "${P}h2" neigh replace 10.0.0.1 lladdr 02:00:00:00:01:01 dev eth0 nud permanent
  ip netns add "$W"
  ip link add "${P}a1" type veth peer name wa netns "$W"
  ip link add "${P}b2" type veth peer name wb netns "$W"
  if [[ $1 == mirred ]]; then
    # Each veth's ingress redirected to the other's egress: every frame
    # passes, BPDUs (01:80:c2:00:00:00) included, which no Linux bridge
    # forwards (group_fwd_mask cannot carry bit 0); used for the STP rows.
    # (u32 match-all: this kernel has no cls_matchall)
    for l in wa wb lo; do ip -n "$W" link set "$l" up; done
    tc -n "$W" qdisc add dev wa clsact
    tc -n "$W" qdisc add dev wb clsact
    tc -n "$W" filter add dev wa ingress pref 10 protocol all u32 match u32 0 0 action mirred egress redirect dev wb
    tc -n "$W" filter add dev wb ingress pref 10 protocol all u32 match u32 0 0 action mirred egress redirect dev wa
  else
    ip -n "$W" link add wbr type bridge stp_state 0
    ip -n "$W" link set wbr type bridge group_fwd_mask 0x4000
    ip -n "$W" link set wa master wbr
    ip -n "$W" link set wb master wbr
    for l in wbr wa wb lo; do ip -n "$W" link set "$l" up; done
  fi
  cable c2 c3
  cable d3 d4
  cable e4 e1
  for l in h1 h2 a1 b2 c2 c3 d3 d4 e4 e1; do
    sysctl -qw "net.ipv6.conf.$P$l.disable_ipv6=1"
    ip link set "$P$l" up
  done
}
# Switch ports, in OpenFlow port order.
ports_of() {
  case $1 in
    1) echo "h1 a1 e1" ;;
    2) echo "h2 b2 c2" ;;
    3) echo "c3 d3" ;;
    4) echo "d4 e4" ;;
  esac
}

start_switches() {  # start_switches KIND CTLPORT
  if [[ $1 == flowlab* ]]; then
    local dp=()
    [[ $1 == flowlab-afp ]] && dp=(--datapath af-packet)
    for s in 1 2 3 4; do
      args=()
      n=1
      for p in $(ports_of $s); do args+=(--port "$P$p=$n"); n=$((n + 1)); done
      "$FLOWLAB" switch --name "s$s" --dpid "$s" "${args[@]}" "${dp[@]}" --fail-mode secure \
        --controller "tcp:127.0.0.1:$2" >"$RUN/s$s.log" 2>&1 &
      PIDS+=($!)
    done
  else
    for s in 1 2 3 4; do
      ovs-vsctl set-controller "${P}s$s" "tcp:127.0.0.1:$2"
    done
  fi
}
prepare_ovs() {
  export OVS_RUNDIR=$RUN OVS_LOGDIR=$RUN OVS_DBDIR=$RUN
  ovsdb-tool create "$RUN/conf.db" /usr/share/openvswitch/vswitch.ovsschema
  ovsdb-server "$RUN/conf.db" --remote="punix:$RUN/db.sock" --pidfile="$RUN/ovsdb-server.pid" --detach \
    --log-file="$RUN/ovsdb-server.log"
  ovs-vsctl --no-wait init
  ovs-vswitchd "unix:$RUN/db.sock" --pidfile="$RUN/ovs-vswitchd.pid" --detach --log-file="$RUN/ovs-vswitchd.log"
  export OVS_DB="unix:$RUN/db.sock"
  for s in 1 2 3 4; do
    ovs-vsctl add-br "${P}s$s" -- set bridge "${P}s$s" datapath_type=netdev \
      protocols=OpenFlow10,OpenFlow13 other_config:datapath-id="$(printf %016x $s)"
    ovs-vsctl set-fail-mode "${P}s$s" secure
    n=1
    for p in $(ports_of $s); do
      ovs-vsctl add-port "${P}s$s" "$P$p" -- set interface "$P$p" ofport_request=$n
      n=$((n + 1))
    done
  done
}
ovs-vsctl() { command ovs-vsctl --db="${OVS_DB:-unix:$RUN/db.sock}" "$@"; }

start_controller() {  # start_controller KIND PORT
  case $1 in
    flowlab) "$FLOWLAB" controller --listen "ptcp:$2:127.0.0.1" --app shortest-path ${CTL_ARGS:-} >"$RUN/ctl.log" 2>&1 & ;;
    osken-stp) /usr/bin/osken-manager --ofp-listen-host 127.0.0.1 --ofp-tcp-listen-port "$2" \
                 "$PEERS/stp_switch_13.py" >"$RUN/ctl.log" 2>&1 & ;;
    osken-sp) /usr/bin/osken-manager --observe-links --ofp-listen-host 127.0.0.1 --ofp-tcp-listen-port "$2" \
                "$PEERS/shortest_path_13.py" >"$RUN/ctl.log" 2>&1 & ;;
  esac
  PIDS+=($!)
}

# Longest gap (ms) between replies around an event at T (epoch s) in ping -D output;
# with FIRST, the time from T to the first reply.
gap_ms() {  # gap_ms FILE T [first]
  /usr/bin/python3 - "$@" <<'PY'
import re, sys
f, t = sys.argv[1], float(sys.argv[2])
ts = sorted(float(m.group(1)) for m in re.finditer(r"^\[(\d+\.\d+)\] \d+ bytes from", open(f).read(), re.M))
if len(sys.argv) > 3:
    after = [x for x in ts if x >= t]
    print(f"{(after[0] - t) * 1000:.0f}" if after else "none")
    sys.exit()
before = [x for x in ts if x < t]
after = [x for x in ts if x >= t]
if not before or not after:
    print("none"); sys.exit()
seq = [before[-1]] + after
print(f"{max(b - a for a, b in zip(seq, seq[1:])) * 1000:.0f}")
PY
}
wait_reply_after() {  # wait_reply_after FILE T CAP: until a reply newer than T+0.5 s, or CAP seconds
  local end=$(( $(date +%s) + $3 ))
  while (( $(date +%s) < end )); do
    last=$(grep -o '^\[[0-9.]*\] [0-9]* bytes' "$1" | tail -1 | tr -d '[' | cut -d']' -f1)
    if [[ -n $last ]] && /usr/bin/python3 -c "import sys; sys.exit(0 if $last > $2 + 0.5 else 1)"; then return 0; fi
    sleep 0.2
  done
  return 1
}

# The ping's real spacing (median ms between replies before T), the echoes
# lost around (b), (a)'s parts from the logs (ms after T0: the last flowlab
# switch "started", i.e. ports open and fast path loaded; the last "switch
# up" at a flowlab controller), and, for a flowlab controller, (b)'s timeline
# from the logs (ms after TB): the switch logging the carrier loss (flowlab
# switches), the controller receiving the port-status, the controller sending
# the moved flows, and ctl_ack: the controller's own time from the event to
# the barrier replies of the last moved flows ("reroute acknowledged").
details() {  # details RUNDIR TB T_END CTL T0
  /usr/bin/python3 - "$@" <<'PY'
import datetime, glob, re, statistics, sys
run, tb, tend, ctl, t0 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], float(sys.argv[5])
ping = open(f"{run}/ping.log").read()
ts = sorted(float(m.group(1)) for m in re.finditer(r"^\[(\d+\.\d+)\] \d+ bytes from", ping, re.M))
pre = [b - a for a, b in zip(ts, ts[1:]) if b < tb]
out = [f"spacing={statistics.median(pre) * 1000:.1f}ms" if pre else "spacing=?"]
# Echoes lost around (b): sequence numbers with no reply between the last reply
# before TB and the last one before T_END. Under load a reply can come late
# without any loss; the longest gap then measures the machine, this does not.
seqs = sorted((float(t), int(q)) for t, q in
              re.findall(r"^\[(\d+\.\d+)\] \d+ bytes from .*icmp_seq=(\d+)", ping, re.M))
before = [q for t, q in seqs if t < tb]
window = {q for t, q in seqs if tb <= t <= tend}
if before and window:
    lo, hi = before[-1], max(window)
    out.append(f"b_lost={sum(1 for q in range(lo + 1, hi) if q not in window)}")
def first_in(line, lo, hi):
    try:
        t = datetime.datetime.strptime(line[:23], "%Y-%m-%dT%H:%M:%S.%f")
    except ValueError:
        return False
    t = t.replace(tzinfo=datetime.timezone.utc).timestamp()
    return lo <= t <= hi
def first(path, pat):
    try:
        for line in open(path):
            if re.search(pat, line):
                t = datetime.datetime.strptime(line[:23], "%Y-%m-%dT%H:%M:%S.%f")
                t = t.replace(tzinfo=datetime.timezone.utc).timestamp()
                if tb <= t <= tend:
                    return f"{(t - tb) * 1000:.0f}"
    except (OSError, ValueError):
        pass
    return "-"
# (a)'s parts: the last flowlab switch process logging "started" (ports open,
# fast path loaded), the switches' own fast path load times (min..max), and
# the last "switch up" at a flowlab controller, ms after T0.
def last(paths, pat):
    best = None
    for path in paths:
        try:
            for line in open(path):
                if re.search(pat, line):
                    t = datetime.datetime.strptime(line[:23], "%Y-%m-%dT%H:%M:%S.%f")
                    t = t.replace(tzinfo=datetime.timezone.utc).timestamp()
                    if t0 <= t <= tb:
                        best = t if best is None else max(best, t)
        except (OSError, ValueError):
            pass
    return f"{(best - t0) * 1000:.0f}" if best is not None else "-"
sw_logs = sorted(glob.glob(f"{run}/s[1-4].log"))
if sw_logs:
    loads = [int(m.group(1)) for p in sw_logs for m in re.finditer(r"fast path loaded in (\d+) ms", open(p).read())]
    out.append("a: started=" + last(sw_logs, r"switch: s\d: started") +
               (f" fastpath_load={min(loads)}..{max(loads)}ms" if loads else ""))
if ctl == "flowlab":
    out.append(("" if sw_logs else "a: ") + "up=" + last([f"{run}/ctl.log"], r"switch up: dpid"))
    out.append("b: carrier(s1)=" + first(f"{run}/s1.log", r"link down"))
    out.append("port-status rx=" + first(f"{run}/ctl.log", r"modified, link down"))
    out.append("flows sent=" + first(f"{run}/ctl.log", r"topology changed"))
    # the controller's own share: the event to the last level's barrier replies
    m = None
    try:
        for line in open(f"{run}/ctl.log"):
            if "reroute acknowledged" in line and first_in(line, tb, tend):
                m = re.search(r"(\d+) flows in (\d+) levels, ([\d.]+) ms", line)
                break
    except OSError:
        pass
    out.append(f"ctl_ack={m.group(3)}ms({m.group(1)} flows, {m.group(2)} levels)" if m else "ctl_ack=-")
print(" ".join(out))
PY
}

one() {  # one SWITCH CONTROLLER: prints one result line, appends it to $RUN/../results
  local sw=$1 ctl=$2 port cap=$CAP
  [[ -n $cap ]] || { [[ $ctl == osken-stp ]] && cap=75 || cap=40; }  # STP: 20 s max age + 2 x 15 s
  port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  local wire=bridge
  [[ $ctl == osken-stp ]] && wire=mirred
  topology "$wire"
  [[ $sw == ovs ]] && prepare_ovs
  ip netns exec "${P}h1" ping -D -i "$INTERVAL" -W 1 -w $((cap * 3 + 20)) 10.0.0.2 >"$RUN/ping.log" 2>&1 &
  local ping=$!
  PIDS+=($ping)
  sleep 0.5
  local t0; t0=$(now)
  start_controller "$ctl" "$port"
  for _ in $(seq 50); do
    (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.02
  done
  start_switches "$sw" "$port"
  wait_reply_after "$RUN/ping.log" "$t0" "$cap" || true
  local a; a=$(gap_ms "$RUN/ping.log" "$t0" first)
  [[ -n ${HOLD:-} ]] && { echo "holding $HOLD s: $RUN prefix $P" >&2; sleep "$HOLD"; }
  sleep 3
  # (b) carrier loss at both ends of s1-s2
  local tb; tb=$(now)
  ip -n "$W" link set wa down
  ip -n "$W" link set wb down
  wait_reply_after "$RUN/ping.log" "$tb" "$cap" || true
  sleep 1
  local b; b=$(gap_ms "$RUN/ping.log" "$tb")
  local tb_end; tb_end=$(now)
  ip -n "$W" link set wa up
  ip -n "$W" link set wb up
  sleep 4  # the cable is back; the controller may move traffic back onto it
  [[ $ctl == osken-stp ]] && sleep 30  # STP takes its forward delays to bring the port back
  # (c) the cable silently drops every frame, ports stay up
  local tc; tc=$(now)
  for l in wa wb; do
    [[ $wire == mirred ]] || tc -n "$W" qdisc add dev $l clsact
    # a classic-BPF direct-action program: ret 2 = TC_ACT_SHOT for every frame
    # (pref 1: before the mirred redirect of the STP rows' wire)
    tc -n "$W" filter add dev $l ingress pref 1 bpf da bytecode '1,6 0 0 2,'
  done
  wait_reply_after "$RUN/ping.log" "$tc" "$cap" || true
  sleep 1
  local c; c=$(gap_ms "$RUN/ping.log" "$tc")
  local d; d=$(details "$RUN" "$tb" "$tb_end" "$ctl" "$t0")
  local line
  line=$(printf '%-11s %-10s a=%s ms  b=%s ms  c=%s ms  %s' "$sw" "$ctl" "$a" "$b" "$c" "$d")
  echo "$line"
  echo "$line" >>"$RESULTS"
  local keep=/tmp/flowlab-reroute-logs/$sw-$ctl  # logs of the last run, for a look afterwards
  rm -rf "$keep" && mkdir -p "$keep" && cp "$RUN"/*.log "$keep"/ 2>/dev/null || true
  cleanup
  rm -f "$RUN"/*.log  # the next combination's logs start empty (no stale switch logs)
}

median() {  # median SWITCH CONTROLLER: the median of each figure over the runs in $RESULTS
  /usr/bin/python3 - "$RESULTS" "$1" "$2" <<'PY'
import re, statistics, sys
f, sw, ctl = sys.argv[1:]
rows = [l.split() for l in open(f) if l.split()[:2] == [sw, ctl]]
def med(key):
    v = [float(m.group(1)) for r in rows for x in r if (m := re.fullmatch(key + r"=(\d+)", x))]
    return f"{statistics.median(v):.0f}" if v else "none"
print(f"{sw:<11} {ctl:<10} median of {len(rows)}: a={med('a')} ms  b={med('b')} ms  c={med('c')} ms")
PY
}

RESULTS=$(mktemp /tmp/flowlab-reroute-results.XXXXXX)
trap 'cleanup; rm -rf "$RUN" "$RESULTS"' EXIT
for sw in $SWITCHES; do
  for ctl in $CONTROLLERS; do
    runs=$REPEAT  # (not n: cleanup and start_switches use n)
    [[ $ctl == osken-stp ]] && runs=$STP_REPEAT  # about 2.5 min a run
    for _ in $(seq "$runs"); do one "$sw" "$ctl"; done
    if (( runs > 1 )); then median "$sw" "$ctl"; fi
  done
done
