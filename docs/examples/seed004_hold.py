# SPDX-License-Identifier: GPL-3.0-or-later
"""Seed 004's grasps (sec. III.A, Fig. 3): every gripper picks every object off the ground and
holds it for 10 s under gravity (docs/free-objects.md, "Seed 004's grasps").

Each gripper hangs palm down above a free 0.2 kg object resting on the ground plane, closes
(0-1.5 s), lifts the object 5 cm with its palm (from 1.5 s) and holds it. Reported per pair:
how far the object rose while the fingers closed, how far it rose with the palm (1.5-3 s; the
palm rises 50 mm) and how far it moved in the palm frame from 3 s (the palm has stopped) to
13 s. Held: it rose 50 mm within 3 mm and moved less than 1 mm in the palm frame. Contact model: the engine's default (velocity-level Coulomb
friction, mu 0.5) or "seed004" (the paper's penalty model).

    PYTHONPATH=build/python /usr/bin/python3 docs/examples/seed004_hold.py [default|seed004] \
        [gripper:object ...]

With gripper:object arguments (e.g. gripper3r:cube) only those pairs run.
"""
import json
import os
import sys
import tempfile

import numpy as np

import handsim

OBJECTS = ["cube", "sphere50", "lumpy_bunny"]
MESH = {"cube": "cube.wrl", "sphere50": "sphere50.wrl", "lumpy_bunny": "lumpy_bunny.wrl"}
# How each object rests on the ground (roll, pitch, yaw in degrees about the world axes): the
# bunny stand-in sits upright on its paws (its mesh has y up), turned so that the fingers close
# across its 42 mm flanks, not along its 69 mm from nose to tail.
OBJECT_RPY_DEG = {"cube": [0, 0, 0], "sphere50": [0, 0, 0], "lumpy_bunny": [90, 0, 90]}
# Per gripper: the initial actuator positions and the closing targets (actuator: to, max
# velocity, max acceleration), and the palm's height above the ground per object [m]. The
# targets lie beyond the object so that the servos saturate and squeeze with their limits
# (docs/hands.md); the heights put the pads at the object's widest section, found by the
# search in docs/free-objects.md ("Seed 004's grasps").
GRIPPERS = {
    "gripper2p": {"initial": {"jaws": 0.0},
                  "targets": {"jaws": (0.045, 0.05, 0.2)},
                  "height": {"cube": 0.075, "sphere50": 0.075, "lumpy_bunny": 0.07}},
    "gripper2r": {"initial": {"close": -0.26, "curl": 0.0},
                  "targets": {"close": (0.3, 0.5, 2.0), "curl": (0.0, 1.0, 4.0)},
                  "height": {"cube": 0.15, "sphere50": 0.13, "lumpy_bunny": 0.13}},
    "gripper3r": {"initial": {"close": -0.26, "curl": 0.0},
                  "targets": {"close": (0.0, 0.5, 2.0), "curl": (1.2, 1.0, 4.0)},
                  "height": {"cube": 0.14, "sphere50": 0.11, "lumpy_bunny": 0.11}},
}


def rotation(rpy_deg):
    r, p, y = np.radians(rpy_deg)
    rx = np.array([[1, 0, 0], [0, np.cos(r), -np.sin(r)], [0, np.sin(r), np.cos(r)]])
    ry = np.array([[np.cos(p), 0, np.sin(p)], [0, 1, 0], [-np.sin(p), 0, np.cos(p)]])
    rz = np.array([[np.cos(y), -np.sin(y), 0], [np.sin(y), np.cos(y), 0], [0, 0, 1]])
    return rz @ ry @ rx


def scenario(gripper, obj, model, height=None, targets=None):
    g = GRIPPERS[gripper]
    height = g["height"][obj] if height is None else height
    targets = dict(g["targets"], **(targets or {}))
    mesh = handsim.load_mesh(os.path.join(handsim.asset_directory(), "objects", MESH[obj]))
    rpy = OBJECT_RPY_DEG[obj]
    lowest = float((np.asarray(mesh.vertices) @ rotation(rpy).T)[:, 2].min())
    contact = {"mu": 0.5}
    if model != "default":
        contact["model"] = model
    return {
        "format": "handsim-scenario", "version": 1, "hand": gripper,
        "duration_s": 13.0, "dt_s": 0.001,
        "palm": {"pose": {"translation_m": [0, 0, height], "rpy_deg": [180, 0, 0]},
                 "motion": {"z": {"segments": [{"to": 0.05, "max_velocity": 0.1,
                                                "max_acceleration": 0.5, "start_s": 1.5}]}}},
        "ground": {"height_m": 0.0},
        "contact": contact,
        "initial": g["initial"],
        "trajectories": [
            {"actuator": name, "segments": [{"to": to, "max_velocity": v, "max_acceleration": a}]}
            for name, (to, v, a) in targets.items()],
        "objects": [{"name": "object",
                     "mesh": os.path.join(handsim.asset_directory(), "objects", MESH[obj]),
                     "free": True, "mass_kg": 0.2,
                     "pose": {"translation_m": [0, 0, -lowest + 1e-4], "rpy_deg": rpy}}],
    }


def hold(gripper, obj, model="default"):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, f"{gripper}_{obj}.json")
        with open(path, "w") as f:
            json.dump(scenario(gripper, obj, model), f)
        run = handsim.Run.from_scenario(handsim.load_scenario(path))
    run.run_to_end()
    s = run.signals()
    t = s["time"]

    def in_palm(i):
        return np.array([s["object.x"][i], s["object.y"][i], s["object.z"][i] - s["palm.z"][i]])

    i15 = int(np.argmin(abs(t - 1.5)))
    i3 = int(np.argmin(abs(t - 3.0)))
    return {"closing_m": float(s["object.z"][i15] - s["object.z"][0]),
            "rise_m": float(s["object.z"][i3] - s["object.z"][i15]),
            "slip_m": float(np.linalg.norm(in_palm(len(t) - 1) - in_palm(i3))),
            "warnings": run.warning_count}


def held(r):
    """Rose with the palm's 50 mm within 3 mm and moved less than 1 mm in the palm frame."""
    return abs(r["rise_m"] - 0.05) <= 0.003 and r["slip_m"] < 0.001


def main(model="default", pairs=None):
    rows = []
    for gripper in GRIPPERS:
        for obj in OBJECTS:
            if pairs is not None and (gripper, obj) not in pairs:
                continue
            r = hold(gripper, obj, model)
            rows.append((gripper, obj, r))
            print(f"| {gripper} | {obj} | {1000 * r['closing_m']:.1f} | {1000 * r['rise_m']:.1f} "
                  f"| {1000 * r['slip_m']:.3f} | {'held' if held(r) else 'not held'} |", flush=True)
    return rows


if __name__ == "__main__":
    print("| gripper | object | rise while closing 0-1.5 s [mm] | rise with the palm 1.5-3 s [mm] "
          "| slip in the palm 3-13 s [mm] | |")
    print("|---|---|---:|---:|---:|---|")
    chosen = {tuple(a.split(":", 1)) for a in sys.argv[2:]} or None
    main(sys.argv[1] if len(sys.argv) > 1 else "default", chosen)
