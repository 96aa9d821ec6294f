# SPDX-License-Identifier: GPL-3.0-or-later
"""Runs episodes of a scripted grasp in the gym-style environment and reports the success rate.

The environment is handsim.env.HandEnv on its shipped default scene (the BarrettHand over a
free 5 cm cube on the ground; the palm lifts 10 cm from t = 2 s). Each reset moves the cube by
up to +-noise along x and y (seeded). The scripted policy closes fingers 1-3 at 8000 counts/s
towards 12000 counts, as the scene's own trajectories do; an episode succeeds when the cube
ends at least 5 cm above its start. Nothing is trained: this shows the API and the vector
form (environments stepped on threads; the simulation releases the GIL).

    PYTHONPATH=build/python python3 docs/examples/scripted_grasp_env.py [episodes] [noise_m]
"""
import sys
import time

import numpy as np

from handsim.env import HandEnv, VectorHandEnv, ramp_policy


def main(episodes=1000, noise_m=0.01, envs=4, threads=0, seed=0):
    vec = VectorHandEnv(lambda: HandEnv(episode_s=3.5, frame_skip=20, object_noise_m=noise_m),
                        envs, threads=threads)
    hand = vec.envs[0].hand
    target = np.zeros(len(hand.actuators))
    for name in ("M1", "M2", "M3"):
        target[hand.actuator_index(name)] = 12000.0
    policy = ramp_policy(target, 8000.0)
    obs, _ = vec.reset(seed=seed)
    finished, successes, lifts = 0, 0, []
    started = time.perf_counter()
    while finished < episodes:
        actions = np.stack([policy(e, None) for e in vec.envs])
        obs, _, terminated, truncated, infos = vec.step(actions)
        for i in np.flatnonzero(terminated | truncated):
            if finished < episodes:
                finished += 1
                successes += bool(infos[i]["success"])
                lifts.append(infos[i]["lift_m"])
    wall = time.perf_counter() - started
    vec.close()
    rate = successes / episodes
    print(f"{episodes} episodes, cube offset up to {noise_m * 1000:.0f} mm: "
          f"{successes} lifted ({100 * rate:.1f} %), mean lift {np.mean(lifts) * 1000:.1f} mm, "
          f"{wall:.1f} s wall on {envs} environments")
    return rate


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000,
         float(sys.argv[2]) if len(sys.argv) > 2 else 0.01)
