# SPDX-License-Identifier: GPL-3.0-or-later
"""Seed 004's grasps (sec. III.A, Fig. 3): every gripper picks every object off the ground and
holds it for 10 s under gravity (docs/free-objects.md, "Seed 004's grasps").

Each gripper hangs palm down above a free 0.2 kg object resting on the ground plane, closes
(0-1.5 s), lifts the object 5 cm with its palm (from 1.5 s) and holds it. Reported per pair:
how far the object rose with the palm and how far it moved in the palm frame from 3 s (the
palm has stopped) to 13 s. Contact model: the engine's default (velocity-level Coulomb
friction, mu 0.5) or "seed004" (the paper's penalty model).

    PYTHONPATH=build/python /usr/bin/python3 docs/examples/seed004_hold.py [default|seed004]
"""
import json
import os
import sys
import tempfile

import numpy as np

import handsim

OBJECTS = ["cube", "sphere50", "lumpy_bunny"]
MESH = {"cube": "cube.wrl", "sphere50": "sphere50.wrl", "lumpy_bunny": "lumpy_bunny.wrl"}
# Palm height above the ground [m] and the closing targets, chosen from the grippers'
# dimensions (docs/hands.md): the pads meet a 50 mm object at about its mid-height.
GRIPPERS = {
    "gripper2p": {"height": 0.075, "initial": {"jaws": 0.0},
                  "targets": {"jaws": (0.045, 0.05, 0.2)}},
    "gripper2r": {"height": 0.10, "initial": {"close": -0.26, "curl": 0.0},
                  "targets": {"close": (0.0, 0.5, 2.0), "curl": (0.9, 1.0, 4.0)}},
    "gripper3r": {"height": 0.11, "initial": {"close": -0.26, "curl": 0.0},
                  "targets": {"close": (0.0, 0.5, 2.0), "curl": (1.2, 1.0, 4.0)}},
}


def scenario(gripper, obj, model):
    g = GRIPPERS[gripper]
    mesh = handsim.load_mesh(os.path.join(handsim.asset_directory(), "objects", MESH[obj]))
    lowest = float(np.asarray(mesh.vertices)[:, 2].min())
    contact = {"mu": 0.5}
    if model != "default":
        contact["model"] = model
    return {
        "format": "handsim-scenario", "version": 1, "hand": gripper,
        "duration_s": 13.0, "dt_s": 0.001,
        "palm": {"pose": {"translation_m": [0, 0, g["height"]], "rpy_deg": [180, 0, 0]},
                 "motion": {"z": {"segments": [{"to": 0.05, "max_velocity": 0.1,
                                                "max_acceleration": 0.5, "start_s": 1.5}]}}},
        "ground": {"height_m": 0.0},
        "contact": contact,
        "initial": g["initial"],
        "trajectories": [
            {"actuator": name, "segments": [{"to": to, "max_velocity": v, "max_acceleration": a}]}
            for name, (to, v, a) in g["targets"].items()],
        "objects": [{"name": "object",
                     "mesh": os.path.join(handsim.asset_directory(), "objects", MESH[obj]),
                     "free": True, "mass_kg": 0.2,
                     "pose": {"translation_m": [0, 0, -lowest + 1e-4]}}],
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

    i3 = int(np.argmin(abs(t - 3.0)))
    return {"rise_m": float(s["object.z"][i3] - s["object.z"][0]),
            "slip_m": float(np.linalg.norm(in_palm(len(t) - 1) - in_palm(i3))),
            "warnings": run.warning_count}


def main(model="default", pairs=None):
    rows = []
    for gripper in GRIPPERS:
        for obj in OBJECTS:
            if pairs is not None and (gripper, obj) not in pairs:
                continue
            r = hold(gripper, obj, model)
            rows.append((gripper, obj, r))
            held = r["rise_m"] > 0.04 and r["slip_m"] < 0.001
            print(f"| {gripper} | {obj} | {1000 * r['rise_m']:.1f} | {1000 * r['slip_m']:.3f} "
                  f"| {'held' if held else 'not held'} |", flush=True)
    return rows


if __name__ == "__main__":
    print("| gripper | object | rise with the palm [mm] | slip in the palm 3-13 s [mm] | |")
    print("|---|---|---:|---:|---|")
    main(sys.argv[1] if len(sys.argv) > 1 else "default")
