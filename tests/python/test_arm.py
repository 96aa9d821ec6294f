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
