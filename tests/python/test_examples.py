# SPDX-License-Identifier: GPL-3.0-or-later
# The two examples of docs/python.md run as documented (small sizes) and say what they should.
import importlib.util
import pathlib

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "docs" / "examples"


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_breakaway_plot(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "breakaway.png"
    broke = load("breakaway_plot").main(str(out))
    assert 1.7 < broke < 1.9  # seed 000: 1.8 s
    assert out.stat().st_size > 10000
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_friction_study():
    rows = load("friction_study").main(12)
    assert [mu for mu, _ in rows] == sorted(mu for mu, _ in rows)
    # Friction only widens the cones around the same contacts: force closure and epsilon can
    # only grow with it.
    closure = [s["force_closure"] for _, s in rows]
    assert closure == sorted(closure)
    assert all(s["configurations"] == 12 for _, s in rows)
    assert len({s["collision_free"] for _, s in rows}) == 1
    assert rows[0][1]["collision_free"] > 0


def test_seed004_hold():
    # The three-finger gripper picks the cube off the ground and holds it (Coulomb friction
    # sticks: no slip at all once the palm stops); the two-finger gripper's jaws hold it too.
    rows = load("seed004_hold").main(
        "default", pairs={("gripper3r", "cube"), ("gripper2p", "cube")})
    assert len(rows) == 2
    for gripper, obj, r in rows:
        assert 0.045 < r["rise_m"] < 0.06, (gripper, r)  # the palm rose 50 mm
        assert r["slip_m"] < 1e-4, (gripper, r)
        assert r["warnings"] == 0


def test_scripted_grasp_env():
    # Four episodes on two environments: the scripted grasp lifts the cube from every start.
    rate = load("scripted_grasp_env").main(episodes=4, noise_m=0.005, envs=2)
    assert rate == 1.0
