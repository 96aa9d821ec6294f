# SPDX-License-Identifier: GPL-3.0-or-later
"""A grasp study over the friction coefficient, run in parallel (docs/python.md).

The shipped BarrettHand bottle sweep (assets/scenarios/barrett_bottle_sweep.json) closes the
hand from many starting poses and rates each grasp by force closure and epsilon. Here it runs
once per friction coefficient, each sweep in its own worker thread: the sweeps release the
GIL, so the threads use every core.

    PYTHONPATH=build/python /usr/bin/python3 docs/examples/friction_study.py [POSES]

POSES (default 40) of the 400 poses, drawn at random (fixed seed); 400 runs them all.
"""
import concurrent.futures
import random
import sys

import handsim

FRICTION = [0.2, 0.35, 0.5, 0.75, 1.0]


def study(mu, indices):
    spec = handsim.load_sweep(
        handsim.asset_directory() + "/scenarios/barrett_bottle_sweep.json")
    spec.friction = mu
    # The static ratings only: the file's hold test (docs/grasp-sweep.md) would take ~9x longer.
    spec.hold_test = None
    results = handsim.run_sweep(spec, indices=indices, threads=1)
    return mu, handsim.summarize(results)


def main(poses=40):
    poses = int(poses)
    total = handsim.load_sweep(
        handsim.asset_directory() + "/scenarios/barrett_bottle_sweep.json").pose_count
    indices = sorted(random.Random(2).sample(range(total), min(poses, total)))
    with concurrent.futures.ThreadPoolExecutor() as pool:
        rows = list(pool.map(lambda mu: study(mu, indices), FRICTION))
    print(f"{len(indices)} of {total} poses per friction coefficient")
    print("  mu  collision-free  force closure  epsilon mean +- std")
    for mu, s in rows:
        print(f"{mu:4.2f}  {s['collision_free']:14d}  {s['force_closure']:13d}  "
              f"{s['epsilon_mean']:.4f} +- {s['epsilon_std']:.4f}")
    return rows


if __name__ == "__main__":
    main(*sys.argv[1:])
