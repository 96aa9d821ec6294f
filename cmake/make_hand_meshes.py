# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the drawn-only ("visual_mesh") VRML meshes of the BarrettHand and the anthropomorphic
hand: rounded links, fingertip pads, the palm's cylinder and finger bases (BarrettHand) and
smooth capsule links (anthro20). Contacts keep the simple meshes ("mesh") beside them.

    /usr/bin/python3 cmake/make_hand_meshes.py    # rewrites assets/hands/*/ *_visual.wrl

Dimensions (metres) follow the kinematics of assets/hands/barrett.json (seed 000 Tables I-II,
BH8 manual section 9.5: Aw = 25 mm, A1 = 50 mm, A2 = 70 mm, A3 = 56 mm, Dw = 84 mm) and of
assets/hands/anthro20.json; each mesh is written in its link frame {k_i} exactly like the
collision mesh it stands beside (docs/hand-format.md), so the drawn links turn about the DH axes.
"""
import json
import math
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
HANDS = os.path.join(ROOT, "assets", "hands")


class Mesh:
    """Triangle mesh with vertices welded by position (so closed parts stay closed)."""

    def __init__(self, colour):
        self.colour = colour
        self.v = []
        self.t = []
        self.index = {}

    def vertex(self, p):
        key = tuple(round(c, 7) + 0.0 for c in p)
        if key not in self.index:
            self.index[key] = len(self.v)
            self.v.append(key)
        return self.index[key]

    def tri(self, a, b, c):
        ia, ib, ic = self.vertex(a), self.vertex(b), self.vertex(c)
        if len({ia, ib, ic}) == 3:
            self.t.append((ia, ib, ic))

    def quad(self, a, b, c, d):
        self.tri(a, b, c)
        self.tri(a, c, d)


def rounded_box(mesh, lo, hi, radius, n=4, transform=None):
    """A box from lo to hi whose edges and corners are rounded with `radius`: every point of a
    subdivided cube is pulled onto the sphere-swept inner box. Closed, outward winding."""
    half = [(h - l) / 2 for l, h in zip(lo, hi)]
    centre = [(h + l) / 2 for l, h in zip(lo, hi)]
    r = min(radius, *half)
    inner = [h - r for h in half]

    def place(u):  # u in [-1, 1]^3 on the cube's surface
        p = [u[i] * half[i] for i in range(3)]
        q = [max(-inner[i], min(inner[i], p[i])) for i in range(3)]
        d = [p[i] - q[i] for i in range(3)]
        L = math.sqrt(sum(x * x for x in d))
        if L > 0:
            q = [q[i] + r * d[i] / L for i in range(3)]
        else:
            q = p
        q = [q[i] + centre[i] for i in range(3)]
        return transform(q) if transform else q

    # Grid values bunched towards the ends, so the rounded strips get their share of vertices.
    def grid(k):
        s = -1 + 2 * k / n
        return math.copysign(abs(s) ** 0.6, s)

    for axis in range(3):
        for sign in (-1, 1):
            a1, a2 = (axis + 1) % 3, (axis + 2) % 3
            for i in range(n):
                for j in range(n):
                    corners = []
                    for di, dj in ((0, 0), (1, 0), (1, 1), (0, 1)):
                        u = [0.0, 0.0, 0.0]
                        u[axis] = sign
                        u[a1] = grid(i + di)
                        u[a2] = grid(j + dj)
                        corners.append(place(u))
                    if sign > 0:
                        mesh.quad(*corners)
                    else:
                        mesh.quad(corners[0], corners[3], corners[2], corners[1])


def revolve(mesh, profile, axis, centre, segments=20):
    """Surface of revolution: profile = [(t, rho)] along `axis` (0 x, 1 y, 2 z) through `centre`,
    rho = 0 at both ends (closed). t must increase along the profile."""
    a1, a2 = (axis + 1) % 3, (axis + 2) % 3

    def point(t, rho, k):
        ang = 2 * math.pi * k / segments
        p = list(centre)
        p[axis] += t
        p[a1] += rho * math.cos(ang)
        p[a2] += rho * math.sin(ang)
        return p

    for (t0, r0), (t1, r1) in zip(profile, profile[1:]):
        for k in range(segments):
            a = point(t0, r0, k)
            b = point(t0, r0, k + 1)
            c = point(t1, r1, k + 1)
            d = point(t1, r1, k)
            mesh.quad(a, b, c, d)


def rounded_cylinder(mesh, axis, centre, radius, length, fillet, steps=2, segments=20):
    """Cylinder along `axis` centred at `centre`, its two rims rounded with `fillet`."""
    f = min(fillet, radius, length / 2)
    h = length / 2
    prof = [(-h, 0.0)]
    for s in range(steps + 1):
        ang = math.pi / 2 * (1 - s / steps)
        prof.append((-h + f - f * math.sin(ang), radius - f + f * math.cos(ang)))
    for s in range(steps + 1):
        ang = math.pi / 2 * s / steps
        prof.append((h - f + f * math.sin(ang), radius - f + f * math.cos(ang)))
    prof.append((h, 0.0))
    revolve(mesh, prof, axis, centre, segments)


def capsule_x(mesh, x0, x1, r0, r1, steps=4, segments=16):
    """A tapered capsule along x from x0 (radius r0) to x1 (radius r1), rounded ends."""
    prof = [(x0 - r0, 0.0)]
    for s in range(1, steps + 1):
        ang = math.pi / 2 * s / steps
        prof.append((x0 - r0 * math.cos(ang), r0 * math.sin(ang)))
    for s in range(steps + 1):
        ang = math.pi / 2 * s / steps
        prof.append((x1 + r1 * math.sin(ang), r1 * math.cos(ang)))
    prof[-1] = (x1 + r1, 0.0)
    revolve(mesh, prof, 0, (0.0, 0.0, 0.0), segments)


def sphere(mesh, centre, r, steps=6, segments=16):
    prof = [(-r * math.cos(math.pi * s / steps), r * math.sin(math.pi * s / steps))
            for s in range(steps + 1)]
    prof[0] = (-r, 0.0)
    prof[-1] = (r, 0.0)
    revolve(mesh, prof, 0, centre, segments)


def write(path, header, meshes):
    with open(path + ".tmp", "w") as out:
        out.write("#VRML V2.0 utf8\n")
        for line in header:
            out.write("# " + line + "\n")
        for m in meshes:
            c = m.colour
            out.write("Shape {\n  appearance Appearance { material Material { diffuseColor "
                      "%.2f %.2f %.2f } }\n" % c)
            out.write("  geometry IndexedFaceSet {\n    solid TRUE\n    creaseAngle 0.7\n"
                      "    coord Coordinate { point [\n")
            out.write(",\n".join("      %.6g %.6g %.6g" % p for p in m.v))
            out.write("\n    ] }\n    coordIndex [\n")
            out.write(",\n".join("      %d, %d, %d, -1" % t for t in m.t))
            out.write("\n    ]\n  }\n}\n")
    os.replace(path + ".tmp", path)


HEAD = "written by cmake/make_hand_meshes.py for handsim (GPL-3.0-or-later); drawn only"

SILVER = (0.78, 0.79, 0.81)
DARK = (0.20, 0.21, 0.23)
PAD = (0.10, 0.10, 0.11)


def barrett():
    d = os.path.join(HANDS, "barrett")
    # Link 1 {k1}: origin on the inner flexion (J2) axis, x from the spread axis (x = -A1 =
    # -50 mm) to the finger, y out of the palm, z along the flexion axis.
    body, boss = Mesh(DARK), Mesh(SILVER)
    rounded_box(body, (-0.060, -0.012, -0.014), (0.004, 0.012, 0.014), 0.006)
    rounded_cylinder(boss, 2, (0.0, 0.0, 0.0), 0.0125, 0.030, 0.003)  # J2 axle housing
    rounded_cylinder(boss, 1, (-0.050, 0.0, 0.0), 0.016, 0.026, 0.004)  # spread pivot
    write(os.path.join(d, "link1_visual.wrl"),
          ["BarrettHand knuckle housing (link 1), " + HEAD + ".",
           "Frame {k1}: origin on the J2 axis, spread axis at x = -50 mm (A1), y out of the palm,",
           "z along the flexion axis. Metres."], [body, boss])
    # Link 2 {k2}: origin on the outer (J3) axis, the inner axis at x = -A2 = -70 mm; y in the
    # finger plane (closing side +y), z along the flexion axes.
    body, boss = Mesh(SILVER), Mesh(DARK)
    rounded_box(body, (-0.070, -0.009, -0.0115), (0.0, 0.009, 0.0115), 0.0065)
    rounded_cylinder(boss, 2, (-0.070, 0.0, 0.0), 0.0115, 0.025, 0.003)
    rounded_cylinder(boss, 2, (0.0, 0.0, 0.0), 0.0105, 0.024, 0.003)
    write(os.path.join(d, "link2_visual.wrl"),
          ["BarrettHand inner phalanx (link 2), " + HEAD + ".",
           "Frame {k2}: origin on the J3 axis, the J2 axis at x = -70 mm (A2), y in the finger",
           "plane (closing side +y), z along the flexion axes. Metres."], [body, boss])
    # Link 3 {k3}: origin at the fingertip, the J3 axis at x = -A3 = -56 mm.
    body, pad = Mesh(SILVER), Mesh(PAD)
    rounded_box(body, (-0.058, -0.008, -0.0105), (0.0, 0.008, 0.0105), 0.0075)
    rounded_box(pad, (-0.046, 0.004, -0.009), (-0.003, 0.0105, 0.009), 0.003)  # fingertip pad
    write(os.path.join(d, "link3_visual.wrl"),
          ["BarrettHand outer phalanx (link 3) with its fingertip pad on the closing side, " + HEAD
           + ".",
           "Frame {k3}: origin at the fingertip, the J3 axis at x = -56 mm (A3), y in the finger",
           "plane (closing side +y), z along the flexion axis. Metres."], [body, pad])
    # Palm: origin at the wrist, z out of the palm; the knuckles at z = Dw = 84 mm. The body is
    # the seed's 60 mm cylinder, 72 mm tall, with rounded rims; a hub carries the spread axes
    # of F1 and F2 (x = -+Aw = -+25 mm) and the fixed base of F3.
    palm, hub = Mesh(DARK), Mesh((0.32, 0.33, 0.36))
    rounded_cylinder(palm, 2, (0.0, 0.0, 0.036), 0.060, 0.072, 0.008, steps=3, segments=40)
    for x in (-0.025, 0.025):
        rounded_cylinder(hub, 2, (x, 0.0, 0.0735), 0.017, 0.006, 0.002)
    rounded_box(hub, (-0.012, 0.030, 0.070), (0.012, 0.058, 0.077), 0.003)
    write(os.path.join(d, "palm_visual.wrl"),
          ["BarrettHand palm, " + HEAD + ".",
           "Palm frame: origin at the wrist, z out of the palm, finger bases at z = 84 mm. Metres."],
          [palm, hub])


def anthro():
    d = os.path.join(HANDS, "anthro20")
    hand = json.load(open(os.path.join(HANDS, "anthro20.json")))
    skin = (0.86, 0.72, 0.62)
    for finger in hand["fingers"]:
        for index, row in enumerate(finger["joints"]):
            last = index == len(finger["joints"]) - 1
            mesh = row.get("mesh")
            if not mesh:
                continue
            name = os.path.splitext(os.path.basename(mesh))[0]
            a = row.get("a_m", 0.0)
            src = open(os.path.join(HANDS, mesh)).read()
            radii = [float(x.split()[0]) for x in src.split("radius")[1:]]
            m = Mesh(skin)
            if "Box" in src:
                # The thumb's mount: a rounded block of the same size.
                rounded_box(m, (-0.013, -0.010, -0.010), (0.003, 0.010, 0.010), 0.005)
            elif a < 0.01:
                sphere(m, (0.0, 0.0, 0.0), max(radii))
            else:
                # From the joint at x = -a (a little fuller, like a knuckle) to the far end,
                # tapering by 10%: the links of the collision mesh's radius, smooth.
                r = radii[0]
                # The far end: the fingertip's cap (as the collision mesh's tip sphere), else
                # a cap that stops at the next joint, whose knuckle the next link draws.
                end = 0.0 if last else -0.9 * r
                capsule_x(m, -a, end, r * 1.05, r * 0.95)
            write(os.path.join(d, name + "_visual.wrl"),
                  ["anthro20 %s link %s, %s." % (finger["name"], row["name"], HEAD),
                   "Link frame as in %s. Metres." % os.path.basename(mesh)], [m])
    palm = Mesh((0.80, 0.66, 0.56))
    rounded_box(palm, (-0.044, 0.0, -0.018), (0.040, 0.084, 0.006), 0.009, n=6)
    write(os.path.join(d, "palm_visual.wrl"),
          ["anthro20 palm, " + HEAD + ".",
           "Palm frame: origin at the wrist, y towards the fingers, z out of the palm. Metres."],
          [palm])


if __name__ == "__main__":
    barrett()
    anthro()
    sys.exit(0)
