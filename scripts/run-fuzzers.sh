#!/usr/bin/env bash
# Runs every libFuzzer target in BUILD_DIR for SECONDS each, from its seed corpus
# (tests/fuzz/corpus/<name>/), writing new inputs to a scratch copy. Fails on a crash.
# Targets run JOBS at a time (default: the number of cores; FUZZ_JOBS overrides).
set -euo pipefail
build=${1:?build dir}
seconds=${2:-30}
jobs=${FUZZ_JOBS:-$(nproc)}
root=$(cd "$(dirname "$0")/.." && pwd)
# Undefined behaviour is a finding too: stop at the first report, as ASan does.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

run_one() {
  local fuzzer=$1 seconds=$2 build=$3 root=$4 name work
  name=$(basename "$fuzzer")
  work=$(mktemp -d)
  [ -d "$root/tests/fuzz/corpus/$name" ] && cp -r "$root/tests/fuzz/corpus/$name/." "$work/"
  if ! "$fuzzer" -max_total_time="$seconds" -print_final_stats=0 -artifact_prefix="$build/$name-" \
        "$work" > "$build/$name.log" 2>&1; then
    echo "fuzz: $name FAILED, see $build/$name.log"
    tail -40 "$build/$name.log"
    rm -rf "$work"
    return 1
  fi
  echo "fuzz: $name ok for ${seconds}s ($(grep -c . "$build/$name.log" || true) log lines)"
  rm -rf "$work"
}
export -f run_one

shopt -s nullglob
targets=()
for fuzzer in "$build"/tests/fuzz/fuzz_*; do
  [ -x "$fuzzer" ] && [ -f "$fuzzer" ] && targets+=("$fuzzer")
done
[ ${#targets[@]} -gt 0 ] || { echo "fuzz: no targets in $build/tests/fuzz"; exit 1; }
echo "fuzz: ${#targets[@]} targets, ${seconds}s each, $jobs at a time"
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one "$@"' _ {} "$seconds" "$build" "$root"
