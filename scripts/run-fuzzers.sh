#!/usr/bin/env bash
# Runs every libFuzzer target in BUILD_DIR for SECONDS each, from its seed corpus
# (tests/fuzz/corpus/<name>/), writing new inputs to a scratch copy. Fails on a crash.
set -euo pipefail
build=${1:?build dir}
seconds=${2:-30}
root=$(cd "$(dirname "$0")/.." && pwd)
status=0
# Undefined behaviour is a finding too: stop at the first report, as ASan does.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
shopt -s nullglob
for fuzzer in "$build"/tests/fuzz/fuzz_*; do
  [ -x "$fuzzer" ] || continue
  name=$(basename "$fuzzer")
  work=$(mktemp -d)
  [ -d "$root/tests/fuzz/corpus/$name" ] && cp -r "$root/tests/fuzz/corpus/$name/." "$work/"
  echo "fuzz: $name for ${seconds}s"
  if ! "$fuzzer" -max_total_time="$seconds" -print_final_stats=0 -artifact_prefix="$build/$name-" \
        "$work" > "$build/$name.log" 2>&1; then
    echo "fuzz: $name FAILED, see $build/$name.log"
    tail -40 "$build/$name.log"
    status=1
  else
    echo "fuzz: $name ok ($(grep -c . "$build/$name.log" || true) log lines)"
  fi
  rm -rf "$work"
done
exit $status
