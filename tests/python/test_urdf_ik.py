# SPDX-License-Identifier: GPL-3.0-or-later
# Hand-level IK on the shipped URDF test hands (shared wrist locked or free, mimic joints), and
# general-placement joint rows from Python: a chain's frames against numpy products of the
# placement and the rotation about the axis (Rodrigues), worked here.
import math

import numpy as np
import pytest

import handsim
from conftest import SOURCE_DIR

URDF = SOURCE_DIR / "assets" / "hands" / "urdf"


def turned(hand, values):
    """Joint values per finger from URDF joint values by name, through the actuators."""
    a = [values.get(name, min(max(0.0, lo), hi))
         for name, (lo, hi) in zip(hand.actuators, hand.actuator_ranges)]
    return hand.joint_positions(a)


def test_free_wrist_reaches_what_the_locked_wrist_misses():
    hand = handsim.load_hand(str(URDF / "wrist_hand.urdf"))
    goal = turned(hand, {"wrist_yaw": 0.5, "wrist_pitch": 0.35, "middle_mcp": 0.9,
                         "middle_pip": 0.6})
    target = hand.link_poses(goal)["middle_distal"][:3, 3]
    now = turned(hand, {"index_mcp": 0.4, "thumb_rot": 0.5})
    middle = hand.finger_index("middle_distal")
    with pytest.raises(handsim.UnreachableTarget) as e:
        hand.ik_hand(target, finger=middle, q_now=now, shared="locked")
    assert e.value.miss > 1e-3
    q = hand.ik_hand(target, finger=middle, q_now=now, shared="free")
    poses = hand.link_poses(q)
    assert np.linalg.norm(poses["middle_distal"][:3, 3] - target) < 1e-9
    values = hand.joint_values(q)
    # One wrist for all fingers: every chain starts with the same two values.
    for f in range(len(hand.fingers)):
        assert q[f][0] == values["wrist_yaw"] and q[f][1] == values["wrist_pitch"]
    assert values["index_mcp"] == pytest.approx(0.4, abs=0.0)
    assert values["thumb_rot"] == pytest.approx(0.5, abs=0.0)
    # The other fingers rode along with the wrist.
    before = hand.link_poses(now)
    assert np.linalg.norm(poses["index_tip"][:3, 3] - before["index_tip"][:3, 3]) > 1e-3


def test_locked_keeps_the_wrist_and_mimic_joints_follow():
    hand = handsim.load_hand(str(URDF / "wrist_hand.urdf"))
    now = turned(hand, {"wrist_yaw": 0.3, "wrist_pitch": -0.2})
    goal = turned(hand, {"wrist_yaw": 0.3, "wrist_pitch": -0.2, "index_abd": 0.1,
                         "index_mcp": 0.8, "index_pip": 0.5})
    target = hand.link_poses(goal)["index_tip"][:3, 3]
    q = hand.ik_hand(target, link="index_tip", q_now=now)
    values = hand.joint_values(q)
    assert values["wrist_yaw"] == 0.3 and values["wrist_pitch"] == -0.2
    assert np.linalg.norm(hand.link_poses(q)["index_tip"][:3, 3] - target) < 1e-9

    gripper = handsim.load_hand(str(URDF / "mimic_gripper.urdf"))
    goal = turned(gripper, {"jaw_left": 0.02})
    target = gripper.link_poses(goal)["right"][:3, 3]
    values = gripper.joint_values(gripper.ik_hand(target, link="right"))
    assert values["jaw_left"] == pytest.approx(0.02, abs=1e-12)
    assert values["jaw_right"] == -values["jaw_left"]
    with pytest.raises(ValueError):
        gripper.ik_hand(target, link="right", shared="sometimes")
    with pytest.raises(ValueError):
        gripper.ik_hand(target)


def rodrigues(axis, angle):
    k = np.asarray(axis, float) / np.linalg.norm(axis)
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(angle) * kx + (1 - math.cos(angle)) * kx @ kx


def transform(rotation=np.eye(3), translation=(0.0, 0.0, 0.0)):
    t = np.eye(4)
    t[:3, :3] = rotation
    t[:3, 3] = translation
    return t


def test_placement_rows_fk_is_the_product_of_their_transforms():
    rng = np.random.default_rng(5)
    rows, parts = [], []
    kinds = ["revolute", "prismatic", "fixed", "revolute", "revolute"]
    for kind in kinds:
        placement = transform(rodrigues(rng.normal(size=3), rng.uniform(-3, 3)),
                              rng.uniform(-0.05, 0.05, size=3))
        axis = rng.normal(size=3)
        rows.append(handsim.placement_row(placement, axis, kind, -2.0, 2.0))
        parts.append((placement, axis, kind))
    base = transform(rodrigues([0.2, 1.0, -0.3], 0.7), [0.01, 0.02, 0.03])
    q = rng.uniform(-1.0, 1.0, size=4)
    frames = handsim.chain_fk(rows, q, base)
    assert frames.shape == (6, 4, 4)
    expect = base.copy()
    assert np.abs(frames[0] - expect).max() < 1e-15
    j = 0
    for i, (placement, axis, kind) in enumerate(parts):
        unit = axis / np.linalg.norm(axis)
        if kind == "revolute":
            motion = transform(rodrigues(unit, q[j]))
        elif kind == "prismatic":
            motion = transform(translation=unit * q[j])
        else:
            motion = np.eye(4)
        j += kind != "fixed"
        expect = expect @ placement @ motion
        assert np.abs(frames[i + 1] - expect).max() < 1e-13, i
    # The rows read back as they were made (axis normalised); a DH row in the same list.
    assert rows[0]["form"] == "placement"
    assert np.allclose(rows[0]["axis"], parts[0][1] / np.linalg.norm(parts[0][1]), atol=1e-15)
    dh = {"form": "dh", "a": 0.05, "alpha": 0.3, "d": 0.01, "theta": 0.2, "type": "revolute",
          "lower": -1.0, "upper": 1.0}
    f = handsim.chain_fk([dh], [0.4])
    c, s = math.cos(0.6), math.sin(0.6)
    ca, sa = math.cos(0.3), math.sin(0.3)
    want = np.array([[c, -s * ca, s * sa, 0.05 * c], [s, c * ca, -c * sa, 0.05 * s],
                     [0, sa, ca, 0.01], [0, 0, 0, 1]])
    assert np.abs(f[1] - want).max() < 1e-15
    with pytest.raises(ValueError):
        handsim.placement_row(np.eye(4), [0.0, 0.0, 0.0])
    with pytest.raises(ValueError):
        handsim.chain_fk([{"form": "placement", "placement": 2 * np.eye(4)}], [0.0])


def test_a_urdf_hands_rows_are_placement_rows_that_rebuild_its_fk():
    hand = handsim.load_hand(str(URDF / "wrist_hand.urdf"))
    finger = hand.finger_index("index_distal")
    rows = hand.dh_rows(finger)
    assert all(r["form"] == "placement" for r in rows)
    q = np.array([0.2, -0.1, 0.05, 0.7, 0.4])
    assert np.abs(handsim.chain_fk(rows, q, hand.base(finger)) - hand.fk(finger, q)).max() < 1e-15
