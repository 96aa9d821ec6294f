# SPDX-License-Identifier: GPL-3.0-or-later
# The gym-style environment (issue 22, item 7): the Gymnasium API's shapes, determinism under a
# seed, the scripted grasp lifting the cube of the shipped default scene, the vector form equal
# to serial environments, torque actions.
import numpy as np
import pytest

import handsim
from handsim.env import Box, HandEnv, VectorHandEnv, ramp_policy


def barrett_grasp(env):
    target = np.zeros(len(env.hand.actuators))
    for name in ("M1", "M2", "M3"):
        target[env.hand.actuator_index(name)] = 12000.0
    return ramp_policy(target, 8000.0)


def short_env(**kw):
    return HandEnv(episode_s=0.2, frame_skip=10, **kw)


def test_the_api_has_gymnasiums_shapes():
    env = short_env()
    obs, info = env.reset(seed=0)
    assert isinstance(info, dict)
    assert env.action_space.shape == (4,)
    ranges = np.asarray(env.hand.actuator_ranges)
    assert np.array_equal(env.action_space.low, ranges[:, 0])
    assert np.array_equal(env.action_space.high, ranges[:, 1])
    assert set(obs) == set(env.observation_space.keys())
    for k, space in env.observation_space.spaces.items():
        assert obs[k].shape == space.shape, k
    assert obs["object_poses"].shape == (1, 7)
    assert obs["contacts"].shape == (3, 2)
    assert obs["joint_positions"].shape == (sum(env.hand.dof(f) for f in range(3)),)
    out = env.step(env.action_space.sample())
    assert len(out) == 5
    obs, reward, terminated, truncated, info = out
    assert isinstance(reward, float) and terminated is False and truncated is False
    assert obs in env.observation_space
    # The quaternion is a unit quaternion and the position the object's.
    assert np.isclose(np.linalg.norm(obs["object_poses"][0, 3:]), 1.0)
    assert np.allclose(obs["object_poses"][0, :3], env.run.object_poses[0][:3, 3])
    # The episode is truncated at its end: 0.2 s / (10 * 1 ms) = 20 steps.
    assert env.max_episode_steps == 20
    n = 1
    while not truncated:
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        n += 1
    assert n == 20


def test_a_box_samples_within_bounds_and_rejects_bad_bounds():
    b = Box(np.array([0.0, -1.0]), np.array([1.0, 1.0]))
    b.seed(1)
    assert all(b.contains(b.sample()) for _ in range(100))
    assert not b.contains(np.array([2.0, 0.0]))
    with pytest.raises(ValueError):
        Box(1.0, 0.0, (2,))


def rollout(env, seed, steps=8):
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(42)  # the same actions for every rollout
    out = [obs["object_poses"].copy()]
    for _ in range(steps):
        obs, *_ = env.step(rng.uniform(env.action_space.low, env.action_space.high))
        out.append(np.concatenate([obs["joint_positions"], obs["object_poses"].ravel()]))
    return out


def test_a_seed_makes_episodes_repeat_and_another_seed_differs():
    env = short_env(object_noise_m=0.004)
    a, b, c = rollout(env, 7), rollout(env, 7), rollout(env, 8)
    for x, y in zip(a, b):
        assert np.array_equal(x, y)
    assert not np.array_equal(a[0], c[0])  # the cube starts elsewhere


def test_the_scripted_grasp_lifts_the_cube_of_the_default_scene():
    env = HandEnv(episode_s=3.5, frame_skip=20)
    policy = barrett_grasp(env)
    obs, info = env.reset(seed=0)
    truncated = False
    while not truncated:
        obs, reward, terminated, truncated, info = env.step(policy(env, obs))
    # The palm rose 0.10 m from t = 2 s (the scene's palm motion): the held cube went with it.
    assert info["success"], info
    assert info["lift_m"] > 0.08
    assert obs["contacts"][:, 0].sum() > 0
    # Without closing the fingers the cube stays on the ground.
    obs, info = env.reset(seed=0)
    truncated = False
    while not truncated:
        obs, reward, terminated, truncated, info = env.step(np.zeros(4))
    assert not info["success"] and abs(info["lift_m"]) < 0.005


def test_the_vector_env_equals_serial_envs():
    n, steps = 3, 25  # 25 > 20 steps per episode: one autoreset happens
    vec = VectorHandEnv(lambda: short_env(object_noise_m=0.003), n, threads=2)
    serial = [short_env(object_noise_m=0.003) for _ in range(n)]
    vobs, _ = vec.reset(seed=11)
    sobs = [e.reset(seed=11 + i)[0] for i, e in enumerate(serial)]
    rng = np.random.default_rng(5)
    done = [False] * n
    resets = 0
    for _ in range(steps):
        actions = rng.uniform(vec.single_action_space.low, vec.single_action_space.high, (n, 4))
        vobs, vrew, vterm, vtrunc, _ = vec.step(actions)
        for i, e in enumerate(serial):
            if done[i]:
                resets += 1
                o, _ = e.reset()
                r, term, trunc = 0.0, False, False
            else:
                o, r, term, trunc, _ = e.step(actions[i])
            done[i] = term or trunc
            for k in o:
                assert np.array_equal(vobs[k][i], o[k]), k
            assert vrew[i] == r and vterm[i] == term and vtrunc[i] == trunc
    assert resets == n  # each environment ended once and was reset by the next step
    vec.close()


def test_torque_actions_drive_the_actuators_through_their_torque():
    env = short_env(action="torque")
    limits = np.asarray(env.hand.actuator_torque_limits)
    assert np.array_equal(env.action_space.high, limits)
    env.reset(seed=0)
    assert env.run.actuator_modes == ["torque"] * 4
    action = np.array([0.5, -0.5, 100.0, 0.0])  # the third is clipped to its limit
    env.step(action)
    assert np.allclose(env.run.actuator_efforts, np.clip(action, -limits, limits))
