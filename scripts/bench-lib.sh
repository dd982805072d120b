# shellcheck shell=bash disable=SC2034  # sourced; OVS_PID and OVSDB are for the caller
# bench-lib.sh: shell the benchmark scripts share, sourced (not run):
#   source "$(dirname "$0")/bench-lib.sh"
# The two-host topology, Open vSwitch userspace and the Linux bridge in the switch
# namespace, and small number helpers. Functions use the caller's globals RUN (a
# private directory of the run, removed by the caller) and SW (the switch namespace).

in_ns() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

# bench_binary NAME [path]: the flowlab binary to measure: the path given, else
# $FLOWLAB_BINARY, else the first release-like build found; exits 2 without one.
bench_binary() {
  local name=$1 bin=${2:-${FLOWLAB_BINARY:-}} c
  if [[ -z "$bin" ]]; then
    for c in build/release/flowlab build/switch-rel/flowlab build/port-rel/flowlab build/dev/flowlab; do
      [[ -x $c ]] && { bin=$c; break; }
    done
  fi
  [[ -x "$bin" ]] || { echo "$name: no flowlab binary (use -b PATH or FLOWLAB_BINARY)" >&2; exit 2; }
  echo "$bin"
}

# bench_require NAME TOOL...: root and every tool, or exit 2 saying which is missing.
bench_require() {
  local name=$1 t; shift
  [[ $(id -u) == 0 ]] || { echo "$name: needs root" >&2; exit 2; }
  for t in "$@"; do
    command -v "$t" >/dev/null || { echo "$name: $t is not installed" >&2; exit 2; }
  done
}

# bench_two_hosts H1 H2 ADDR1 ADDR2: namespaces H1, H2 and $SW; H1's eth0 (ADDR1,
# e.g. 10.0.0.1/24) is the peer of p1 in $SW, H2's eth0 (ADDR2) of p2.
bench_two_hosts() {
  local h1=$1 h2=$2 a1=$3 a2=$4 i h a
  ip netns add "$h1"; ip netns add "$h2"; ip netns add "$SW"
  for i in 1 2; do
    if [[ $i == 1 ]]; then h=$h1; a=$a1; else h=$h2; a=$a2; fi
    ip link add p$i netns "$SW" type veth peer name eth0 netns "$h"
    in_ns "$h" ip addr add "$a" dev eth0
    in_ns "$h" ip link set eth0 up
    in_ns "$h" ip link set lo up
    in_ns "$SW" ip link set p$i up
  done
  in_ns "$SW" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
  in_ns "$SW" ip link set lo up
}

# bench_direct_pair D1 D2 ADDR1 ADDR2: "direct", the same two hosts' addresses on
# one veth pair (eth0 in D1 and D2), no switch: the end hosts' own ceiling.
bench_direct_pair() {
  local d1=$1 d2=$2 a1=$3 a2=$4
  ip netns add "$d1"; ip netns add "$d2"
  ip link add eth0 netns "$d1" type veth peer name eth0 netns "$d2"
  in_ns "$d1" ip addr add "$a1" dev eth0
  in_ns "$d2" ip addr add "$a2" dev eth0
  for d in "$d1" "$d2"; do
    in_ns "$d" ip link set eth0 up
    in_ns "$d" ip link set lo up
  done
}

# ---- Open vSwitch userspace (datapath_type=netdev) in $SW --------------------
# ovs_start true|false: ovsdb-server and ovs-vswitchd in $SW with their files in
# $RUN/ovs, bridge br0 with p1, p2 as OpenFlow ports 1, 2, fail mode secure, no
# flows; the argument is other_config:userspace-tso-enable. Sets OVS_PID (the
# vswitchd) and OVSDB; ovs-vsctl / ovs-ofctl / ovs-appctl find the files by the
# exported OVS_RUNDIR.
OVS_PID=""
ovs_start() {
  export OVS_RUNDIR=$RUN/ovs OVS_LOGDIR=$RUN/ovs OVS_DBDIR=$RUN/ovs
  OVSDB="unix:$RUN/ovs/db.sock"
  rm -rf "$RUN/ovs"; mkdir -p "$RUN/ovs"
  ovsdb-tool create "$RUN/ovs/conf.db" /usr/share/openvswitch/vswitch.ovsschema
  in_ns "$SW" ovsdb-server "$RUN/ovs/conf.db" --remote=punix:$RUN/ovs/db.sock \
      --pidfile=$RUN/ovs/ovsdb-server.pid --detach --log-file=$RUN/ovs/ovsdb-server.log 2>/dev/null
  ovs-vsctl --db=$OVSDB --no-wait init
  [[ ${1:-false} == true ]] && ovs-vsctl --db=$OVSDB --no-wait set Open_vSwitch . other_config:userspace-tso-enable=true
  in_ns "$SW" ovs-vswitchd $OVSDB --pidfile=$RUN/ovs/ovs-vswitchd.pid --detach \
      --log-file=$RUN/ovs/ovs-vswitchd.log 2>/dev/null
  local V="ovs-vsctl --db=$OVSDB"
  $V add-br br0 -- set bridge br0 datapath_type=netdev protocols=OpenFlow10,OpenFlow13
  $V add-port br0 p1 -- set interface p1 ofport_request=1
  $V add-port br0 p2 -- set interface p2 ofport_request=2
  $V set-fail-mode br0 secure
  OVS_PID=$(cat $RUN/ovs/ovs-vswitchd.pid 2>/dev/null)
  sleep 1
  ovs-ofctl del-flows br0
}
ovs_stop() {
  [[ -d $RUN/ovs ]] || return 0
  OVS_PID=""
  local p
  for p in ovs-vswitchd ovsdb-server; do
    [[ -f $RUN/ovs/$p.pid ]] && kill "$(cat $RUN/ovs/$p.pid)" 2>/dev/null
  done
  sleep 0.5
  in_ns "$SW" ip link del br0 2>/dev/null   # the netdev bridge's tap stays behind
  rm -rf "$RUN/ovs"
  return 0
}

# ---- the Linux bridge lbr0 over p1, p2 in $SW --------------------------------
bridge_start() {
  in_ns "$SW" ip link add lbr0 type bridge
  in_ns "$SW" ip link set p1 master lbr0
  in_ns "$SW" ip link set p2 master lbr0
  in_ns "$SW" ip link set lbr0 up
}
bridge_stop() { in_ns "$SW" ip link del lbr0 2>/dev/null || true; }

# ---- numbers -----------------------------------------------------------------
# json_get EXPR < JSON: a Python expression over d (the parsed stdin), or "fail".
json_get() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)" 2>/dev/null || echo "fail"; }
# median V...: of the values that are not "fail" or "-" (not applicable); "-" when
# all are "-", "fail" when none is a number.
median() { python3 -c "import sys,statistics as s; a=sys.argv[1:]; v=[float(x) for x in a if x not in ('fail','-')]; print(('%.3f' % s.median(v)) if v else '-' if a and all(x=='-' for x in a) else 'fail')" "$@"; }
# ratio A B: A/B as "1.23x", "-" when either fails or B is 0.
ratio() { python3 -c "import sys; a,b=sys.argv[1],sys.argv[2]; print('-' if '' in (a,b) or 'fail' in (a,b) or float(b)==0 else '%.2fx' % (float(a)/float(b)))" "$1" "$2"; }
# proc_jiffies PID...: utime+stime of the processes (all their threads), in clock ticks.
proc_jiffies() {
  local sum=0 p
  for p in "$@"; do
    [[ -r /proc/$p/stat ]] || continue
    sum=$((sum + $(awk '{print $14+$15}' /proc/$p/stat 2>/dev/null || echo 0)))
  done
  echo $sum
}
