# SPDX-License-Identifier: GPL-3.0-or-later
# Whole scenes built in Python (issue 22, item 6): a hand, a free object with a mass and an
# initial velocity, friction and torsional friction, the ground, the palm's motion and contact
# and solver options, saved as a scenario file that handsim-cli simulate runs to the CSV the
# Python run records, byte for byte; the file holds what was set; the physics is checked
# against a closed form (a free cube thrown along the ground slides to rest after
# v^2 / (2 mu g)).
import json
import math
import subprocess

import numpy as np
import pytest

import handsim


def cube(mass=0.2):
    obj = handsim.load_object(handsim.asset_directory() + "/objects/cube.wrl", name="box")
    obj.mass = mass
    return obj


def test_a_scene_built_in_python_runs_in_the_cli_to_the_same_csv(cli, tmp_path):
    hand = handsim.load_hand("barrett")
    box = cube()
    assert box.mass == pytest.approx(0.2)
    half = -np.asarray(handsim.load_mesh(box.source).vertices)[:, 2].min()
    box.free = True
    pose = np.eye(4)
    pose[:3, 3] = [0.3, 0.0, half + 1e-4]
    box.friction = 0.4
    box.torsional = 0.002

    options = handsim.Options()
    options.ground.enabled = True
    options.ground.height = 0.0
    options.ground.friction = 0.3
    options.contact.mu = 0.6
    options.contact.object_push = 0.3
    options.contact.torsional = 0.001
    options.contact.resting_tolerance = 2e-9
    options.solver.sweeps = 60
    options.solver.tolerance = 1e-10
    options.solver.warm_start_radius = 2e-3

    model = handsim.Model(hand, [box], options)
    plan = handsim.RunPlan()
    plan.duration = 0.3
    plan.initial = [0.0, 0.0, 0.0, 0.0]
    plan.set_trajectory(model, "M1", [(12000.0, 40000.0, 200000.0, None)])
    palm = np.eye(4)
    palm[:3, 3] = [0.0, 0.0, 0.4]
    plan.palm_pose = palm
    plan.object_poses = [pose]  # start poses live in the plan, one per object
    assert plan.object_poses.shape == (1, 4, 4)
    assert np.array_equal(plan.object_poses[0], pose)
    plan.object_twists = [[0.5, 0.0, 0.0, 0.0, 0.0, 1.0]]  # and start velocities: v then w
    assert plan.object_twists.shape == (1, 6)
    plan.set_palm_motion("z", [(0.02, 0.1, 1.0, 0.05)], [(0.005, 2.0, 0.0, 1.0)])

    scenario = handsim.Scenario(hand, [box], options, plan, "built in Python")
    path = tmp_path / "scene.json"
    scenario.save(str(path))
    saved = json.loads(path.read_text())
    assert saved["hand"] == "barrett"
    assert saved["ground"] == {"height_m": 0.0, "friction": 0.3}
    assert saved["contact"]["mu"] == 0.6 and saved["solver"]["sweeps"] == 60
    assert saved["contact"]["resting_tolerance_m"] == 2e-9
    o = saved["objects"][0]
    assert o["free"] and o["linear_velocity_mps"] == [0.5, 0.0, 0.0]
    assert o["friction"] == 0.4 and o["torsional_m"] == 0.002
    assert o["pose"]["translation_m"] == [0.3, 0.0, half + 1e-4]
    assert "motion" in saved["palm"]

    run = handsim.Run.from_scenario(scenario)
    run.run_to_end()
    csv = tmp_path / "cli.csv"
    subprocess.run([cli, "simulate", str(path), "--csv", str(csv), "--quiet"], check=True,
                   capture_output=True)
    assert run.csv() == csv.read_text()
    # The same through load_scenario of the saved file.
    again = handsim.Run.from_scenario(handsim.load_scenario(str(path)))
    again.run_to_end()
    assert again.csv() == run.csv()
    s = run.signals()
    assert s["box.x"][-1] > 0.3 + 0.03  # it slid along +x (about v^2 / (2 mu g) = 42 mm)


def test_a_thrown_cube_slides_the_coulomb_distance():
    # v0 = 0.4 m/s on ground friction 0.5: it stops after v0^2 / (2 mu g) = 16.3 mm.
    box = cube()
    box.free = True
    half = -np.asarray(handsim.load_mesh(box.source).vertices)[:, 2].min()
    pose = np.eye(4)
    pose[:3, 3] = [0.5, 0.0, half]
    options = handsim.Options()
    options.ground.enabled = True
    options.ground.friction = 0.5
    options.contact.torsional = 0.0
    hand = handsim.load_hand("barrett")
    scenario = handsim.Scenario(hand, [box], options)
    scenario.plan.duration = 0.3
    palm = np.eye(4)
    palm[:3, 3] = [0.0, 0.0, 0.5]
    scenario.plan.palm_pose = palm
    scenario.plan.object_poses = [pose]
    scenario.plan.object_twists = [[0.4, 0.0, 0.0, 0.0, 0.0, 0.0]]
    run = handsim.Run.from_scenario(scenario)
    run.run_to_end()
    slid = run.object_pose(0)[0, 3] - 0.5
    expected = 0.4 ** 2 / (2 * 0.5 * 9.81)
    assert slid == pytest.approx(expected, rel=0.05)
    assert np.linalg.norm(run.object_twists[0][:3]) < 1e-3


def test_start_poses_are_the_plans_not_the_objects():
    box = handsim.load_object(handsim.asset_directory() + "/objects/cube.wrl")
    with pytest.raises(AttributeError, match="RunPlan.object_poses"):
        box.pose
    with pytest.raises(AttributeError, match="RunPlan.object_poses"):
        box.pose = np.eye(4)
    plan = handsim.RunPlan()
    assert plan.object_poses.shape == (0, 4, 4)
    bent = np.eye(4)
    bent[0, 1] = 0.5
    with pytest.raises(ValueError, match=r"object_poses\[0\]"):
        plan.object_poses = [bent]
    # Two runs of one model, each starting the object where its own plan says; a reset goes
    # back there after the object moved.
    model = handsim.Model(handsim.load_hand("barrett"), [box])
    a, b = handsim.RunPlan(), handsim.RunPlan()
    pa, pb = np.eye(4), np.eye(4)
    pa[:3, 3] = [0.5, 0.0, 0.3]
    pb[:3, 3] = [-0.5, 0.2, 0.6]
    a.object_poses, b.object_poses = [pa], [pb]
    ra, rb = handsim.Run(model, a), handsim.Run(model, b)
    assert np.array_equal(ra.object_pose(0), pa) and np.array_equal(rb.object_pose(0), pb)
    ra.object_poses[0][2, 3] = 0.9
    ra.step()
    assert ra.object_pose(0)[2, 3] == 0.9
    ra.reset()
    assert np.array_equal(ra.object_pose(0), pa) and np.array_equal(rb.object_pose(0), pb)


def test_start_velocities_are_the_plans_not_the_objects():
    box = cube()
    box.free = True
    for name in ("linear_velocity", "angular_velocity"):
        with pytest.raises(AttributeError, match="RunPlan.object_twists"):
            getattr(box, name)
        with pytest.raises(AttributeError, match="RunPlan.object_twists"):
            setattr(box, name, [0.1, 0.0, 0.0])
    plan = handsim.RunPlan()
    assert plan.object_twists.shape == (0, 6)
    with pytest.raises(ValueError, match=r"object_twists\[0\]"):
        plan.object_twists = [[0.0, math.nan, 0.0, 0.0, 0.0, 0.0]]
    with pytest.raises(ValueError, match=r"\(n, 6\)"):
        plan.object_twists = [[0.1, 0.0, 0.0]]
    assert plan.object_twists.shape == (0, 6)  # a refused value changes nothing
    # Two runs of one model in zero gravity, each coasting at its own plan's velocity
    # (x = x0 + v t); a reset after the object was stopped starts it at that velocity again.
    options = handsim.Options()
    options.gravity_world = [0.0, 0.0, 0.0]
    model = handsim.Model(handsim.load_hand("barrett"), [box], options)
    a, b = handsim.RunPlan(), handsim.RunPlan()
    pa, pb = np.eye(4), np.eye(4)
    pa[:3, 3] = [5.0, 0.0, 1.0]
    pb[:3, 3] = [-5.0, 0.0, 1.0]
    a.object_poses, b.object_poses = [pa], [pb]
    va, vb = np.array([0.3, -0.2, 0.1, 0, 0, 0]), np.array([-0.5, 0.0, 0.4, 0, 0, 0])
    a.object_twists, b.object_twists = [va], vb.reshape(1, 6)
    assert np.array_equal(a.object_twists[0], va)
    ra, rb = handsim.Run(model, a), handsim.Run(model, b)
    assert np.array_equal(ra.object_twists[0], va) and np.array_equal(rb.object_twists[0], vb)
    for _ in range(100):
        ra.step()
        rb.step()
    t = ra.time
    for run, p, v in ((ra, pa, va), (rb, pb, vb)):
        com = run.object_pose(0)[:3, :3] @ box.centre_of_mass + run.object_pose(0)[:3, 3]
        start = p[:3, :3] @ box.centre_of_mass + p[:3, 3]
        assert np.allclose(com, start + v[:3] * t, rtol=0.0, atol=1e-12)
    ra.object_twists[0][:] = 0.0
    ra.reset()
    assert np.array_equal(ra.object_twists[0], va) and np.array_equal(rb.object_twists[0], vb)
    # The count is the model's: checked when a run takes the plan.
    a.object_twists = [va, va]
    with pytest.raises(ValueError, match="object twists"):
        handsim.Run(model, a)


def test_bad_scene_values_raise():
    box = handsim.load_object(handsim.asset_directory() + "/objects/cube.wrl")
    with pytest.raises(ValueError, match="mass"):
        box.mass = -1.0
    with pytest.raises(ValueError, match="finite"):
        handsim.RunPlan().object_twists = [[math.inf, 0, 0, 0, 0, 0]]
    options = handsim.Options()
    with pytest.raises(ValueError, match="seed004"):
        options.contact.model = "springs"
    # Each contact model holds only its own options: another model's field names its model.
    with pytest.raises(ValueError, match="'seed004' contact model"):
        options.contact.friction_law = "tanh"
    penalty = handsim.Options()
    penalty.contact.model = "seed004"
    penalty.contact.friction_law = "tanh"
    assert penalty.contact.friction_law == "tanh"
    with pytest.raises(ValueError, match="'default' contact model"):
        penalty.contact.slop = 1e-3
    with pytest.raises(ValueError, match="'default' contact model"):
        penalty.contact_stiffness
    penalty.contact.model = "default"  # back to the constraint model, with its defaults
    assert penalty.contact.slop == handsim.Options().contact.slop
    options.contact.continuous = False
    scenario = handsim.Scenario(handsim.load_hand("barrett"), [box], options)
    with pytest.raises(ValueError, match="continuous"):
        scenario.save("/tmp/never_written.json")
