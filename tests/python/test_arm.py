# SPDX-License-Identifier: GPL-3.0-or-later
# The arm group in Python (issue 24; docs/arm.md): a URDF hand loaded with palm='LINK' has the
# joints from its root to the palm as the arm; arm_fk against a rotation worked here, arm_ik
# reaching poses made by arm_fk from random in-limit configurations, and the miss of a pose
# out of reach.
import os

import numpy as np
import pytest

import handsim

WRIST = os.path.join(handsim.asset_directory(), "hands", "urdf", "wrist_hand.urdf")


def test_palm_link_makes_the_wrist_an_arm():
    whole = handsim.load_hand(WRIST)
    h = handsim.load_hand(WRIST, palm="palm")
    assert h.arm_joint_names == ["wrist_yaw", "wrist_pitch"]
    assert whole.arm_joint_names == []
    assert h.arm_limits.shape == (2, 1 + 1)
    # The wrist joints left the fingers' chains.
    assert "wrist_yaw" not in [a for a in h.actuators]
    assert len(h.actuators) == len(whole.actuators) - 2
    with pytest.raises(ValueError):
        whole.arm_fk([0.0, 0.0])
    with pytest.raises(handsim.InputError):
        handsim.load_hand(WRIST, palm="no_such_link")


def test_arm_ik_reaches_fk_poses_and_reports_a_miss():
    h = handsim.load_hand(WRIST, palm="palm")
    lim = h.arm_limits
    rng = np.random.default_rng(5)
    for _ in range(10):
        q = lim[:, 0] + rng.random(2) * (lim[:, 1] - lim[:, 0])
        target = h.arm_fk(q)
        r = h.arm_ik(target)
        assert r["reached"], r
        assert np.allclose(h.arm_fk(r["q"]), target, atol=1e-5)
        assert np.all(r["q"] >= lim[:, 0]) and np.all(r["q"] <= lim[:, 1])
    far = np.eye(4)
    far[:3, 3] = [1.0, 0.0, 0.0]
    r = h.arm_ik(far)
    assert not r["reached"]
    assert r["miss_mm"] > 500.0


def test_a_scenario_with_an_arm_built_in_python_runs_in_the_cli_to_the_same_csv(cli, tmp_path):
    """RunPlan.set_arm / set_arm_motion / arm_initial / arm_moves (docs/arm.md): a scenario
    built here on wrist_hand with its wrist as the arm, saved with its palm link, runs in
    handsim-cli simulate to the CSV the Python run records; the palm follows arm_fk."""
    import json
    import subprocess

    h = handsim.load_hand(WRIST, palm="palm")
    plan = handsim.RunPlan()
    assert plan.arm_initial == [] and not plan.arm_moves
    plan.duration = 0.2
    plan.set_arm(h, {"wrist_yaw": 0.1})
    assert plan.arm_initial == [0.1, 0.0]
    plan.set_arm_motion(h, "wrist_pitch", [(0.3, 4.0, 80.0, 0.02)])
    plan.set_arm_motion(h, 0, sinusoids=[(0.05, 5.0, 0.0, 1.0)])
    assert plan.arm_moves
    palm = np.eye(4)
    palm[:3, 3] = [0.0, 0.0, 0.3]
    plan.palm_pose = palm
    plan.initial = [0.2] * len(h.actuators)

    scenario = handsim.Scenario(h, plan=plan, description="arm built in Python")
    path = tmp_path / "arm.json"
    scenario.save(str(path))
    saved = json.loads(path.read_text())
    assert saved["arm"]["palm_link"] == "palm"
    assert saved["arm"]["initial"] == {"wrist_yaw": 0.1, "wrist_pitch": 0.0}
    assert set(saved["arm"]["motion"]) == {"wrist_yaw", "wrist_pitch"}

    run = handsim.Run.from_scenario(scenario)
    run.run_to_end()
    csv = tmp_path / "cli.csv"
    subprocess.run([cli, "simulate", str(path), "--csv", str(csv), "--quiet"], check=True,
                   capture_output=True)
    assert run.csv() == csv.read_text()
    again = handsim.load_scenario(str(path))
    assert again.plan.arm_initial == [0.1, 0.0] and again.plan.arm_moves

    # The palm is where the arm puts it: base @ arm_fk(q(t)), base from the start.
    s = run.signals()
    base = palm @ np.linalg.inv(h.arm_fk([0.1, 0.0]))
    q_end = [s["arm.wrist_yaw"][-1], s["arm.wrist_pitch"][-1]]
    assert q_end[1] == pytest.approx(0.3)  # the pitch segment ended (at 0.145 s)
    end = base @ h.arm_fk(q_end)
    np.testing.assert_allclose([s["palm.x"][-1], s["palm.y"][-1], s["palm.z"][-1]],
                               end[:3, 3], atol=1e-12)


def test_bad_arm_plans_raise():
    h = handsim.load_hand(WRIST, palm="palm")
    plan = handsim.RunPlan()
    with pytest.raises(ValueError, match="no arm joint 'elbow'.*wrist_yaw, wrist_pitch"):
        plan.set_arm(h, {"elbow": 0.0})
    with pytest.raises(ValueError, match="wrist_yaw.*outside its limits"):
        plan.set_arm(h, {"wrist_yaw": 5.0})
    with pytest.raises(ValueError, match="2 joints"):
        plan.set_arm(h, [0.0, 0.0, 0.0])
    with pytest.raises(IndexError):
        plan.set_arm_motion(h, 2, [(0.1, 1.0, 1.0, None)])
    with pytest.raises(ValueError, match="has no arm"):
        plan.set_arm(handsim.load_hand(WRIST), {"wrist_yaw": 0.0})
    # An arm motion and a palm motion together are refused when the run starts.
    plan.set_arm_motion(h, "wrist_yaw", [(0.1, 1.0, 10.0, None)])
    plan.set_palm_motion("z", [(0.01, 0.1, 1.0, None)])
    plan.duration = 0.1
    with pytest.raises(ValueError, match="both an arm motion and a palm motion"):
        handsim.Run(handsim.Model(h), plan)
