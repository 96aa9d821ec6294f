# SPDX-License-Identifier: GPL-3.0-or-later
# handsim.Mesh, load_mesh, mass properties, collide and intersects. Every expected number is
# worked here with numpy (box formulas, a separating-axis test), never taken from the module.
import pathlib
import warnings

import numpy as np
import pytest

import handsim


def box(a, b, c, centre=(0.0, 0.0, 0.0)):
    """Vertices and triangles of an a x b x c box [m], each triangle wound so that its normal
    points away from the centre (checked here, not assumed)."""
    corners = np.array([[x, y, z] for x in (-a / 2, a / 2) for y in (-b / 2, b / 2)
                        for z in (-c / 2, c / 2)])
    # Each face as a quad of corner indices (bit 2: x, bit 1: y, bit 0: z), split in two.
    quads = [[0, 1, 3, 2], [4, 5, 7, 6], [0, 1, 5, 4], [2, 3, 7, 6], [0, 2, 6, 4], [1, 3, 7, 5]]
    triangles = []
    for q in quads:
        for t in ([q[0], q[1], q[2]], [q[0], q[2], q[3]]):
            v = corners[t]
            n = np.cross(v[1] - v[0], v[2] - v[0])
            triangles.append(t if n @ v.mean(axis=0) > 0 else t[::-1])
    return corners + np.asarray(centre), np.array(triangles)


def pose(rotation=np.eye(3), translation=(0.0, 0.0, 0.0)):
    t = np.eye(4)
    t[:3, :3] = rotation
    t[:3, 3] = translation
    return t


def random_rotation(rng):
    q = rng.normal(size=4)
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


# --- meshes -----------------------------------------------------------------------------------

def test_shipped_cube_spans_50_mm():
    mesh = handsim.load_mesh(str(pathlib.Path(handsim.asset_directory()) / "objects" / "cube.wrl"))
    v = mesh.vertices
    assert v.shape[1] == 3 and v.dtype == np.float64
    np.testing.assert_allclose(v.max(axis=0) - v.min(axis=0), [0.05] * 3, atol=1e-15)
    assert mesh.triangles.shape == (12, 3)
    assert mesh.normals.shape == (12, 3)
    # Unit normals pointing away from the cube's centre (the origin).
    np.testing.assert_allclose(np.linalg.norm(mesh.normals, axis=1), 1.0, atol=1e-12)
    centres = v[mesh.triangles].mean(axis=1)
    assert np.all(np.einsum("ij,ij->i", mesh.normals, centres) > 0)
    props = mesh.mass_properties()
    assert props.closed
    np.testing.assert_allclose(props.volume, 0.05 ** 3, rtol=1e-12)


def test_load_mesh_scale():
    path = str(pathlib.Path(handsim.asset_directory()) / "objects" / "cube.wrl")
    v = handsim.load_mesh(path, scale=2.0).vertices
    np.testing.assert_allclose(v.max(axis=0) - v.min(axis=0), [0.1] * 3, atol=1e-15)
    with pytest.raises(ValueError):
        handsim.load_mesh(path, scale=0.0)


def test_mesh_round_trip_and_normals():
    v, t = box(0.1, 0.2, 0.3)
    mesh = handsim.Mesh(v, t)
    np.testing.assert_array_equal(mesh.vertices, v)
    np.testing.assert_array_equal(mesh.triangles, t)
    e1 = v[t[:, 1]] - v[t[:, 0]]
    e2 = v[t[:, 2]] - v[t[:, 0]]
    n = np.cross(e1, e2)
    np.testing.assert_allclose(mesh.normals, n / np.linalg.norm(n, axis=1)[:, None], atol=1e-15)
    np.testing.assert_allclose(mesh.area, 2 * (0.1 * 0.2 + 0.2 * 0.3 + 0.1 * 0.3), rtol=1e-12)


def test_box_mass_properties():
    a, b, c, rho = 0.1, 0.04, 0.07, 850.0
    centre = np.array([0.3, -0.2, 0.05])
    v, t = box(a, b, c, centre)
    m = rho * a * b * c
    i_box = m / 12 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
    p = handsim.Mesh(v, t).mass_properties(density=rho)
    assert p.closed and not p.winding_flipped
    np.testing.assert_allclose(p.mass, m, rtol=1e-12)
    np.testing.assert_allclose(p.volume, a * b * c, rtol=1e-12)
    np.testing.assert_allclose(p.centre_of_mass, centre, atol=1e-15)
    np.testing.assert_allclose(p.inertia, i_box, atol=1e-12 * np.abs(i_box).max())
    # Rotated: the inertia about the centre of mass becomes R I R^T.
    r = random_rotation(np.random.default_rng(1))
    p = handsim.Mesh((v - centre) @ r.T + centre, t).mass_properties(density=rho)
    np.testing.assert_allclose(p.centre_of_mass, centre, atol=1e-14)
    np.testing.assert_allclose(p.inertia, r @ i_box @ r.T, atol=1e-12 * np.abs(i_box).max())
    # The default density is water's.
    np.testing.assert_allclose(handsim.Mesh(v, t).mass_properties().mass, 1000.0 * a * b * c,
                               rtol=1e-12)


def test_open_mesh_is_not_closed():
    v, t = box(0.1, 0.1, 0.1)
    assert not handsim.Mesh(v, t[:-1]).mass_properties().closed


# --- collision --------------------------------------------------------------------------------

def test_overlapping_boxes_one_patch():
    # A: 60 mm cube at the origin; B: 100 mm cube centred at x = 75 mm, so B's -x face (x = 25
    # mm) cuts A's four side faces in a 60 mm square and A's +x end pokes 5 mm into B.
    va, ta = box(0.06, 0.06, 0.06)
    vb, tb = box(0.1, 0.1, 0.1, (0.075, 0.0, 0.0))
    a, b = handsim.Mesh(va, ta), handsim.Mesh(vb, tb)
    # B's triangles on its -x face, found from the vertices.
    minus_x_b = sorted(i for i, tri in enumerate(tb) if np.allclose(vb[tri, 0], 0.025))
    assert len(minus_x_b) == 2
    rng = np.random.default_rng(7)
    for common in [pose(), pose(random_rotation(rng), rng.normal(size=3))]:
        patches = handsim.collide(a, common, b, common)
        assert len(patches) == 1
        p = patches[0]
        r, o = common[:3, :3], common[:3, 3]
        # B pushes A towards -x; the patch is the square loop at x = 25 mm around the x axis.
        np.testing.assert_allclose(p.normal, r @ [-1.0, 0.0, 0.0], atol=1e-12)
        np.testing.assert_allclose(p.point, r @ [0.025, 0.0, 0.0] + o, atol=1e-12)
        np.testing.assert_allclose(p.depth, 0.03 - 0.025, atol=1e-12)
        np.testing.assert_allclose(p.area, 0.1 * 0.1, rtol=1e-12)
        assert p.triangles_b == minus_x_b
        # A's side faces (normals along y or z) and nothing else.
        side_a = [i for i, tri in enumerate(ta) if not np.allclose(va[tri, 0], va[tri[0], 0])]
        assert p.triangles_a == sorted(side_a)
        assert handsim.intersects(a, common, b, common)


def test_separated_boxes():
    v, t = box(0.05, 0.05, 0.05)
    m = handsim.Mesh(v, t)
    assert handsim.collide(m, pose(), m, pose(translation=(0.0501, 0.0, 0.0))) == []
    assert not handsim.intersects(m, pose(), m, pose(translation=(0.0501, 0.0, 0.0)))
    assert handsim.intersects(m, pose(), m, pose(translation=(0.0499, 0.01, 0.02)))


def boxes_overlap(half_a, pose_a, half_b, pose_b):
    """Separating-axis test for two oriented boxes (Gottschalk et al. 1996): the solids overlap
    unless their projections on one of the 15 axes (3 + 3 face normals, 9 edge cross
    products) are disjoint."""
    ra, rb = pose_a[:3, :3], pose_b[:3, :3]
    d = pose_b[:3, 3] - pose_a[:3, 3]
    axes = [ra[:, i] for i in range(3)] + [rb[:, j] for j in range(3)]
    axes += [np.cross(ra[:, i], rb[:, j]) for i in range(3) for j in range(3)]
    for n in axes:
        if np.linalg.norm(n) < 1e-9:
            continue
        extent_a = np.sum(half_a * np.abs(ra.T @ n))
        extent_b = np.sum(half_b * np.abs(rb.T @ n))
        if abs(d @ n) > extent_a + extent_b:
            return False
    return True


def test_intersects_matches_separating_axis():
    # Neither box fits inside the other (B has the larger volume; A's 100 mm length exceeds
    # B's 93 mm diagonal), so the surfaces meet exactly when the solids overlap.
    size_a, size_b = np.array([0.1, 0.03, 0.02]), np.array([0.08, 0.04, 0.025])
    a, b = handsim.Mesh(*box(*size_a)), handsim.Mesh(*box(*size_b))
    rng = np.random.default_rng(2024)
    outcomes = []
    for _ in range(300):
        pa = pose(random_rotation(rng), rng.uniform(-0.02, 0.02, 3))
        pb = pose(random_rotation(rng), rng.uniform(-0.07, 0.07, 3))
        expected = boxes_overlap(size_a / 2, pa, size_b / 2, pb)
        assert handsim.intersects(a, pa, b, pb) == expected
        assert (len(handsim.collide(a, pa, b, pb, k=14)) > 0) == expected
        outcomes.append(expected)
    # Both outcomes were exercised.
    assert 50 < sum(outcomes) < 250


# --- errors -----------------------------------------------------------------------------------

def test_missing_mesh():
    with pytest.raises(FileNotFoundError):
        handsim.load_mesh("/nonexistent/cube.wrl")


def test_malformed_vrml(tmp_path):
    bad = tmp_path / "bad.wrl"
    bad.write_text("#VRML V2.0 utf8\nShape {\n  geometry IndexedFaceSet {\n"
                   "    coord Coordinate { point [ 0 0 0, 1 0 oops ] }\n  }\n}\n")
    with pytest.raises(handsim.InputError) as e:
        handsim.load_mesh(str(bad))
    assert isinstance(e.value, ValueError)
    assert e.value.file == str(bad)
    assert e.value.line == 4


def test_malformed_obj(tmp_path):
    # OBJ goes through Assimp, which does not say where; the loader finds the face that names a
    # missing vertex itself: line 4.
    bad = tmp_path / "bad.obj"
    bad.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n")
    with pytest.raises(handsim.InputError) as e:
        handsim.load_mesh(str(bad))
    assert isinstance(e.value, ValueError)
    assert e.value.file == str(bad)
    assert e.value.line == 4
    assert "vertex 9" in str(e.value)


def test_bad_arrays():
    v, t = box(0.1, 0.1, 0.1)
    with pytest.raises(ValueError, match="vertices"):
        handsim.Mesh(v[:, :2], t)
    with pytest.raises(ValueError, match="triangles"):
        handsim.Mesh(v, t[:, :2])
    with pytest.raises(ValueError, match="triangles"):
        handsim.Mesh(v, t.astype(float))
    bad = t.copy()
    bad[5, 1] = 8
    with pytest.raises(ValueError, match="row 5"):
        handsim.Mesh(v, bad)
    bad[5, 1] = -1
    with pytest.raises(ValueError, match="row 5"):
        handsim.Mesh(v, bad)
    nan = v.copy()
    nan[3, 2] = np.nan
    with pytest.raises(ValueError, match="row 3"):
        handsim.Mesh(nan, t)
    m = handsim.Mesh(v, t)
    with pytest.raises(ValueError, match="pose_a"):
        handsim.collide(m, np.eye(3), m, np.eye(4))
    with pytest.raises(ValueError, match="pose_b"):
        handsim.intersects(m, np.eye(4), m, 2 * np.eye(4))
    with pytest.raises(ValueError):
        handsim.collide(m, np.eye(4), m, np.eye(4), k=10)
    with pytest.raises(ValueError):
        m.mass_properties(density=-1.0)


def test_clean_file_loads_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        handsim.load_mesh(str(pathlib.Path(handsim.asset_directory()) / "objects" / "cube.wrl"))
