#!/usr/bin/env bash
# OpenFlow 1.3, 1.4 and 1.5 conformance run: os-ken's switch tester (tester.py)
# against `flowlab switch` or Open vSwitch, on the topology the tester expects.
#
#   scripts/conformance.sh [--switch flowlab|ovs] [--version 13|14|15] [--cases DIR]
#                          [--out DIR] [--flowlab PATH] [--timeout SEC] [--interval SEC]
#                          [--known FILE]
#
# --version: the OpenFlow version the target speaks (default 13; the cases
# default to tests/conformance/of<version>). The tester switch stays at 1.3.
# At 1.4 and 1.5 the tester runs as tests/conformance/tester_ext.py (os-ken's
# tester with what it lacks there: 1.5's flow descriptions, flow-mods sent in
# standard bundles).
# --known: failures that are explained differences (default
# tests/conformance/known-differences.tsv: version, switch, file, case, reason);
# they are reported as KNOWN and do not fail the run.
#
# Topology, all inside one network namespace this script creates (cf<pid>)
# and deletes on exit:
#   target switch (dpid 1, the switch under test)  ports 1,2,3
#      | veth cf<pid>t1<->cf<pid>s1, t2<->s2, t3<->s3
#   tester switch (OVS, datapath_type=netdev, dpid 2)  ports 1,2,3
#   os-ken (tester.py) on the namespace's 127.0.0.1:6653, both switches connect.
# The tester OVS runs from a private run dir; with --switch ovs the target is a
# second bridge of that same ovs-vswitchd (two vswitchd with netdev datapaths
# cannot share one namespace: both want the "ovs-netdev" tap).
# IPv6 is disabled in the namespace so the kernel sends no ND/MLD noise on
# the veths (the tester counts packet-ins and port counters).
#
# Output (in --out, default build/conformance-out/<switch>):
#   osken.log       the tester's full log
#   results.tsv     file<TAB>test<TAB>OK|ERROR|KNOWN<TAB>detail, one line per test
#   summary.txt     per-file pass/fail counts and totals (also printed)
#   <switch>.log    the target switch's log (flowlab) / ovs-vswitchd.log
# Exit code: 0 all passed (or known differences), 1 some failed, 2 setup error / timeout.
set -u

SWITCH=flowlab
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CASES=""
VERSION=13
KNOWN="$ROOT/tests/conformance/known-differences.tsv"
OUT=""
FLOWLAB=""
TIMEOUT=900
INTERVAL=1   # seconds between tests: OVS credits flow/table stats and
             # revalidates datapath flows asynchronously (about every 0.5 s)
TESTER=/usr/lib/python3/dist-packages/os_ken/tests/switch/tester.py

die() { echo "conformance: error: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --switch) SWITCH=${2:?}; shift 2 ;;
    --cases) CASES=${2:?}; shift 2 ;;
    --version) VERSION=${2:?}; shift 2 ;;
    --known) KNOWN=${2:?}; shift 2 ;;
    --out) OUT=${2:?}; shift 2 ;;
    --flowlab) FLOWLAB=${2:?}; shift 2 ;;
    --timeout) TIMEOUT=${2:?}; shift 2 ;;
    --interval) INTERVAL=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,35p' "$0"; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done
case "$SWITCH" in flowlab|ovs) ;; *) die "--switch must be flowlab or ovs" ;; esac
case "$VERSION" in 13|14|15) ;; *) die "--version must be 13, 14 or 15" ;; esac
[ -n "$CASES" ] || CASES="$ROOT/tests/conformance/of$VERSION"
if [ "$VERSION" = 13 ]; then
  APP=$TESTER
else
  APP="$ROOT/tests/conformance/tester_ext.py"
fi
[ "$(id -u)" = 0 ] || die "needs root (namespaces, veths)"
[ -d "$CASES" ] || die "cases dir $CASES not found"
CASES=$(cd "$CASES" && pwd)
[ -n "$OUT" ] || OUT="$ROOT/build/conformance-out/$SWITCH"
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
for t in ovsdb-tool ovsdb-server ovs-vswitchd ovs-vsctl /usr/bin/osken-manager; do
  command -v "$t" >/dev/null || die "$t not installed"
done
[ -f "$TESTER" ] || die "$TESTER not found (python3-os-ken)"
[ -f "$APP" ] || die "$APP not found"
if [ "$SWITCH" = flowlab ]; then
  if [ -z "$FLOWLAB" ]; then
    for c in "$ROOT/build/conformance/flowlab" "$ROOT/build/release/flowlab"; do
      [ -x "$c" ] && FLOWLAB=$c && break
    done
  fi
  [ -n "$FLOWLAB" ] && [ -x "$FLOWLAB" ] || die "flowlab binary not found (--flowlab PATH; build: cmake -S . -B build/conformance -DCMAKE_BUILD_TYPE=Release && cmake --build build/conformance --target flowlab)"
fi

ID=$$
NS="cf$ID"
RUN=$(mktemp -d /tmp/cf.XXXXXX)   # short: unix socket paths must stay < 108 chars
FLOWLAB_PID=""
OSKEN_PID=""

cleanup() {
  set +e
  [ -n "$OSKEN_PID" ] && kill "$OSKEN_PID" 2>/dev/null
  [ -n "$FLOWLAB_PID" ] && kill "$FLOWLAB_PID" 2>/dev/null
  for p in ovs-vswitchd ovsdb-server; do
    [ -f "$RUN/$p.pid" ] && kill "$(cat "$RUN/$p.pid" 2>/dev/null)" 2>/dev/null
  done
  for pid in $OSKEN_PID $FLOWLAB_PID; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
  done
  for p in ovs-vswitchd ovsdb-server; do
    if [ -f "$RUN/$p.pid" ]; then
      pid=$(cat "$RUN/$p.pid" 2>/dev/null)
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null
    fi
  done
  [ -f "$RUN/ovs-vswitchd.log" ] && cp "$RUN/ovs-vswitchd.log" "$OUT/ovs-vswitchd.log"
  ip netns del "$NS" 2>/dev/null
  rm -rf "$RUN"
}
trap cleanup EXIT
trap 'exit 2' INT TERM

nsx() { ip netns exec "$NS" "$@"; }

# --- namespace and wiring ---
ip netns add "$NS" || die "cannot create namespace $NS"
nsx sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
nsx ip link set lo up
for i in 1 2 3; do
  nsx ip link add "${NS}t$i" type veth peer name "${NS}s$i" || die "veth"
  for d in "${NS}t$i" "${NS}s$i"; do
    nsx ip link set "$d" up
  done
done

# --- os-ken tester ---
: >"$OUT/osken.log"
timeout --kill-after=5 "$TIMEOUT" ip netns exec "$NS" /usr/bin/python3 /usr/bin/osken-manager \
  --ofp-listen-host 127.0.0.1 --ofp-tcp-listen-port 6653 \
  --test-switch-dir "$CASES" \
  --test-switch-target 0000000000000001 --test-switch-tester 0000000000000002 \
  --test-switch-target-version "openflow$VERSION" --test-switch-tester-version openflow13 \
  --test-switch-interval "$INTERVAL" \
  "$APP" >"$OUT/osken.log" 2>&1 &
OSKEN_PID=$!
for _ in $(seq 100); do
  nsx bash -c 'exec 3<>/dev/tcp/127.0.0.1/6653' 2>/dev/null && break
  kill -0 "$OSKEN_PID" 2>/dev/null || die "osken-manager exited: $(tail -5 "$OUT/osken.log")"
  sleep 0.1
done

# --- OVS (tester bridge, and target bridge with --switch ovs) ---
export OVS_RUNDIR=$RUN OVS_LOGDIR=$RUN OVS_DBDIR=$RUN
VSCTL=(ovs-vsctl --db="unix:$RUN/db.sock" --timeout=10)
ovsdb-tool create "$RUN/conf.db" /usr/share/openvswitch/vswitch.ovsschema || die "ovsdb-tool"
nsx ovsdb-server "$RUN/conf.db" --remote="punix:$RUN/db.sock" --pidfile="$RUN/ovsdb-server.pid" \
  --log-file="$RUN/ovsdb-server.log" --detach 2>>"$OUT/ovs-start.log" || die "ovsdb-server"
"${VSCTL[@]}" --no-wait init || die "ovs-vsctl init"
# flow-limit=0: OVS installs no datapath (megaflow) entries, every packet is
# classified against the current OpenFlow tables. Without it OVS keeps
# forwarding by stale cached flows for a moment after a flow-mod + barrier and
# credits table/flow stats late (revalidators), which makes random cases fail
# on both the tester and an OVS target.
"${VSCTL[@]}" --no-wait set Open_vSwitch . other_config:flow-limit=0 || die "ovs-vsctl set"
nsx ovs-vswitchd "unix:$RUN/db.sock" --pidfile="$RUN/ovs-vswitchd.pid" \
  --log-file="$RUN/ovs-vswitchd.log" --detach 2>>"$OUT/ovs-start.log" || die "ovs-vswitchd"

add_ovs_bridge() {  # BR DPID PORTPREFIX PROTOCOL
  local br=$1 dpid=$2 pfx=$3 proto=$4
  "${VSCTL[@]}" add-br "$br" -- set bridge "$br" datapath_type=netdev protocols="$proto" \
    other-config:datapath-id="$dpid" other-config:disable-in-band=true fail-mode=secure || die "add-br $br"
  for i in 1 2 3; do
    "${VSCTL[@]}" add-port "$br" "${pfx}$i" -- set interface "${pfx}$i" ofport_request=$i || die "add-port"
  done
  "${VSCTL[@]}" set-controller "$br" tcp:127.0.0.1:6653 || die "set-controller"
}
add_ovs_bridge "cf${ID}tst" 0000000000000002 "${NS}s" OpenFlow13

if [ "$SWITCH" = ovs ]; then
  add_ovs_bridge "cf${ID}dut" 0000000000000001 "${NS}t" "OpenFlow$VERSION"
  TARGET_LOG="$OUT/ovs-vswitchd.log"
else
  ip netns exec "$NS" "$FLOWLAB" switch --name dut --dpid 0x1 \
    --port "${NS}t1=1" --port "${NS}t2=2" --port "${NS}t3=3" \
    --controller tcp:127.0.0.1:6653 --fail-mode secure --protocols "OpenFlow$VERSION" \
    >"$OUT/flowlab.log" 2>&1 &
  FLOWLAB_PID=$!
  TARGET_LOG="$OUT/flowlab.log"
fi

echo "conformance: switch=$SWITCH version=1.${VERSION#1} cases=$CASES namespace=$NS log=$OUT/osken.log"
# The tester SIGTERMs itself after its report; wait for that (bounded by timeout).
wait "$OSKEN_PID"
RC=$?
OSKEN_PID=""
if [ "$SWITCH" = flowlab ] && ! kill -0 "$FLOWLAB_PID" 2>/dev/null; then
  echo "conformance: WARNING: flowlab switch exited during the run (see $TARGET_LOG)"
fi

# --- results ---
# tester log: file description lines (unindented), then per test
# "    <desc padded> OK|ERROR" and for errors "        <detail>".
awk -v OFS='\t' '
  { sub(/\r$/, ""); sub(/^\.+/, "") }  # the progress dots of a packet stream may run into the next line
  /--- Test start ---/ { on = 1; next }
  /---  ?Test end  ?---/ { on = 0 }
  !on { next }
  /^    [^ ]/ {
    line = substr($0, 5); res = line; sub(/.* /, "", res)
    if (res != "OK" && res != "ERROR") next
    desc = line; sub(/ +[A-Z]+$/, "", desc)
    if (pend != "") print pend, ""
    pend = file OFS desc OFS res
    if (res == "OK") { print pend, ""; pend = "" }
    next
  }
  /^        / { if (pend != "") { d = $0; sub(/^ +/, "", d); print pend, d; pend = "" } next }
  /^[^ ]/ && !/waiting for switches|dpid=|^\.+$/ { file = $0 }
  END { if (pend != "") print pend, "" }
' "$OUT/osken.log" >"$OUT/results.tsv.raw"

# Known differences: a failing case listed for this version and switch (or
# "*") becomes KNOWN, its reason in front of the tester's detail.
KF=/dev/null
[ -f "$KNOWN" ] && KF=$KNOWN
awk -F'\t' -v OFS='\t' -v kf="$KF" -v ver="$VERSION" -v sw="$SWITCH" '
  FILENAME == kf {
    if ($0 ~ /^#/ || NF < 5) next
    if ($1 == ver && ($2 == sw || $2 == "*")) known[$3 FS $4] = $5
    next
  }
  $3 == "ERROR" && (($1 FS $2) in known) { $3 = "KNOWN"; $4 = known[$1 FS $2] " [tester: " $4 "]" }
  { print }
' "$KF" "$OUT/results.tsv.raw" >"$OUT/results.tsv"
rm -f "$OUT/results.tsv.raw"

{
  echo "switch: $SWITCH   OpenFlow 1.${VERSION#1}   cases: $CASES"
  awk -F'\t' '{ n[$1]++; if ($3 == "OK") ok[$1]++; else if ($3 == "KNOWN") kn[$1]++; else bad[$1]++; }
    END { for (f in n) printf "%-48s passed %d  failed %d  known %d\n", f, ok[f] + 0, bad[f] + 0, kn[f] + 0 }' \
    "$OUT/results.tsv" | sort
  echo "failures:"
  awk -F'\t' '$3 == "ERROR" { printf "  %s / %s: %s\n", $1, $2, $4 }' "$OUT/results.tsv"
  echo "known differences (listed in $KNOWN):"
  awk -F'\t' '$3 == "KNOWN" { printf "  %s / %s: %s\n", $1, $2, $4 }' "$OUT/results.tsv"
  total=$(wc -l <"$OUT/results.tsv")
  ok=$(awk -F'\t' '$3 == "OK"' "$OUT/results.tsv" | wc -l)
  kn=$(awk -F'\t' '$3 == "KNOWN"' "$OUT/results.tsv" | wc -l)
  echo "TOTAL: $total tests, $ok passed, $((total - ok - kn)) failed, $kn known differences"
  grep -q -- '---  Test end  ---' "$OUT/osken.log" || echo "NOTE: the tester did not finish (timeout or crash; rc=$RC)"
} | tee "$OUT/summary.txt"

grep -q -- '---  Test end  ---' "$OUT/osken.log" || exit 2
total=$(wc -l <"$OUT/results.tsv")
[ "$total" -gt 0 ] || exit 2
awk -F'\t' '$3 == "ERROR" { bad = 1 } END { exit bad ? 1 : 0 }' "$OUT/results.tsv"
