# SPDX-License-Identifier: GPL-3.0-or-later
# Batch kinematics (issue 22, item 4): fk, jacobian, link_poses and ik over (N, dof) arrays.
# Forward kinematics against a joint-row product written here in numpy (DH rows and URDF
# placement rows), Jacobians against central differences of the batch FK, IK by putting the
# solutions back through FK, the links of a batch against the one-configuration call, one
# thread against several, and the errors of bad batches.
import math

import numpy as np
import pytest

import handsim

RNG = np.random.default_rng(22)
ASSETS = handsim.asset_directory()


def axis_rotation(axis, angle):
    x, y, z = axis
    c, s = math.cos(angle), math.sin(angle)
    k = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]])
    return np.eye(3) + s * k + (1 - c) * (k @ k)


def row_product(hand, finger, q):
    """Palm-frame frames of a finger from its rows, written independently of the library."""
    frames = [hand.base(finger)]
    j = 0
    for row in hand.dh_rows(finger):
        value = 0.0
        if row["type"] != "fixed":
            value = q[j]
            j += 1
        if row["form"] == "dh":
            theta, d = row["theta"], row["d"]
            if row["type"] == "revolute":
                theta += value
            elif row["type"] == "prismatic":
                d += value
            ct, st = math.cos(theta), math.sin(theta)
            ca, sa = math.cos(row["alpha"]), math.sin(row["alpha"])
            t = np.array([[ct, -st * ca, st * sa, row["a"] * ct],
                          [st, ct * ca, -ct * sa, row["a"] * st],
                          [0.0, sa, ca, d],
                          [0.0, 0.0, 0.0, 1.0]])
        else:
            motion = np.eye(4)
            if row["type"] == "revolute":
                motion[:3, :3] = axis_rotation(row["axis"], value)
            elif row["type"] == "prismatic":
                motion[:3, 3] = np.asarray(row["axis"]) * value
            t = np.asarray(row["placement"]) @ motion
        frames.append(frames[-1] @ t)
    return np.array(frames)


def random_batch(hand, finger, n):
    limits = hand.joint_limits(finger)
    return RNG.uniform(limits[:, 0], limits[:, 1], size=(n, hand.dof(finger)))


HANDS = ["barrett", "anthro20", ASSETS + "/hands/urdf/wrist_hand.urdf"]


@pytest.mark.parametrize("hand_id", HANDS, ids=lambda h: h.split("/")[-1])
def test_batch_fk_equals_the_row_product(hand_id):
    hand = handsim.load_hand(hand_id)
    for f in range(len(hand.fingers)):
        q = random_batch(hand, f, 300)
        frames = hand.fk(f, q)
        assert frames.shape == (300, len(hand.dh_rows(f)) + 1, 4, 4)
        for i in range(0, 300, 37):
            np.testing.assert_allclose(frames[i], row_product(hand, f, q[i]), atol=1e-13)
        base_inv = np.linalg.inv(hand.base(f))
        np.testing.assert_allclose(hand.fk(f, q, in_base=True)[5], base_inv @ frames[5],
                                   atol=1e-13)
        # Threads split the rows, nothing else: one thread and three give the same bits.
        np.testing.assert_array_equal(hand.fk(f, q, threads=1), hand.fk(f, q, threads=3))
        np.testing.assert_array_equal(frames, hand.fk(f, q.tolist()))


def test_batch_jacobian_equals_central_differences():
    hand = handsim.load_hand("anthro20")
    for f in range(len(hand.fingers)):
        q = random_batch(hand, f, 50)
        point = np.array([0.01, -0.005, 0.002])
        J = hand.jacobian(f, q, -1, point)
        assert J.shape == (50, 6, hand.dof(f))
        h = 1e-6
        for j in range(hand.dof(f)):
            step = np.zeros(hand.dof(f))
            step[j] = h
            up, down = hand.fk(f, q + step), hand.fk(f, q - step)
            p_up = up[:, -1, :3, :3] @ point + up[:, -1, :3, 3]
            p_down = down[:, -1, :3, :3] @ point + down[:, -1, :3, 3]
            np.testing.assert_allclose(J[:, :3, j], (p_up - p_down) / (2 * h), atol=1e-8)
            # Angular: the skew part of dR R^T.
            dR = (up[:, -1, :3, :3] - down[:, -1, :3, :3]) / (2 * h)
            W = dR @ np.transpose(hand.fk(f, q)[:, -1, :3, :3], (0, 2, 1))
            w = np.stack([W[:, 2, 1], W[:, 0, 2], W[:, 1, 0]], axis=1)
            np.testing.assert_allclose(J[:, 3:, j], w, atol=1e-8)
        np.testing.assert_array_equal(J[7], hand.jacobian(f, q[7], -1, point))


@pytest.mark.parametrize("hand_id", ["barrett", "dexterous3"])
def test_batch_ik_reaches_reachable_targets(hand_id):
    hand = handsim.load_hand(hand_id)
    f = 0
    q_true = random_batch(hand, f, 40)
    targets = hand.fk(f, q_true)[:, -1, :3, 3]
    q = hand.ik(f, targets, q_true.mean(axis=0))
    assert q.shape == (40, hand.dof(f))
    limits = hand.joint_limits(f)
    assert np.all(q >= limits[:, 0] - 1e-12) and np.all(q <= limits[:, 1] + 1e-12)
    np.testing.assert_allclose(hand.fk(f, q)[:, -1, :3, 3], targets, atol=2e-6)
    # One start per target works too, and the batch of one is the single call.
    q2 = hand.ik(f, targets[:3], q_true[:3])
    np.testing.assert_allclose(hand.fk(f, q2)[:, -1, :3, 3], targets[:3], atol=2e-6)


def test_batch_ik_reports_every_miss():
    hand = handsim.load_hand("barrett")
    q_true = random_batch(hand, 0, 5)
    targets = hand.fk(0, q_true)[:, -1, :3, 3]
    far = targets.copy()
    far[1] = [0.0, 0.0, 1.0]   # a metre away: out of reach
    far[3] = [0.3, 0.3, 0.3]
    with pytest.raises(handsim.UnreachableTarget) as e:
        hand.ik(0, far)
    assert "2 of 5" in str(e.value)
    miss = e.value.miss
    assert miss.shape == (5,) and e.value.closest.shape == (5, 3)
    assert miss[0] == 0 and miss[2] == 0 and miss[4] == 0
    # The miss is the distance from the target to where the nearest joint values put the tip.
    for i in (1, 3):
        tip = hand.fk(0, e.value.closest[i])[-1][:3, 3]
        assert miss[i] == pytest.approx(np.linalg.norm(tip - far[i]), rel=1e-6)
        assert miss[i] > 0.5 * np.linalg.norm(far[i]) - 0.2
    q, miss2 = hand.ik(0, far, return_miss=True)
    np.testing.assert_array_equal(miss2, miss)
    # The single-target form with return_miss gives (q, miss) too.
    q1, m1 = hand.ik(0, far[1], return_miss=True)
    assert m1 == pytest.approx(miss[1])


def test_batch_link_poses_equal_the_single_call():
    hand = handsim.load_hand(ASSETS + "/hands/urdf/wrist_hand.urdf")
    n = 25
    q = [random_batch(hand, f, n) for f in range(len(hand.fingers))]
    batch = hand.link_poses(q)
    for i in (0, 11, 24):
        single = hand.link_poses([qf[i] for qf in q])
        assert list(single) == list(batch)
        for name, pose in single.items():
            np.testing.assert_array_equal(batch[name][i], pose, err_msg=name)
    # Against the row product: a link rigid with a finger's last frame.
    for f in range(len(hand.fingers)):
        frames = hand.fk(f, q[f])
        np.testing.assert_allclose(frames[3, -1], row_product(hand, f, q[f][3])[-1], atol=1e-13)


def test_bad_batches_raise_value_errors():
    hand = handsim.load_hand("barrett")
    with pytest.raises(ValueError, match="3 joints"):
        hand.fk(0, np.zeros((4, 2)))
    with pytest.raises(ValueError, match="not finite"):
        hand.fk(0, np.array([[0.0, 0.1, 0.2], [np.nan, 0, 0]]))
    with pytest.raises(ValueError, match="shape"):
        hand.fk(0, np.zeros((2, 2, 3)))
    with pytest.raises(ValueError, match="starts"):
        hand.ik(0, np.zeros((4, 3)), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="same number of rows"):
        hand.link_poses([np.zeros((2, 3)), np.zeros((3, 3)), np.zeros((2, 2))])
    with pytest.raises(ValueError):
        hand.fk(0, np.zeros((0, 3)), threads=-1)
    assert hand.fk(0, np.zeros((0, 3))).shape == (0, 4, 4, 4)
