#!/usr/bin/env bash
# bench-pin-flood.sh (issue #14): a packet-in flood toward the controller and
# the delay of the controller's echo, flow-mod and barrier replies meanwhile.
#
#   sudo scripts/bench-pin-flood.sh [-b FLOWLAB] [-t SECONDS] [-g PKTGEN_THREADS] [-d tc|af-packet|ovs|both|all]
#                                   [-G xdp|udp] [-r PPS] [-N NICE]
#
# -d: the switches measured, one row each: tc, af-packet (flowlab's
# datapaths), ovs (Open vSwitch userspace, datapath_type=netdev, OF1.3, the
# same controller; skipped if it is not installed); both = tc af-packet
# (default), all = tc af-packet ovs.
# -G: the generator, `flowlab pktgen --mode`: xdp (default: frames from an
# XDP program run in live-frame mode, XDP_TX out of h1's eth0 into p1; no
# IP stack on the sending side, several Mpps on 2 cores) or udp (UDP sockets
# and sendmmsg through h1's IP stack: 0.8 Mpps alone, ~0.2 beside a switch).
# xdp needs p1's NAPI, so the script turns GRO on at p1 (ethtool -K p1 gro
# on; a veth's receive then runs in NAPI for every sender, whatever -G).
# -r: the rate offered in the flooded rows, frames per second (default
# 1000000, the target of issue #14; 0 = as fast as the generator can).
# -N: pktgen's niceness (default -10). p1's receive path (NAPI, the tc
# program or the AF_PACKET ring) runs in the softirq of pktgen's own
# threads, so on 2 cores the generator competes with the switch and the
# controller for the CPU that offering the rate takes, as a NIC's frames
# would not (softirq runs before processes). At nice 0 it offered 0.88 Mpps
# into the tc datapath (1.00 into af-packet and OVS); at -5 0.993, at -10
# 0.999 (docs/performance/reliability.md).
#
# Lab (namespaces fpf<pid>-*, removed on every exit): h1 (10.0.0.1) -- p1
# [flowlab switch, namespace sw] p2 -- h2 (10.0.0.2). h1 has a static ARP
# entry for h2, so every frame is UDP. The controller is
# scripts/pin_flood_controller.py on the sw loopback: table miss -> controller
# (whole frames), reads packet-ins as fast as Python can (tens of thousands a
# second: a controller slower than the flood), and every 20 ms sends echo +
# flow-mod + barrier, timing the replies.
#
# Rows, in one invocation:
#   1. generator ceiling: `flowlab pktgen` from h1 with no switch on p1 (the
#      frames die at the veth's far end): the rate it can offer at all
#      (rate 0), then the same paced to -r ("pktgen alone at R");
#   2. per datapath: pktgen paced to -r into p1 with the switch and the
#      controller running (pktgen runs 1 s longer than the controller's
#      measuring window and covers it): the rate offered (pktgen's own count)
#      and, stage by stage, how much of it got through (the switch's
#      --stats-file, p1's kernel counters): arrived at p1 (kernel rx and
#      drops; with -G xdp the drops are the frames p1's receive ring, 256
#      deep, had no room for: its NAPI slower than the offered rate), read by the switch's socket (on tc: the upcall TAP, whose full
#      queue drops are counted; on af-packet: dropped by its ring), queued
#      toward the agent (and dropped: queue full), packet-ins sent to the
#      controller (and shed by the agent's pacing: "congested"), packet-ins
#      the controller read; then the controller's echo and barrier round
#      trips p50/p99/max and the replies over 100 ms. "lost most at" names
#      the stage that lost the most packets: the rate the flood really
#      reached at the controller path and what stopped it (on a 2-core
#      machine pktgen, the veth softirqs and the switch share the CPUs: the
#      offered rate is itself bounded by that);
#   (before them, a control row "DATAPATH, no flood": the first switch of -d
#   with its controller and no pktgen, the replies' delay from the loaded
#   machine alone);
#   3. with -d ovs / all: Open vSwitch (userspace) under the same flood and
#      controller: offered, p1's kernel counters, packet-ins read, replies
#      (OVS's own stages are not broken down).
# Not a test (no assertions); prints a table and writes DIR/results.json.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
BIN=$root/build/release/flowlab
DUR=10
PKTGEN_THREADS=2
DPS="tc af-packet"
GEN=xdp
RATE=1000000
NICE=-10
while getopts "b:t:g:d:G:r:N:h" opt; do
  case $opt in
    b) BIN=$OPTARG ;;
    t) DUR=$OPTARG ;;
    g) PKTGEN_THREADS=$OPTARG ;;
    d) case $OPTARG in both) DPS="tc af-packet" ;; all) DPS="tc af-packet ovs" ;; *) DPS=$OPTARG ;; esac ;;
    G) GEN=$OPTARG ;;
    r) RATE=$OPTARG ;;
    N) NICE=$OPTARG ;;
    *) sed -n "2,/^set -uo/p" "$0" | sed '$d'; exit 2 ;;
  esac
done
if [ "$(id -u)" != 0 ]; then echo "bench-pin-flood: needs root (namespaces)"; exit 77; fi
[ -x "$BIN" ] || { echo "bench-pin-flood: no flowlab binary at $BIN" >&2; exit 2; }
[[ $DUR =~ ^[1-9][0-9]*$ ]] || { echo "-t: seconds, a positive integer" >&2; exit 2; }
[[ $PKTGEN_THREADS =~ ^[1-9][0-9]*$ ]] && [ "$PKTGEN_THREADS" -le 64 ] || { echo "-g: pktgen threads, 1..64" >&2; exit 2; }
case $GEN in xdp|udp) ;; *) echo "-G: xdp or udp" >&2; exit 2 ;; esac
[[ $RATE =~ ^[0-9]+$ ]] || { echo "-r: frames per second, an integer (0: as fast as possible)" >&2; exit 2; }
[[ $NICE =~ ^-?[0-9]+$ ]] && [ "$NICE" -ge -20 ] && [ "$NICE" -le 19 ] || { echo "-N: a niceness, -20..19" >&2; exit 2; }
if [ "$GEN" = xdp ] && ! command -v ethtool >/dev/null; then echo "bench-pin-flood: -G xdp needs ethtool (GRO on at p1)" >&2; exit 2; fi
for d in $DPS; do
  case $d in tc|af-packet|ovs) ;; *) echo "-d: tc, af-packet, ovs, both or all" >&2; exit 2 ;; esac
done
if [[ " $DPS " == *" ovs "* ]] && ! command -v ovs-vswitchd >/dev/null; then
  echo "bench-pin-flood: ovs-vswitchd is not installed: the ovs row is skipped" >&2
  DPS=${DPS//ovs/}
fi
out=$(mktemp -d /tmp/flowlab-pin-flood.XXXXXX)
id=fpf$$
SW=$id-sw H1=$id-h1 H2=$id-h2
sw_pid= ctl_pid=
cleanup() {
  trap - EXIT INT TERM
  for p in $sw_pid $ctl_pid; do kill "$p" 2>/dev/null; done
  sleep 0.3
  for p in $sw_pid $ctl_pid; do kill -9 "$p" 2>/dev/null; done
  stop_ovs
  wait 2>/dev/null
  for ns in "$SW" "$H1" "$H2"; do ip netns del "$ns" 2>/dev/null; done
}
# Open vSwitch in the switch's namespace, its database and run files under
# DIR/ovs (private: no other OVS on the machine is touched).
OVSRUN=$out/ovs
ovs_vsctl() { ip netns exec "$SW" ovs-vsctl --db="unix:$OVSRUN/db.sock" --timeout=10 "$@"; }
start_ovs() {  # controller port
  mkdir -p "$OVSRUN"
  export OVS_RUNDIR=$OVSRUN OVS_LOGDIR=$OVSRUN OVS_DBDIR=$OVSRUN
  ovsdb-tool create "$OVSRUN/conf.db" /usr/share/openvswitch/vswitch.ovsschema || return 1
  ip netns exec "$SW" ovsdb-server "$OVSRUN/conf.db" --remote="punix:$OVSRUN/db.sock" \
    --pidfile="$OVSRUN/ovsdb-server.pid" --detach --log-file="$OVSRUN/ovsdb-server.log" || return 1
  ovs_vsctl --no-wait init || return 1
  ip netns exec "$SW" ovs-vswitchd "unix:$OVSRUN/db.sock" --pidfile="$OVSRUN/ovs-vswitchd.pid" --detach \
    --log-file="$OVSRUN/ovs-vswitchd.log" || return 1
  ovs_vsctl add-br br0 -- set bridge br0 datapath_type=netdev protocols=OpenFlow13 \
    other_config:datapath-id=0000000000000001 fail_mode=secure \
    -- add-port br0 p1 -- set interface p1 ofport_request=1 \
    -- add-port br0 p2 -- set interface p2 ofport_request=2 \
    -- set-controller br0 "tcp:127.0.0.1:$1" || return 1
}
stop_ovs() {
  local f
  for f in "$OVSRUN/ovs-vswitchd.pid" "$OVSRUN/ovsdb-server.pid"; do
    [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null && rm -f "$f"
  done
  return 0
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ip netns add "$SW" && ip netns add "$H1" && ip netns add "$H2" || exit 1
ip -n "$SW" link set lo up
for i in 1 2; do
  h=$id-h$i
  ip link add "$id-p$i" type veth peer name "$id-e$i" || exit 1
  ip link set "$id-p$i" netns "$SW" && ip link set "$id-e$i" netns "$h"
  ip -n "$SW" link set "$id-p$i" name "p$i"
  ip -n "$h" link set "$id-e$i" name eth0
  ip -n "$h" link set eth0 address "02:00:00:00:00:0$i"
  ip -n "$h" addr add "10.0.0.$i/24" dev eth0
  ip -n "$h" link set eth0 up
  ip -n "$h" link set lo up
  ip -n "$SW" link set "p$i" up
done
ip -n "$H1" neigh add 10.0.0.2 lladdr 02:00:00:00:00:02 dev eth0 nud permanent
# XDP frames into a veth need its peer's NAPI: GRO on at p1 (see -G).
if [ "$GEN" = xdp ]; then ip netns exec "$SW" ethtool -K p1 gro on >/dev/null || exit 1; fi

pktgen() {  # seconds rate: JSON of one pktgen run from h1 (its notes go to DIR/pktgen.log)
  timeout $(($1 + 20)) ip netns exec "$H1" nice -n "$NICE" "$BIN" pktgen --mode "$GEN" --dst 10.0.0.2 --size 18 --flows 64 \
    --threads "$PKTGEN_THREADS" --seconds "$1" --rate "$2" 2>>"$out/pktgen.log"
}
kstat() {  # p1's kernel counters, as JSON: {"rx": packets, "dropped": packets}
  ip -n "$SW" -s -j link show p1 2>/dev/null | python3 -c 'import json,sys; r=json.load(sys.stdin)[0]["stats64"]["rx"]; print(json.dumps({"rx": r["packets"], "dropped": r["dropped"]}))' 2>/dev/null || echo null
}
upstat() {  # the tc datapath's upcall TAP (flup<ifindex>): what the kernel queued to it and dropped (queue full)
  ip -n "$SW" -s -j link show 2>/dev/null | python3 -c 'import json,sys; t=[l for l in json.load(sys.stdin) if l["ifname"].startswith("flup")]; print(json.dumps({"tx": sum(l["stats64"]["tx"]["packets"] for l in t), "dropped": sum(l["stats64"]["tx"]["dropped"] for l in t)}) if t else "null")' 2>/dev/null || echo null
}
kdiff() {  # before after: the counters' growth
  python3 -c 'import json,sys; a,b=json.loads(sys.argv[1]),json.loads(sys.argv[2]); print(json.dumps({k: b[k]-a[k] for k in a}))' "$1" "$2" 2>/dev/null || echo null
}
field() { python3 -c "import json,sys; j=json.loads(sys.argv[1]); print(j$2)" "$1" 2>/dev/null; }

rows=()
echo "generator ceiling (no switch on p1)..." >&2
k0=$(kstat)
g=$(pktgen "$DUR" 0)
rows+=("{\"case\": \"pktgen alone\", \"pktgen\": ${g:-null}, \"p1_kernel\": $(kdiff "$k0" "$(kstat)")}")
if [ "$RATE" != 0 ]; then
  echo "generator alone at $RATE/s..." >&2
  k0=$(kstat)
  g=$(pktgen "$DUR" "$RATE")
  rows+=("{\"case\": \"pktgen alone at $RATE/s\", \"pktgen\": ${g:-null}, \"p1_kernel\": $(kdiff "$k0" "$(kstat)")}")
fi

port=16699
# The first row of the switch is a control: the same switch and controller,
# no flood, on the same loaded machine (what the scheduler alone costs the
# replies).
first=${DPS%% *}; first=${first:-tc}
for run in "$first:idle" $DPS; do
  dp=${run%%:*} idle=; [ "$run" != "$dp" ] && idle=1
  tag=$dp${idle:+-idle} name=$dp${idle:+, no flood}
  echo "$name..." >&2
  rm -f "$out/stats-$tag.json"
  ip netns exec "$SW" python3 "$root/scripts/pin_flood_controller.py" "$port" "$DUR" 1.5 \
    > "$out/ctl-$tag.json" 2> "$out/ctl-$tag.log" &
  ctl_pid=$!
  for _ in $(seq 50); do grep -q listening "$out/ctl-$tag.log" 2>/dev/null && break; sleep 0.1; done
  if [ "$dp" = ovs ]; then
    start_ovs "$port" > "$out/switch-ovs.log" 2>&1 || echo "bench-pin-flood: OVS did not start (see $out/switch-ovs.log)" >&2
  else
    ip netns exec "$SW" "$BIN" switch --name s1 --dpid 1 --port p1 --port p2 --datapath "$dp" \
      --controller "tcp:127.0.0.1:$port" --fail-mode secure --stats-file "$out/stats-$tag.json" \
      --log-level warn > "$out/switch-$tag.log" 2>&1 &
    sw_pid=$!
  fi
  for _ in $(seq 200); do grep -q connected "$out/ctl-$tag.log" 2>/dev/null && break; sleep 0.1; done
  sleep 1  # the controller's warm-up (1.5 s) starts at its accept
  k0=$(kstat) u0=$(upstat)
  if [ -n "$idle" ]; then g=null; sleep $((DUR + 1)); else g=$(pktgen $((DUR + 1)) "$RATE"); fi
  kd=$(kdiff "$k0" "$(kstat)") ud=$(kdiff "$u0" "$(upstat)")
  wait "$ctl_pid"; ctl_pid=
  sleep 0.6  # the stats file is written every 500 ms
  st=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); p1=[p for p in j["ports"] if p["name"]=="p1"][0]; print(json.dumps({"p1_rx": p1["rx_packets"], "p1_rx_dropped": p1["rx_dropped"], "datapath_packets": j["datapath"]["packets"], "to_controller_queued": j["to_controller"]["queued"], "to_controller_dropped": j["to_controller"]["dropped"], "sent": j["packet_ins"]["sent"], "unsent": j["packet_ins"]["unsent"], "congested": j["packet_ins"]["congested"]}))' "$out/stats-$tag.json" 2>/dev/null || echo null)
  if [ "$dp" = ovs ]; then  # OVS's own counters are not broken down (its port counters are p1's kernel ones)
    st='{}'
    stop_ovs
  else
    kill "$sw_pid" 2>/dev/null; wait "$sw_pid" 2>/dev/null; sw_pid=
  fi
  c=$(cat "$out/ctl-$tag.json" 2>/dev/null); [ -n "$c" ] || c=null
  rows+=("{\"case\": \"$name\", \"pktgen\": ${g:-null}, \"p1_kernel\": $kd, \"upcall_tap\": $ud, \"controller\": $c, \"switch\": $st}")
  port=$((port + 1))
done

( IFS=,; echo "{\"seconds\": $DUR, \"pktgen_threads\": $PKTGEN_THREADS, \"generator\": \"$GEN\", \"rate\": $RATE, \"nice\": $NICE, \"load\": \"$(cut -d' ' -f1-3 /proc/loadavg)\", \"rows\": [${rows[*]}]}" ) > "$out/results.json"
python3 - "$out/results.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
rate = f"{j['rate'] / 1e6:g} Mpps offered" if j["rate"] else "as fast as it goes"
print(f"packet-in flood, {j['seconds']} s measured per row, pktgen --mode {j['generator']} {j['pktgen_threads']} threads "
      f"at nice {j['nice']} ({rate}), 64-byte frames, load {j['load']}")
print("| case | offered (pktgen) | p1 kernel rx (dropped) | switch socket rx (ring drops) | to agent (queue drops) "
      "| packet-ins sent (shed) | read by the controller | lost most at | echo p50 / p99 / max "
      "| barrier (flow-mod applied) p50 / p99 / max | replies > 100 ms | disconnected |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
def mpps(n, s): return f"{n / s / 1e6:.3f} Mpps" if s else "?"
for r in j["rows"]:
    g = r.get("pktgen") or {}
    secs = g.get("seconds", 0)
    off = f"{g.get('pps', 0) / 1e6:.3f} Mpps ({g.get('sent', 0):,} sent, {g.get('failed', 0):,} failed)"
    if not g: off = "none"
    c, s, k = r.get("controller"), r.get("switch"), r.get("p1_kernel") or {"rx": 0, "dropped": 0}
    kern = f"{k['rx']:,} ({k['dropped']:,})"
    if c and s is not None and r["case"].startswith("ovs"):  # OVS: only what it read from p1 and what the controller read
        worst = (k["rx"] - c.get("packet_ins_total", 0), "inside OVS (not broken down)", k["rx"])
        bound = f"{worst[1]}: {100 * worst[0] / worst[2]:.0f} % lost" if worst[2] and worst[0] > 0.02 * worst[2] else "nowhere (< 2 %)"
        e, b = c["echo_ms"], c["barrier_ms"]
        print(f"| {r['case']} | {off} | {kern} | | | | "
              f"{c.get('packet_ins_total', 0):,} ({c['packet_ins_per_s']:,}/s) | {bound} | "
              f"{e['p50']} / {e['p99']} / {e['max']} ms ({c['echo_answered']}/{c['rounds']}) | "
              f"{b['p50']} / {b['p99']} / {b['max']} ms ({c['barrier_answered']}/{c['rounds']}) | {c['over_100ms']} | "
              f"{c['switch_disconnected']} |")
        continue
    if not c or not s:
        note = "" if r["case"].startswith("pktgen alone") else "no result (see the logs in the results folder)"
        print(f"| {r['case']} | {off} | {kern} | | | | | {note} | | | | |"); continue
    # the stages, each with what reached it and what it passed on
    # (p1's kernel counters and pktgen cover the same seconds; the switch's
    # and the controller's counters its whole life: the same flood, plus the
    # frames in flight when pktgen started and stopped)
    stages = [("veth h1 -> p1 (CPU)", g.get("sent", 0), k["rx"] + k["dropped"]),
              ("p1 kernel rx", k["rx"] + k["dropped"], k["rx"]),
              ("kernel -> switch socket" + (" (tc: the upcall TAP's queue full: %s dropped)" % f"{r['upcall_tap']['dropped']:,}" if r.get("upcall_tap") else ""),
               k["rx"], s["p1_rx"] + s["p1_rx_dropped"]),
              ("switch ring (forwarding thread)", s["p1_rx"] + s["p1_rx_dropped"], s["p1_rx"]),
              ("forwarding -> agent queue", s["to_controller_queued"] + s["to_controller_dropped"], s["to_controller_queued"]),
              ("agent pacing (controller slower)", s["sent"] + s["congested"] + s["unsent"], s["sent"]),
              ("controller reading", s["sent"], c.get("packet_ins_total", 0))]
    lost = [(a - b, n, a) for n, a, b in stages if a and a > b]
    worst = max(lost) if lost else None
    bound = f"{worst[1]}: {100 * worst[0] / worst[2]:.0f} % lost" if worst and worst[0] > 0.02 * worst[2] else "nowhere (< 2 %)"
    e, b = c["echo_ms"], c["barrier_ms"]
    print(f"| {r['case']} | {off} | {kern} | {s['p1_rx']:,} ({s['p1_rx_dropped']:,}) | "
          f"{s['to_controller_queued']:,} ({s['to_controller_dropped']:,}) | {s['sent']:,} ({s['congested']:,}) | "
          f"{c.get('packet_ins_total', 0):,} ({c['packet_ins_per_s']:,}/s) | {bound} | "
          f"{e['p50']} / {e['p99']} / {e['max']} ms ({c['echo_answered']}/{c['rounds']}) | "
          f"{b['p50']} / {b['p99']} / {b['max']} ms ({c['barrier_answered']}/{c['rounds']}) | {c['over_100ms']} | "
          f"{c['switch_disconnected']} |")
EOF
echo "results: $out/results.json" >&2
