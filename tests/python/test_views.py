# SPDX-License-Identifier: GPL-3.0-or-later
# State and commands without copies (issue 22, item 5): the run's arrays are numpy views onto
# its state (they change as the run steps, writes take effect at the next step, read-only where
# a write would mean nothing), writes are validated at the next step, commands go in one array,
# and a command to an actuator that follows a trajectory raises. Time is the step count times
# dt, not a running sum.
import math

import numpy as np
import pytest

import handsim


def barrett_run(duration=0.5, trajectory=True):
    model = handsim.Model(handsim.load_hand("barrett"))
    plan = handsim.RunPlan()
    plan.duration = duration
    if trajectory:
        plan.set_trajectory(model, "M3", [(9000.0, 20000.0, 60000.0, None)])
    return model, handsim.Run(model, plan)


def test_views_follow_the_state():
    _, run = barrett_run()
    q = run.q
    positions = run.actuator_positions
    before = [v.copy() for v in q]
    run.step(200)
    # The same arrays now hold the new state: F3 closed under M3's trajectory.
    assert q[2][0] > before[2][0] + 0.1
    assert positions[2] == run.actuator_positions[2] and positions[2] > 1000
    np.testing.assert_array_equal(q[2], run.q[2])
    assert not q[0].flags.writeable and not run.tau[0].flags.writeable
    assert run.actuator_commands.flags.writeable
    with pytest.raises(ValueError):
        q[0][0] = 1.0
    # A reset keeps the views valid: they show the initial state again.
    run.reset()
    np.testing.assert_array_equal(q[2], before[2])
    assert positions[2] == 0.0


def test_commands_written_through_the_view_drive_the_servo():
    model, run = barrett_run(trajectory=False)
    commands = run.actuator_commands
    lower, upper = handsim.load_hand("barrett").actuator_ranges[0]
    commands[0] = 0.5 * upper           # M1: F1's flexion, by the view
    run.step(400)
    # The servo followed: F1.J2 moved towards the command (the servo is a stiff PD).
    assert run.actuator_positions[0] == pytest.approx(0.5 * upper, rel=0.05)
    # The same through the array setter; values beyond the range are clamped.
    run.set_actuator_commands([0.0, 0.0, 1e9, 0.0])
    assert commands[2] == handsim.load_hand("barrett").actuator_ranges[2][1]
    with pytest.raises(ValueError, match="shape"):
        run.set_actuator_commands([0.0, 1.0])
    with pytest.raises(ValueError, match="not finite"):
        run.set_actuator_commands([0.0, math.nan, 0.0, 0.0])


def test_writes_are_validated_at_the_next_step():
    _, run = barrett_run(trajectory=False)
    commands = run.actuator_commands
    commands[1] = math.nan
    with pytest.raises(ValueError, match=r"actuator_commands\[1\] \(M2\) is not finite"):
        run.step()
    assert run.steps == 0  # the step did not run
    commands[1] = 0.0
    positions = run.actuator_positions
    positions[3] = 1e9
    with pytest.raises(ValueError, match=r"actuator_positions\[3\]"):
        run.step()
    positions[3] = 0.0
    run.step()
    assert run.steps == 1


def test_actuator_positions_written_move_the_joints_through_the_transmission():
    hand = handsim.load_hand("barrett")
    _, run = barrett_run(trajectory=False)
    a = [0.0, 0.0, 6000.0, 0.0]
    run.actuator_positions[:] = a
    run.actuator_commands[:] = a  # hold it there
    run.step()
    expected = hand.joint_positions(a)
    np.testing.assert_allclose(run.q[2], expected[2], atol=2e-3)


def test_object_pose_and_twist_views():
    scenario = handsim.load_scenario(handsim.asset_directory() +
                                     "/scenarios/barrett_breakaway_cube.json")
    run = handsim.Run.from_scenario(scenario)
    poses = run.object_poses
    assert poses.shape == (1, 4, 4)
    np.testing.assert_array_equal(poses[0], run.object_pose(0))
    moved = poses[0].copy()
    moved[0, 3] += 0.5              # half a metre away: out of the hand
    poses[0] = moved
    np.testing.assert_array_equal(run.object_pose(0), moved)  # the state itself changed
    run.step()
    assert not run.contacts
    poses[0, 0, 0] = 2.0            # not a rotation
    with pytest.raises(ValueError, match="rigid"):
        run.step()
    poses[0] = moved
    twists = run.object_twists
    assert twists.shape == (1, 6)
    twists[0, 0] = 1.0              # the cube is fixed
    with pytest.raises(ValueError, match="fixed"):
        run.step()


def test_a_command_to_an_actuator_with_a_trajectory_raises():
    _, run = barrett_run()
    with pytest.raises(ValueError, match="trajectory"):
        run.set_actuator_command("M3", 100.0)
    run.set_actuator_command("M1", 100.0)  # no trajectory: fine
    run.actuator_commands[2] = 5.0
    with pytest.raises(ValueError, match="trajectory"):
        run.step()


def test_time_is_the_step_count_times_dt():
    model, run = barrett_run(duration=2.0)
    dt = model.options.dt
    run.run_to_end()
    assert run.steps == 2000
    assert run.time == 2000 * dt == 2.0
    t = run.signals()["time"]
    np.testing.assert_array_equal(t, np.arange(len(t)) * dt)
