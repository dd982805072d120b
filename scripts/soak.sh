#!/usr/bin/env bash
# Soak (issue #14): a lab of flowlab switches and a flowlab controller under
# mixed traffic, flow churn, controller restarts and link flaps for N minutes,
# sampling RSS, open fds and threads of every flowlab process each minute.
#
#   scripts/soak.sh [--minutes N] [--bin FLOWLAB] [--out DIR] [--churn FLOWS_PER_S]
#
# Lab (namespaces named fsk<pid>-*, removed on every exit path):
#   h1 --\                      /-- h3
#         s1 ===== trunk ===== s2
#   h2 --/                      (s1, s2, the controller: namespace "sw")
# Controller: `flowlab controller --app learning-switch` on the sw loopback;
# both switches connect to it (fail-mode secure) and listen for ofctl.
#
# Running all the time:
#   - traffic: ping h1->h3 every 0.2 s, UDP h2->h3 at 5 Mbit/s (iperf3), and
#     each minute a 2 s TCP run h1->h3 (iperf3) and a ping between every pair;
#   - flow churn on s1: every second, 1000 flows added (`ofctl add-flows`,
#     priority 5, nw_dst in 10.200/16 or 10.201/16, drop) and the 1000 of the
#     previous second deleted (`ofctl del-flows`), i.e. CHURN adds and CHURN
#     deletes per second; every 10 s the churn set is counted
#     (`ofctl dump-aggregate`): exactly CHURN flows;
#   - the controller SIGKILLed and started again every R seconds (R = 300 for
#     an hour, scaled with the run: 5 min * N / 60, at least 60 s);
#   - the trunk link s1-s2 set down and up again (2 s) every R seconds,
#     halfway between two restarts.
# Checks (each must pass; every failure is logged in DIR/checks.log):
#   - each minute: every host pair pings (3 of 3 after up to 3 tries of the
#     pair, the first try may hit a flow being re-learned), the TCP run
#     delivers > 0 bytes (bounded at 20 s); every 10 s the churn count (each
#     ofctl step bounded at 5 s); a step late by more than its period is
#     skipped, not run back to back;
#   - after each restart: both switches reconnect within 20 s (the
#     controller's stats JSON counts 2 switches; the switch's reconnect
#     backoff doubles up to 8 s); after each flap: h1 pings h3 within 10 s;
#   - at the end: the background ping lost less than the outages explain
#     plus 2 %: (2 s per flap + 3 s per restart) / run length + 2 % (a flap
#     takes the trunk down 2 s; a restart may cost a re-learn); the UDP
#     stream delivered; no process died.
# Diagnosis: DIR/timing.csv times every check and churn step; DIR/state.csv
# has, every 5 s, each flowlab process's state letter and CPU ticks used and
# the load average; a step slower than 3 s writes the state and wait channel
# of every thread of every flowlab process to DIR/state.log. The verdict
# prints p50/p99/max per kind of step.
# Resources (DIR/samples.csv, one row per process per minute, and one in the
# last 15 s of the warm-up, so a 3-minute run's warm-up is not its first second):
#   pass = after the warm-up (the first 10 minutes, or the first 40 % of a run
#   shorter than 25 minutes) no process role grows beyond noise:
#   threads: not above the warm-up maximum; open fds: at most 2 above the
#   warm-up maximum (an ofctl connection of the churn may be open at the
#   sample); RSS: at most max(4 MB, 10 %) above the warm-up maximum. A
#   restarted controller is the same role (its samples continue the series).
# Exit: 0 pass, 1 a check or the resource rule failed, 2 usage, 77 not root
# (ctest skips).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
minutes=60
bin=$root/build/release/flowlab
out=
churn=1000
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --churn) churn=$2; shift 2 ;;
    -h|--help) sed -n 2,50p "$0"; exit 0 ;;
    *) echo "soak: unknown argument $1" >&2; exit 2 ;;
  esac
done
if ! [[ "$minutes" =~ ^[0-9]+$ ]] || [ "$minutes" -lt 2 ]; then echo "soak: --minutes must be >= 2" >&2; exit 2; fi
if ! [[ "$churn" =~ ^[0-9]+$ ]] || [ "$churn" -lt 1 ] || [ "$churn" -gt 30000 ]; then
  echo "soak: --churn must be 1..30000" >&2; exit 2
fi
if [ "$(id -u)" != 0 ]; then echo "soak: SKIPPED, needs root (network namespaces)"; exit 77; fi
for t in ip iperf3 ping python3; do
  command -v $t >/dev/null || { echo "soak: SKIPPED, $t is not installed"; exit 77; }
done
[ -x "$bin" ] || { echo "soak: no flowlab binary at $bin" >&2; exit 2; }
out=${out:-$(mktemp -d /tmp/flowlab-soak.XXXXXX)}
mkdir -p "$out"
duration=$((minutes * 60))
period=$((300 * minutes / 60)); [ $period -lt 60 ] && period=60
if [ "$minutes" -ge 25 ]; then warm=600; else warm=$((duration * 40 / 100)); fi

id=fsk$$
SW=$id-sw H1=$id-h1 H2=$id-h2 H3=$id-h3
ctl_port=16653 s1_port=16634 s2_port=16635
pids=()
ctl_pid= s1_pid= s2_pid=
failures=0 restarts=0 flaps=0
log() { echo "$(date -u +%H:%M:%S) $*" | tee -a "$out/checks.log"; }
now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }
# Per-check timing: DIR/timing.csv, one row per check or churn step
# (wall clock, name, milliseconds, exit status). A check slower than 3 s
# also snapshots the state of every flowlab process into DIR/state.log.
timed() {  # name command...: runs the command, records its time, returns its status
  local name=$1; shift
  local t_start rc ms
  t_start=$(now_ms)
  "$@"; rc=$?
  ms=$(($(now_ms) - t_start))
  echo "$(date -u +%H:%M:%S),$name,$ms,$rc" >> "$out/timing.csv"
  [ $ms -gt 3000 ] && snapshot "slow: $name took $ms ms (status $rc)"
  return $rc
}
# The state of every flowlab process and of each of its threads (state
# letter, CPU ticks, kernel wait channel), the load average and the run
# queue: what a slow check was waiting for. The pids are read from
# DIR/pids (the controller's changes at each restart).
snapshot() {
  {
    echo "== $(date -u +%H:%M:%S.%N | cut -c1-12) $* | load $(cut -d' ' -f1-4 /proc/loadavg)"
    local role pid
    while read -r role pid; do
      [ -d "/proc/$pid" ] || { echo "  $role pid $pid: gone"; continue; }
      local task
      for task in /proc/$pid/task/*; do
        # fields after the comm: 3 state, 14 utime, 15 stime, 39 cpu
        local st comm wchan
        st=$(sed 's/.*) //' "$task/stat" 2>/dev/null | awk '{print $1, "cpu_ticks=" $12 + $13, "on_cpu=" $37}')
        comm=$(cat "$task/comm" 2>/dev/null)
        wchan=$(cat "$task/wchan" 2>/dev/null)
        echo "  $role pid $pid tid ${task##*/} ($comm): $st wchan=${wchan:-?}"
      done
    done < "$out/pids"
  } >> "$out/state.log" 2>/dev/null
}
write_pids() { printf 'controller %s\ns1 %s\ns2 %s\n' "$ctl_pid" "$s1_pid" "$s2_pid" > "$out/pids"; }
# Every 5 s one line per flowlab process (state, CPU ticks used since the
# last line) and the load average, in DIR/state.csv: a stall shows which
# process ran and which did not.
state_loop() {
  local -A last=()
  echo "time,load1,role,pid,state,cpu_ticks_5s,threads" > "$out/state.csv"
  while [ -e "$out/pids" ] && [ $((SECONDS - t0)) -lt "$duration" ]; do
    local role pid load1
    load1=$(cut -d' ' -f1 /proc/loadavg)
    while read -r role pid; do
      [ -r "/proc/$pid/stat" ] || continue
      local f
      f=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null) || continue
      read -r -a a <<< "$f"
      local ticks=$((a[11] + a[12]))
      local d=$((ticks - ${last[$pid]:-$ticks}))
      last[$pid]=$ticks
      echo "$(date -u +%H:%M:%S),$load1,$role,$pid,${a[0]},$d,${a[17]}" >> "$out/state.csv"
    done < "$out/pids"
    sleep 5
  done
}
fail() { failures=$((failures + 1)); log "FAIL: $*"; }
# Short commands (ping, ofctl, ip link, the TCP check) enter the namespace's
# network only (nsenter): `ip netns exec` also makes a mount namespace and
# remounts /sys, which waits on the same kernel locks as every other
# namespace being made or removed on the machine. Background processes (the
# switches read sysfs) are started with `ip netns exec` itself (not this
# function), so that $! is the process (ip execs it), not a subshell.
in_ns() { local ns=$1; shift; nsenter --net="/run/netns/$ns" "$@"; }

cleanup() {
  trap - EXIT INT TERM
  [ -n "$ctl_pid" ] && kill "$ctl_pid" 2>/dev/null
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  sleep 0.5
  [ -n "$ctl_pid" ] && kill -9 "$ctl_pid" 2>/dev/null
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  for ns in "$SW" "$H1" "$H2" "$H3"; do ip netns del "$ns" 2>/dev/null; done
}
trap cleanup EXIT
trap 'log "interrupted"; exit 1' INT TERM

# ---- the lab ---------------------------------------------------------------
build_lab() {
  ip netns add "$SW" && ip netns add "$H1" && ip netns add "$H2" && ip netns add "$H3" || return 1
  in_ns "$SW" ip link set lo up
  local i=1
  for h in "$H1" "$H2" "$H3"; do
    local sw_if=p$i host_if=eth0
    ip link add "$id-v$i" type veth peer name "$id-h$i" || return 1
    ip link set "$id-v$i" netns "$SW" && ip link set "$id-h$i" netns "$h" || return 1
    in_ns "$SW" ip link set "$id-v$i" name "$sw_if"
    in_ns "$h" ip link set "$id-h$i" name "$host_if"
    in_ns "$h" ip addr add "10.0.0.$i/24" dev "$host_if"
    in_ns "$h" ip link set "$host_if" address "02:00:00:00:00:0$i"
    in_ns "$h" ip link set lo up
    in_ns "$h" ip link set "$host_if" up
    in_ns "$SW" ip link set "$sw_if" up
    i=$((i + 1))
  done
  in_ns "$SW" ip link add t1 type veth peer name t2 || return 1
  in_ns "$SW" ip link set t1 up
  in_ns "$SW" ip link set t2 up
}

start_controller() {
  ip netns exec "$SW" "$bin" controller --listen "ptcp:$ctl_port:127.0.0.1" --app learning-switch \
    --echo-interval 1 --dead-peer 3 --stats-json "$out/controller-stats.json" --log-level warn \
    >> "$out/controller.log" 2>&1 &
  ctl_pid=$!
}

start_switches() {
  ip netns exec "$SW" "$bin" switch --name s1 --dpid 1 --port p1=1 --port p2=2 --port t1=3 \
    --controller "tcp:127.0.0.1:$ctl_port" --listen "ptcp:$s1_port:127.0.0.1" --fail-mode secure \
    --stats-file "$out/s1-stats.json" --log-level warn >> "$out/s1.log" 2>&1 &
  pids+=($!); s1_pid=$!
  ip netns exec "$SW" "$bin" switch --name s2 --dpid 2 --port p3=1 --port t2=2 \
    --controller "tcp:127.0.0.1:$ctl_port" --listen "ptcp:$s2_port:127.0.0.1" --fail-mode secure \
    --stats-file "$out/s2-stats.json" --log-level warn >> "$out/s2.log" 2>&1 &
  pids+=($!); s2_pid=$!
  write_pids
}

# Switches the controller counts as connected (its stats JSON), or -1.
connected_switches() {
  python3 - "$out/controller-stats.json" <<'EOF' 2>/dev/null || echo -1
import json, sys
j = json.load(open(sys.argv[1]))
for k in ("switches_connected",):
    v = j.get(k)
    if isinstance(v, int): print(v); break
    if isinstance(v, list): print(len(v)); break
else: print(-1)
EOF
}

wait_connected() {  # seconds
  local until=$((SECONDS + $1))
  while [ $SECONDS -lt $until ]; do
    [ "$(connected_switches)" = 2 ] && return 0
    sleep 0.5
  done
  return 1
}

ping_ok() {  # from-ns to-ip: 3 of 3, up to 3 tries
  for _ in 1 2 3; do
    in_ns "$1" ping -q -c 3 -i 0.2 -W 1 "$2" >/dev/null 2>&1 && return 0
  done
  return 1
}

flap_recovered() {  # h1 pings h3 within 10 tries, one a second
  for _ in $(seq 1 10); do ping_ok "$H1" 10.0.0.3 && return 0; sleep 1; done
  return 1
}

tcp_run() {  # a 2 s TCP run h1->h3, its JSON in DIR/tcp-last.json (bounded at 20 s)
  timeout 20 nsenter --net="/run/netns/$H1" iperf3 -c 10.0.0.3 -p 5202 -t 2 --connect-timeout 3000 --json \
    > "$out/tcp-last.json" 2>/dev/null
}

# ---- samples ----------------------------------------------------------------
: > "$out/checks.log"  # a reused --out directory starts a new log
echo "t_s,role,pid,rss_kb,fds,threads" > "$out/samples.csv"
sample() {
  local t=$((SECONDS - t0))
  for pair in "controller:$ctl_pid" "s1:$s1_pid" "s2:$s2_pid"; do
    local role=${pair%%:*} pid=${pair#*:}
    [ -r "/proc/$pid/status" ] || { fail "$role (pid $pid) is not running at ${t}s"; continue; }
    local rss thr fds
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
    thr=$(awk '/^Threads:/ {print $2}' "/proc/$pid/status")
    fds=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
    echo "$t,$role,$pid,$rss,$fds,$thr" >> "$out/samples.csv"
  done
}

# ---- background work ----------------------------------------------------------
churn_files() {
  python3 - "$out" "$churn" <<'EOF'
import sys
out, n = sys.argv[1], int(sys.argv[2])
for s, net in ((0, 200), (1, 201)):
    with open(f"{out}/churn-{s}.flows", "w") as f:
        for i in range(n):
            f.write(f"priority=5,ip,nw_dst=10.{net}.{i >> 8 & 255}.{i & 255},actions=drop\n")
EOF
}

churn_loop() {  # runs in the background until the run ends
  local k=0 bad=0
  while [ $((SECONDS - t0)) -lt "$duration" ]; do
    local t_start=$SECONDS set=$((k % 2)) other=$(((k + 1) % 2))
    if ! timed churn-add in_ns "$SW" "$bin" ofctl -t 5 add-flows "tcp:127.0.0.1:$s1_port" "$out/churn-$set.flows" >> "$out/churn.log" 2>&1; then
      echo "$(date -u +%H:%M:%S) FAIL: churn add-flows (second $k)" >> "$out/churn-failures.log"
    fi
    if ! timed churn-del in_ns "$SW" "$bin" ofctl -t 5 del-flows "tcp:127.0.0.1:$s1_port" "ip,nw_dst=10.$((200 + other)).0.0/16" >> "$out/churn.log" 2>&1; then
      echo "$(date -u +%H:%M:%S) FAIL: churn del-flows (second $k)" >> "$out/churn-failures.log"
    fi
    if [ $((k % 10)) = 9 ]; then
      local n
      timed churn-count in_ns "$SW" "$bin" ofctl -t 5 dump-aggregate "tcp:127.0.0.1:$s1_port" "ip,nw_dst=10.200.0.0/15" \
        > "$out/churn-count.txt" 2>>"$out/churn.log"
      n=$(sed -n 's/.*flow_count=\([0-9]*\).*/\1/p' "$out/churn-count.txt")
      if [ "$n" != "$churn" ]; then
        echo "$(date -u +%H:%M:%S) FAIL: churn count is '$n', expected $churn (second $k)" >> "$out/churn-failures.log"
      else
        echo "$(date -u +%H:%M:%S) churn count ok ($n, second $k)" >> "$out/churn.log"
      fi
    fi
    k=$((k + 1))
    echo "$k" > "$out/churn-seconds"
    # one second per round; a slow round is not made up for
    local left=$((t_start + 1 - SECONDS))
    [ $left -gt 0 ] && sleep "$left"
  done
}

# ---- run ----------------------------------------------------------------------
log "soak: $minutes min, restarts and flaps every ${period}s, warm-up ${warm}s, churn $churn flows/s, out $out"
build_lab || { fail "cannot build the lab"; exit 1; }
start_controller
start_switches
# A sanitizer build on a loaded machine may take tens of seconds to start.
if ! wait_connected 90; then fail "switches never connected to the controller within 90 s"; exit 1; fi
log "both switches connected"
ping_ok "$H1" 10.0.0.3 || fail "h1 cannot ping h3 at the start"
ping_ok "$H2" 10.0.0.3 || fail "h2 cannot ping h3 at the start"
churn_files
t0=$SECONDS
ip netns exec "$H3" iperf3 -s -p 5201 > "$out/iperf3-s1.log" 2>&1 & pids+=($!)
# --idle-timeout: a TCP run cut by its 20 s bound must not leave the server
# stuck in that test for the following ones.
ip netns exec "$H3" iperf3 -s -p 5202 --idle-timeout 30 > "$out/iperf3-s2.log" 2>&1 & pids+=($!)
sleep 0.5
ip netns exec "$H1" ping -i 0.2 -w "$duration" 10.0.0.3 > "$out/ping-h1-h3.log" 2>&1 & pids+=($!)
ip netns exec "$H2" iperf3 -c 10.0.0.3 -p 5201 -u -b 5M -t "$duration" --json > "$out/udp-h2-h3.json" 2>&1 & pids+=($!)
udp_pid=$!
churn_loop & pids+=($!)
churn_pid=$!
state_loop & pids+=($!)
sample
next_sample=60 next_restart=$period next_flap=$((period / 2)) next_check=60 warm_sampled=0
while [ $((SECONDS - t0)) -lt "$duration" ]; do
  sleep 1
  t=$((SECONDS - t0))
  if [ $t -ge $next_restart ] && [ $t -lt $((duration - 20)) ]; then
    restarts=$((restarts + 1))
    log "controller SIGKILL and restart at ${t}s"
    kill -9 "$ctl_pid" 2>/dev/null; wait "$ctl_pid" 2>/dev/null
    rm -f "$out/controller-stats.json"
    sleep 1
    start_controller
    write_pids
    r0=$SECONDS
    if timed reconnect wait_connected 20; then log "both switches reconnected in $((SECONDS - r0)) s"; else fail "switches did not reconnect within 20 s after restart at ${t}s"; fi
    next_restart=$((next_restart + period)); [ $next_restart -le $((SECONDS - t0)) ] && next_restart=$((SECONDS - t0 + period))
  fi
  if [ $t -ge $next_flap ] && [ $t -lt $((duration - 20)) ]; then
    flaps=$((flaps + 1))
    log "trunk link down for 2 s at ${t}s"
    in_ns "$SW" ip link set t1 down
    sleep 2
    in_ns "$SW" ip link set t1 up
    if timed flap-recovery flap_recovered; then log "h1 pings h3 after the flap"; else fail "h1 cannot ping h3 within 10 s after the flap at ${t}s"; fi
    next_flap=$((next_flap + period)); [ $next_flap -le $((SECONDS - t0)) ] && next_flap=$((SECONDS - t0 + period))
  fi
  if [ $t -ge $next_check ]; then
    for pair in "$H1:10.0.0.2" "$H1:10.0.0.3" "$H2:10.0.0.1" "$H2:10.0.0.3" "$H3:10.0.0.1" "$H3:10.0.0.2"; do
      timed "ping ${pair%%:*}-${pair#*:}" ping_ok "${pair%%:*}" "${pair#*:}" || fail "${pair%%:*} cannot ping ${pair#*:} at ${t}s"
    done
    timed tcp tcp_run
    bytes=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["end"]["sum_received"]["bytes"]))' \
      "$out/tcp-last.json" 2>/dev/null || echo 0)
    if [ "${bytes:-0}" -gt 0 ]; then log "minute check at ${t}s: pings ok, TCP h1->h3 $bytes bytes"; else fail "TCP h1->h3 delivered nothing at ${t}s"; fi
    next_check=$((next_check + 60)); [ $next_check -le $((SECONDS - t0)) ] && next_check=$((SECONDS - t0 + 60))
  fi
  if [ $t -ge $next_sample ]; then
    sample
    next_sample=$((next_sample + 60)); [ $next_sample -le $((SECONDS - t0)) ] && next_sample=$((SECONDS - t0 + 60))
  elif [ $warm_sampled = 0 ] && [ $t -ge $((warm - 15)) ] && [ $t -le $warm ]; then
    sample  # the warm-up's own end: its maximum is not the first second's
    warm_sampled=1
  fi
done
sample
wait "$churn_pid" 2>/dev/null
wait "$udp_pid" 2>/dev/null

# ---- verdict ----------------------------------------------------------------------
if [ -s "$out/churn-failures.log" ]; then
  n=$(wc -l < "$out/churn-failures.log")
  fail "flow churn: $n failed steps (first: $(head -1 "$out/churn-failures.log"))"
fi
log "flow churn: $(cat "$out/churn-seconds" 2>/dev/null || echo 0) rounds of $churn adds + $churn deletes in ${duration}s"
loss=$(sed -n 's/.* \([0-9.]*\)% packet loss.*/\1/p' "$out/ping-h1-h3.log")
bound=$(python3 -c "print(round(100 * ($flaps * 2 + $restarts * 3) / $duration + 2, 2))")
if [ -z "$loss" ] || ! python3 -c "import sys; sys.exit(0 if float('$loss') < $bound else 1)"; then
  fail "background ping h1->h3 lost ${loss:-?}% (bound $bound %: $flaps flaps, $restarts restarts)"
else
  log "background ping h1->h3: ${loss}% lost (bound $bound %: $flaps flaps, $restarts restarts)"
fi
udp=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); s=j["end"]["sum"]; print("%d %.2f" % (s["bytes"], s["lost_percent"]))' "$out/udp-h2-h3.json" 2>/dev/null)
if [ -z "$udp" ] || [ "${udp%% *}" = 0 ]; then fail "UDP h2->h3 delivered nothing"; else log "UDP h2->h3: ${udp%% *} bytes, ${udp##* }% lost"; fi
python3 - "$out/timing.csv" <<'EOF' | tee -a "$out/checks.log"
import sys, collections
by = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split(",")
    if len(f) != 4: continue
    name = "ping" if f[1].startswith("ping ") else f[1]
    by[name].append((int(f[2]), f[3] != "0"))
for name in sorted(by):
    ms = sorted(m for m, _ in by[name])
    q = lambda p: ms[min(len(ms) - 1, int(p * len(ms)))]
    print(f"timing {name}: {len(ms)} runs, p50 {q(0.5)} ms, p99 {q(0.99)} ms, max {ms[-1]} ms, "
          f"{sum(m > 3000 for m in ms)} over 3 s, {sum(b for _, b in by[name])} failed")
EOF
python3 - "$out/state.csv" <<'EOF' | tee -a "$out/checks.log"
import csv, os, sys
seen = {}
for r in csv.DictReader(open(sys.argv[1])):
    seen[r["time"]] = float(r["load1"])  # one load value per 5 s line
v = sorted(seen.values())
if v:
    print(f"load average (1 min, every 5 s): min {v[0]:.1f}, p50 {v[len(v) // 2]:.1f}, "
          f"p90 {v[min(len(v) - 1, len(v) * 9 // 10)]:.1f}, max {v[-1]:.1f} on {os.cpu_count()} CPUs")
EOF
python3 - "$out/samples.csv" "$warm" <<'EOF' | tee -a "$out/checks.log"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
warm = int(sys.argv[2])
bad = 0
for role in sorted({r["role"] for r in rows}):
    rs = [r for r in rows if r["role"] == role]
    w = [r for r in rs if int(r["t_s"]) <= warm]
    after = [r for r in rs if int(r["t_s"]) > warm]
    if not w or not after:
        print(f"resources {role}: too few samples"); bad += 1; continue
    def mx(rows, k): return max(int(r[k]) for r in rows)
    rss_w, rss_a = mx(w, "rss_kb"), mx(after, "rss_kb")
    fd_w, fd_a = mx(w, "fds"), mx(after, "fds")
    th_w, th_a = mx(w, "threads"), mx(after, "threads")
    ok = rss_a <= rss_w + max(4096, rss_w // 10) and fd_a <= fd_w + 2 and th_a <= th_w
    bad += not ok
    print(f"resources {role}: {'ok' if ok else 'FAIL: grew'}: RSS max {rss_w} kB in warm-up, {rss_a} kB after; "
          f"fds {fd_w} / {fd_a}; threads {th_w} / {th_a} ({len(rs)} samples)")
sys.exit(1 if bad else 0)
EOF
[ "${PIPESTATUS[0]}" = 0 ] || failures=$((failures + 1))
if [ $failures = 0 ]; then log "soak: PASS ($minutes min)"; exit 0; fi
log "soak: FAIL ($failures failed checks), see $out"
exit 1
