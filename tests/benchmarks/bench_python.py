# SPDX-License-Identifier: GPL-3.0-or-later
# Per-call cost of the Python module against the same work in C++ (docs/performance.md):
# forward kinematics of Barrett F1 and one BarrettHand simulation step. Run beside
#   build/tests/benchmarks/bench_dynamics --benchmark_filter='fk/handsim/Barrett F1'
#   build/tests/benchmarks/bench_sim --benchmark_filter='BM_SimStepBarrett$'
# with PYTHONPATH=build/python /usr/bin/python3 tests/benchmarks/bench_python.py
import time

import numpy as np

import handsim


def per_call(fn, seconds=1.0):
    """Median over 5 batches of the time per call [ns]."""
    n = 1
    while True:
        start = time.perf_counter()
        for _ in range(n):
            fn()
        if time.perf_counter() - start > seconds / 5:
            break
        n *= 2
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        samples.append((time.perf_counter() - start) / n * 1e9)
    return float(np.median(samples))


def main():
    hand = handsim.load_hand("barrett")
    q = np.array([0.1, 0.5, 0.3])
    print(f"fk(F1, q) from Python: {per_call(lambda: hand.fk(0, q)):.0f} ns per call")
    print(f"fingertip(F1, q) from Python: {per_call(lambda: hand.fingertip(0, q)):.0f} ns per call")

    # The same motion as bench_sim's BM_SimStepBarrett: every actuator to 80% of its range.
    model = handsim.Model(hand)
    plan = handsim.RunPlan()
    ranges = hand.actuator_ranges
    for a in range(len(hand.actuators)):
        lo, hi = ranges[a]
        plan.set_trajectory(model, a, [(lo + 0.8 * (hi - lo), hi - lo, 4 * (hi - lo), None)])
    plan.record_every = 2**31 - 1
    run = handsim.Run(model, plan)

    def one_step():
        run.step()
        if run.time > 2.0:
            run.reset()

    print(f"Run.step() from Python: {per_call(one_step):.0f} ns per call")

    def thousand_steps():
        run.step(1000)
        if run.time > 2.0:
            run.reset()

    print(f"Run.step(1000) from Python: {per_call(thousand_steps) / 1000:.0f} ns per step")


if __name__ == "__main__":
    main()
