# SPDX-License-Identifier: GPL-3.0-or-later
# Pictures from Python (issue 22, item 8): handsim.render draws a run's scene offscreen. The
# image has the camera's size; where a known point of the hand projects (the camera's own
# projection, checked against a pinhole worked here) the pixel is not the background, and it
# is once the hand is moved out of the view.
import numpy as np
import pytest

import handsim

if not hasattr(handsim, "render"):
    pytest.skip("built without handsim_render", allow_module_level=True)

BACKGROUND = np.array([235, 240, 248], dtype=np.uint8)


@pytest.fixture
def run(scenarios):
    return handsim.Run.from_scenario(handsim.load_scenario(str(scenarios / "barrett_lift_cube.json")))


def test_projection_is_a_pinhole():
    cam = handsim.Camera(eye=[1.0, 0.0, 0.0], target=[0.0, 0.0, 0.0], fov_deg=90.0, width=200,
                         height=100)
    # Looking along -x with z up: right in the picture is forward x up = (-1, 0, 0) x (0, 0, 1)
    # = +y. fov 90 deg over 100 rows: f = 50 px, so a point at depth 1 and height 1 sits at the
    # top edge and one 0.5 m along -y 25 px left of the centre.
    uvd = cam.project([[0.0, 0.0, 0.0], [0.0, -0.5, 0.0], [0.0, 0.0, 1.0]])
    assert np.allclose(uvd, [[100.0, 50.0, 1.0], [75.0, 50.0, 1.0], [100.0, 0.0, 1.0]])
    with pytest.raises(ValueError):
        handsim.Camera(eye=[0, 0, 0], target=[0, 0, 0])


def test_the_hand_shows_where_it_projects():
    # The hand alone (no objects, no ground): every pixel that is not the background is hand.
    hand = handsim.load_hand("barrett")
    run = handsim.Run(handsim.Model(hand))
    image = handsim.render(run, width=320, height=240)
    assert image.shape == (240, 320, 3) and image.dtype == np.uint8
    cam = handsim.Camera.framing(run, 320, 240)
    # Known points of the hand: the middle of each finger's last link (between the origins of
    # its last two frames, from fk in the palm frame, moved into the world by the palm pose).
    pose = run.palm_pose
    pixels = []
    for f in range(len(hand.fingers)):
        frames = hand.fk(f, run.q[f])
        mid = (pose @ (0.5 * (frames[-1][:, 3] + frames[-2][:, 3])))[:3]
        u, v, depth = cam.project(mid)
        assert 0 <= u < 320 and 0 <= v < 240 and depth > 0
        px = image[int(v), int(u)]
        assert not np.array_equal(px, BACKGROUND), (f, u, v)
        assert px[2] > px[0]  # the hand's blue-grey, shaded
        pixels.append((int(v), int(u)))
    assert (image != BACKGROUND).any(axis=2).mean() > 0.02  # the hand fills part of the view
    # The palm moved far away: those pixels show the background.
    run.palm_pose = np.array([[1, 0, 0, 50.0], [0, 1, 0, 0], [0, 0, 1, 0.5], [0, 0, 0, 1.0]])
    run.step()
    moved = handsim.render(run, camera=cam)
    for v, u in pixels:
        assert np.array_equal(moved[v, u], BACKGROUND)


def test_contacts_are_drawn(run):
    run.step(1500)  # the fingers have closed on the cube
    assert len(run.contacts) > 0
    cam = handsim.Camera.framing(run, 320, 240)
    with_dots = handsim.render(run, camera=cam)
    without = handsim.render(run, camera=cam, contacts=False)
    u, v, _ = cam.project(np.array([c.point for c in run.contacts])).T
    red = with_dots[v.astype(int), u.astype(int)]
    assert np.all(red == [220, 30, 30])
    assert not np.array_equal(with_dots, without)
