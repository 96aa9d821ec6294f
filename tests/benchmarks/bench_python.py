# SPDX-License-Identifier: GPL-3.0-or-later
# Per-call cost of the Python module against the same work in C++ (docs/performance.md):
# forward kinematics of Barrett F1 and one BarrettHand simulation step. Run beside
#   build/tests/benchmarks/bench_dynamics --benchmark_filter='fk/handsim/Barrett F1'
#   build/tests/benchmarks/bench_sim --benchmark_filter='BM_SimStepBarrett$'
# with PYTHONPATH=build/python /usr/bin/python3 tests/benchmarks/bench_python.py
#
# Then, with the public Allegro URDF on HANDSIM_HAND_PATH, batch kinematics from Python
# (issue 22, item 4) against the per-call loop: 40,000 random configurations, every link's
# pose (link_poses) and every finger's frames (fk), one call per configuration against one
# call for all; and a Python controller loop (commands written through the actuator_commands
# view every step, or torques through actuator_torques in torque mode) against run_to_end on
# the same run, in CPU time. bench_python_batch times the same
# batch code against MuJoCo's mj_kinematics.
import os
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


def find_allegro():
    for folder in os.environ.get("HANDSIM_HAND_PATH", "").split(":"):
        path = os.path.join(folder, "allegro_hand", "allegro_hand_right.urdf")
        if folder and os.path.isfile(path):
            return path
    return None


def wall(fn, repeats=3):
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return min(samples)


def cpu(fn):
    """CPU seconds of the process for one call: on a loaded machine it counts the work done,
    not the time spent waiting for a core (the runs below use one thread)."""
    start = time.process_time()
    fn()
    return time.process_time() - start


def batch_main():
    path = find_allegro()
    if path is None:
        print("batch: the Allegro URDF is on no folder of HANDSIM_HAND_PATH: skipped")
        return
    hand = handsim.load_hand(path)
    n = 40_000
    rng = np.random.default_rng(22)
    fingers = range(len(hand.fingers))
    q = [rng.uniform(hand.joint_limits(f)[:, 0], hand.joint_limits(f)[:, 1],
                     size=(n, hand.dof(f))) for f in fingers]
    rows = [[q[f][i] for f in fingers] for i in range(n)]

    loop = wall(lambda: [hand.link_poses(r) for r in rows], 1) / n * 1e9
    batch1 = wall(lambda: hand.link_poses(q, threads=1)) / n * 1e9
    batch = wall(lambda: hand.link_poses(q)) / n * 1e9
    print(f"link_poses, Allegro ({len(hand.link_poses(rows[0]))} links), {n} configurations: "
          f"loop {loop:.0f} ns, batch 1 thread {batch1:.0f} ns, batch {batch:.0f} ns per "
          f"configuration ({loop / batch:.1f}x the loop)")
    # fk of every finger: a Python loop of single calls against the batch, fresh result arrays
    # or the caller's (out=), one thread or one per core. CPU time (least of 5; the loop least of
    # 2) counts the work on a shared machine; wall time (least of 3) shows the threads.
    outs = [np.empty((n, hand.fk(f, q[f][0]).shape[0], 4, 4)) for f in fingers]
    variants = {
        "loop": (lambda: [hand.fk(f, q[f][i]) for i in range(n) for f in fingers], 2),
        "batch, 1 thread": (lambda: [hand.fk(f, q[f], threads=1) for f in fingers], 5),
        "batch, out=, 1 thread": (
            lambda: [hand.fk(f, q[f], threads=1, out=outs[f]) for f in fingers], 5),
        "batch, threads": (lambda: [hand.fk(f, q[f]) for f in fingers], 5),
        "batch, out=, threads": (lambda: [hand.fk(f, q[f], out=outs[f]) for f in fingers], 5),
    }
    print(f"fk of the {len(hand.fingers)} fingers, {n} configurations, load average "
          f"{os.getloadavg()[0]:.1f}; ns per configuration:")
    loop_cpu = loop_wall = None
    for name, (fn, repeats) in variants.items():
        c = min(cpu(fn) for _ in range(repeats)) / n * 1e9
        w = wall(fn, min(repeats, 3)) / n * 1e9
        if loop_cpu is None:
            loop_cpu, loop_wall = c, w
        print(f"  {name:24s} CPU {c:7.0f} ({loop_cpu / c:5.1f}x the loop)  wall {w:7.0f} "
              f"({loop_wall / w:5.1f}x the loop)")

    # A Python controller loop against run_to_end on the Allegro: the commands through the view.
    model = handsim.Model(hand)
    plan = handsim.RunPlan()
    plan.duration = 1.0
    plan.record_every = 2**31 - 1
    run = handsim.Run(model, plan)
    steps = run.total_steps
    commands = run.actuator_commands
    ranges = hand.actuator_ranges
    target = ranges[:, 0] + 0.3 * (ranges[:, 1] - ranges[:, 0])

    def to_end():
        run.reset()
        run.run_to_end()

    def python_loop():
        run.reset()
        for _ in range(steps):
            commands[:] = target
            run.step()

    def controller_loop():
        run.reset()

        def controller(r):
            commands[:] = target
        run.run_to_end(controller)

    # Interleaved, the best of 7 CPU times each: on a shared machine the load drifts.
    t_end = t_loop = t_ctrl = float("inf")
    for _ in range(7):
        t_end = min(t_end, cpu(to_end) / steps * 1e6)
        t_loop = min(t_loop, cpu(python_loop) / steps * 1e6)
        t_ctrl = min(t_ctrl, cpu(controller_loop) / steps * 1e6)
    print(f"Allegro run, {steps} steps: run_to_end {t_end:.2f} us per step; Python loop "
          f"(commands view + step()) {t_loop:.2f} us ({t_loop / t_end:.2f}x, overhead "
          f"{t_loop - t_end:.2f} us); run_to_end(controller) {t_ctrl:.2f} us "
          f"({t_ctrl / t_end:.2f}x, overhead {t_ctrl - t_end:.2f} us)")

    # The same with torque commands (issue 22, item 5): every actuator in torque mode; the
    # controller writes the torques through the view every step, run_to_end keeps the same
    # torques, so both runs take the same steps and the difference is the controller's cost.
    torques = run.actuator_torques
    tau = 0.3 * np.asarray(hand.actuator_torque_limits)

    def torque_to_end():
        run.reset()
        run.actuator_modes = "torque"
        torques[:] = tau
        run.run_to_end()

    def torque_controller_loop():
        run.reset()
        run.actuator_modes = "torque"

        def controller(r):
            torques[:] = tau
        run.run_to_end(controller)

    # Interleaved, the best of 7 CPU times each: on a shared machine the load drifts.
    t_tend = t_tctrl = float("inf")
    for _ in range(7):
        t_tend = min(t_tend, cpu(torque_to_end) / steps * 1e6)
        t_tctrl = min(t_tctrl, cpu(torque_controller_loop) / steps * 1e6)
    print(f"Allegro run in torque mode, {steps} steps: run_to_end {t_tend:.2f} us per step; "
          f"run_to_end(controller writing the torques view) {t_tctrl:.2f} us "
          f"({t_tctrl / t_tend:.2f}x, overhead {t_tctrl - t_tend:.2f} us)")


if __name__ == "__main__":
    main()
    batch_main()
