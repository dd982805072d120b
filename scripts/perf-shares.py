#!/usr/bin/env python3
"""perf-shares.py BACKEND MODE PERF_DATA: where one bench-switch run's cycles go.

Reads `perf report --children` of a whole-machine profile (perf record -a -g)
restricted to the path's processes (PATH_COMMS) and prints, as shares of
their busy samples (idle excluded):
  element  the forwarding element's own cost, with everything it calls:
           bridge     br_handle_frame (FDB lookup, br_forward, the xmit to the
                      egress veth up to its enqueue on the peer's backlog)
           flowlab-tc the fl_ingress BPF program (its helpers and map lookups)
                      plus skb_do_redirect (bpf_redirect / redirect_peer)
           direct     nothing (no element)
  copies   the end hosts' copies between user memory and skbs (self samples)
  user     iperf3 / pktgen user-space time
  softirq  net_rx_action as a whole (includes the element's part on the
           switch's ports and the receiving host's IP/TCP stack)
and the Amdahl bound: a forwarding element of zero cost would make the run at
most 1 / (1 - element) times faster on the same CPUs (when the run is bound
by CPU cycles, as TCP and pktgen runs on 2 cores are).
Plus the top self symbols. Not a test: a reading aid for docs/performance/switch.md.
"""
import re
import subprocess
import sys

# The copies between user memory and skbs (the end hosts' own work).
COPIES = ("_copy_to_iter", "_copy_from_iter", "copy_user_enhanced_fast_string", "copy_mc_enhanced_fast_string",
          "rep_movs_alternative", "_copy_from_user", "copy_iovec_from_user", "__check_object_size")
LINE = re.compile(r"^\s+([\d.]+)%\s+([\d.]+)%\s+\[(.)\]\s+(.*\S)\s*$")


# The path's processes: the end hosts' programs (bench-switch runs pktgen as
# fl-pktgen) and the contexts softirqs run in. Other engineers' compilers on a shared machine are left out
# (percentages are relative to these processes' samples).
# The switch's own process is left out too: on tc a hit never reaches it, and
# "flowlab" would also match other engineers' switches and tests.
PATH_COMMS = "iperf3,fl-pktgen,ksoftirqd/0,ksoftirqd/1,swapper/0,swapper/1"


def report(path, children):
    mode = "--children" if children else "--no-children"
    out = subprocess.run(["perf", "report", "-i", path, "--stdio", mode, "--sort", "comm,sym" if not children else "sym",
                          "--comms", PATH_COMMS, "--percentage", "relative",
                          "-g", "none", "--percent-limit", "0"], capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            rows.append((float(m.group(1)), float(m.group(2)), m.group(3), m.group(4)))
    return rows


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    backend, mode, path = sys.argv[1:]
    rows = report(path, True)
    if not rows:
        print(f"  {backend} {mode}: no samples in {path}")
        return
    child = {}
    for c, _s, _k, sym in rows:
        child[sym] = max(child.get(sym, 0.0), c)

    def ch(*names):
        return sum(child.get(n, 0.0) for n in names)

    idle = max(ch("do_idle"), ch("cpu_startup_entry"))
    busy = max(100.0 - idle, 1e-9)
    bpf = sum(c for sym, c in child.items() if sym.startswith("bpf_prog_") and sym.endswith("fl_ingress"))
    if backend == "bridge":
        element = ch("br_handle_frame")
    elif backend.startswith("flowlab-tc"):
        element = bpf + ch("skb_do_redirect")
    else:
        element = 0.0
    selfs_all = {}
    for _c, s, _k, sym in rows:
        selfs_all[sym] = selfs_all.get(sym, 0.0) + s
    copies = sum(selfs_all.get(n, 0.0) for n in COPIES)
    user = 0.0  # user-space time of the end-host programs (self samples by comm)
    for c, s, k, sym in report(path, False):
        if k == "." and re.match(r"^(iperf3|fl-pktgen)\s", sym):
            user += c
    softirq = ch("net_rx_action")
    f = element / busy
    bound = 1.0 / (1.0 - f) if f < 1 else float("inf")
    print(f"  {backend:10s} {mode:5s} busy {busy:5.1f}% of the path's samples; of the busy cycles: "
          f"element {100 * f:4.1f}% (BPF program {100 * bpf / busy:.1f}%), user<->skb copies {100 * copies / busy:4.1f}%, "
          f"host user {100 * user / busy:4.1f}%, softirq {100 * softirq / busy:4.1f}%; "
          f"Amdahl bound of any element vs this one: {bound:.2f}x")
    selfs = sorted(((s, sym) for _c, s, _k, sym in rows if s > 0), reverse=True)[:8]
    print("             top self: " + ", ".join(f"{sym} {100 * s / busy:.1f}%" for s, sym in selfs))


if __name__ == "__main__":
    main()
