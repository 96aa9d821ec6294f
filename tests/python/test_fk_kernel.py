# SPDX-License-Identifier: GPL-3.0-or-later
# The forward-kinematics kernel of fk and fingertip (issue 22, item 4; src/python/batch.hpp
# FkKernel): a motion specialised per joint row kind. For every kind (revolute about +-x, +-y,
# +-z and a skew axis, prismatic, fixed; DH and placement rows) the batch equals the per-call
# result to 1e-15 and both equal the joint-row product written in numpy (test_batch.py's
# row_product) to 1e-14. out= reuses the caller's array and refuses a wrong one.
import numpy as np
import pytest

import handsim
from test_batch import row_product

# Every placement kind in one finger: revolute about x (under a rotated placement), y, -z, +z
# and a skew axis, a prismatic slide along a skew axis, a fixed joint inside the finger (merged
# into the next placement) and a tip link (the fixed row fingertip() appends).
AXES_URDF = """\
<?xml version="1.0"?>
<robot name="axes">
  <link name="palm"/>
  <joint name="j_x" type="revolute">
    <parent link="palm"/><child link="l1"/>
    <origin xyz="0.01 0.02 0.03" rpy="0.3 -0.2 0.1"/><axis xyz="1 0 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
  </joint>
  <link name="l1"/>
  <joint name="j_y" type="revolute">
    <parent link="l1"/><child link="l2"/>
    <origin xyz="0 0 0.04"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
  </joint>
  <link name="l2"/>
  <joint name="j_fixed" type="fixed">
    <parent link="l2"/><child link="l3"/>
    <origin xyz="0.005 0 0.01" rpy="0 0.4 0"/>
  </joint>
  <link name="l3"/>
  <joint name="j_z" type="revolute">
    <parent link="l3"/><child link="l4"/>
    <origin xyz="0 0 0.03"/><axis xyz="0 0 -1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
  </joint>
  <link name="l4"/>
  <joint name="j_zp" type="revolute">
    <parent link="l4"/><child link="l4b"/>
    <origin xyz="0.01 0 0.01"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
  </joint>
  <link name="l4b"/>
  <joint name="j_skew" type="revolute">
    <parent link="l4b"/><child link="l5"/>
    <origin xyz="0 0.01 0.02"/><axis xyz="1 2 2"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
  </joint>
  <link name="l5"/>
  <joint name="j_slide" type="prismatic">
    <parent link="l5"/><child link="l6"/>
    <origin xyz="0 0 0.02" rpy="0.1 0 0"/><axis xyz="0 0.6 0.8"/>
    <limit lower="0" upper="0.02" effort="1" velocity="1"/>
  </joint>
  <link name="l6"/>
  <joint name="tip_joint" type="fixed">
    <parent link="l6"/><child link="tip"/>
    <origin xyz="0 0 0.015"/>
  </joint>
  <link name="tip"/>
</robot>
"""

RNG = np.random.default_rng(2022)


def random_q(hand, finger, n):
    limits = hand.joint_limits(finger)
    return RNG.uniform(limits[:, 0], limits[:, 1], size=(n, hand.dof(finger)))


@pytest.fixture(scope="module")
def axes_hand(tmp_path_factory):
    path = tmp_path_factory.mktemp("urdf") / "axes.urdf"
    path.write_text(AXES_URDF)
    return handsim.load_hand(str(path))


def row_kinds(hand):
    kinds = set()
    for f in range(len(hand.fingers)):
        for row in hand.dh_rows(f):
            axis = "z" if row["form"] == "dh" else tuple(np.round(row["axis"], 6))
            kinds.add((row["form"], row["type"], axis if row["type"] == "revolute" else None))
    return kinds


def check_hand(hand):
    for f in range(len(hand.fingers)):
        q = random_q(hand, f, 64)
        frames = hand.fk(f, q, threads=2)
        tips = hand.fingertip(f, q, threads=2)
        offset = hand.fingertip_offset(f)
        for i in range(len(q)):
            one = hand.fk(f, q[i])
            assert np.abs(frames[i] - one).max() <= 1e-15
            assert np.abs(tips[i] - hand.fingertip(f, q[i])).max() <= 1e-15
            reference = row_product(hand, f, q[i])
            np.testing.assert_allclose(one, reference, rtol=0, atol=1e-14)
            np.testing.assert_allclose(tips[i], (reference[-1] @ offset)[:3, 3], rtol=0,
                                       atol=1e-14)
            assert np.abs(hand.fingertip(f, q[i], point="last_frame") - one[-1, :3, 3]).max() \
                <= 1e-15
        in_base = hand.fk(f, q, in_base=True)
        np.testing.assert_allclose(in_base, np.linalg.inv(hand.base(f)) @ frames, rtol=0,
                                   atol=1e-14)


def test_every_placement_row_kind(axes_hand):
    kinds = row_kinds(axes_hand)
    s = 1 / 3
    for axis in [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, -1.0), (0.0, 0.0, 1.0),
                 (round(s, 6), round(2 * s, 6), round(2 * s, 6))]:
        assert ("placement", "revolute", axis) in kinds
    assert ("placement", "prismatic", None) in kinds
    assert not np.array_equal(axes_hand.fingertip_offset(0), np.eye(4))  # a fixed tip row
    check_hand(axes_hand)


def test_every_dh_row_kind():
    hand = handsim.load_hand("anthro20")  # DH rows: revolute, prismatic and fixed
    assert {(k[0], k[1]) for k in row_kinds(hand)} >= {
        ("dh", "revolute"), ("dh", "prismatic"), ("dh", "fixed")}
    check_hand(hand)


def test_out_is_filled_and_returned(axes_hand):
    q = random_q(axes_hand, 0, 10)
    out = np.full((10, 7, 4, 4), np.nan)
    assert axes_hand.fk(0, q, out=out) is out
    np.testing.assert_array_equal(out, axes_hand.fk(0, q))
    one = np.full((7, 4, 4), np.nan)
    assert axes_hand.fk(0, q[3], out=one) is one
    np.testing.assert_array_equal(one, out[3])


def test_out_of_the_wrong_kind_is_refused(axes_hand):
    q = random_q(axes_hand, 0, 10)
    expected = r"out: expected a writeable C-contiguous float64 numpy array of shape " \
               r"\(10, 7, 4, 4\), got "
    with pytest.raises(ValueError, match=expected + r"shape \(10, 6, 4, 4\)"):
        axes_hand.fk(0, q, out=np.empty((10, 6, 4, 4)))
    with pytest.raises(ValueError, match=expected + r"shape \(7, 4, 4\)"):
        axes_hand.fk(0, q, out=np.empty((7, 4, 4)))
    with pytest.raises(ValueError, match=expected + "dtype float32"):
        axes_hand.fk(0, q, out=np.empty((10, 7, 4, 4), dtype=np.float32))
    with pytest.raises(ValueError, match=expected + "an array that is not C-contiguous"):
        axes_hand.fk(0, q, out=np.empty((10, 7, 4, 4), order="F"))
    frozen = np.empty((10, 7, 4, 4))
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match=expected + "a read-only array"):
        axes_hand.fk(0, q, out=frozen)
    with pytest.raises(ValueError, match=expected + "list"):
        axes_hand.fk(0, q, out=[0.0] * 1120)
