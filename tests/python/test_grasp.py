# SPDX-License-Identifier: GPL-3.0-or-later
# handsim.evaluate_grasp, torque_radius and sweeps. Expected values are worked here (geometry
# by hand, statistics with numpy) or come from the CLI run on the same file, never from the
# module's own output.
import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

import handsim

ASSETS = pathlib.Path(handsim.asset_directory())
SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]


def cli_path():
    path = os.environ.get("HANDSIM_CLI", str(SOURCE_DIR / "build" / "src" / "handsim-cli"))
    if not os.path.exists(path):
        pytest.skip("handsim-cli not built (set HANDSIM_CLI)")
    return path


def sphere_contacts(radius=0.04, centre=(0.0, 0.0, 0.0)):
    """Three contacts 120 degrees apart on the equator of a sphere, pushing towards its
    centre."""
    angles = np.radians([90.0, 210.0, 330.0])
    outward = np.stack([np.cos(angles), np.sin(angles), np.zeros(3)], axis=1)
    return radius * outward + np.asarray(centre), -outward


# --- grasp quality ----------------------------------------------------------------------------

def test_three_fingers_on_a_sphere():
    points, normals = sphere_contacts()
    q = handsim.evaluate_grasp(points, normals, 0.5, torque_radius=0.04)
    assert q.force_closure
    assert q.epsilon > 0.0 and q.volume > 0.0 and q.hull_facets > 0
    assert q.note == ""
    assert q.weakest_direction.shape == (6,)
    np.testing.assert_allclose(np.linalg.norm(q.weakest_direction), 1.0, atol=1e-12)
    # One coefficient per contact, all the same, is the same grasp.
    same = handsim.evaluate_grasp(points, normals, np.full(3, 0.5), torque_radius=0.04)
    assert same.epsilon == q.epsilon and same.volume == q.volume
    # Without friction three contacts cannot resist a 6-D wrench (that needs at least seven).
    frictionless = handsim.evaluate_grasp(points, normals, 0.0, torque_radius=0.04)
    assert not frictionless.force_closure
    assert frictionless.epsilon == 0.0


def test_contacts_all_pushing_up_are_not_a_grasp():
    # Every force they can apply has a positive z component, so nothing resists a push down.
    points = np.array([[0.03, 0.0, -0.04], [-0.02, 0.03, -0.02], [-0.02, -0.03, -0.05]])
    normals = np.tile([0.0, 0.0, 1.0], (3, 1))
    q = handsim.evaluate_grasp(points, normals, 0.5, torque_radius=0.04)
    assert not q.force_closure and q.epsilon == 0.0
    # Each primitive wrench has a unit force along the normal (f_z = 1): they lie in a
    # hyperplane, a degenerate wrench space, and the note says so.
    assert q.volume == 0.0 and q.note != ""
    assert not np.any(q.weakest_direction)


def test_epsilon_does_not_depend_on_where_the_object_is():
    points, normals = sphere_contacts()
    reference = np.zeros(3)
    q = handsim.evaluate_grasp(points, normals, 0.5, reference, torque_radius=0.04)
    for offset in ([0.3, -1.2, 0.7], [10.0, 0.0, -4.0]):
        moved = handsim.evaluate_grasp(points + offset, normals, 0.5, reference + offset,
                                       torque_radius=0.04)
        assert moved.force_closure
        assert abs(moved.epsilon - q.epsilon) < 1e-12
    # Scaling the grasp and the torque radius together changes nothing either.
    scaled = handsim.evaluate_grasp(3.0 * points, normals, 0.5, torque_radius=0.12)
    assert abs(scaled.epsilon - q.epsilon) < 1e-12


def test_epsilon_grows_with_friction():
    points, normals = sphere_contacts()
    eps = [handsim.evaluate_grasp(points, normals, mu, torque_radius=0.04).epsilon
           for mu in (0.2, 0.5, 1.0)]
    assert 0.0 < eps[0] < eps[1] < eps[2]


def test_no_contacts_is_degenerate():
    q = handsim.evaluate_grasp(np.zeros((0, 3)), np.zeros((0, 3)), 0.5)
    assert not q.force_closure and q.epsilon == 0.0 and q.volume == 0.0 and q.note != ""


def test_torque_radius_of_the_cube():
    mesh = handsim.load_mesh(str(ASSETS / "objects" / "cube.wrl"))
    # The 50 mm cube's corners are sqrt(3) * 25 mm from its centre.
    assert abs(handsim.torque_radius(mesh, [0.0, 0.0, 0.0]) - np.sqrt(3) * 0.025) < 1e-15
    # From a corner, the far corner is the full diagonal away.
    assert abs(handsim.torque_radius(mesh, [0.025] * 3) - np.sqrt(3) * 0.05) < 1e-15


def test_bad_grasp_arrays():
    points, normals = sphere_contacts()
    with pytest.raises(ValueError, match="points"):
        handsim.evaluate_grasp(points[:, :2], normals, 0.5)
    with pytest.raises(ValueError, match="normals"):
        handsim.evaluate_grasp(points, normals[:2], 0.5)
    with pytest.raises(ValueError, match="friction"):
        handsim.evaluate_grasp(points, normals, [0.5, 0.5])
    with pytest.raises(ValueError, match="torque_reference"):
        handsim.evaluate_grasp(points, normals, 0.5, torque_reference=[0.0, 0.0])
    with pytest.raises(ValueError):
        handsim.evaluate_grasp(points, normals, -0.5)
    with pytest.raises(ValueError):
        handsim.evaluate_grasp(points, np.zeros((3, 3)), 0.5)
    with pytest.raises(ValueError):
        handsim.evaluate_grasp(points, normals, 0.5, torque_radius=0.0)
    with pytest.raises(ValueError):
        handsim.evaluate_grasp(points, normals, 0.5, cone_edges=2)


# --- sweeps -----------------------------------------------------------------------------------

# Palm positions in the bottle's frame [m]: two that close to force closure, one that closes
# without it and one that starts inside the bottle (the palm surface is 72 mm in front of the
# palm origin, the bottle's radius 35 mm).
POSITIONS = [[0.14, 0.09, -0.035], [0.18, 0.09, -0.005], [0.15, 0.13, -0.005], [0.05, 0.13, 0.0]]


@pytest.fixture
def sweep_file(tmp_path):
    shipped = (ASSETS / "scenarios" / "barrett_bottle_sweep.json").read_text()
    # The shipped file has // comments; keep its keys, written out as plain JSON.
    spec = {
        "format": "handsim-sweep",
        "version": 1,
        "description": "four poses of the shipped bottle sweep",
        "object": {"mesh": str(ASSETS / "objects" / "bottle.wrl")},
        "closing": str(ASSETS / "scenarios" / "barrett_grasp_close.json"),
        "palm_orientation": {"rotation": [0, 0, -1, 1, 0, 0, 0, -1, 0]},
        "palm_positions_m": POSITIONS,
        "friction": 0.5,
        "cone_edges": 8,
    }
    assert '"rotation": [0, 0, -1, 1, 0, 0, 0, -1, 0]' in shipped
    path = tmp_path / "sweep.json"
    path.write_text(json.dumps(spec, indent=2))
    return path


def test_load_sweep(sweep_file):
    spec = handsim.load_sweep(str(sweep_file))
    assert spec.source_file == str(sweep_file)
    assert spec.pose_count == 4 and len(spec) == 4
    np.testing.assert_array_equal(spec.palm_positions, POSITIONS)
    np.testing.assert_array_equal(spec.palm_rotation, [[0, 0, -1], [1, 0, 0], [0, -1, 0]])
    assert spec.friction == 0.5 and spec.cone_edges == 8
    # Default torque radius: the farthest bottle vertex from the bounding-box centre.
    bottle = handsim.load_mesh(str(ASSETS / "objects" / "bottle.wrl"))
    v = bottle.vertices
    centre = (v.min(axis=0) + v.max(axis=0)) / 2
    np.testing.assert_allclose(spec.object_centre, centre, atol=1e-15)
    np.testing.assert_allclose(spec.torque_radius, np.linalg.norm(v - centre, axis=1).max(),
                               rtol=1e-15)
    spec.friction = 0.8
    spec.cone_edges = 12
    spec.torque_radius = 0.1
    assert (spec.friction, spec.cone_edges, spec.torque_radius) == (0.8, 12, 0.1)
    with pytest.raises(ValueError):
        spec.friction = -1.0
    with pytest.raises(ValueError):
        spec.cone_edges = 2
    with pytest.raises(ValueError):
        spec.torque_radius = 0.0


def test_sweep_equals_the_cli(sweep_file, tmp_path):
    out = tmp_path / "cli.csv"
    run = subprocess.run([cli_path(), "sweep", str(sweep_file), "--out", str(out), "--quiet",
                          "--threads", "2"], check=True, capture_output=True, text=True)
    cli_summary = json.loads(run.stdout)

    spec = handsim.load_sweep(str(sweep_file))
    results = handsim.run_sweep(spec, threads=2)
    assert [r.index for r in results] == [0, 1, 2, 3]
    assert handsim.sweep_csv(results) == out.read_text()

    # The rows, read back from the CLI's file (the hold test's columns are empty: NaN; the
    # last is the sweep's spec hash, text).
    rows = np.genfromtxt(out, delimiter=",", skip_header=1, ndmin=2)
    assert rows.shape[1] == 13 and np.isnan(rows[:, 9:12]).all()
    assert all(r.held is None and r.slip_m is None and r.seat_m is None for r in results)
    for r, row in zip(results, rows):
        assert r.index == row[0]
        np.testing.assert_array_equal(r.palm_position, row[1:4])
        assert r.start_collision == bool(row[4]) and r.contacts == row[5]
        assert r.quality.force_closure == bool(row[6])
        assert r.quality.epsilon == row[7] and r.quality.volume == row[8]
    # What the poses were chosen for.
    assert [bool(x) for x in rows[:, 4]] == [False, False, False, True]
    assert [bool(x) for x in rows[:, 6]] == [True, True, False, False]

    # Table I, worked from the rows.
    eps = rows[rows[:, 6] == 1, 7]
    summary = handsim.summarize(results)
    assert summary["configurations"] == 4
    assert summary["collision_free"] == int(np.sum(rows[:, 4] == 0)) == 3
    assert summary["force_closure"] == 2
    np.testing.assert_allclose(summary["epsilon_mean"], eps.mean(), rtol=1e-14)
    np.testing.assert_allclose(summary["epsilon_std"], eps.std(ddof=1), rtol=1e-12)
    for key in summary:
        assert summary[key] == cli_summary[key]


def test_shards_and_indices_concatenate_to_the_full_run(sweep_file):
    spec = handsim.load_sweep(str(sweep_file))
    full = handsim.sweep_csv(handsim.run_sweep(spec, threads=1))
    shards = [handsim.run_sweep(spec, threads=2, shard=(i, 3)) for i in range(3)]
    assert [[r.index for r in s] for s in shards] == [[0, 3], [1], [2]]
    merged = sorted((r for s in shards for r in s), key=lambda r: r.index)
    assert handsim.sweep_csv(merged) == full
    # Chosen indices come back in the order asked for; shards filter them.
    picked = handsim.run_sweep(spec, indices=[2, 0], threads=1)
    assert [r.index for r in picked] == [2, 0]
    assert [r.index for r in handsim.run_sweep(spec, indices=[3, 2, 1], shard=(1, 2))] == [3, 1]
    assert handsim.sweep_csv(handsim.run_sweep(spec, indices=[])) == full.splitlines(True)[0]


def test_sweep_errors(sweep_file, tmp_path):
    spec = handsim.load_sweep(str(sweep_file))
    with pytest.raises(IndexError):
        handsim.run_sweep(spec, indices=[4])
    with pytest.raises(IndexError):
        handsim.run_sweep(spec, indices=[-1])
    with pytest.raises(ValueError):
        handsim.run_sweep(spec, shard=(2, 2))
    with pytest.raises(ValueError):
        handsim.run_sweep(spec, threads=-1)
    with pytest.raises(FileNotFoundError):
        handsim.load_sweep(str(tmp_path / "missing.json"))
    bad = tmp_path / "bad.json"
    bad.write_text(sweep_file.read_text().replace('"cone_edges": 8', '"cone_edges": 2'))
    with pytest.raises(handsim.InputError) as e:
        handsim.load_sweep(str(bad))
    assert e.value.file == str(bad)
    line = next(i for i, text in enumerate(bad.read_text().splitlines(), 1)
                if '"cone_edges"' in text)
    assert e.value.line == line
    assert e.value.field == "/cone_edges"


def test_hold_test_from_python_equals_the_cli(sweep_file, tmp_path):
    spec = handsim.load_sweep(str(sweep_file))
    assert spec.hold_test is None
    h = handsim.HoldTest()
    # The documented defaults.
    assert (h.release_s, h.lift_m, h.lift_speed_mps, h.lift_acceleration_mps2) == (0.5, 0.1, 0.1, 0.5)
    assert (h.shake_amplitude_m, h.shake_frequency_hz, h.shake_cycles) == (0.01, 2.0, 4)
    assert (h.settle_s, h.tolerance_m, h.mass_kg, h.density_kg_m3) == (0.5, 0.01, 0.0, 1000.0)
    np.testing.assert_array_equal(h.gravity_object_mps2, [0, 0, -9.81])
    spec.hold_test = h
    out = tmp_path / "hold.csv"
    run = subprocess.run([cli_path(), "sweep", str(sweep_file), "--out", str(out), "--quiet",
                          "--hold-test"], check=True, capture_output=True, text=True)
    results = handsim.run_sweep(spec, threads=2)
    assert handsim.sweep_csv(results) == out.read_text()
    summary = handsim.summarize(results)
    for key in summary:
        assert summary[key] == json.loads(run.stdout)[key]
    # Run for every pose but the start collision (the fourth).
    assert [r.held is None for r in results] == [False, False, False, True]
    assert summary["hold_tested"] == 3
    bad = handsim.HoldTest()
    bad.tolerance_m = 0.0
    with pytest.raises(ValueError):
        spec.hold_test = bad
    spec.hold_test = None
    assert spec.hold_test is None


def test_without_friction_nothing_holds(sweep_file):
    # Frictionless contacts push square to the bottle's body and cannot carry its weight along
    # the axis (gravity down the bottle, -y of its frame).
    spec = handsim.load_sweep(str(sweep_file))
    h = handsim.HoldTest()
    h.gravity_object_mps2 = [0.0, -9.81, 0.0]
    spec.hold_test = h
    spec.friction = 0.0
    for r in handsim.run_sweep(spec, indices=[0, 1], threads=2):
        assert r.quality.force_closure is False  # no friction cones: no force closure either
        assert r.held is False and r.slip_m > h.tolerance_m


def test_more_than_256_wrench_points_are_refused_up_front(cli, tmp_path):
    """evaluate_grasp refuses contacts x cone_edges above handsim-cli grasp's bound (the
    core's grasp::kMaxWrenchPoints, 256) before building the hull, with the CLI's numbers;
    at the bound it rates the grasp."""
    rng = np.random.default_rng(256)
    directions = rng.normal(size=(33, 3))
    directions /= np.linalg.norm(directions, axis=1)[:, None]
    points = 0.05 * directions
    normals = -directions
    with pytest.raises(ValueError,
                       match=r"33 contacts x 8 cone edges = 264 wrench points; at most 256 "
                             r"are rated \(fewer contacts, or fewer cone_edges\)"):
        handsim.evaluate_grasp(points, normals, 0.5)
    with pytest.raises(ValueError, match="258 wrench points; at most 256"):
        handsim.evaluate_grasp(points[:3], normals[:3], 0.5, cone_edges=86)
    # At the bound (32 x 8 = 256) it is rated.
    assert handsim.evaluate_grasp(points[:32], normals[:32], 0.5).force_closure

    contacts = {"contacts": [{"point": p.tolist(), "normal_into_object": n.tolist(),
                              "friction": 0.5} for p, n in zip(points, normals)],
                "object_centre": [0.0, 0.0, 0.0], "torque_radius_m": 0.05}
    path = tmp_path / "contacts.json"
    path.write_text(json.dumps(contacts))
    r = subprocess.run([cli, "grasp", str(path)], capture_output=True, text=True)
    assert r.returncode == 2
    assert "33 contacts x 8 cone edges = 264 wrench points; at most 256 are rated" in r.stderr
