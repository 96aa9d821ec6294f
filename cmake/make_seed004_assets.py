# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes seed 004's three grippers (hand files and VRML97 link meshes) and its three objects.

Seed 004 (penalty-based contact, sec. III.A and Fig. 2) grasps a cube, a sphere and the
Stanford bunny with a two-finger prismatic gripper, a two-finger revolute gripper and a
three-finger revolute gripper. The paper gives no dimensions; the numbers below are handsim's
choices (docs/hands.md), sized to grasp objects of 40-60 mm. Everything here is written for
handsim; the bunny is replaced by a lumpy star-shaped body with two ears.

Run from anywhere with Debian's python3 (standard library only):
    python3 cmake/make_seed004_assets.py
It rewrites assets/hands/gripper2p.json, gripper2r.json, gripper3r.json, their mesh folders,
and assets/objects/sphere50.wrl and lumpy_bunny.wrl. Output is deterministic.

Every mesh is one closed, consistently oriented triangle shell (each edge used by exactly two
triangles in opposite directions, outward normals, positive volume); the script checks this
before writing. Link meshes are in their DH link frame {i}: the link runs along -x from the
origin of {i} back to the previous joint (x = -a).
"""
import json
import math
import os

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
HANDS = os.path.join(ROOT, "assets", "hands")
OBJECTS = os.path.join(ROOT, "assets", "objects")


# ----------------------------------------------------------------------------------------------
# Small vector helpers and closed meshes (vertices, triangles)


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def norm(a):
    return math.sqrt(dot(a, a))


def unit(a):
    n = norm(a)
    return (a[0] / n, a[1] / n, a[2] / n)


def signed_volume(verts, tris):
    return sum(dot(verts[i], cross(verts[j], verts[k])) for i, j, k in tris) / 6.0


def check_closed(verts, tris, what):
    """Every directed edge once, its reverse once; positive volume."""
    edges = {}
    for t in tris:
        if len({t[0], t[1], t[2]}) != 3:
            raise ValueError(f"{what}: degenerate triangle {t}")
        for e in ((t[0], t[1]), (t[1], t[2]), (t[2], t[0])):
            edges[e] = edges.get(e, 0) + 1
    for (a, b), n in edges.items():
        if n != 1 or edges.get((b, a), 0) != 1:
            raise ValueError(f"{what}: edge {a}-{b} is not shared by exactly two triangles")
    if signed_volume(verts, tris) <= 0.0:
        raise ValueError(f"{what}: inward normals")


def oriented(verts, tris):
    """Flips every triangle when the shell's signed volume is negative."""
    if signed_volume(verts, tris) < 0.0:
        tris = [(i, k, j) for i, j, k in tris]
    return verts, tris


def triangulate_polygon(poly):
    """Ear clipping of a simple counter-clockwise polygon given as 2-D points; index triples."""
    idx = list(range(len(poly)))
    out = []

    def area2(a, b, c):
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

    guard = 0
    while len(idx) > 3:
        guard += 1
        if guard > 10000:
            raise ValueError("polygon is not simple")
        for n in range(len(idx)):
            i0, i1, i2 = idx[n - 1], idx[n], idx[(n + 1) % len(idx)]
            a, b, c = poly[i0], poly[i1], poly[i2]
            if area2(a, b, c) <= 1e-18:
                continue
            inside = False
            for j in idx:
                if j in (i0, i1, i2):
                    continue
                p = poly[j]
                if area2(a, b, p) >= 0 and area2(b, c, p) >= 0 and area2(c, a, p) >= 0:
                    inside = True
                    break
            if not inside:
                out.append((i0, i1, i2))
                idx.pop(n)
                break
    out.append((idx[0], idx[1], idx[2]))
    return out


def extrude(poly, w0, w1, axes):
    """Prism over a simple polygon in the (u, v) plane from w = w0 to w1. `axes` maps (u, v, w)
    to (x, y, z): a tuple of three index/sign pairs, e.g. ((0, 1), (2, 1), (1, -1))."""
    area = sum(poly[i - 1][0] * poly[i][1] - poly[i][0] * poly[i - 1][1] for i in range(len(poly)))
    if area < 0:
        poly = poly[::-1]
    n = len(poly)

    def place(u, v, w):
        p = [0.0, 0.0, 0.0]
        for value, (axis, sign) in zip((u, v, w), axes):
            p[axis] = sign * value
        return tuple(p)

    verts = [place(u, v, w0) for u, v in poly] + [place(u, v, w1) for u, v in poly]
    tris = []
    for a, b, c in triangulate_polygon(poly):
        tris.append((n + a, n + b, n + c))  # top, counter-clockwise seen from +w
        tris.append((c, b, a))  # bottom
    for i in range(n):
        j = (i + 1) % n
        tris.append((i, j, n + j))
        tris.append((i, n + j, n + i))
    return oriented(verts, tris)


def box(lo, hi):
    poly = [(lo[0], lo[1]), (hi[0], lo[1]), (hi[0], hi[1]), (lo[0], hi[1])]
    return extrude(poly, lo[2], hi[2], ((0, 1), (1, 1), (2, 1)))


def stadium(length, half_width, segments=8):
    """2-D outline of a link from x = -length to 0 with round ends of radius half_width."""
    pts = []
    for s in range(segments + 1):  # far end (x = 0), from -y round to +y
        t = -math.pi / 2 + math.pi * s / segments
        pts.append((half_width * math.cos(t), half_width * math.sin(t)))
    for s in range(segments + 1):  # near end (x = -length), from +y round to -y
        t = math.pi / 2 + math.pi * s / segments
        pts.append((-length + half_width * math.cos(t), half_width * math.sin(t)))
    return pts


def link_bar(length, half_width, half_thickness):
    """A finger phalanx in its link frame: stadium outline in x-y, thickness along z (the joint
    axis). Its flat +y side faces the direction the joint closes in: the pad."""
    return extrude(stadium(length, half_width), -half_thickness, half_thickness,
                   ((0, 1), (1, 1), (2, 1)))


def cylinder_z(radius, z0, z1, segments):
    poly = [(radius * math.cos(2 * math.pi * s / segments),
             radius * math.sin(2 * math.pi * s / segments)) for s in range(segments)]
    return extrude(poly, z0, z1, ((0, 1), (1, 1), (2, 1)))


def icosphere(level):
    """Unit sphere: icosahedron subdivided `level` times, vertices on the sphere, outward."""
    g = (1 + math.sqrt(5)) / 2
    verts = [unit(p) for p in [(-1, g, 0), (1, g, 0), (-1, -g, 0), (1, -g, 0), (0, -1, g),
                               (0, 1, g), (0, -1, -g), (0, 1, -g), (g, 0, -1), (g, 0, 1),
                               (-g, 0, -1), (-g, 0, 1)]]
    tris = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
            (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8),
            (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    for _ in range(level):
        mid = {}

        def middle(a, b):
            key = (min(a, b), max(a, b))
            if key not in mid:
                verts.append(unit(tuple((verts[a][i] + verts[b][i]) / 2 for i in range(3))))
                mid[key] = len(verts) - 1
            return mid[key]

        new = []
        for a, b, c in tris:
            ab, bc, ca = middle(a, b), middle(b, c), middle(c, a)
            new += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        tris = new
    return oriented(verts, tris)


def mass_properties(verts, tris, mass):
    """Uniform solid of `mass`: centre of mass and inertia tensor about it (divergence
    theorem over signed tetrahedra from the origin; canonical tetrahedron integrals)."""
    vol = 0.0
    c = [0.0, 0.0, 0.0]
    s = [[0.0] * 3 for _ in range(3)]  # integral of x_i x_j dV
    for i, j, k in tris:
        a, b, d = verts[i], verts[j], verts[k]
        v = dot(a, cross(b, d)) / 6.0
        vol += v
        for m in range(3):
            c[m] += v * (a[m] + b[m] + d[m]) / 4.0
        for m in range(3):
            for n in range(3):
                s[m][n] += v / 20.0 * (a[m] * a[n] + b[m] * b[n] + d[m] * d[n] +
                                       (a[m] + b[m] + d[m]) * (a[n] + b[n] + d[n]))
    com = [x / vol for x in c]
    rho = mass / vol
    # Second moments about the centre of mass.
    sc = [[rho * (s[m][n] - vol * com[m] * com[n]) for n in range(3)] for m in range(3)]
    tr = sc[0][0] + sc[1][1] + sc[2][2]
    inertia = [[(tr if m == n else 0.0) - sc[m][n] for n in range(3)] for m in range(3)]
    return vol, com, inertia


# ----------------------------------------------------------------------------------------------
# Output


def write_vrml(path, verts, tris, title, colour, frame_note):
    check_closed(verts, tris, path)
    lines = ["#VRML V2.0 utf8", "# SPDX-License-Identifier: GPL-3.0-or-later",
             f"# {title}. Written for handsim by cmake/make_seed004_assets.py (do not edit).",
             f"# {frame_note}",
             f"# One closed shell: {len(verts)} vertices, {len(tris)} triangles, outward "
             "(counter-clockwise) faces. Metres.",
             "Shape {",
             "  appearance Appearance { material Material { diffuseColor "
             f"{colour[0]} {colour[1]} {colour[2]} }} }}",
             "  geometry IndexedFaceSet {", "    solid TRUE", "    coord Coordinate { point ["]
    for v in verts:
        lines.append("      " + " ".join(f"{x:.9g}" for x in v) + ",")
    lines += ["    ] }", "    coordIndex ["]
    for t in tris:
        lines.append(f"      {t[0]} {t[1]} {t[2]} -1")
    lines += ["    ]", "  }", "}", ""]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def rounded(x, zero=0.0):
    """Six significant digits; |x| <= zero (round-off of a symmetric shape) becomes 0."""
    return 0.0 if abs(x) <= zero else float(f"{x:.6g}")


def inertial(mesh, mass):
    _, com, inertia = mass_properties(mesh[0], mesh[1], mass)
    return {"mass_kg": mass, "com_m": [rounded(x, 1e-12) for x in com],
            "inertia_kgm2": [rounded(inertia[r][c], 1e-15)
                             for r, c in ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2))],
            "inertia_about": "com"}


def to_json(value, indent=0):
    """JSON with arrays of numbers and small objects kept on one line."""
    pad = "  " * (indent + 1)
    if isinstance(value, float):
        return json.dumps(value + 0.0)  # no "-0.0"
    if isinstance(value, list) and all(isinstance(v, (int, float)) for v in value):
        return "[" + ", ".join(to_json(v) for v in value) + "]"
    if isinstance(value, list):
        inner = [to_json(v, indent + 1) for v in value]
        if sum(len(i) for i in inner) < 90 and all("\n" not in i for i in inner):
            return "[" + ", ".join(inner) + "]"
        return "[\n" + ",\n".join(pad + i for i in inner) + "\n" + "  " * indent + "]"
    if isinstance(value, dict):
        inner = [json.dumps(k) + ": " + to_json(v, indent + 1) for k, v in value.items()]
        if sum(len(i) for i in inner) < 90 and all("\n" not in i for i in inner):
            return "{" + ", ".join(inner) + "}"
        return "{\n" + ",\n".join(pad + i for i in inner) + "\n" + "  " * indent + "}"
    return json.dumps(value)


def write_hand(hand_id, hand, meshes):
    folder = os.path.join(HANDS, hand_id)
    os.makedirs(folder, exist_ok=True)
    for name, (mesh, title, colour, note) in meshes.items():
        write_vrml(os.path.join(folder, name + ".wrl"), mesh[0], mesh[1], title, colour, note)
    text = to_json(hand)
    header = ("// SPDX-License-Identifier: GPL-3.0-or-later\n"
              "// Written by cmake/make_seed004_assets.py (edit the script, not this file).\n")
    with open(os.path.join(HANDS, hand_id + ".json"), "w", encoding="utf-8") as f:
        f.write(header + text + "\n")


LINK_NOTE = "Link frame {i}: origin at the far joint (or fingertip), the link along -x."
GREY = (0.62, 0.66, 0.72)
DARK = (0.25, 0.27, 0.3)
PAD = (0.15, 0.15, 0.17)
PALM = (0.45, 0.48, 0.55)


# ----------------------------------------------------------------------------------------------
# gripper2p: parallel jaws on one prismatic actuator

def gripper2p():
    half_opening = 0.05  # pad faces 100 mm apart at q = 0
    travel = 0.05  # each jaw closes 50 mm: opening 100 .. 0 mm
    jaw_height = 0.07  # palm top to fingertip
    carriage = box((0.0, -0.015, -0.024), (0.012, 0.015, -0.004))
    # Jaw plate with a 4 mm pad over its top 40 mm; the pad face is the plane z = 0 of {2}
    # (z along the closing direction), the fingertip at the origin.
    profile = [(-0.058, -0.014), (0.0, -0.014), (0.0, 0.0), (-0.04, 0.0), (-0.04, -0.004),
               (-0.058, -0.004)]
    jaw = extrude(profile, -0.015, 0.015, ((0, 1), (2, 1), (1, 1)))
    palm = box((-0.09, -0.025, -0.04), (0.09, 0.025, 0.0))
    m_carriage, m_jaw = 0.04, 0.06

    def finger(name, x, rotation):
        return {"name": name,
                "base": {"translation_m": [x, 0, 0], "rotation": rotation},
                "joints": [
                    {"name": "slide", "type": "prismatic", "limits_m": [0, travel],
                     "inertial": inertial(carriage, m_carriage), "mesh": "gripper2p/carriage.wrl"},
                    {"name": "jaw", "type": "fixed", "a_m": jaw_height,
                     "inertial": inertial(jaw, m_jaw), "mesh": "gripper2p/jaw.wrl"}]}

    hand = {
        "format": "handsim-hand", "version": 1, "id": "gripper2p",
        "name": "Two-finger prismatic gripper (seed 004)",
        "description": "Parallel jaws sliding along the palm's x axis on one actuator: flat "
                       "30 x 40 mm pads, opening 100 mm (open) to 0 mm, fingertips 70 mm above "
                       "the palm.",
        "sources": [
            "Gripper type: seed 004 sec. III.A and Fig. 2 (a two-finger prismatic gripper); the "
            "paper gives no dimensions, these are handsim's (docs/hands.md).",
            "Palm frame: origin at the centre of the palm's top face, x along the jaw travel, "
            "z out of the palm (towards the fingertips). Palm 180 x 50 x 40 mm.",
            "Each finger base {0} sits on the palm top 50 mm from the centre with z0 pointing "
            "inwards (the prismatic axis) and x0 along palm z; row 1 (slide, 0-50 mm) carries "
            "the carriage, row 2 (fixed, a = 70 mm) the jaw; {2} is the fingertip, on the pad "
            "face. Pad-face gap = 100 mm - 2 q.",
            "Masses (handsim choices): carriage 40 g, jaw 60 g; centres of mass and inertias "
            "of the meshes as uniform solids.",
            "Actuator 'jaws' drives both slides with ratio 1 (symmetric closing). Servo kp "
            "2000 N/m, kd 50 N s/m, force limit 20 N, reflected rotor mass 0.1 kg: a jaw "
            "stopped 25 mm short of its target saturates the servo, and the 20 N split over "
            "two jaws squeezes with 10 N per pad. Stable step 10 ms.",
            "Meshes (assets/hands/gripper2p/*.wrl): closed boxes and an extruded jaw profile, "
            "written for handsim by cmake/make_seed004_assets.py."],
        "palm": {"mesh": "gripper2p/palm.wrl"},
        "fingers": [
            # z0 = +x_palm, x0 = +z_palm, y0 = -y_palm
            finger("L", -half_opening, [0, 0, 1, 0, -1, 0, 1, 0, 0]),
            # z0 = -x_palm, x0 = +z_palm, y0 = +y_palm
            finger("R", half_opening, [0, 0, -1, 0, 1, 0, 1, 0, 0])],
        "actuators": [
            {"name": "jaws", "unit": "m", "range": [0, travel],
             "drives": [{"joint": "L.slide", "ratio": 1}, {"joint": "R.slide", "ratio": 1}],
             "servo": {"kp_Nm_per_rad": 2000, "kd_Nms_per_rad": 50, "torque_limit_Nm": 20,
                       "rotor_inertia_kgm2": 0.1}}],
        "poses": [
            {"name": "open", "joints_deg": {"L": [0], "R": [0]}},
            {"name": "closed", "joints_deg": {"L": [0.045], "R": [0.045]}}],
        # The planner's posture space (docs/planner.md, "Eigengrasps"): the jaws' opening.
        "eigengrasps": {"origin": {"jaws": 0.025},
                        "directions": [{"name": "jaws", "actuators": {"jaws": 0.025}}]},
        # Approach along palm z; imports start between the pads, at their mid-height.
        "grasp": {"closing_actuators": ["jaws"], "closing_tendons": [],
                  "approach_palm": [0, 0, 1], "approach_origin_palm_m": [0, 0, 0.05]}}
    meshes = {
        "palm": (palm, "gripper2p palm, 180 x 50 x 40 mm", PALM,
                 "Palm frame: origin at the centre of the top face, z out of the palm."),
        "carriage": (carriage, "gripper2p jaw carriage", GREY,
                     "Frame {1}: x along palm z, z towards the other jaw; sits on the palm top."),
        "jaw": (jaw, "gripper2p jaw with its pad", DARK,
                "Frame {2}: fingertip on the pad face (z = 0), jaw along -x, pad facing +z.")}
    write_hand("gripper2p", hand, meshes)


# ----------------------------------------------------------------------------------------------
# Revolute grippers: two-link fingers flexing towards the gripper axis

L1, L2 = 0.06, 0.045  # gripper2r phalanges
PROX_HW, PROX_HT = 0.009, 0.011
DIST_HW, DIST_HT = 0.008, 0.010


def revolute_finger(hand_id, name, base_xyz, x0, y0, l1, l2, m1, m2):
    z0 = cross(x0, y0)
    rot = [v for r in range(3) for v in (x0[r], y0[r], z0[r])]  # row-major, full precision
    prox = link_bar(l1, PROX_HW, PROX_HT)
    dist = link_bar(l2, DIST_HW, DIST_HT)
    return {"name": name,
            "base": {"translation_m": list(base_xyz), "rotation": rot},
            "joints": [
                {"name": "J1", "a_m": l1, "limits_deg": [-15, 30],
                 "inertial": inertial(prox, m1), "mesh": f"{hand_id}/proximal.wrl"},
                {"name": "J2", "a_m": l2, "limits_deg": [0, 90],
                 "inertial": inertial(dist, m2), "mesh": f"{hand_id}/distal.wrl"}]}, prox, dist


REVOLUTE_EIGENGRASPS = {
    "origin": {"close": round(math.radians(7.5), 6), "curl": round(math.radians(45), 6)},
    "directions": [
        {"name": "wrap", "actuators": {"close": round(math.radians(22.5), 6),
                                       "curl": round(math.radians(45), 6)}},
        {"name": "pinch", "actuators": {"close": round(math.radians(22.5), 6),
                                        "curl": round(math.radians(-45), 6)}}]}


def revolute_actuators(fingers, close_limit, curl_limit):
    return [
        {"name": "close", "unit": "rad", "range": [math.radians(-15), math.radians(30)],
         "drives": [{"joint": f + ".J1", "ratio": 1} for f in fingers],
         "servo": {"kp_Nm_per_rad": 10, "kd_Nms_per_rad": 0.3, "torque_limit_Nm": close_limit,
                   "rotor_inertia_kgm2": 0.002}},
        {"name": "curl", "unit": "rad", "range": [0, math.radians(90)],
         "drives": [{"joint": f + ".J2", "ratio": 1} for f in fingers],
         "servo": {"kp_Nm_per_rad": 4, "kd_Nms_per_rad": 0.1, "torque_limit_Nm": curl_limit,
                   "rotor_inertia_kgm2": 0.001}}]


def gripper2r():
    base_x, base_z = 0.04, 0.012
    fingers, prox, dist = [], None, None
    for name, sx in (("L", -1.0), ("R", 1.0)):
        f, prox, dist = revolute_finger("gripper2r", name, (sx * base_x, 0.0, base_z),
                                        (0.0, 0.0, 1.0), (-sx, 0.0, 0.0), L1, L2, 0.04, 0.025)
        fingers.append(f)
    palm = box((-0.065, -0.025, -0.04), (0.065, 0.025, 0.0))
    hand = {
        "format": "handsim-hand", "version": 1, "id": "gripper2r",
        "name": "Two-finger revolute gripper (seed 004)",
        "description": "Two opposed planar fingers, 60 + 45 mm phalanges, knuckles 80 mm apart "
                       "and 12 mm above the palm; one actuator turns both proximal joints, one "
                       "both distal joints.",
        "sources": [
            "Gripper type: seed 004 sec. III.A and Fig. 2 (a two-finger revolute gripper); the "
            "paper gives no dimensions, these are handsim's (docs/hands.md).",
            "Palm frame: origin at the centre of the palm's top face, x from finger L to R, "
            "z out of the palm. Palm 130 x 50 x 40 mm.",
            "Finger bases at x = -/+40 mm, z = 12 mm; x0 along palm z (q = 0: finger upright), "
            "y0 towards the other finger (positive angles close), z0 the joint axis. DH rows "
            "(theta = q1, a = 60 mm) and (theta = q2, a = 45 mm); J1 -15..30 deg, J2 0..90 deg.",
            "Masses (handsim choices): proximal 40 g, distal 25 g; centres of mass and "
            "inertias of the meshes as uniform solids.",
            "Actuators: 'close' drives L.J1 and R.J1, 'curl' L.J2 and R.J2 (ratio 1). Torque "
            "limits 1.6 and 0.45 N m split over two fingers: 0.8 N m at J1 and 0.225 N m at J2 "
            "hold a 10 N push normal to the middle of the distal pad (22.5 mm from J2, 74.5 mm "
            "from J1 with J2 at 30 deg). kp 10 and 4 N m/rad saturate 0.16 and 0.11 rad short "
            "of the target.",
            "Meshes (assets/hands/gripper2r/*.wrl): extruded stadium phalanges (flat +y side "
            "= pad) and a box palm, written for handsim by cmake/make_seed004_assets.py."],
        "palm": {"mesh": "gripper2r/palm.wrl"},
        "fingers": fingers,
        "actuators": revolute_actuators(["L", "R"], 1.6, 0.45),
        "poses": [
            {"name": "open", "joints_deg": {"L": [-15, 0], "R": [-15, 0]}},
            {"name": "closed", "joints_deg": {"L": [0, 45], "R": [0, 45]}}],
        # The planner's posture space (docs/planner.md, "Eigengrasps"), from mid-range: both
        # joints closing together (a wrap), and the distal against the proximal (a pinch).
        "eigengrasps": REVOLUTE_EIGENGRASPS,
        "grasp": {"closing_actuators": ["close", "curl"], "closing_tendons": [],
                  "approach_palm": [0, 0, 1], "approach_origin_palm_m": [0, 0, 0.09]}}
    meshes = {
        "palm": (palm, "gripper2r palm, 130 x 50 x 40 mm", PALM,
                 "Palm frame: origin at the centre of the top face, z out of the palm."),
        "proximal": (prox, "gripper2r proximal phalanx, 60 mm", GREY, LINK_NOTE),
        "distal": (dist, "gripper2r distal phalanx, 45 mm, pad on +y", DARK, LINK_NOTE)}
    write_hand("gripper2r", hand, meshes)


def gripper3r():
    radius, base_z = 0.04, 0.012
    l1, l2 = 0.05, 0.04
    fingers, prox, dist = [], None, None
    for k in range(3):
        phi = 2 * math.pi * k / 3
        c, s = math.cos(phi), math.sin(phi)
        f, prox, dist = revolute_finger("gripper3r", f"F{k + 1}", (radius * c, radius * s, base_z),
                                        (0.0, 0.0, 1.0), (-c, -s, 0.0), l1, l2, 0.035, 0.025)
        fingers.append(f)
    palm = cylinder_z(0.065, -0.04, 0.0, 24)
    hand = {
        "format": "handsim-hand", "version": 1, "id": "gripper3r",
        "name": "Three-finger revolute gripper (seed 004)",
        "description": "Three planar fingers 120 deg apart on a 40 mm radius, 50 + 40 mm "
                       "phalanges flexing towards the gripper axis; one actuator turns the "
                       "three proximal joints, one the three distal joints.",
        "sources": [
            "Gripper type: seed 004 sec. III.A and Fig. 2 (a three-finger, three-dimensional "
            "revolute gripper, used for the shaking tests of Fig. 5-6); the paper gives no "
            "dimensions, these are handsim's (docs/hands.md).",
            "Palm frame: origin at the centre of the palm's top face, z out of the palm. Palm: "
            "a 24-sided prism of radius 65 mm, 40 mm thick.",
            "Finger Fk base at radius 40 mm, azimuth 120 (k - 1) deg, z = 12 mm; x0 along palm "
            "z, y0 towards the palm axis (positive angles close), z0 the joint axis. DH rows "
            "(theta = q1, a = 50 mm) and (theta = q2, a = 40 mm); J1 -15..30 deg, J2 0..90 deg.",
            "Masses (handsim choices): proximal 35 g, distal 25 g; centres of mass and "
            "inertias of the meshes as uniform solids.",
            "Actuators: 'close' drives F1-F3.J1, 'curl' F1-F3.J2 (ratio 1). Torque limits 2.4 "
            "and 0.6 N m split over three fingers: 0.8 N m at J1 and 0.2 N m at J2 per finger "
            "hold a 10 N push normal to the middle of the distal pad (20 mm from J2, 63.3 mm "
            "from J1 with J2 at 30 deg).",
            "Meshes (assets/hands/gripper3r/*.wrl): extruded stadium phalanges (flat +y side "
            "= pad) and a prism palm, written for handsim by cmake/make_seed004_assets.py."],
        "palm": {"mesh": "gripper3r/palm.wrl"},
        "fingers": fingers,
        "actuators": revolute_actuators(["F1", "F2", "F3"], 2.4, 0.6),
        "poses": [
            {"name": "open", "joints_deg": {f"F{k}": [-15, 0] for k in (1, 2, 3)}},
            {"name": "closed", "joints_deg": {f"F{k}": [0, 45] for k in (1, 2, 3)}}],
        # The planner's posture space (docs/planner.md, "Eigengrasps"), from mid-range: both
        # joints closing together (a wrap), and the distal against the proximal (a pinch).
        "eigengrasps": REVOLUTE_EIGENGRASPS,
        "grasp": {"closing_actuators": ["close", "curl"], "closing_tendons": [],
                  "approach_palm": [0, 0, 1], "approach_origin_palm_m": [0, 0, 0.08]}}
    meshes = {
        "palm": (palm, "gripper3r palm, radius 65 mm, 40 mm thick", PALM,
                 "Palm frame: origin at the centre of the top face, z out of the palm."),
        "proximal": (prox, "gripper3r proximal phalanx, 50 mm", GREY, LINK_NOTE),
        "distal": (dist, "gripper3r distal phalanx, 40 mm, pad on +y", DARK, LINK_NOTE)}
    write_hand("gripper3r", hand, meshes)


# ----------------------------------------------------------------------------------------------
# Objects

def sphere50():
    verts, tris = icosphere(3)
    verts = [tuple(0.025 * x for x in v) for v in verts]
    write_vrml(os.path.join(OBJECTS, "sphere50.wrl"), verts, tris,
               "handsim object: a sphere of diameter 50 mm (radius 0.025 m) centred on the "
               "origin, a geodesic icosphere (icosahedron subdivided 3 times, vertices on the "
               "sphere)", (0.2, 0.5, 0.9), "Object frame at the centre; y is up.")


def bunny_radius(u):
    """Radius [m] of the lumpy-bunny stand-in along unit direction u (y up, x forward)."""
    x, y, z = u
    # An egg-shaped body, longer along x.
    r = 1.0 / math.sqrt((x / 0.030) ** 2 + (y / 0.022) ** 2 + (z / 0.021) ** 2)

    def bump(centre, amplitude, sigma, stretch_axis=None, stretch=1.0):
        c = unit(centre)
        d = sub(u, c)
        if stretch_axis is not None:  # elongate the bump along a tangent direction
            t = unit(stretch_axis)
            along = dot(d, t)
            d2 = dot(d, d) - along * along + (along / stretch) ** 2
        else:
            d2 = dot(d, d)
        return amplitude * math.exp(-d2 / (2 * sigma * sigma))

    r += bump((0.75, 0.55, 0.0), 0.010, 0.30)  # head
    r += bump((-1.0, 0.15, 0.0), 0.006, 0.18)  # tail
    for side in (-1.0, 1.0):  # two ears, long and thin, leaning back
        r += bump((0.30, 1.0, 0.28 * side), 0.024, 0.075, (-0.6, 0.2, 0.0), 2.2)
        r += bump((0.55, -0.75, 0.45 * side), 0.004, 0.20)  # front paws
        r += bump((-0.45, -0.75, 0.55 * side), 0.005, 0.25)  # haunches
    r += 0.0012 * math.sin(7 * x + 2) * math.sin(5 * y + 1) * math.sin(6 * z + 3)  # lumps
    return r


def lumpy_bunny():
    verts, tris = icosphere(4)
    verts = [tuple(bunny_radius(v) * c for c in v) for v in verts]
    verts, tris = oriented(verts, tris)
    write_vrml(os.path.join(OBJECTS, "lumpy_bunny.wrl"), verts, tris,
               "handsim object: a lumpy, non-convex body with two ears standing in for the "
               "Stanford bunny of seed 004, a radial surface r(direction) over an icosphere "
               "(closed and star-shaped about the origin)", (0.85, 0.75, 0.6),
               "Object frame at the body centre; y is up, the head towards +x.")


if __name__ == "__main__":
    gripper2p()
    gripper2r()
    gripper3r()
    sphere50()
    lumpy_bunny()
    print("wrote assets/hands/gripper{2p,2r,3r}.json and meshes, assets/objects/sphere50.wrl, "
          "lumpy_bunny.wrl")
