#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds and runs handsim's libFuzzer targets (tests/fuzz; docs/development.md, "Fuzzing").
#
#   cmake/fuzz.sh [SECONDS] [TARGET...]
#
# SECONDS: how long each target runs (default 60). TARGET: vrml, hand, scenario, mesh, urdf,
# sidecar, sweep (or vrml_fuzzer...; default all seven, one after the other). Configures a clang build folder
# build-fuzz with -fsanitize=fuzzer-no-link,address,undefined, builds the targets with -j2 and
# runs each on a copy of its seed corpus (tests/fuzz/corpus/<target>), so the source tree's
# seeds stay as they are. Inputs that crash, hang or exhaust memory are copied to
# tests/fuzz/regressions/<target>/; the script then exits 1. HANDSIM_FUZZ_FLAGS adds libFuzzer
# flags, e.g. "-fork=1 -ignore_crashes=1" to keep fuzzing past a finding that is not fixed yet.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${HANDSIM_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=60
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then
  seconds=$1
  shift
fi
all_targets=(vrml hand scenario mesh urdf sidecar sweep)
targets=()
for arg in "$@"; do
  name=${arg%_fuzzer}
  case $name in
    vrml | hand | scenario | mesh | urdf | sidecar | sweep) ;;
    *)
      echo "fuzz.sh: unknown target '$arg' (known: ${all_targets[*]})" >&2
      exit 2
      ;;
  esac
  targets+=("$name")
done
[[ ${#targets[@]} -gt 0 ]] || targets=("${all_targets[@]}")

cxx=${CXX:-clang++}
if ! "$cxx" --version 2>/dev/null | grep -q clang; then
  echo "fuzz.sh: libFuzzer needs clang; set CXX=clang++ (apt-get install clang)" >&2
  exit 2
fi
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DHANDSIM_BUILD_FUZZERS=ON -DHANDSIM_BUILD_GUI=OFF -DHANDSIM_BUILD_BENCHMARKS=OFF \
  -DHANDSIM_BUILD_PYTHON=OFF "${launcher[@]}" \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined" > "$build/configure.log" ||
  { cat "$build/configure.log" >&2; exit 1; }
cmake --build "$build" -j2 --target "${targets[@]/%/_fuzzer}"

# Per-target limits: the largest seed fits in max_len; mesh inputs wait for a child process.
declare -A max_len=([vrml]=4096 [hand]=16384 [scenario]=4096 [mesh]=8192 [urdf]=8192
                   [sidecar]=4096 [sweep]=4096)
work=$(mktemp -d "${TMPDIR:-/tmp}/handsim-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
found=0
for name in "${targets[@]}"; do
  corpus=$work/$name/corpus
  artifacts=$work/$name/artifacts
  mkdir -p "$corpus" "$artifacts"
  cp "$root/tests/fuzz/corpus/$name"/* "$corpus"/
  options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048
           -max_len="${max_len[$name]}" -print_final_stats=1 -artifact_prefix="$artifacts/")
  [[ -f $root/tests/fuzz/$name.dict ]] && options+=(-dict="$root/tests/fuzz/$name.dict")
  read -r -a extra <<< "${HANDSIM_FUZZ_FLAGS:-}"
  options+=("${extra[@]}")
  echo "== ${name}_fuzzer for ${seconds} s"
  status=0
  # UBSan reports are findings too: make them stop the run like a crash.
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
    "$build/tests/fuzz/${name}_fuzzer" "${options[@]}" "$corpus" || status=$?
  shopt -s nullglob
  inputs=("$artifacts"/*)
  shopt -u nullglob
  if [[ ${#inputs[@]} -gt 0 ]]; then
    found=1
    mkdir -p "$root/tests/fuzz/regressions/$name"
    cp "${inputs[@]}" "$root/tests/fuzz/regressions/$name/"
    echo "== ${name}_fuzzer: finding(s) copied to tests/fuzz/regressions/$name/:"
    for f in "${inputs[@]}"; do echo "   $(basename "$f")"; done
    cat << MSG
   Replay one with: $build/tests/fuzz/${name}_fuzzer tests/fuzz/regressions/$name/FILE
   Commit it (test_fuzz_regression then replays it with every build), fix the bug, and until
   the fix lands list it in tests/fuzz_regression/known_failures.txt with the reason.
MSG
  elif [[ $status -ne 0 ]]; then
    echo "fuzz.sh: ${name}_fuzzer exited with status $status and left no input" >&2
    found=1
  fi
done
exit $found
