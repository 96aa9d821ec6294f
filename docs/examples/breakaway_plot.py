# SPDX-License-Identifier: GPL-3.0-or-later
"""Seed 000's breakaway experiment from Python, plotted like the paper's Fig. 7-8.

Finger 3 of the BarrettHand closes on a cube; the cube stops the inner link, the torque on joint
32 rises until the TorqueSwitch clutch breaks away at 1.26 N m, and joint 33 closes on alone.

    PYTHONPATH=build/python /usr/bin/python3 docs/examples/breakaway_plot.py breakaway.png
"""
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt
import numpy as np

import handsim


def main(out="breakaway.png"):
    scenario = handsim.load_scenario(
        handsim.asset_directory() + "/scenarios/barrett_breakaway_cube.json")
    run = handsim.Run.from_scenario(scenario)
    run.run_to_end()
    s, units = run.signals(), run.units()
    t = s["time"]
    broke = t[np.argmax(s["F3.clutch"] > 0.5)]

    panels = [("angle", np.degrees, "deg"), ("velocity", np.degrees, "deg/s"),
              ("acceleration", np.degrees, "deg/s^2"), ("torque", None, units["F3.J2.torque"])]
    fig, axes = plt.subplots(5, 1, sharex=True, figsize=(7, 9), constrained_layout=True)
    for ax, (quantity, convert, unit) in zip(axes, panels):
        for joint in ("J2", "J3"):
            y = s[f"F3.{joint}.{quantity}"]
            ax.plot(t, convert(y) if convert else y, label=f"joint 3{joint[1]}")
        ax.set_ylabel(f"{quantity} [{unit}]")
        ax.legend(loc="upper left")
    axes[4].plot(t, s["F3.J2.contact_force"], label="inner link")
    axes[4].plot(t, s["F3.J3.contact_force"], label="outer link")
    axes[4].set_ylabel(f"contact force [{units['F3.J2.contact_force']}]")
    axes[4].legend(loc="upper left")
    axes[4].set_xlabel("time [s]")
    for ax in axes:
        ax.axvline(broke, color="0.5", linestyle="--", linewidth=0.8)
        ax.grid(True, linewidth=0.3)
    axes[0].set_title(f"BarrettHand finger 3 on a 4 cm cube: clutch breaks away at {broke:.3f} s")
    fig.savefig(out, dpi=120)
    print(f"clutch broke away at t = {broke:.3f} s; figure written to {out}")
    return broke


if __name__ == "__main__":
    main(*sys.argv[1:])
