#!/bin/bash
# bench-controller.sh: every packet through the controller (hub), flowlab
# controller vs os-ken's repeater_hub_13.py, on the same Open vSwitch userspace
# bridge (datapath_type=netdev, OpenFlow 1.3, veth tx offloads off as OVS needs)
# between two namespace hosts. Prints TCP Gbit/s, UDP loss at 1 Gbit/s offered,
# controller CPU, packet-in -> packet-out latency (median, p99, measured on the
# OpenFlow TCP stream during a ping run) and the flowlab/os-ken ratios.
#
# usage: sudo [SWITCH=ovs|flowlab] scripts/bench-controller.sh [BUILD_DIR] [SECONDS]
#   BUILD_DIR defaults to build/release (cmake -DCMAKE_BUILD_TYPE=Release).
#   SWITCH=flowlab puts flowlab switch in OVS's place (veth offloads left at
#   their defaults, fail-mode secure, 4096 packet buffers): both controllers then
#   drive the same flowlab switch. REPEAT=N runs each controller N times,
#   alternating, and takes the ratios from the medians. THREADS=N gives
#   flowlab switch N forwarding threads (--threads, default 1).
#
# Where UDP is lost: each row also prints the share of the datagrams sent that
# the receiving host's socket dropped (h2's UdpRcvbufErrors: the receiver did
# not read in time), so the rest is the switch's (its counters, on stderr:
# to-controller queue full, packet-ins shed by pacing) or the sender's; and,
# for flowlab switch, the switch process's CPU % during the UDP run.
# UDP_WINDOW=SIZE (e.g. 4M) passes iperf3 -w SIZE: the receiver's socket buffer,
# for telling the switch's loss from a receiver that is not scheduled in time
# (default: the kernel's, 208 KB, about 90 datagrams).
set -u
BUILD=${1:-build/release}
SECS=${2:-5}
SWITCH=${SWITCH:-ovs}
REPEAT=${REPEAT:-1}
THREADS=${THREADS:-1}
UDP_WINDOW=${UDP_WINDOW:-}
case $SWITCH in ovs|flowlab) ;; *) echo "SWITCH must be ovs or flowlab" >&2; exit 2;; esac
FLOWLAB=$(readlink -f "$BUILD/flowlab")
# ../shared/peers from the main checkout, ../../shared/peers from a worktree; HUB_PY overrides.
if [ -z "${HUB_PY:-}" ]; then
  HUB_PY=$(readlink -f "$(dirname "$0")/../../shared/peers/repeater_hub_13.py")
  [ -f "$HUB_PY" ] || HUB_PY=$(readlink -f "$(dirname "$0")/../../../shared/peers/repeater_hub_13.py")
fi
[ -x "$FLOWLAB" ] || { echo "no flowlab binary at $FLOWLAB" >&2; exit 2; }
[ -f "$HUB_PY" ] || { echo "no $HUB_PY" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "needs root" >&2; exit 2; }

P=$$
H1=fcb${P}a H2=fcb${P}b SW=fcb${P}s
R=/tmp/flowlab-bench-ctl-$P
export OVS_RUNDIR=$R OVS_LOGDIR=$R OVS_DBDIR=$R
CTL_PID=
SW_PID=

# Background processes are waited for by PID only: a bare `wait` would also
# wait for the controller and hang. INT/TERM exit (running the EXIT cleanup)
# instead of resuming the script on a torn-down topology.
cleanup() {
  trap - EXIT INT TERM
  [ -n "$CTL_PID" ] && kill "$CTL_PID" 2>/dev/null && wait "$CTL_PID" 2>/dev/null
  [ -n "$SW_PID" ] && kill "$SW_PID" 2>/dev/null && wait "$SW_PID" 2>/dev/null
  for d in ovs-vswitchd ovsdb-server; do
    [ -f $R/$d.pid ] && kill "$(cat $R/$d.pid)" 2>/dev/null
  done
  sleep 0.3
  for ns in $H1 $H2 $SW; do
    ip netns pids $ns 2>/dev/null | xargs -r kill -9 2>/dev/null
    ip netns del $ns 2>/dev/null
  done
  rm -rf $R
}
trap cleanup EXIT
trap 'exit 130' INT TERM
die() { echo "bench-controller: $*" >&2; exit 1; }

mkdir -p $R
for ns in $H1 $H2 $SW; do ip netns add $ns || die "cannot create namespace $ns"; done
ip -n $SW link set lo up
for i in 1 2; do
  h=$H1; [ $i = 2 ] && h=$H2
  ip link add fcb${P}h$i type veth peer name fcb${P}p$i || die "cannot create veth fcb${P}h$i"
  ip link set fcb${P}h$i netns $h; ip link set fcb${P}p$i netns $SW
  ip -n $h addr add 10.0.0.$i/24 dev fcb${P}h$i
  ip -n $h link set fcb${P}h$i up; ip -n $h link set lo up
  ip -n $SW link set fcb${P}p$i up
  if [ "$SWITCH" = ovs ]; then
    ip netns exec $h ethtool -K fcb${P}h$i tx off >/dev/null
    ip netns exec $SW ethtool -K fcb${P}p$i tx off >/dev/null
  fi
done
[ "$SWITCH" = flowlab ] || {
  ovsdb-tool create $R/conf.db /usr/share/openvswitch/vswitch.ovsschema &&
  ip netns exec $SW ovsdb-server $R/conf.db --remote=punix:$R/db.sock --pidfile=$R/ovsdb-server.pid \
      --detach --log-file=$R/ovsdb.log &&
  ovs-vsctl --no-wait init &&
  ip netns exec $SW ovs-vswitchd unix:$R/db.sock --pidfile=$R/ovs-vswitchd.pid --detach --log-file=$R/vswitchd.log &&
  ovs-vsctl --timeout=20 add-br br0 -- set bridge br0 datapath_type=netdev protocols=OpenFlow13 &&
  for i in 1 2; do
    ovs-vsctl --timeout=20 add-port br0 fcb${P}p$i -- set interface fcb${P}p$i ofport_request=$i || exit 1
  done &&
  ovs-vsctl set-fail-mode br0 secure &&
  ovs-vsctl set-controller br0 tcp:127.0.0.1:6653
} >$R/ovs-setup.log 2>&1 || { cat $R/ovs-setup.log >&2; die "Open vSwitch setup failed"; }
if [ "$SWITCH" = ovs ]; then
  for _ in $(seq 100); do [ -S $R/br0.mgmt ] && break; sleep 0.1; done
  [ -S $R/br0.mgmt ] || die "ovs-vswitchd did not create br0 (see $R/vswitchd.log)"
fi

# Starts the switch under test (flowlab) or waits for OVS to connect; 0 when
# the switch is connected to the controller just started.
switch_up() {  # name
  if [ "$SWITCH" = ovs ]; then
    for _ in $(seq 150); do
      ovs-vsctl --timeout=5 --columns=is_connected list controller | grep -q true && return 0
      sleep 0.1
    done
    return 1
  fi
  for _ in $(seq 150); do
    ip netns exec $SW bash -c 'exec 3<>/dev/tcp/127.0.0.1/6653' 2>/dev/null && break
    sleep 0.1
  done
  ip netns exec $SW "$FLOWLAB" switch --name s1 --dpid 0x1 --port fcb${P}p1=1 --port fcb${P}p2=2 \
      --controller tcp:127.0.0.1:6653 --fail-mode secure --log-level warn --stats-file $R/$1-switch-stats.json \
      --threads "$THREADS" >$R/$1-switch.log 2>&1 &
  SW_PID=$!
  for _ in $(seq 50); do
    ip netns exec $H1 ping -c 1 -W 0.2 10.0.0.2 >/dev/null 2>&1 && return 0
    kill -0 $SW_PID 2>/dev/null || return 1
  done
  return 1
}
switch_down() {  # name
  [ -n "$SW_PID" ] || return 0
  kill $SW_PID 2>/dev/null; wait $SW_PID 2>/dev/null; SW_PID=
  # The switch's own counters, on stderr: where packets to the controller went.
  python3 - $R/$1-switch-stats.json <<'PY' >&2 || true
import json, sys
s = json.load(open(sys.argv[1]))
q, b = s["to_controller"], s["buffers"]
print("  %s switch: %d queued to controller, %d queue-full drops, %d packet-ins, %d shed by pacing, "
      "%d packet-outs, buffers evicted %d expired %d, errors sent %d; port rx drops %s, tx drops %s" % (
      sys.argv[1].split("/")[-1].split("-switch")[0], q["queued"], q["dropped"], s["packet_ins"]["sent"],
      s["packet_ins"]["congested"], s["packet_outs"], b["evicted"], b["expired"], s["errors_sent"], [p["rx_dropped"] for p in s["ports"]],
      [p["tx_dropped"] for p in s["ports"]]))
PY
}

cpu_ticks() { awk '{print $14+$15}' /proc/$1/stat 2>/dev/null || echo 0; }
# h2's UDP datagrams dropped at a full socket receive buffer (/proc/net/snmp, Udp: RcvbufErrors).
rcvbuf_errors() {
  ip netns exec $H2 awk '/^Udp:/ { if (!n) { for (i = 2; i <= NF; i++) if ($i == "RcvbufErrors") c = i; n = 1 }
                                    else print $c }' /proc/net/snmp
}

# Packet-in -> packet-out latency from a pcap of the OpenFlow TCP stream: each
# OF1.3/1.4/1.5 packet-in is paired with the next packet-out carrying the same frame.
latency_py() {
python3 - "$1" <<'PY'
import struct, sys, statistics
data = open(sys.argv[1], 'rb').read()
magic = struct.unpack('<I', data[:4])[0]
ns = magic == 0xa1b23c4d
link = struct.unpack('<I', data[20:24])[0]
off = 24; streams = {}
while off + 16 <= len(data):
    ts, tf, incl, orig = struct.unpack('<IIII', data[off:off+16]); off += 16
    pkt = data[off:off+incl]; off += incl
    t = ts + tf / (1e9 if ns else 1e6)
    l2 = 14 if link == 1 else 16 if link == 113 else 0
    ip = pkt[l2:]
    if len(ip) < 20 or ip[0] >> 4 != 4: continue
    ihl = (ip[0] & 15) * 4; tot = struct.unpack('!H', ip[2:4])[0]
    tcp = ip[ihl:tot]
    if len(tcp) < 20: continue
    sp, dp, seq = struct.unpack('!HHI', tcp[:8]); doff = (tcp[12] >> 4) * 4
    pay = tcp[doff:]
    if not pay: continue
    s = streams.setdefault((sp, dp), {'next': None, 'buf': b'', 'msgs': []})
    if s['next'] is not None and seq != s['next']:
        if (seq - s['next']) % (1 << 32) > (1 << 31): continue  # retransmission
    s['next'] = (seq + len(pay)) % (1 << 32)
    s['buf'] += pay
    b = s['buf']
    while len(b) >= 8:
        ln = struct.unpack('!H', b[2:4])[0]
        if ln < 8 or len(b) < ln: break
        s['msgs'].append((t, b[:ln])); b = b[ln:]
    s['buf'] = b
pins = []; pouts = {}
for s in streams.values():
    for t, m in s['msgs']:
        if m[0] not in (4, 5, 6): continue
        # A buffered packet-in and its packet-out are paired by buffer id,
        # an unbuffered one by the frame it carries. Packet-in is laid out
        # alike at 1.3, 1.4 and 1.5; 1.5's packet-out has a match (the
        # in_port) between its header and its actions.
        bid = struct.unpack('!I', m[8:12])[0]
        if m[1] == 10:  # packet-in
            mlen = struct.unpack('!H', m[26:28])[0]
            start = 24 + (mlen + 7) // 8 * 8 + 2
            pins.append((t, ('b', bid) if bid != 0xffffffff else m[start:]))
        elif m[1] == 13:  # packet-out
            alen = struct.unpack('!H', m[12:14] if m[0] == 6 else m[16:18])[0]
            start = 24 + alen
            if m[0] == 6:
                start = 16 + (struct.unpack('!H', m[18:20])[0] + 7) // 8 * 8 + alen
            pouts.setdefault(('b', bid) if bid != 0xffffffff else m[start:], []).append(t)
lat = []
for t, d in sorted(pins):
    q = pouts.get(d)
    while q and q[0] < t: q.pop(0)
    if q: lat.append(q.pop(0) - t)
if not lat: print("n/a n/a 0"); sys.exit()
lat.sort()
print("%.1f %.1f %d" % (statistics.median(lat) * 1e6, lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1e6, len(lat)))
PY
}

run_one() {  # name, command...
  local name=$1; shift
  [ "$SWITCH" = ovs ] && ovs-ofctl -O OpenFlow13 del-flows br0 >&2
  ip netns exec $SW "$@" >$R/$name.log 2>&1 &
  CTL_PID=$!
  if ! switch_up $name; then
    echo "bench-controller: $name: the $SWITCH switch did not connect; the controller's log:" >&2; cat $R/$name.log >&2
    [ -f $R/$name-switch.log ] && cat $R/$name-switch.log >&2
    switch_down $name
    kill $CTL_PID 2>/dev/null; wait $CTL_PID 2>/dev/null; CTL_PID=
    echo "$name 0 0 100 0 n/a n/a n/a 0 n/a n/a"; return
  fi
  sleep 1
  ip netns exec $H1 ping -c 3 -W 1 10.0.0.2 >/dev/null  # warm ARP
  # Latency: 200 pings at 100/s while capturing the OpenFlow stream.
  ip netns exec $SW dumpcap -q -P -i lo -f "tcp port 6653" -w $R/$name.pcap >/dev/null 2>&1 &
  local cap=$!; sleep 1
  local rtt
  rtt=$(ip netns exec $H1 ping -c 200 -i 0.01 -q 10.0.0.2 | awk -F/ '/rtt/ {print $5}')
  sleep 0.5; kill $cap; wait $cap 2>/dev/null
  read -r lat50 lat99 nlat <<<"$(latency_py $R/$name.pcap)"
  # TCP
  ip netns exec $H2 iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
  local srv=$!
  sleep 0.3
  local c0; c0=$(cpu_ticks $CTL_PID)
  local tcp
  tcp=$(ip netns exec $H1 timeout $((SECS + 15)) iperf3 -c 10.0.0.2 -p 5201 -t $SECS -J 2>/dev/null |
        python3 -c 'import json,sys; print("%.3f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]/1e9))' 2>/dev/null || echo 0)
  local c1; c1=$(cpu_ticks $CTL_PID)
  local cpu=$(( (c1 - c0) * 100 / $(getconf CLK_TCK) / SECS ))
  kill $srv 2>/dev/null; wait $srv 2>/dev/null
  # UDP, 1 Gbit/s offered; delivered = what the receiver got, loss = bytes sent but not received
  ip netns exec $H2 iperf3 -s -1 -p 5202 >/dev/null 2>&1 &
  srv=$!
  sleep 0.3
  local udp rb0 rb1 s0=0 s1=0
  rb0=$(rcvbuf_errors)
  [ -n "$SW_PID" ] && s0=$(cpu_ticks $SW_PID)
  udp=$(ip netns exec $H1 timeout $((SECS + 15)) iperf3 -c 10.0.0.2 -p 5202 -u -b 1G -l 1470 ${UDP_WINDOW:+-w $UDP_WINDOW} -t $SECS -J 2>/dev/null |
        python3 -c 'import json,sys; e=json.load(sys.stdin)["end"]; r=e["sum_received"]; t=e["sum_sent"]; print("%.3f %.1f %d" % (r["bits_per_second"]/1e9, 100*(1-r["bytes"]/t["bytes"]) if t["bytes"] else 100, t["bytes"] // 1470))' 2>/dev/null || echo "0 100 0")
  [ -n "$SW_PID" ] && s1=$(cpu_ticks $SW_PID)
  kill $srv 2>/dev/null; wait $srv 2>/dev/null
  rb1=$(rcvbuf_errors)
  local sent=${udp##* }
  udp=${udp% *}
  local rcvbuf_pct sw_cpu="n/a"
  rcvbuf_pct=$(python3 -c "print('%.1f' % (100 * ($rb1 - $rb0) / $sent if $sent else 0))" 2>/dev/null || echo n/a)
  [ -n "$SW_PID" ] && sw_cpu=$(( (s1 - s0) * 100 / $(getconf CLK_TCK) / SECS ))
  switch_down $name
  kill $CTL_PID 2>/dev/null; wait $CTL_PID 2>/dev/null; CTL_PID=
  echo "$name $tcp $udp $cpu ${rtt:-n/a} ${lat50:-n/a} ${lat99:-n/a} ${nlat:-0} $rcvbuf_pct $sw_cpu"
}

echo "switch: $SWITCH$([ "$SWITCH" = flowlab ] && echo ", $THREADS forwarding thread(s)")${UDP_WINDOW:+, UDP receiver buffer $UDP_WINDOW}"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "controller tcp_gbps udp_delivered_gbps udp_loss_pct ctl_cpu_pct ping_rtt_ms pin_pout_p50_us pin_pout_p99_us samples" \
     "udp_receiver_socket_drop_pct switch_cpu_pct"
# REPEAT rounds, flowlab and os-ken alternating; the ratios use each column's median.
FS=(); OS=()
for _ in $(seq "$REPEAT"); do
  F=$(run_one flowlab "$FLOWLAB" controller --listen ptcp:6653:127.0.0.1 --app hub --log-level warn)
  echo "$F"; FS+=("$F")
  O=$(run_one osken /usr/bin/osken-manager --ofp-listen-host 127.0.0.1 --ofp-tcp-listen-port 6653 "$HUB_PY")
  echo "$O"; OS+=("$O")
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$REPEAT" "${FS[@]}" "${OS[@]}" <<'PY'
import statistics, sys
n = int(sys.argv[1]); rows = [a.split() for a in sys.argv[2:]]
f_rows, o_rows = rows[:n], rows[n:]
def med(rs, i):
    try: return statistics.median(float(r[i]) for r in rs)
    except Exception: return float("nan")
def r(a, b):
    return "%.1fx" % (a / b) if b and a == a and b == b else "n/a"
cols = [(1, "TCP Gbit/s"), (2, "UDP delivered Gbit/s"), (3, "UDP loss %"), (4, "controller CPU %"),
        (5, "ping ms"), (6, "pkt-in->pkt-out p50 us"), (7, "p99 us"), (9, "UDP dropped at receiver socket %"),
        (10, "switch CPU % (UDP)")]
if n > 1:
    print("medians of %d: " % n + "; ".join("%s flowlab %.3g os-ken %.3g" % (name, med(f_rows, i), med(o_rows, i))
                                          for i, name in cols))
print("ratio flowlab/os-ken: TCP %s, UDP delivered %s, p50 latency os-ken/flowlab %s, p99 %s" %
      (r(med(f_rows, 1), med(o_rows, 1)), r(med(f_rows, 2), med(o_rows, 2)), r(med(o_rows, 6), med(f_rows, 6)),
       r(med(o_rows, 7), med(f_rows, 7))))
PY
