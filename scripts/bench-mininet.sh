#!/usr/bin/env bash
# Benchmark (not a test): Mininet 2.3.0 vs `flowlab lab`, one invocation, same machine.
#
#   sudo scripts/bench-mininet.sh [--flowlab BIN] [--topos "linear,10 linear,100 tree,2,32"]
#                                 [--pingall-max HOSTS] [--mininet-timeout S] [--no-mininet]
#                                 [--flowlab-switch-max SWITCHES] [--repeat N] [--scripts]
#                                 [--switch-processes] [--no-linux-bridge]
#   sudo scripts/bench-mininet.sh --examples "popen,simpleperf,..." [--repeat N] [--flowlab BIN]
#
# --examples times Mininet's own examples end to end as their tests drive them: each
# example's test file (Mininet's examples/test/test_NAME.py, pexpect) run by
# tests/mininet_api/run_examples.py once with the example under `flowlab mininet` and once
# under Debian's Mininet 2.3.0 (run_examples.py --mininet: Linux bridges in place of its
# OVS and user switches and no controller, as `mn --switch lxbr --controller none`, since
# this machine has no openvswitch.ko and no reference controller), interleaved per example,
# N times (--repeat, default 5 here); a table of medians, each side's passed tests, and the
# ratio Mininet / flowlab where both passed.
# --scripts adds a row per topology: the very Python script that times Mininet (its API:
# Mininet(topo, switch=LinuxBridge) + start(), pingAll(), stop()) run again on flowlab's
# Mininet API (python/mininet_api, what `flowlab mininet SCRIPT.py` runs), the same
# bridges: a Mininet script's own cost under each.
#
# --repeat N runs every topology N times, the tools interleaved (Mininet, flowlab,
# Mininet, ...), prints each run's row and then a table of medians and the ratios
# Mininet / flowlab of the medians (up, down, and down with the kernel's settle time).
# Times are printed in ms resolution: a 10-host lab comes up in ~20 ms.
#
# For each topology: Mininet with Linux bridges (`--switch lxbr --controller none`;
# no OVS kernel module needed), then flowlab with linux-bridge switches, then
# flowlab switches with the flowlab learning switch. Per row: seconds to bring up,
# to pingall (every ordered pair), to tear down, and the memory the lab holds while
# up: "mem MB" is MemAvailable before minus while up (kernel memory included, but
# noisy when others use the machine), "rss MB" the resident memory of the lab's
# process tree (Mininet's python and its host shells; flowlab's supervisor, switches
# and controller). "settle s" is measured after each teardown: how long a fresh
# namespace with lo up then takes, i.e. how long the kernel is still busy freeing
# what the teardown deleted (both tools return from "down" before that is done).
#
# Mininet runs through its Python API (what `mn` runs) so that its phases are timed
# apart: Mininet(topo) + start(), pingAll(), stop(). flowlab: `lab up` (returns once
# the lab is up), `lab down`; pingall from `lab run --test pingall` (its pingall
# record's elapsed_s). Mininet's pingall pings the pairs one by one: it is skipped
# above --pingall-max hosts (default 100) for both tools, and a Mininet run past
# --mininet-timeout seconds (default 300; the whole Mininet run, up + pingall + down)
# is cut there: its nodes' shells are killed, what it left in the root namespace is
# deleted, and the phase it was in reads "did not finish in S s". Rows with
# flowlab switches are run up to --flowlab-switch-max switches (default 100). A lab's
# flowlab switches all run in one `flowlab switch-host` process (as ovs-vswitchd hosts
# every bridge); --switch-processes adds a row "flowlab procs" per topology with
# FLOWLAB_SWITCH_HOST=0, a `flowlab switch` process per switch as before, to compare
# in the same invocation. --no-linux-bridge skips flowlab's linux-bridge rows.
#
# Never runs `mn -c` (it kills other people's bridges and processes): if a Mininet
# run dies, only the switch interfaces (sN, sN-ethM) that appeared in the root
# namespace during that run are deleted.
set -euo pipefail
export LC_ALL=C  # $EPOCHREALTIME with a "." decimal point

FLOWLAB=${FLOWLAB:-build/release/flowlab}
TOPOS="linear,10 linear,100 linear,1000 tree,1,10 tree,2,10 tree,2,32"
PINGALL_MAX=100
MN_TIMEOUT=300
MININET=1
FL_SWITCH_MAX=100
REPEAT=1
SCRIPTS=0
EXAMPLES=""
SWITCH_PROCS=0
LINUX_BRIDGE=1
while [ $# -gt 0 ]; do
  case "$1" in
    --flowlab) FLOWLAB=$2; shift 2 ;;
    --topos) TOPOS=$2; shift 2 ;;
    --pingall-max) PINGALL_MAX=$2; shift 2 ;;
    --mininet-timeout) MN_TIMEOUT=$2; shift 2 ;;
    --no-mininet) MININET=0; shift ;;
    --flowlab-switch-max) FL_SWITCH_MAX=$2; shift 2 ;;
    --repeat) REPEAT=$2; shift 2 ;;
    --scripts) SCRIPTS=1; shift ;;
    --examples) EXAMPLES=$2; shift 2 ;;
    --switch-processes) SWITCH_PROCS=1; shift ;;
    --no-linux-bridge) LINUX_BRIDGE=0; shift ;;
    *) echo "bench-mininet: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" -eq 0 ] || { echo "bench-mininet: needs root" >&2; exit 2; }
[ -x "$FLOWLAB" ] || { echo "bench-mininet: no flowlab binary at $FLOWLAB (build/release, target flowlab)" >&2; exit 2; }
PY=/usr/bin/python3  # Debian's python, where the mininet package lives
if [ "$MININET" = 1 ] && ! $PY -c 'import mininet.net' 2>/dev/null; then
  echo "bench-mininet: Mininet is not installed (scripts/install-deps.sh installs mininet and bridge-utils)" >&2
  exit 2
fi

if [ -n "$EXAMPLES" ]; then
  [ "$REPEAT" -gt 1 ] || REPEAT=5
  RUNNER="$(dirname "$0")/../tests/mininet_api/run_examples.py"
  OUT=$(mktemp -d /tmp/bench-mininet-examples.XXXXXX)
  echo "examples: $EXAMPLES; $REPEAT runs, flowlab and Mininet interleaved; $(uptime)"
  for run in $(seq "$REPEAT"); do
    for ex in ${EXAMPLES//,/ }; do
      for tool in flowlab mininet; do
        flag=""; [ "$tool" = mininet ] && flag=--mininet
        $PY "$RUNNER" "$FLOWLAB" $flag --only "$ex" --timeout 300 >"$OUT/$tool-$ex-$run.log" 2>&1 || true
        line=$(grep "^TIME $ex " "$OUT/$tool-$ex-$run.log" | tail -1)
        echo "run $run $tool $ex: ${line#TIME $ex } (load $(cut -d' ' -f1 /proc/loadavg))"
        echo "$tool $ex ${line#TIME $ex }" >>"$OUT/rows"
      done
    done
  done
  echo
  awk '
    function med(key,   n, i, j, t, a) {
      n = cnt[key]; for (i = 1; i <= n; i++) a[i] = v[key, i]
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    { key = $1 " " $2; if (!(($2) in seen)) { seen[$2] = 1; order[++n] = $2 }
      v[key, ++cnt[key]] = $3; split($4, pr, "/"); ok[key] += pr[1]; all[key] += pr[2] }
    END {
      print "| example | flowlab s | flowlab passed | Mininet s | Mininet passed | Mininet / flowlab |"
      print "|---|---|---|---|---|---|"
      for (i = 1; i <= n; i++) {
        e = order[i]; f = med("flowlab " e); m = med("mininet " e)
        both = ok["flowlab " e] == all["flowlab " e] && ok["mininet " e] == all["mininet " e] && all["mininet " e] > 0
        printf "| %s | %.1f | %d/%d | %.1f | %d/%d | %s |\n", e, f, ok["flowlab " e], all["flowlab " e], m,
          ok["mininet " e], all["mininet " e], both ? sprintf("%.1fx", m / f) : "- (a side failed)"
      }
    }' "$OUT/rows"
  echo
  echo "logs in $OUT; machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ), flowlab $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  exit 0
fi

# The lab state and out dirs on tmpfs, where a Debian system has /run (flowlab's
# default state root /run/flowlab); on a machine whose /run is a disk (this one's
# is ext4), every state-file write and unlink of `lab up`/`down` would wait on the
# disk's journal, which other users' builds keep busy.
TMPFS=/dev/shm; [ -d "$TMPFS" ] || TMPFS=/tmp
WORK=$(mktemp -d "$TMPFS/bench-mininet.XXXXXX")
export FLOWLAB_STATE_DIR=$WORK/state
mkdir -p "$FLOWLAB_STATE_DIR"
LAB_ID=""
cleanup() {
  [ -n "$LAB_ID" ] && "$FLOWLAB" lab down "$LAB_ID" >/dev/null 2>&1 || true
  "$FLOWLAB" lab clean >/dev/null 2>&1 || true  # only this script's state dir
  rm -rf "$WORK"
}
trap cleanup EXIT

mem_avail_mb() { awk '/MemAvailable/ {print int($2 / 1024)}' /proc/meminfo; }
# Resident MB of a process and all its descendants.
cat >"$WORK/rss-tree.py" <<'PYEOF'
import os, sys
kids = {}
for p in os.listdir("/proc"):
    if p.isdigit():
        try:
            ppid = int(open("/proc/%s/stat" % p).read().rsplit(")", 1)[1].split()[1])
            kids.setdefault(ppid, []).append(int(p))
        except (OSError, IndexError, ValueError):
            pass
todo, kb = [int(sys.argv[1])], 0
while todo:
    pid = todo.pop()
    todo += kids.get(pid, [])
    try:
        for line in open("/proc/%d/status" % pid):
            if line.startswith("VmRSS:"):
                kb += int(line.split()[1])
    except OSError:
        pass
print(kb // 1024)
PYEOF
rss_tree_mb() { $PY "$WORK/rss-tree.py" "$1"; }
hosts_of() {  # linear,K -> K; tree,D,F -> F^D; single,K -> K
  IFS=, read -r kind a b <<<"$1"
  case "$kind" in
    linear|single) echo "$a" ;;
    tree) echo $(( b ** a )) ;;
  esac
}
switches_of() {
  IFS=, read -r kind a b <<<"$1"
  case "$kind" in
    linear) echo "$a" ;;
    single) echo 1 ;;
    tree) local s=0 p=1; for _ in $(seq 1 "$a"); do s=$((s + p)); p=$((p * b)); done; echo $s ;;
  esac
}
# Timestamps are $EPOCHREALTIME (bash 5): no fork of `date` inside a timed span.
# Seconds until the kernel has finished with a teardown: a fresh namespace with lo up
# waits for the RTNL lock that the kernel's background freeing of deleted namespaces
# and interfaces holds. Both tools' "down" return before the kernel is done (flowlab
# unmounts its namespaces, Mininet's hosts' shells exit); this is the rest.
settle_s() {
  local ns="flbench-settle-$$" t0 t1
  t0=$EPOCHREALTIME
  ip netns add "$ns" && ip -n "$ns" link set lo up
  t1=$EPOCHREALTIME
  ip netns del "$ns" 2>/dev/null || true
  secs "$t0" "$t1"
}
secs() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", b - a}'; }

ROWS=()
row() { ROWS+=("$(printf '| %-8s | %-20s | %-11s | %5s | %4s | %8s | %9s | %8s | %8s | %7s | %6s |' "$@")"); echo "${ROWS[-1]}"; }

# --- Mininet (Python API; prints "up S", "pingall S", "down S", "mem MB") ---
mininet_run() {
  local topo=$1 ping=$2 api=${3:-}
  local pyenv=()
  # flowlab's Mininet API in front of Debian's, and the flowlab it drives
  [ -n "$api" ] && pyenv=(env "PYTHONPATH=$api" "FLOWLAB_BIN=$(readlink -f "$FLOWLAB")")
  local before_links
  before_links=$(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | sort)
  local out rc=0
  # The run's own bound: SIGALRM at --mininet-timeout seconds in the Python run, which
  # then kills the shells of the nodes it made and prints "cut S PHASE"; `timeout` is
  # only the backstop should Python not get to run its handler.
  out=$(timeout -k 10 $((MN_TIMEOUT + 60)) "${pyenv[@]}" $PY - "$topo" "$ping" "$WORK/rss-tree.py" "$MN_TIMEOUT" \
    2>"$WORK/mn.err" <<'EOF'
import os, signal, subprocess, sys, time
from mininet.net import Mininet
from mininet.nodelib import LinuxBridge
from mininet.topo import LinearTopo, SingleSwitchTopo
from mininet.topolib import TreeTopo
from mininet.log import setLogLevel

def avail():
    for line in open("/proc/meminfo"):
        if line.startswith("MemAvailable"):
            return int(line.split()[1]) // 1024

class Cut(Exception):
    pass

def on_alarm(signum, frame):
    raise Cut()

setLogLevel("error")
kind, *args = sys.argv[1].split(",")
args = [int(a) for a in args]
limit = int(sys.argv[4])
topo = {"linear": lambda: LinearTopo(k=args[0], n=1), "single": lambda: SingleSwitchTopo(k=args[0]),
        "tree": lambda: TreeTopo(depth=args[0], fanout=args[1])}[kind]()
signal.signal(signal.SIGALRM, on_alarm)
m0 = avail()
t0 = time.time()
net, phase = None, "up"
try:
    signal.alarm(limit)
    # build=False and build() apart: `net` exists (with the nodes made so far) if the
    # bound strikes during the build.
    net = Mininet(topo=topo, switch=LinuxBridge, controller=None, build=False)
    net.build()
    net.start()
    t1 = time.time()
    print("up %.3f" % (t1 - t0), flush=True)
    print("mem %d" % (m0 - avail()), flush=True)
    rss = subprocess.run([sys.executable, sys.argv[3], str(os.getpid())], capture_output=True, text=True)
    print("rss %s" % rss.stdout.strip(), flush=True)
    if sys.argv[2] == "1":
        phase = "pingall"
        loss = net.pingAll(timeout="1")
        t2 = time.time()
        print("pingall %.3f loss %s" % (t2 - t1, loss), flush=True)
    phase = "down"
    t2 = time.time()
    net.stop()
    signal.alarm(0)
    print("down %.3f" % (time.time() - t2), flush=True)
except Cut:
    # Out of time: end the shell of every node made so far (each leads its own
    # process group); the caller deletes the bridges and links left in the root
    # namespace.
    print("cut %d %s" % (limit, phase), flush=True)
    for node in (net.hosts + net.switches) if net else []:
        try:
            os.killpg(node.pid, signal.SIGKILL)
        except (OSError, TypeError):
            pass
    sys.exit(3)
EOF
) || rc=$?
  if [ $rc -ne 0 ]; then
    # Only what this run made: switch interfaces that were not there before.
    local after
    after=$(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | sort)
    comm -13 <(echo "$before_links") <(echo "$after") | grep -E '^s[0-9]+(-eth[0-9]+)?$' |
      while read -r l; do ip link del "$l" 2>/dev/null || true; done
    if ! grep -q '^cut ' <<<"$out"; then
      echo "bench-mininet: Mininet $topo exited $rc: $(tail -3 "$WORK/mn.err")" >&2
      out="$out"$'\n'"failed $rc"
    fi
  fi
  echo "$out"
  echo "settle $(settle_s)"
}

field() { awk -v k="$1" '$1 == k {print $2}' <<<"$2"; }

for topo in $TOPOS; do
for _run in $(seq "$REPEAT"); do
  h=$(hosts_of "$topo"); s=$(switches_of "$topo")
  ping=0; [ "$h" -le "$PINGALL_MAX" ] && ping=1
  if [ "$MININET" = 1 ]; then
    o=$(mininet_run "$topo" $ping)
    cut=$(field cut "$o")
    up=$(field up "$o"); pa=$(field pingall "$o"); dn=$(field down "$o"); mem=$(field mem "$o"); rss=$(field rss "$o")
    st=$(field settle "$o")
    if [ -n "$cut" ]; then  # "cut S PHASE": that phase ran out of the bound
      msg="did not finish in $cut s"
      case $(awk '$1 == "cut" {print $3}' <<<"$o") in
        up) up=$msg ;;
        pingall) pa=$msg ;;
        down) dn=$msg ;;
      esac
    fi
    mfail=$(field failed "$o")
    [ -n "$mfail" ] && up=${up:-"failed"}
    row mininet "lxbr, no controller" "$topo" "$h" "$s" "${up:--}" "${pa:--}" "${dn:--}" "${st:--}" "${mem:--}" "${rss:--}"
  fi
  if [ "$SCRIPTS" = 1 ]; then
    o=$(mininet_run "$topo" $ping "$(dirname "$0")/../python/mininet_api")
    up=$(field up "$o"); pa=$(field pingall "$o"); dn=$(field down "$o"); st=$(field settle "$o")
    [ -n "$(field cut "$o")" ] && up="did not finish"
    [ -n "$(field failed "$o")" ] && up=${up:-"failed"}
    row "fl-api" "lxbr (Mininet script)" "$topo" "$h" "$s" "${up:--}" "${pa:--}" "${dn:--}" "${st:--}" "$(field mem "$o")" "$(field rss "$o")"
  fi
  kinds="flowlab"; [ "$LINUX_BRIDGE" = 1 ] && kinds="linux-bridge $kinds"
  [ "$SWITCH_PROCS" = 1 ] && kinds="$kinds flowlab-procs"
  for kind in $kinds; do
    sw=${kind%-procs}
    ctl=none; [ $sw = flowlab ] && ctl=flowlab:learning-switch
    label="$sw"; [ $sw = flowlab ] && label="flowlab + learning"
    [ $kind = flowlab-procs ] && label="procs + learning"
    export FLOWLAB_SWITCH_HOST=1; [ $kind = flowlab-procs ] && export FLOWLAB_SWITCH_HOST=0
    if [ $sw = flowlab ] && [ "$s" -gt "$FL_SWITCH_MAX" ]; then
      row flowlab "$label" "$topo" "$h" "$s" "not run" - - - - -; continue
    fi
    m0=$(mem_avail_mb)
    t0=$EPOCHREALTIME
    upout=$("$FLOWLAB" lab up --topo "$topo" --switch $sw --controller $ctl --out "$WORK/up-$kind-$topo" 2>"$WORK/up.err") || {
      row flowlab "$label" "$topo" "$h" "$s" failed - - - - -; cat "$WORK/up.err" >&2; continue; }
    t1=$EPOCHREALTIME
    mem=$(( m0 - $(mem_avail_mb) ))
    LAB_ID=$(awk '{print $2}' <<<"$upout")
    sup=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["pid"])' "$FLOWLAB_STATE_DIR/$LAB_ID/lab.json")
    rss=$(rss_tree_mb "$sup")
    t2=$EPOCHREALTIME
    "$FLOWLAB" lab down "$LAB_ID" >/dev/null
    t3=$EPOCHREALTIME
    LAB_ID=""
    st=$(settle_s)
    pa=-
    if [ $ping = 1 ]; then
      "$FLOWLAB" lab run --topo "$topo" --switch $sw --controller $ctl --test pingall --out "$WORK/run-$kind-$topo" \
        >/dev/null 2>&1 || true
      pa=$($PY -c 'import json,sys; r=[x for x in json.load(open(sys.argv[1]))["results"] if x["type"]=="pingall"][0];
print("%.2f%s" % (r["elapsed_s"], "" if r["status"]=="ok" else " (" + r["status"] + ")"))' "$WORK/run-$kind-$topo/results.json" 2>/dev/null || echo failed)
    fi
    row flowlab "$label" "$topo" "$h" "$s" "$(secs "$t0" "$t1")" "$pa" "$(secs "$t2" "$t3")" "$st" "$mem" "$rss"
  done
done
done

echo
echo "| tool     | switch               | topology    | hosts | sw   | up s     | pingall s | down s   | settle s | mem MB  | rss MB |"
echo "|----------|----------------------|-------------|-------|------|----------|-----------|----------|----------|---------|--------|"
printf '%s\n' "${ROWS[@]}"
if [ "$REPEAT" -gt 1 ]; then
  # Medians per tool, switch and topology (numbers only; a cell that is not a number
  # in some run, e.g. "failed", is shown as it was in the first run), then the ratios.
  echo
  echo "medians of $REPEAT runs:"
  printf '%s\n' "${ROWS[@]}" | awk -F'|' '
    function trim(x) { gsub(/^ +| +$/, "", x); return x }
    function med(key, c,   n, i, j, t, a) {
      n = cnt[key]
      for (i = 1; i <= n; i++) { if (val[key, c, i] !~ /^-?[0-9.]+$/) return val[key, c, 1]; a[i] = val[key, c, i] + 0 }
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    { key = trim($2) "|" trim($3) "|" trim($4)
      if (!(key in cnt)) order[++keys] = key
      cnt[key]++
      for (c = 2; c <= 12; c++) val[key, c, cnt[key]] = trim($c) }
    END {
      print "| tool     | switch               | topology    | hosts | sw   | up s     | pingall s | down s   | settle s | mem MB  | rss MB |"
      print "|----------|----------------------|-------------|-------|------|----------|-----------|----------|----------|---------|--------|"
      for (k = 1; k <= keys; k++) {
        key = order[k]
        line = sprintf("| %-8s | %-20s | %-11s | %5s | %4s |", val[key, 2, 1], val[key, 3, 1], val[key, 4, 1], val[key, 5, 1], val[key, 6, 1])
        for (c = 7; c <= 12; c++) { m = med(key, c); line = line sprintf(m ~ /^-?[0-9.]+$/ && c <= 10 ? " %8.3f |" : " %8s |", m) }
        print line
        for (c = 7; c <= 10; c++) M[key, c] = med(key, c)
        split(key, parts, "|"); topo[k] = parts[3]; tool[k] = parts[1] "|" parts[2]
      }
      print ""
      print "ratios Mininet / flowlab of the medians (up; pingall; down; down + settle; end to end = up + pingall + down):"
      for (k = 1; k <= keys; k++) if (tool[k] ~ /^mininet/) mkey[topo[k]] = order[k]
      for (k = 1; k <= keys; k++) {
        key = order[k]; mk = mkey[topo[k]]
        if (tool[k] ~ /^mininet/ || mk == "") continue
        if (M[key, 7] !~ /^[0-9.]+$/ || M[mk, 7] !~ /^[0-9.]+$/ || M[key, 7] == 0) continue
        dn = (M[key, 9] > 0) ? sprintf("%.1fx", M[mk, 9] / M[key, 9]) : "-"
        ds = (M[key, 9] + M[key, 10] > 0) ? sprintf("%.1fx", (M[mk, 9] + M[mk, 10]) / (M[key, 9] + M[key, 10])) : "-"
        pa = (M[key, 8] ~ /^[0-9.]+$/ && M[mk, 8] ~ /^[0-9.]+$/ && M[key, 8] > 0) ? sprintf("%.1fx", M[mk, 8] / M[key, 8]) : "-"
        ee = (pa != "-" && M[mk, 9] ~ /^[0-9.]+$/) ? sprintf("%.1fx", (M[mk, 7] + M[mk, 8] + M[mk, 9]) / (M[key, 7] + M[key, 8] + M[key, 9])) : "-"
        printf "  %-11s %-20s up %.1fx, pingall %s, down %s, down + settle %s, end to end %s\n", topo[k], substr(tool[k], index(tool[k], "|") + 1), M[mk, 7] / M[key, 7], pa, dn, ds, ee
      }
    }'
fi
echo
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ), flowlab $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
