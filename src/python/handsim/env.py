# SPDX-License-Identifier: GPL-3.0-or-later
"""A gym-style environment over a handsim scene (docs/python.md, "Environments").

The API is Gymnasium's (``reset(seed=None, options=None) -> (obs, info)``,
``step(action) -> (obs, reward, terminated, truncated, info)``, ``observation_space``,
``action_space``), written without depending on Gymnasium: the spaces here (:class:`Box`,
:class:`Dict`) carry the same attributes (shape, low, high, dtype; ``spaces``), so a user who has
Gymnasium can wrap an environment or convert its spaces. :class:`VectorHandEnv` steps several
environments on threads: the simulation step releases the GIL.

Units are SI and radians, as everywhere in handsim; poses are in the world frame.
"""
import concurrent.futures as _futures
import os as _os

import numpy as _np

from . import _handsim

__all__ = ["Box", "Dict", "HandEnv", "VectorHandEnv", "default_scenario_path", "ramp_policy"]


class Box:
    """A box in R^n (Gymnasium's ``spaces.Box``): ``shape``, ``low``, ``high``, ``dtype``."""

    def __init__(self, low, high, shape=None, dtype=_np.float64):
        self.dtype = _np.dtype(dtype)
        if shape is None:
            shape = _np.broadcast(_np.asarray(low), _np.asarray(high)).shape
        self.shape = tuple(int(n) for n in shape)
        self.low = _np.broadcast_to(_np.asarray(low, dtype=self.dtype), self.shape).copy()
        self.high = _np.broadcast_to(_np.asarray(high, dtype=self.dtype), self.shape).copy()
        if _np.any(self.low > self.high):
            raise ValueError("Box: low > high")
        self._rng = _np.random.default_rng()

    def seed(self, seed=None):
        """Seeds sample()."""
        self._rng = _np.random.default_rng(seed)
        return [seed]

    def sample(self):
        """A uniform sample (bounded dimensions; unbounded ones a standard normal)."""
        finite = _np.isfinite(self.low) & _np.isfinite(self.high)
        x = self._rng.standard_normal(self.shape)
        u = self._rng.uniform(_np.where(finite, self.low, 0.0), _np.where(finite, self.high, 1.0))
        return _np.where(finite, u, x).astype(self.dtype)

    def contains(self, x):
        """Whether x has this shape and lies within [low, high]."""
        x = _np.asarray(x)
        return bool(x.shape == self.shape and _np.all(x >= self.low) and _np.all(x <= self.high))

    __contains__ = contains

    def __repr__(self):
        return f"Box(shape={self.shape}, dtype={self.dtype})"


class Dict:
    """Named spaces (Gymnasium's ``spaces.Dict``): ``spaces`` maps a name to a :class:`Box`."""

    def __init__(self, spaces):
        self.spaces = dict(spaces)

    def __getitem__(self, key):
        return self.spaces[key]

    def keys(self):
        return self.spaces.keys()

    def seed(self, seed=None):
        """Seeds every sub-space (seed, seed + 1, ...)."""
        for i, s in enumerate(self.spaces.values()):
            s.seed(None if seed is None else seed + i)
        return [seed]

    def sample(self):
        return {k: s.sample() for k, s in self.spaces.items()}

    def contains(self, x):
        return set(x) == set(self.spaces) and all(self.spaces[k].contains(x[k]) for k in x)

    __contains__ = contains

    def __repr__(self):
        return "Dict(" + ", ".join(f"{k}: {s!r}" for k, s in self.spaces.items()) + ")"


def default_scenario_path():
    """The shipped scene of :class:`HandEnv`: the BarrettHand over a free 5 cm cube on the
    ground, the palm lifting 10 cm from t = 2 s (assets/scenarios/barrett_lift_cube.json)."""
    return _os.path.join(_handsim.asset_directory(), "scenarios", "barrett_lift_cube.json")


def _quaternion_wxyz(r):
    """Unit quaternion (w, x, y, z) of a rotation matrix (Shepperd's method), w >= 0."""
    t = r[0, 0] + r[1, 1] + r[2, 2]
    if t > 0.0:
        s = 2.0 * _np.sqrt(1.0 + t)
        q = [0.25 * s, (r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s]
    elif r[0, 0] > r[1, 1] and r[0, 0] > r[2, 2]:
        s = 2.0 * _np.sqrt(1.0 + r[0, 0] - r[1, 1] - r[2, 2])
        q = [(r[2, 1] - r[1, 2]) / s, 0.25 * s, (r[0, 1] + r[1, 0]) / s, (r[0, 2] + r[2, 0]) / s]
    elif r[1, 1] > r[2, 2]:
        s = 2.0 * _np.sqrt(1.0 + r[1, 1] - r[0, 0] - r[2, 2])
        q = [(r[0, 2] - r[2, 0]) / s, (r[0, 1] + r[1, 0]) / s, 0.25 * s, (r[1, 2] + r[2, 1]) / s]
    else:
        s = 2.0 * _np.sqrt(1.0 + r[2, 2] - r[0, 0] - r[1, 1])
        q = [(r[1, 0] - r[0, 1]) / s, (r[0, 2] + r[2, 0]) / s, (r[1, 2] + r[2, 1]) / s, 0.25 * s]
    q = _np.asarray(q)
    return q if q[0] >= 0.0 else -q


class HandEnv:
    """One scene as a Gymnasium-style environment.

    scenario: a :class:`handsim.Scenario`, a scenario file's path, or None for
        :func:`default_scenario_path`. The scene's actuator trajectories are dropped (the
        actions drive the actuators); its palm motion, objects and options stay.
    action: ``"position"`` (each action entry is an actuator's set point [actuator unit],
        clipped to its range) or ``"torque"`` (the torque at its primary joint [N m or N],
        clipped to +-its servo's torque limit; Run.actuator_modes).
    frame_skip: simulation steps per environment step (the control period is frame_skip * dt).
    episode_s: length of an episode [s] (default: the scenario's duration); at its end an
        episode is truncated.
    reward: ``reward(env, obs, action, info) -> float`` called after every step; default: the
        height object 0 gained since reset [m].
    terminate: ``terminate(env, obs, info) -> bool``; default: never (episodes only truncate).
    object_noise_m: reset() moves each free object by a uniform offset in [-noise, noise] along
        world x and y, drawn from the environment's generator (seeded by reset(seed=...)).
    success_lift_m: info["success"] is True when object 0 stands this much above its start.

    Observation (a dict, see observation_space): ``actuator_positions`` (na,),
    ``actuator_velocities`` (na,), ``joint_positions`` (nq,) and ``joint_velocities`` (nq,)
    (every finger's joints in order), ``object_poses`` (no, 7: position [m] then the unit
    quaternion w, x, y, z; world frame), ``object_twists`` (no, 6: velocity of the centre of
    mass [m/s] then angular velocity [rad/s]; world), ``contacts`` (nf, 2: per finger the
    number of link-object contacts and their total normal force [N]).
    """

    metadata = {"render_modes": []}

    def __init__(self, scenario=None, *, action="position", frame_skip=10, episode_s=None,
                 reward=None, terminate=None, object_noise_m=0.0, success_lift_m=0.05):
        if scenario is None:
            scenario = default_scenario_path()
        if isinstance(scenario, (str, _os.PathLike)):
            scenario = _handsim.load_scenario(_os.fspath(scenario))
        if action not in ("position", "torque"):
            raise ValueError(f"action: expected 'position' or 'torque', got {action!r}")
        if int(frame_skip) < 1:
            raise ValueError("frame_skip must be >= 1")
        self._model = scenario.compile()
        hand = self._model.hand
        plan = scenario.plan.copy()
        for a in range(len(hand.actuators)):  # the actions drive every actuator
            plan.set_trajectory(self._model, a, [])
        if episode_s is not None:
            plan.duration = float(episode_s)
        if not plan.duration > 0.0:
            raise ValueError("the episode needs an end: give episode_s or a scenario duration")
        self._plan = plan
        self.action_mode = action
        self.frame_skip = int(frame_skip)
        self.reward_fn = reward
        self.terminate_fn = terminate
        self.object_noise_m = float(object_noise_m)
        self.success_lift_m = float(success_lift_m)
        self.run = _handsim.Run(self._model, plan)
        self.dt = self._model.options.dt * self.frame_skip
        self.max_episode_steps = -(-self.run.total_steps // self.frame_skip)
        self.hand = hand
        self._free = [o.free for o in self._model.objects]
        self._rng = _np.random.default_rng()
        self._na = len(hand.actuators)
        self._nf = len(hand.fingers)
        self._nq = sum(hand.dof(f) for f in range(self._nf))
        no = len(self._model.objects)
        ranges = _np.asarray(hand.actuator_ranges, dtype=float).reshape(self._na, 2)
        if action == "position":
            self.action_space = Box(ranges[:, 0], ranges[:, 1])
        else:
            limit = _np.asarray(hand.actuator_torque_limits, dtype=float)
            self.action_space = Box(-limit, limit)
        inf = _np.inf
        self.observation_space = Dict({
            "actuator_positions": Box(ranges[:, 0], ranges[:, 1]),
            "actuator_velocities": Box(-inf, inf, (self._na,)),
            "joint_positions": Box(-inf, inf, (self._nq,)),
            "joint_velocities": Box(-inf, inf, (self._nq,)),
            "object_poses": Box(-inf, inf, (no, 7)),
            "object_twists": Box(-inf, inf, (no, 6)),
            "contacts": Box(0.0, inf, (self._nf, 2)),
        })
        self._start_z = _np.zeros(no)
        self.start_actuator_positions = _np.zeros(self._na)
        self._steps = 0

    # --- the Gymnasium API -----------------------------------------------------------------
    def reset(self, *, seed=None, options=None):
        """Back to the scene's start (objects moved by the seeded noise); returns (obs, info)."""
        if seed is not None:
            self._rng = _np.random.default_rng(seed)
            self.action_space.seed(seed)
        options = options or {}
        run = self.run
        run.reset()
        noise = float(options.get("object_noise_m", self.object_noise_m))
        poses = run.object_poses
        for i, free in enumerate(self._free):
            offset = self._rng.uniform(-noise, noise, 2) if noise > 0.0 else _np.zeros(2)
            if free:
                poses[i, :2, 3] += offset
        if self.action_mode == "torque":
            run.actuator_modes = "torque"
            run.set_actuator_torques(_np.zeros(self._na))
        self._start_z = poses[:, 2, 3].copy()
        self.start_actuator_positions = _np.array(run.actuator_positions)
        self._steps = 0
        obs = self._observe()
        return obs, self._info()

    def step(self, action):
        """Applies the action for frame_skip steps; returns (obs, reward, terminated,
        truncated, info)."""
        a = _np.asarray(action, dtype=float).reshape(self._na)
        a = _np.clip(a, self.action_space.low, self.action_space.high)
        if self.action_mode == "position":
            self.run.set_actuator_commands(a)
        else:
            self.run.set_actuator_torques(a)
        self.run.step(self.frame_skip)
        self._steps += 1
        obs = self._observe()
        info = self._info()
        if self.reward_fn is not None:
            reward = float(self.reward_fn(self, obs, a, info))
        else:
            reward = info["lift_m"]
        terminated = bool(self.terminate_fn(self, obs, info)) if self.terminate_fn else False
        truncated = bool(self.run.finished)
        return obs, reward, terminated, truncated, info

    def close(self):
        """Nothing to release (for the Gymnasium API)."""

    # --- helpers ---------------------------------------------------------------------------
    def _observe(self):
        run = self.run
        poses = run.object_poses
        pose7 = _np.empty((poses.shape[0], 7))
        for i in range(poses.shape[0]):
            pose7[i, :3] = poses[i, :3, 3]
            pose7[i, 3:] = _quaternion_wxyz(poses[i, :3, :3])
        contacts = _np.zeros((self._nf, 2))
        for c in run.contacts:
            if c.finger >= 0:
                contacts[c.finger, 0] += 1.0
                contacts[c.finger, 1] += c.force
        q, qd = run.q, run.qd
        return {
            "actuator_positions": _np.array(run.actuator_positions),
            "actuator_velocities": _np.array(run.actuator_velocities),
            "joint_positions": _np.concatenate(q) if q else _np.zeros(0),
            "joint_velocities": _np.concatenate(qd) if qd else _np.zeros(0),
            "object_poses": pose7,
            "object_twists": _np.array(run.object_twists),
            "contacts": contacts,
        }

    def _info(self):
        z = self.run.object_poses[:, 2, 3]
        lift = float(z[0] - self._start_z[0]) if z.size else 0.0
        return {"time": self.run.time, "lift_m": lift, "success": lift >= self.success_lift_m,
                "warnings": self.run.warning_count}


def ramp_policy(target, speed):
    """A scripted position policy: each actuator's set point moves from where the episode
    started towards target[a] at speed[a] [actuator units/s] (scalars apply to all), the way a
    trapezoidal trajectory without acceleration would. Returns policy(env, obs) -> action."""

    def policy(env, obs):
        start = env.start_actuator_positions
        t = env.run.time + env.dt  # where the set point should be at the end of this step
        tgt = _np.broadcast_to(_np.asarray(target, dtype=float), start.shape)
        v = _np.broadcast_to(_np.asarray(speed, dtype=float), start.shape)
        step = _np.minimum(_np.abs(tgt - start), v * t)
        return start + _np.sign(tgt - start) * step

    return policy


class VectorHandEnv:
    """n environments stepped together on threads (Gymnasium's vector API).

    make_env: a callable returning a :class:`HandEnv` (called n times). threads: worker
    threads (0: one per environment, at most the cores). Observations are the dicts of the
    single environments stacked along a first axis of size n; rewards, terminated and truncated
    are (n,) arrays; infos a list of dicts. An environment whose episode ended is reset by the
    next step() (Gymnasium's next-step autoreset): that step ignores its action and returns the
    reset observation with reward 0. reset(seed=s) seeds environment i with s + i.
    """

    def __init__(self, make_env, n, threads=0):
        if int(n) < 1:
            raise ValueError("n must be >= 1")
        self.envs = [make_env() for _ in range(int(n))]
        self.num_envs = len(self.envs)
        if threads <= 0:
            threads = min(self.num_envs, _os.cpu_count() or 1)
        self._pool = _futures.ThreadPoolExecutor(max_workers=threads)
        e = self.envs[0]
        self.single_action_space = e.action_space
        self.single_observation_space = e.observation_space
        self.action_space = Box(_np.broadcast_to(e.action_space.low, (self.num_envs,) +
                                                 e.action_space.shape),
                                _np.broadcast_to(e.action_space.high, (self.num_envs,) +
                                                 e.action_space.shape))
        self._done = _np.zeros(self.num_envs, dtype=bool)

    @staticmethod
    def _stack(obs):
        return {k: _np.stack([o[k] for o in obs]) for k in obs[0]}

    def reset(self, *, seed=None, options=None):
        seeds = [None if seed is None else seed + i for i in range(self.num_envs)]
        out = list(self._pool.map(lambda ie: ie[1].reset(seed=seeds[ie[0]], options=options),
                                  enumerate(self.envs)))
        self._done[:] = False
        return self._stack([o for o, _ in out]), [i for _, i in out]

    def step(self, actions):
        actions = _np.asarray(actions, dtype=float)
        if actions.shape[0] != self.num_envs:
            raise ValueError(f"actions: expected {self.num_envs} rows, got {actions.shape[0]}")

        def one(i):
            env = self.envs[i]
            if self._done[i]:
                obs, info = env.reset()
                return obs, 0.0, False, False, info
            return env.step(actions[i])

        out = list(self._pool.map(one, range(self.num_envs)))
        obs = self._stack([o[0] for o in out])
        rewards = _np.array([o[1] for o in out])
        terminated = _np.array([o[2] for o in out])
        truncated = _np.array([o[3] for o in out])
        self._done = terminated | truncated
        return obs, rewards, terminated, truncated, [o[4] for o in out]

    def close(self):
        self._pool.shutdown()
