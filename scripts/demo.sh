#!/usr/bin/env bash
# The main job: the default lab scenario with flowlab's own switch and controller.
set -euo pipefail
bin=${1:?path to flowlab}
root=$(cd "$(dirname "$0")/.." && pwd)
if "$bin" lab --help >/dev/null 2>&1; then
  exec "$bin" lab run "$root/scenarios/quick.yaml"
fi
echo "demo: the lab does not exist yet; showing the OpenFlow library on the shared wire vectors"
for f in "$root"/../shared/testdata/openflow-vectors/of13/4-2-ofp_flow_mod.packet; do
  "$bin" ofctl ofp-parse "$f"
done
