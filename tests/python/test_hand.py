# SPDX-License-Identifier: GPL-3.0-or-later
# Hands from Python: forward kinematics against a DH product written here in numpy, Jacobians
# against finite differences, dynamics against handsim-cli's JSON and an independent
# Newton-Euler, the transmission's equations worked by hand, inverse kinematics and its misses
# against brute force, and every error path raising the documented exception.
import json
import math
import subprocess

import numpy as np
import pytest

import handsim

RNG = np.random.default_rng(7)


def dh_product(hand, finger, q):
    """Palm-frame frames of a finger by the standard DH product, written independently."""
    frames = [hand.base(finger)]
    j = 0
    for row in hand.dh_rows(finger):
        theta, d = row["theta"], row["d"]
        if row["type"] == "revolute":
            theta += q[j]
            j += 1
        elif row["type"] == "prismatic":
            d += q[j]
            j += 1
        ct, st = math.cos(theta), math.sin(theta)
        ca, sa = math.cos(row["alpha"]), math.sin(row["alpha"])
        t = np.array([[ct, -st * ca, st * sa, row["a"] * ct],
                      [st, ct * ca, -ct * sa, row["a"] * st],
                      [0.0, sa, ca, d],
                      [0.0, 0.0, 0.0, 1.0]])
        frames.append(frames[-1] @ t)
    return np.array(frames)


def random_q(hand, finger):
    limits = hand.joint_limits(finger)
    return RNG.uniform(limits[:, 0], limits[:, 1])


@pytest.mark.parametrize("hand_id", ["barrett", "anthro20", "dexterous3", "kthand"])
def test_fk_equals_the_dh_product(hand_id):
    hand = handsim.load_hand(hand_id)
    for f in range(len(hand.fingers)):
        for _ in range(20):
            q = random_q(hand, f)
            np.testing.assert_allclose(hand.fk(f, q), dh_product(hand, f, q), atol=1e-13)
            np.testing.assert_allclose(hand.fingertip(f, q), dh_product(hand, f, q)[-1][:3, 3],
                                       atol=1e-13)
            # In the finger's base: the palm-frame frames with the base taken off.
            base_inv = np.linalg.inv(hand.base(f))
            np.testing.assert_allclose(hand.fk(f, q, in_base=True),
                                       base_inv @ dh_product(hand, f, q), atol=1e-13)


def test_jacobian_equals_finite_differences():
    hand = handsim.load_hand("anthro20")
    for f in range(len(hand.fingers)):
        q = random_q(hand, f)
        point = np.array([0.004, -0.002, 0.001])
        jac = hand.jacobian(f, q, -1, point)
        h = 1e-7
        for j in range(hand.dof(f)):
            qp, qm = q.copy(), q.copy()
            qp[j] += h
            qm[j] -= h
            tp, tm = hand.fk(f, qp)[-1], hand.fk(f, qm)[-1]
            v = (tp[:3, :3] @ point + tp[:3, 3] - tm[:3, :3] @ point - tm[:3, 3]) / (2 * h)
            dr = (tp[:3, :3] - tm[:3, :3]) / (2 * h)
            w = dr @ hand.fk(f, q)[-1][:3, :3].T
            np.testing.assert_allclose(jac[:3, j], v, atol=1e-7)
            np.testing.assert_allclose(jac[3:, j], [w[2, 1], w[0, 2], w[1, 0]], atol=1e-7)


def test_dynamics_match_the_cli_and_newton_euler(cli):
    hand = handsim.load_hand("barrett")
    q, qd, qdd = [0.1, 0.2, 0.3], [0.5, -0.2, 0.1], [1.0, 2.0, 3.0]
    out = subprocess.run([cli, "dynamics", "--hand", "barrett", "--finger", "F1", "--q",
                          ",".join(map(repr, q)), "--qd", ",".join(map(repr, qd)), "--qdd",
                          ",".join(map(repr, qdd))], capture_output=True, text=True, check=True)
    ref = json.loads(out.stdout)
    D, H, C = hand.dynamics(0, q, qd)
    np.testing.assert_allclose(D, ref["D"], rtol=0, atol=1e-15)
    np.testing.assert_allclose(H, ref["H"], rtol=0, atol=1e-15)
    np.testing.assert_allclose(C, ref["C"], rtol=0, atol=1e-15)
    tau = hand.inverse_dynamics(0, q, qd, qdd)
    np.testing.assert_allclose(tau, ref["tau"], rtol=0, atol=1e-15)
    np.testing.assert_allclose(tau, D @ qdd + H + C, atol=1e-14)
    # An independent formulation, and forward dynamics as the inverse of inverse dynamics.
    np.testing.assert_allclose(hand.newton_euler(0, q, qd, qdd), tau, atol=1e-12)
    np.testing.assert_allclose(hand.forward_dynamics(0, q, qd, tau), qdd, atol=1e-9)
    # D is symmetric positive definite.
    np.testing.assert_allclose(D, D.T, atol=1e-18)
    assert np.all(np.linalg.eigvalsh(D) > 0)


def test_transmission_follows_seed_000():
    hand = handsim.load_hand("barrett")
    deg = math.pi / 180
    q = hand.joint_positions([1250.0, 2500.0, 3750.0, 350.0])
    # theta_k2 = qMk / 125 deg, theta_k3 = qMk / 375 deg, theta_11 = -2/35 qM4, theta_21 = 2/35.
    np.testing.assert_allclose(q[0], [-2 / 35 * 350 * deg, 10 * deg, 10 / 3 * deg], atol=1e-15)
    np.testing.assert_allclose(q[1], [2 / 35 * 350 * deg, 20 * deg, 20 / 3 * deg], atol=1e-15)
    np.testing.assert_allclose(q[2], [30 * deg, 10 * deg], atol=1e-15)
    # A broken clutch: theta32 frozen at qM3_break / 125, theta33 = 4/375 qM3 - 3/375 qM3_break.
    clutches = [handsim.ClutchState(), handsim.ClutchState(),
                handsim.ClutchState(True, 3000.0)]
    q = hand.joint_positions([0.0, 0.0, 6000.0, 0.0], clutches)
    np.testing.assert_allclose(q[2], [3000 / 125 * deg, (4 * 6000 - 3 * 3000) / 375 * deg],
                               atol=1e-15)
    # Joint values the transmission can realise come back as the actuators that made them.
    a = hand.actuators_for_joints(hand.joint_positions([100.0, 9000.0, 4000.0, 2000.0]))
    np.testing.assert_allclose(a, [100.0, 9000.0, 4000.0, 2000.0], atol=1e-8)
    clamped, messages = hand.clamp_actuators([20000.0, 0.0, -5.0, 0.0])
    assert clamped == [17500.0, 0.0, 0.0, 0.0]
    assert len(messages) == 2 and "M1" in messages[0]


def test_ik_reaches_fk_targets_and_reports_the_true_miss():
    hand = handsim.load_hand("barrett")
    for _ in range(20):
        q = random_q(hand, 0)
        target = hand.fingertip(0, q)
        np.testing.assert_allclose(hand.fingertip(0, hand.ik(0, target)), target, atol=1e-9)
    anthro = handsim.load_hand("anthro20")
    q = random_q(anthro, 1)
    target = anthro.fingertip(1, q)
    np.testing.assert_allclose(anthro.fingertip(1, anthro.ik(1, target, q + 0.05)), target,
                               atol=1e-6)
    # Finger 3 (two joints) cannot reach 0.3 m above the palm: the miss is the distance to the
    # nearest fingertip position, found here by a dense scan of its joint ranges.
    target = np.array([0.0, 0.05, 0.3])
    with pytest.raises(handsim.UnreachableTarget) as info:
        hand.ik(2, target)
    limits = hand.joint_limits(2)
    best = min(np.linalg.norm(hand.fingertip(2, [a, b]) - target)
               for a in np.linspace(*limits[0], 200) for b in np.linspace(*limits[1], 200))
    assert isinstance(info.value, ValueError)
    # The scan's spacing moves the tip by at most about 1 mm.
    assert abs(info.value.miss - best) < 1.5e-3
    np.testing.assert_allclose(np.linalg.norm(hand.fingertip(2, info.value.closest) - target),
                               info.value.miss, atol=1e-9)


def test_errors_raise_the_documented_exceptions(tmp_path):
    with pytest.raises(FileNotFoundError) as missing:
        handsim.load_hand(str(tmp_path / "no_hand.json"))
    assert missing.value.filename.endswith("no_hand.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "handsim-hand", "version": 1,\n "id": 5}\n')
    with pytest.raises(handsim.InputError) as located:
        handsim.load_hand(str(bad))
    error = located.value
    assert isinstance(error, ValueError)
    assert error.file == str(bad) and error.line == 2 and error.column > 0
    assert error.field.startswith("/")
    assert str(error).startswith(str(bad) + ":2:")
    hand = handsim.load_hand("barrett")
    with pytest.raises(ValueError, match="3 joints, got 2"):
        hand.fk(0, [0.0, 0.0])
    with pytest.raises(ValueError, match="not finite"):
        hand.fk(0, [0.0, float("nan"), 0.0])
    with pytest.raises(IndexError):
        hand.fk(7, [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="4 actuators"):
        hand.joint_positions([0.0])
    with pytest.raises(ValueError):
        handsim.load_hand("anthro20").ik(0, [0.0, 0.0, 0.1], phi=0.3)
