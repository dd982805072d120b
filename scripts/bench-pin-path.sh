#!/bin/bash
# bench-pin-path.sh: the packet-in / packet-out path of flowlab switch under
# UDP at 1 Gbit/s offered (1470-byte datagrams, iperf3), every packet through
# flowlab controller's hub, for two builds alternated in one invocation (A B A
# B ...): what each switch thread costs per packet-in, and where the
# datagrams that did not arrive were lost.
#
# usage: sudo [REPEAT=3] [THREADS=1] scripts/bench-pin-path.sh BUILD_A [BUILD_B] [SECONDS]
#   BUILD_*: directories holding a Release `flowlab` (each run uses its own
#   switch and its own controller); with one build, it is run REPEAT times.
#
# Per run it prints: datagrams sent, the switch's to-controller queue
# (queued, dropped full), packet-ins shed by pacing, packet-ins sent,
# packet-outs, frames transmitted on port 2, datagrams the receiving host's
# socket dropped (h2's UdpRcvbufErrors), and CPU seconds of the switch's
# forwarding threads (summed; threads named flowlab-fwdN, else the busiest
# thread) and of its agent thread (flowlab-agent, else the second busiest) and
# of the controller: the forwarding threads' per packet received (queued +
# queue-full), the agent's and the controller's per packet-in. CPU per packet-in holds on a
# loaded machine better than the loss does: the loss depends on whether the
# sender and receiver get CPU at all.
set -u
A=${1:?usage: bench-pin-path.sh BUILD_A [BUILD_B] [SECONDS]}
B=${2:-$A}
SECS=${3:-5}
REPEAT=${REPEAT:-3}
THREADS=${THREADS:-1}
for d in "$A" "$B"; do [ -x "$d/flowlab" ] || { echo "no flowlab binary in $d" >&2; exit 2; }; done
[ "$(id -u)" = 0 ] || { echo "needs root" >&2; exit 2; }

P=$$
H1=fpp${P}a H2=fpp${P}b SW=fpp${P}s
R=/tmp/flowlab-bench-pin-path-$P
CTL_PID= SW_PID=
cleanup() {
  trap - EXIT INT TERM
  [ -n "$SW_PID" ] && kill "$SW_PID" 2>/dev/null && wait "$SW_PID" 2>/dev/null
  [ -n "$CTL_PID" ] && kill "$CTL_PID" 2>/dev/null && wait "$CTL_PID" 2>/dev/null
  for ns in $H1 $H2 $SW; do
    ip netns pids $ns 2>/dev/null | xargs -r kill -9 2>/dev/null
    ip netns del $ns 2>/dev/null
  done
  rm -rf "$R"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
die() { echo "bench-pin-path: $*" >&2; exit 1; }

mkdir -p "$R"
for ns in $H1 $H2 $SW; do ip netns add $ns || die "cannot create namespace $ns"; done
ip -n $SW link set lo up
for i in 1 2; do
  h=$H1; [ $i = 2 ] && h=$H2
  ip link add fpp${P}h$i type veth peer name fpp${P}p$i || die "cannot create veth fpp${P}h$i"
  ip link set fpp${P}h$i netns $h; ip link set fpp${P}p$i netns $SW
  ip -n $h addr add 10.0.0.$i/24 dev fpp${P}h$i
  ip -n $h link set fpp${P}h$i up; ip -n $h link set lo up
  ip -n $SW link set fpp${P}p$i up
done

ticks() { awk '{print $14+$15}' "$1" 2>/dev/null || echo 0; }
thread_ticks() {  # pid -> "tid:name ticks" lines
  for t in /proc/$1/task/*; do echo "$(basename "$t"):$(cat "$t/comm" 2>/dev/null) $(ticks "$t/stat")"; done
}
rcvbuf_errors() {
  ip netns exec $H2 awk '/^Udp:/ { if (!n) { for (i = 2; i <= NF; i++) if ($i == "RcvbufErrors") c = i; n = 1 }
                                    else print $c }' /proc/net/snmp
}

run_one() {  # label build
  local label=$1 bin=$2/flowlab
  ip netns exec $SW "$bin" controller --listen ptcp:6653:127.0.0.1 --app hub --log-level warn >"$R/ctl.log" 2>&1 &
  CTL_PID=$!
  for _ in $(seq 100); do ip netns exec $SW bash -c 'exec 3<>/dev/tcp/127.0.0.1/6653' 2>/dev/null && break; sleep 0.05; done
  ip netns exec $SW "$bin" switch --name s1 --dpid 0x1 --port fpp${P}p1=1 --port fpp${P}p2=2 \
      --controller tcp:127.0.0.1:6653 --fail-mode secure --log-level warn --threads "$THREADS" \
      --stats-file "$R/stats.json" >"$R/sw.log" 2>&1 &
  SW_PID=$!
  local up=
  for _ in $(seq 50); do
    ip netns exec $H1 ping -c 1 -W 0.2 10.0.0.2 >/dev/null 2>&1 && { up=1; break; }
    kill -0 $SW_PID 2>/dev/null || break
  done
  [ -n "$up" ] || { cat "$R/sw.log" "$R/ctl.log" >&2; die "$label: no ping through the switch"; }
  ip netns exec $H2 iperf3 -s -1 -p 5202 >/dev/null 2>&1 &
  local srv=$!
  sleep 0.6  # the stats file is rewritten every 500 ms
  cp "$R/stats.json" "$R/s0.json"
  thread_ticks $SW_PID >"$R/t0"; local c0; c0=$(ticks /proc/$CTL_PID/stat)
  local rb0; rb0=$(rcvbuf_errors)
  local sent
  sent=$(ip netns exec $H1 timeout $((SECS + 15)) iperf3 -c 10.0.0.2 -p 5202 -u -b 1G -l 1470 -t "$SECS" -J 2>/dev/null |
         python3 -c 'import json,sys; e=json.load(sys.stdin)["end"]; print(e["sum_sent"]["bytes"] // 1470, e["sum_received"]["bytes"] // 1470)' 2>/dev/null || echo "0 0")
  thread_ticks $SW_PID >"$R/t1"; local c1; c1=$(ticks /proc/$CTL_PID/stat)
  local rb1; rb1=$(rcvbuf_errors)
  wait $srv 2>/dev/null
  sleep 0.6
  cp "$R/stats.json" "$R/s1.json"
  kill $SW_PID; wait $SW_PID 2>/dev/null; SW_PID=
  kill $CTL_PID; wait $CTL_PID 2>/dev/null; CTL_PID=
  python3 - "$label" "$R" "$((rb1 - rb0))" "$((c1 - c0))" "$(getconf CLK_TCK)" $sent <<'PY'
import json, sys
label, r, rcvbuf, ctl, hz, sent, recv = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
a, b = json.load(open(r + "/s0.json")), json.load(open(r + "/s1.json"))
d = lambda f: f(b) - f(a)
pins = d(lambda s: s["packet_ins"]["sent"])
t0 = dict(l.split() for l in open(r + "/t0")); t1 = dict(l.split() for l in open(r + "/t1"))
cpu = {k: (int(t1[k]) - int(t0[k])) / hz for k in t1 if k in t0}
if any(":flowlab-agent" in k for k in cpu):  # named threads
    fwd = sum(v for k, v in cpu.items() if ":flowlab-fwd" in k)
    agent = sum(v for k, v in cpu.items() if ":flowlab-agent" in k)
else:
    fwd, agent = (sorted(cpu.values(), reverse=True) + [0, 0])[:2]
us = lambda s, n=pins: s * 1e6 / n if n else float("nan")
rx = d(lambda s: s["to_controller"]["queued"]) + d(lambda s: s["to_controller"]["dropped"])
print("%-6s sent %7d received %7d | queued %7d queue-full %6d shed-by-pacing %6d packet-ins %7d packet-outs %7d "
      "port2-tx %7d | receiver-socket-drops %7d | cpu s: forwarding %.2f (%.2f us/packet) agent %.2f "
      "(%.2f us/packet-in) controller %.2f (%.2f us/packet-in)" % (
      label, sent, recv, d(lambda s: s["to_controller"]["queued"]), d(lambda s: s["to_controller"]["dropped"]),
      d(lambda s: s["packet_ins"]["congested"]), pins, d(lambda s: s["packet_outs"]),
      d(lambda s: s["ports"][1]["tx_packets"]), rcvbuf, fwd, us(fwd, rx), agent, us(agent), ctl / hz, us(ctl / hz)))
PY
}

echo "bench-pin-path: A=$A B=$B, $SECS s of UDP at 1 Gbit/s, $THREADS forwarding thread(s), $REPEAT rounds"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$REPEAT"); do
  run_one A "$A"
  [ "$B" != "$A" ] && run_one B "$B"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
