#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# One-step setup for a fresh Debian 12 machine: installs the Debian packages handsim needs,
# configures, builds with -j2, then either runs the test suite or starts the program.
#
#   bash cmake/setup.sh test   # install, build, run every test (what CI runs)
#   bash cmake/setup.sh gui    # install, build, run handsim on the default scene
set -euo pipefail

mode="${1:-test}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${HANDSIM_BUILD_DIR:-$root/build}"

packages=(
  build-essential cmake pkg-config git
  libeigen3-dev nlohmann-json3-dev zlib1g-dev libassimp-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  liborocos-kdl-dev libfcl-dev
  # URDF hands (src/core/formats/urdf_reader.cpp)
  liburdfdom-dev
  # Test- and benchmark-only peer for the exact overlap volume (tests/collision_cgal)
  libcgal-dev libgmp-dev libmpfr-dev
  libqhull-dev
  # Benchmark-only peer for free objects (tests/benchmarks/bench_bullet.cpp, its -float64 libraries)
  libbullet-dev
  # Benchmark-only peer for real hands closing (tests/benchmarks/bench_hands.cpp; optional there)
  libmujoco-dev
  # The Python module and its tests (docs/python.md)
  pybind11-dev python3-dev python3-numpy python3-pytest python3-matplotlib
  # The desktop application (src/app, src/plot): Qt6 Widgets/OpenGL/Svg, OpenSceneGraph; the
  # plot tests render exported SVG with Qt Svg
  qt6-base-dev libqt6opengl6-dev qt6-svg-dev libopenscenegraph-dev
  libgl-dev libglu1-mesa-dev fonts-dejavu-core
  # Rendering tests under a virtual display with Mesa's software rasteriser (llvmpipe)
  xvfb xauth libgl1-mesa-dri libglx-mesa0
  # The planner's Slurm test (tests/planner/slurm_cluster.sh): a single-node cluster on localhost
  # (munged, slurmctld, slurmd) runs a job array of `plan --shard`
  slurm-wlm munge
)

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  as_root apt-get update
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y --no-install-recommends "${missing[@]}"
fi

cmake_args=(-S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release)
if [ "${CI:-}" = "true" ]; then cmake_args+=(-DHANDSIM_WERROR=ON); fi
cmake "${cmake_args[@]}"
cmake --build "$build" -j2

case "$mode" in
  test)
    ctest --test-dir "$build" --output-on-failure -j2
    # CI also runs the core, the CLI and their tests under AddressSanitizer and
    # UndefinedBehaviorSanitizer, in a second build (docs/development.md); HANDSIM_SANITIZE_TESTS=1
    # does it locally too. Warnings are the first build's business: GCC's flow analysis under
    # the sanitizers reports uninitialised values that are not.
    if [ "${CI:-}" = "true" ] || [ "${HANDSIM_SANITIZE_TESTS:-}" = "1" ]; then
      sanitized="${HANDSIM_SANITIZE_BUILD_DIR:-$root/build-sanitize}"
      # -O1: half the compile time of -O2 under the sanitizers, and their reports are as good.
      cmake -S "$root" -B "$sanitized" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
        -DHANDSIM_SANITIZE=address,undefined -DHANDSIM_BUILD_GUI=OFF -DHANDSIM_BUILD_PYTHON=OFF \
        -DHANDSIM_BUILD_BENCHMARKS=OFF
      cmake --build "$sanitized" -j2
      # The long physics runs (grasps held for seconds, parameter sweeps, random IK and tree
      # scenes by the hundred) repeat under the sanitizers code paths the shorter tests already
      # take there, at ten times the cost; they run in the first build. So do the tests that bound
      # a loader's time (linear, not quadratic, in Release), and the Slurm cluster test (its
      # daemons once per CI run are enough; the planner's sharding is tested here too). Also the
      # energy integrations over seconds, the planner's constraint searches, the dense IK scans
      # and the corpus hands closing (the sanitizer pass's ten costliest runs after the mutation
      # tests, 2 of its 5 minutes; stop 28's costs).
      long_runs='^(PlannerSlurm|GraspDefaultsCorpus|PenaltyGrasp|PenaltyConvergence|Stability\.TheBound|TorsionalFriction\.TheConverged|GraspSweepHold|IkMiss|Placement\.Every|KdopTree\.BoxesAndSpheres|BarrettLift|HandHostile\.ManyPoses|UrdfHostile\.Many[A-Za-z]*LinearTime|ForwardDynamics\.ConservesEnergy|Breakaway\.Penetration|Seed004Objects\.LumpyBunny|PlannerConstraints|BarrettTransmissionIk\.Unreachable|VaryCli\.CellMetric|ShippedScenarios\.Anthro20|UrdfCorpus\.EveryPublicHand|VrmlFiles\.InlineAmplification)'
      ASAN_OPTIONS=abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
        ctest --test-dir "$sanitized" --output-on-failure -j2 -E "$long_runs"
    fi
    ;;
  gui)
    # The desktop application on its default scene (BarrettHand and a cube); docs/gui.md.
    "$build/src/app/handsim"
    ;;
  *)
    echo "usage: bash cmake/setup.sh [test|gui]" >&2
    exit 2
    ;;
esac
