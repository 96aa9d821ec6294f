# SPDX-License-Identifier: GPL-3.0-or-later
# Torque commands as an actuator mode (issue 22, item 5): an actuator in torque mode applies the
# torque given (its effort is that torque), an actuator with a trajectory refuses the mode, bad
# torques raise at the next step, and reset() brings the position servos back. The physics is
# checked in C++ (tests/sim/torque_mode_test.cpp: tau / I on one joint).
import pytest

import handsim


def test_torque_mode_on_a_run(scenarios):
    sc = handsim.load_scenario(str(scenarios / "barrett_lift_cube.json"))
    run = handsim.Run.from_scenario(sc)
    # M1 follows a trajectory in this scene: torque mode would ignore it.
    with pytest.raises(ValueError, match="trajectory"):
        run.set_actuator_mode("M1", "torque")
    with pytest.raises(ValueError, match="expected 'position' or 'torque'"):
        run.set_actuator_mode("M4", "speed")
    assert run.actuator_modes == ["position"] * 4
    run.set_actuator_mode("M4", "torque")
    run.actuator_torques[3] = 0.25
    run.step()
    assert run.actuator_efforts[3] == 0.25
    run.actuator_torques[3] = float("nan")
    with pytest.raises(ValueError, match="actuator_torques\\[3\\]"):
        run.step()
    with pytest.raises(ValueError, match="shape"):
        run.set_actuator_torques([1.0, 2.0])
    run.set_actuator_torques([0.0, 0.0, 0.0, -0.1])
    run.step()
    assert run.actuator_efforts[3] == -0.1
    run.reset()
    assert run.actuator_modes == ["position"] * 4
