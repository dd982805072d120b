#!/usr/bin/env bash
# Installs the Debian packages flowlab needs to build, test and run its peers
# (`--demo`: only those of the Release build and the default scenario).
# Idempotent and quiet when nothing is missing. Needs root (or sudo) to install.
set -euo pipefail

# What `make demo` needs: the Release build of `flowlab` (GCC, the libraries it
# links, clang and bpftool for the eBPF program) and the tools the default scenario
# (scenarios/quick.yaml) runs: OVS userspace, iperf3, ping, tc, ethtool.
DEMO_PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config clang
  libasio-dev libssl-dev libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  # (Release links OpenSSL, yaml-cpp, libbpf, libelf and zlib from their -dev
  # packages' static archives)
  libelf-dev zlib1g-dev
  # the REST API's and /metrics' HTTP requests are parsed by Boost.Beast (header-only)
  libboost-dev
  # the eBPF fast path (src/kernel): libbpf to load/attach, bpftool to embed the
  # program as a skeleton, clang (above) compiles it with -target bpf
  libbpf-dev bpftool
  # src/coord speaks etcd's JSON gateway through libcurl
  libcurl4-openssl-dev
  # src/lab speaks rtnetlink through libmnl (namespaces, veths, addresses, bridges of a
  # 1000-host lab without forking `ip` per step)
  libmnl-dev
  # src/lab/capture: a .pcap per lab link and live captures (libpcap)
  libpcap-dev
  # src/lab/cli: Mininet's CLI prompt: line editing, history, completion (libedit, BSD)
  libedit-dev
  # the lab and the default scenario's peers and traffic tools
  iproute2 iptables ethtool iputils-ping procps psmisc openvswitch-switch iperf3
)

# What `make test` needs beyond that: the clang test tree, the peers and tools the
# tests start, the benchmarks' profilers.
TEST_PACKAGES=(
  libclang-rt-14-dev lld libgtest-dev libgmock-dev libbenchmark-dev clang-format clang-tidy
  # scripts/bench-switch.sh -P profiles each backend (perf record -a -g) to show
  # where the cycles go (the forwarding element's share, the Amdahl bound)
  linux-perf
  python3-os-ken iperf tshark openssl
  # the REST interop tests call every endpoint with curl, as a Ryu script's user would
  curl
  # scripts/bench-cluster.sh reads cluster-status --json with jq
  jq
  # the controller cluster's, the coord and the lab-across-machines tests start real
  # etcd 3.4 members (/usr/bin/etcd)
  etcd-server
  # pingall: one fping per source host pings every other host at once (n processes,
  # not n^2 pings; 100+ hosts in seconds). Without it the lab forks one ping per pair.
  fping
  # tests: the CLI is driven in a real terminal (tmux send-keys / capture-pane), and a
  # Mininet script's CLI(net) in a pseudo-terminal (pexpect)
  tmux python3-pexpect
  # scripts/bench-mininet.sh compares with Mininet 2.3.0; its lxbr switch needs brctl
  mininet bridge-utils
  # Mininet's vlanhost example (tests/mininet_api/run_examples.py) runs `vconfig`
  vlan
  # --metrics: a real Prometheus server scrapes the switch in the tests (and in labs)
  prometheus
  # tests: report.html is loaded in headless Chromium (summary, charts, no console errors)
  chromium
)

# `install-deps.sh --demo` installs the first list only (a fresh machine's `make
# demo` skips chromium, prometheus, Mininet and the test tools); no flag: both.
PACKAGES=("${DEMO_PACKAGES[@]}")
if [ "${1:-}" != "--demo" ]; then
  PACKAGES+=("${TEST_PACKAGES[@]}")
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer no without a prompt.
echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# The openvswitch-switch package may start system daemons; the lab runs its own.
