#!/usr/bin/env bash
# The main job: the default lab scenario (scenarios/quick.yaml) with flowlab's own
# switch and controller, OVS and the Linux bridge side by side. The lab needs root
# (network namespaces); without it, or when the lab cannot run, fall back to showing
# the OpenFlow library on the shared wire vectors.
set -euo pipefail
bin=${1:?path to flowlab}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${FLOWLAB_DEMO_OUT:-$root/build/demo-results}
if "$bin" lab --help >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then
    exec "$bin" lab run "$root/scenarios/quick.yaml" --out "$out"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    exec sudo -n "$bin" lab run "$root/scenarios/quick.yaml" --out "$out"
  fi
  echo "demo: 'flowlab lab run' needs root (network namespaces); run: sudo $bin lab run $root/scenarios/quick.yaml"
fi
echo "demo: showing the OpenFlow library on the shared wire vectors instead"
for f in "$root"/../shared/testdata/openflow-vectors/of13/4-2-ofp_flow_mod.packet; do
  "$bin" ofctl ofp-parse "$f"
done
