# SPDX-License-Identifier: GPL-3.0-or-later
# One meaning of "fingertip" (issue 22, item 3): on a URDF finger with a tip link fixed beyond
# its last joint frame (wrist_hand's index_tip), Python's fingertip(), ik() and ik_hand(finger=),
# handsim-cli fk's "tip" and handsim-cli ik --finger (C++'s hand::fingerEndpoint) all put the
# same point: the tip link's origin, as link_poses places it. The last joint frame stays
# available by its explicit name (point="last_frame", fk's "last_frame", fk()[-1]).
import json
import subprocess

import numpy as np
import pytest

import handsim

URDF = handsim.asset_directory() + "/hands/urdf/wrist_hand.urdf"


def test_every_api_puts_the_same_fingertip(cli):
    hand = handsim.load_hand(URDF)
    f = hand.finger_index("index_distal")
    values = {"wrist_yaw": 0.3, "index_mcp": 0.4, "index_pip": 0.2}
    fk = json.loads(subprocess.run(
        [cli, "fk", "--hand", URDF, "--set", ",".join(f"{k}={v}" for k, v in values.items())],
        check=True, capture_output=True, text=True).stdout)
    index = fk["fingers"][f]
    q = np.array(index["q"])
    poses = hand.link_poses([np.array(x["q"]) for x in fk["fingers"]])
    tip_link = poses["index_tip"][:3, 3]
    last = hand.fk(f, q)[-1][:3, 3]
    assert np.linalg.norm(tip_link - last) > 1e-3  # the two points differ on this finger

    np.testing.assert_allclose(hand.fingertip(f, q), tip_link, atol=1e-15)
    np.testing.assert_allclose(index["tip"], tip_link, atol=1e-15)
    np.testing.assert_allclose(index["ik_tip"], tip_link, atol=1e-15)
    np.testing.assert_allclose(
        (hand.fk(f, q)[-1] @ hand.fingertip_offset(f))[:3, 3], tip_link, atol=1e-15)
    # The other point, by name.
    np.testing.assert_allclose(hand.fingertip(f, q, point="last_frame"), last, atol=1e-15)
    np.testing.assert_allclose(index["last_frame"], last, atol=1e-15)
    # Batch form.
    np.testing.assert_allclose(hand.fingertip(f, np.array([q, q]))[1], tip_link, atol=1e-15)

    # IK from every API places the tip link at the target.
    q_ik = hand.ik(f, tip_link, np.zeros(hand.dof(f)))
    np.testing.assert_allclose(hand.fingertip(f, q_ik), tip_link, atol=1e-6)
    q_hand = hand.ik_hand(tip_link, finger=f, shared="free")
    np.testing.assert_allclose(hand.link_poses(q_hand)["index_tip"][:3, 3], tip_link, atol=1e-6)
    target = ",".join(repr(float(x)) for x in tip_link)
    out = json.loads(subprocess.run(
        [cli, "ik", "--hand", URDF, "--finger", "index_distal", "--shared", "free",
         "--target", target], check=True, capture_output=True, text=True).stdout)
    assert out["residual"] < 1e-9
    # And the last-frame IK puts the last frame there instead.
    q_last = hand.ik(f, last, np.zeros(hand.dof(f)), point="last_frame")
    np.testing.assert_allclose(hand.fk(f, q_last)[-1][:3, 3], last, atol=1e-6)


def test_hand_files_have_one_point():
    hand = handsim.load_hand("barrett")
    q = [-0.2, 0.5, 0.4]
    np.testing.assert_array_equal(hand.fingertip_offset(0), np.eye(4))
    np.testing.assert_array_equal(hand.fingertip(0, q), hand.fingertip(0, q, point="last_frame"))
    with pytest.raises(ValueError, match="last_frame"):
        hand.fingertip(0, q, point="nail")


def workspace_point(cli, hand, f, q, point):
    """handsim-cli workspace with every joint held at q: its one sample, in the palm frame."""
    names = [n.split(".", 1)[1] for n in hand.joint_names(f)]
    hold = ",".join(f"{n}={v!r}" for n, v in zip(names, q))
    args = [cli, "workspace", "--hand", URDF, "--finger", hand.fingers[f], "--hold", hold]
    if point is not None:
        args += ["--point", point]
    out = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    assert out["points"] == 1
    np.testing.assert_array_equal(out["bbox_m"]["min"], out["bbox_m"]["max"])
    return out["point"], (hand.base(f) @ np.append(out["bbox_m"]["min"], 1.0))[:3]


def test_workspace_and_ik_actuators_name_the_point(cli):
    """C++ (handsim-cli workspace, hand::fingerPointChain; ik_actuators, hand::fingertipActuators)
    and Python (fingertip) put the same point, the tip link's origin as link_poses places it,
    by default; the last joint frame by name."""
    hand = handsim.load_hand(URDF)
    f = hand.finger_index("index_distal")
    actuators = [0.2, -0.1, 0.1, 0.5, 0.4, 0.3, 0.3, 0.2, 0.01]
    q_all = hand.joint_positions(actuators)
    q = q_all[f]
    tip_link = hand.link_poses(q_all)["index_tip"][:3, 3]
    last = hand.fk(f, q)[-1][:3, 3]
    assert np.linalg.norm(tip_link - last) > 1e-3

    name, p = workspace_point(cli, hand, f, q, None)
    assert name == "tip"
    np.testing.assert_allclose(p, tip_link, atol=1e-12)
    np.testing.assert_allclose(hand.fingertip(f, q), tip_link, atol=1e-15)
    name, p = workspace_point(cli, hand, f, q, "last_frame")
    assert name == "last_frame"
    np.testing.assert_allclose(p, last, atol=1e-12)
    bad = subprocess.run([cli, "workspace", "--hand", URDF, "--finger", "index_distal",
                          "--point", "nail"], capture_output=True, text=True)
    assert bad.returncode != 0 and "--point: expected 'tip' or 'last_frame'" in bad.stderr

    # Through the transmission, from other actuator positions: the default places the tip link
    # at the target, point="last_frame" the last joint frame.
    start = [0.0, 0.0, 0.0, 0.3, 0.3, 0.3, 0.3, 0.2, 0.01]
    for point, where in [("tip", tip_link), ("last_frame", last)]:
        kwargs = {} if point == "tip" else {"point": point}
        a = hand.ik_actuators(f, where, start, **kwargs)
        reached = hand.joint_positions(a)[f]
        np.testing.assert_allclose(hand.fingertip(f, reached, point=point), where, atol=5e-4)
    a = hand.ik_actuators(f, tip_link, start)
    assert np.linalg.norm(hand.fingertip(f, hand.joint_positions(a)[f], point="last_frame")
                          - tip_link) > 1e-2
    with pytest.raises(ValueError, match="last_frame"):
        hand.ik_actuators(f, tip_link, start, point="nail")
