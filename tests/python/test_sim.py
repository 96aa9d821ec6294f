# SPDX-License-Identifier: GPL-3.0-or-later
# Runs from Python: the seed-000 breakaway run gives the arrays handsim-cli simulate writes,
# runs on two threads give what they give one after the other, a proportional controller
# written in Python drives a finger, scenarios save and reload, and bad plans raise.
import concurrent.futures
import json
import math
import subprocess

import numpy as np
import pytest

import handsim


def read_csv(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return {name: data[:, i] for i, name in enumerate(header)}


def test_breakaway_run_gives_the_cli_arrays(cli, scenarios, tmp_path):
    path = scenarios / "barrett_breakaway_cube.json"
    run = handsim.Run.from_scenario(handsim.load_scenario(str(path)))
    run.run_to_end()
    signals = run.signals()
    csv = tmp_path / "cli.csv"
    subprocess.run([cli, "simulate", str(path), "--csv", str(csv), "--quiet"], check=True,
                   capture_output=True)
    ref = read_csv(csv)
    assert list(signals) == list(ref)
    for name, values in ref.items():
        np.testing.assert_array_equal(signals[name], values, err_msg=name)
    # The CSV text itself, too.
    assert run.csv() == csv.read_text()
    # Seed 000: the clutch broke away and froze theta32 (eq. 10).
    clutch = signals["F3.clutch"]
    broke = int(np.argmax(clutch > 0.5))
    assert 1.7 < signals["time"][broke] < 1.9
    assert np.ptp(signals["F3.J2.angle"][broke:]) == 0.0
    assert run.units()["F3.J2.torque"] == "N m"
    assert run.units()["M3.position"] == "counts"
    assert run.clutches[2].broken


def breakaway_signals(model, plan):
    run = handsim.Run(model, plan)
    run.run_to_end()
    return run.signals()


def test_threads_give_the_sequential_numbers(scenarios):
    scenario = handsim.load_scenario(str(scenarios / "barrett_breakaway_cube.json"))
    model = scenario.compile()
    plans = []
    for tilt in (0.0, 0.4):
        plan = scenario.plan.copy()
        c, s = math.cos(tilt), math.sin(tilt)
        plan.palm_pose = np.array([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1.0]])
        plans.append(plan)
    sequential = [breakaway_signals(model, p) for p in plans]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        threaded = list(pool.map(lambda p: breakaway_signals(model, p), plans))
    for seq, thr in zip(sequential, threaded):
        for name in seq:
            np.testing.assert_array_equal(seq[name], thr[name], err_msg=name)
    # The tilted palm turns gravity: the two runs differ.
    assert not np.array_equal(sequential[0]["F1.J2.torque"], sequential[1]["F1.J2.torque"])


def test_a_proportional_controller_in_python_drives_the_finger():
    hand = handsim.load_hand("barrett")
    model = handsim.Model(hand)
    plan = handsim.RunPlan()
    plan.duration = 2.0
    run = handsim.Run(model, plan)
    target = math.radians(60.0)  # F3.J2, 60 deg = 7500 counts
    gain = 3.0  # counts of command per count of error, per step
    calls = []

    def controller(r):
        error_counts = (target - r.q[2][0]) * 125 * 180 / math.pi
        command = r.actuator_positions[2] + gain * error_counts
        r.set_actuator_command("M3", command)
        calls.append(r.time)

    run.run_to_end(controller)
    assert len(calls) == run.total_steps == 2000
    assert calls[0] == 0.0
    # The loop settles on the target within the P servo's gravity sag (< 0.5 deg).
    assert abs(run.q[2][0] - target) < math.radians(0.5)
    # Coupling of seed 000 eq. 3-4 holds: theta33 = theta32 / 3.
    assert abs(run.q[2][1] - run.q[2][0] / 3) < 1e-12


def test_plans_scenarios_and_their_errors(scenarios, tmp_path):
    hand = handsim.load_hand("barrett")
    model = handsim.Model(hand)
    plan = handsim.RunPlan()
    plan.duration = 1.6
    # 0 -> 9000 counts ends at 0.783 s; back to 3000 from 0.8 s, ending at 1.43 s.
    plan.set_trajectory(model, "M3", [(9000.0, 20000.0, 60000.0, None),
                                      (3000.0, 20000.0, 60000.0, 0.8)])
    run = handsim.Run(model, plan)
    run.step(500)
    assert run.steps == 500 and abs(run.time - 0.5) < 1e-12
    run.run_to_end()
    assert run.finished and run.steps == 1600
    assert abs(run.actuator_positions[2] - 3000.0) < 100.0
    with pytest.raises(ValueError, match="outside M3's range"):
        plan.set_trajectory(model, "M3", [(20000.0, 1.0, 1.0, None)])
    with pytest.raises(ValueError, match="no actuator named"):
        run.set_actuator_command("M9", 0.0)
    with pytest.raises(ValueError, match="no end"):
        handsim.Run(model).run_to_end()
    with pytest.raises(ValueError, match="palm_pose: the last row must be 0 0 0 1"):
        run.palm_pose = np.eye(4) * 2
    bad_plan = handsim.RunPlan()
    bad_plan.initial = [1.0, 2.0]
    with pytest.raises(ValueError, match="expected 4 entries, got 2"):
        handsim.Run(model, bad_plan)
    # A scenario saved from Python runs as the original.
    scenario = handsim.load_scenario(str(scenarios / "kthand_cylinder_grasp.json"))
    scenario.plan.duration = 0.5
    saved = tmp_path / "saved.json"
    scenario.save(str(saved))
    a = handsim.Run.from_scenario(scenario)
    b = handsim.Run.from_scenario(handsim.load_scenario(str(saved)))
    a.run_to_end()
    b.run_to_end()
    assert a.csv() == b.csv()
    assert "controller.force" in a.signals()
    with pytest.raises(FileNotFoundError):
        handsim.load_scenario(str(tmp_path / "missing.json"))
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "handsim-scenario", "version": 1, "hand": "barrett",\n'
                      ' "duration_s": -1}\n')
    with pytest.raises(handsim.InputError) as info:
        handsim.load_scenario(str(broken))
    assert info.value.line == 2 and info.value.field == "/duration_s"


def test_prismatic_columns_carry_metres():
    model = handsim.Model(handsim.load_hand("anthro20"))
    run = handsim.Run(model)
    units = run.units()
    assert units["thumb.slot.angle"] == "m"
    assert units["thumb.slot.torque"] == "N"
    assert units["index.J2.angle"] == "rad"


def test_a_streamed_run_writes_every_row_and_keeps_a_thinned_few(scenarios, tmp_path):
    scenario = handsim.load_scenario(str(scenarios / "barrett_breakaway_cube.json"))
    whole = handsim.Run.from_scenario(scenario)
    whole.run_to_end()
    out = tmp_path / "streamed.csv"
    run = handsim.Run.from_scenario(scenario)
    run.stream_csv(str(out), kept_rows=100)
    run.run_to_end()
    assert not out.exists()  # appears complete, at the end
    run.finish_csv()
    assert out.read_text() == whole.csv()
    assert run.recorded_rows == len(whole.signals()["time"])
    kept = run.signals()["time"]
    assert len(kept) <= 101
    # Evenly thinned: the kept times are every kept_stride-th recorded time, then the last.
    every = whole.signals()["time"][:: run.kept_stride]
    np.testing.assert_array_equal(kept[: len(every)], every)
    assert kept[-1] == whole.signals()["time"][-1]
    assert run.first_non_finite == ""


def test_the_palm_is_carried_by_its_motion():
    model = handsim.Model(handsim.load_hand("barrett"))
    plan = handsim.RunPlan()
    plan.duration = 1.0
    plan.set_palm_motion("z", segments=[(0.1, 0.2, 1.0, None)])
    plan.set_palm_motion("x", sinusoids=[(0.01, 2.0, 0.0, 1.0)])
    run = handsim.Run(model, plan)
    run.run_to_end()
    s = run.signals()
    # Trapezoid closed form at t = 0.1 s (accelerating at 1 m/s^2) and the sinusoid's quarter period.
    i = int(np.argmin(np.abs(s["time"] - 0.1)))
    assert s["palm.z"][i] == pytest.approx(0.5 * 0.1**2, abs=1e-12)
    j = int(np.argmin(np.abs(s["time"] - 0.125)))
    assert s["palm.x"][j] == pytest.approx(0.01, abs=1e-12)
    assert s["palm.z"][-1] == pytest.approx(0.1, abs=1e-12)
    with pytest.raises(ValueError, match="palm axis 'w'"):
        plan.set_palm_motion("w")


def test_a_free_object_falls_and_lands_on_the_ground(scenarios):
    # Before it lands (at about 0.1 s) the cube's COM velocity is g t, the closed form.
    run = handsim.Run.from_scenario(handsim.load_scenario(str(scenarios / "free_cube_drop.json")))
    for _ in range(50):
        run.step()
    twist = np.asarray(run.object_twist(0))
    assert twist.shape == (6,)
    assert twist[2] == pytest.approx(-9.81 * run.time, rel=1e-12)
    assert twist[5] == pytest.approx(3.0)
    assert np.all(np.asarray(run.palm_twist) == 0.0)
    run.run_to_end()
    assert np.linalg.norm(run.object_twist(0)) < 1e-9
    assert "cube.kinetic_energy" in run.columns


def test_a_lifted_cube_is_carried_by_its_contacts(scenarios):
    # The BarrettHand lift (barrett_lift_cube.json): once off the ground, the sustained forces
    # on the cube from the fingers balance its weight (Newton, from the reported contacts).
    run = handsim.Run.from_scenario(handsim.load_scenario(str(scenarios / "barrett_lift_cube.json")))
    while run.time < 4.0 - 1e-9:
        run.step()
    total = sum((np.asarray(c.force_on_object) for c in run.contacts if c.object == 0),
                np.zeros(3))
    total += sum((np.asarray(c.force_on_object) for c in run.object_contacts), np.zeros(3))
    assert total[2] == pytest.approx(0.2 * 9.81, rel=0.05)
    assert all(c.other != -1 for c in run.object_contacts)  # nothing from the ground
    assert isinstance(run.link_contacts, list)
    # Every contact names its bodies in the model's body table: the fingers' links push the
    # cube (its name, the object's), and the link's name is the recorder's joint prefix.
    bodies = run.model.bodies
    assert [b["kind"] for b in bodies[:2]] == ["ground", "palm"]
    assert all(b["id"] == i for i, b in enumerate(bodies))
    for c in run.contacts:
        a, b = bodies[c.body_a], bodies[c.body_b]
        assert (a["kind"], a["finger"], a["row"]) == ("link", c.finger, c.row)
        assert (b["kind"], b["object"], b["name"]) == ("object", c.object, "cube")
        assert a["name"] + ".contact_force" in run.columns


def test_set_trajectory_gives_the_references_of_the_core_and_the_scenario_reader(tmp_path):
    # The same moves through Python's set_trajectory (the core's plan builder) and through a
    # scenario file (the reader's own chaining): the recorded references agree bit for bit,
    # and with the trapezoid worked here. 1000 -> 9000 counts at 20000 counts/s and 60000
    # counts/s^2: 1/3 s of acceleration over 3333.3 counts, 1333.3 counts of cruise (1/15 s),
    # 1/3 s of braking: it ends at 11/15 s; the second move waits for its start at 0.8 s; the
    # third follows the second at once (None).
    hand = handsim.load_hand("barrett")
    model = handsim.Model(hand)
    moves = [(9000.0, 20000.0, 60000.0, None), (3000.0, 20000.0, 60000.0, 0.8),
             (5000.0, 10000.0, 40000.0, None)]
    plan = handsim.RunPlan()
    plan.duration = 2.0
    plan.initial = [0.0, 0.0, 1000.0, 0.0]
    plan.set_trajectory(model, "M3", moves)
    segments = []
    for to, v, a, start in moves:
        seg = {"to": to, "max_velocity": v, "max_acceleration": a}
        if start is not None:
            seg["start_s"] = start
        segments.append(seg)
    doc = {"format": "handsim-scenario", "version": 1, "hand": "barrett", "duration_s": 2.0,
           "initial": {"M3": 1000.0},
           "trajectories": [{"actuator": "M3", "segments": segments}]}
    path = tmp_path / "moves.json"
    path.write_text(json.dumps(doc))
    a = handsim.Run(model, plan)
    b = handsim.Run.from_scenario(handsim.load_scenario(str(path)))
    a.run_to_end()
    b.run_to_end()
    ra, rb = a.signals()["M3.reference"], b.signals()["M3.reference"]
    np.testing.assert_array_equal(ra, rb)
    t = a.signals()["time"]
    # At 0.2 s (accelerating): 1000 + a t^2 / 2.
    i = int(np.argmin(np.abs(t - 0.2)))
    assert abs(ra[i] - (1000.0 + 0.5 * 60000.0 * t[i] ** 2)) < 1e-6
    j = int(np.argmin(np.abs(t - 0.78)))
    assert ra[j] == 9000.0  # ended at 0.7333 s, waiting for 0.8 s
    assert ra[-1] == 5000.0
    with pytest.raises(ValueError, match="starts before the previous one ends"):
        plan.set_trajectory(model, "M3", [(9000.0, 20000.0, 60000.0, None),
                                          (3000.0, 20000.0, 60000.0, 0.5)])
