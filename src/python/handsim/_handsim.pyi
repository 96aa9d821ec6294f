# SPDX-License-Identifier: GPL-3.0-or-later
# Type stubs of handsim._handsim (docs/python.md). SI units and radians; arrays are numpy
# float64 unless said otherwise. Frames: palm {P}, finger base {k0}, world {W}.
from typing import Any, Callable, NoReturn, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

ArrayLike = npt.ArrayLike
Array = npt.NDArray[np.float64]

__version__: str

# --- errors ---------------------------------------------------------------------------------

class InputError(ValueError):
    """A bad input file or value, located like the CLI's messages."""
    file: str  # path as given
    line: int  # 1-based, 0 when unknown
    column: int  # 1-based, 0 when unknown
    field: str  # JSON pointer or field name, may be empty

class UnreachableTarget(ValueError):
    """An IK target out of reach within the joint limits."""
    miss: float  # distance from the target to the nearest fingertip position found [m]
    closest: Array  # those joint values [rad or m]

# --- hands ----------------------------------------------------------------------------------

class ClutchState:
    broken: bool  # the inner joint is disengaged and locked
    break_position: float  # actuator position at the break [actuator unit]
    def __init__(self, broken: bool = ..., break_position: float = ...) -> None: ...

class Hand:
    id: str
    name: str
    description: str
    source_file: str
    fingers: list[str]
    actuators: list[str]
    actuator_units: list[str]  # 'counts', 'rad' or 'm'
    actuator_ranges: Array  # (na, 2) [actuator unit]
    actuator_torque_limits: list[float]  # [N m or N] per actuator
    tendons: list[str]
    clutches: list[str]  # the actuator of each breakaway clutch
    poses: list[str]
    def finger_index(self, name: str) -> int: ...
    def actuator_index(self, name: str) -> int: ...
    def dof(self, finger: int) -> int: ...
    def joint_names(self, finger: int) -> list[str]: ...
    def joint_types(self, finger: int) -> list[str]: ...
    def joint_limits(self, finger: int) -> Array:
        """(dof, 2) [rad or m]."""
    def dh_rows(self, finger: int) -> list[dict]:
        """Joint rows: form ('dh' or 'placement'), a [m], alpha [rad], d [m], theta [rad],
        placement (4x4), axis, type, lower, upper."""
    def base(self, finger: int) -> Array:
        """4x4 finger base {k0} in the palm {P}."""
    def pose(self, name: str) -> list[Array]:
        """A named pose's joint values per finger [rad or m]."""
    @property
    def grasp_defaults(self) -> dict[str, Any]: ...
    @property
    def contact_points(self) -> list[dict[str, Any]]: ...
    @property
    def arm_joint_names(self) -> list[str]:
        """The arm's joints, base to palm (empty without an arm)."""
    @property
    def arm_limits(self) -> Array:
        """Lower and upper limits of the arm's joints, one row per joint."""
    def arm_fk(self, q: ArrayLike) -> Array:
        """4x4 palm frame in the arm's base frame at arm joints q."""
    def arm_ik(self, palm_in_base: ArrayLike, q0: Optional[ArrayLike] = None) -> dict:
        """The arm's joints for a palm pose: {'q', 'reached', 'miss_mm', 'miss_deg'}."""
    def fk(self, finger: int, q: ArrayLike, in_base: bool = False, *,
           threads: int = 0, out: Optional[Array] = None) -> Array:
        """(n+1, 4, 4) DH frames in {P} (or {k0}); q (N, dof) gives (N, n+1, 4, 4); out: a
        float64 C-order writeable array of exactly that shape, filled and returned."""
    def fingertip(self, finger: int, q: ArrayLike, point: str = "tip", *,
                  threads: int = 0) -> Array:
        """(3,) fingertip position in {P} [m] (the tip link where the file has one; point
        'last_frame': the last joint frame); q (N, dof) gives (N, 3)."""
    def fingertip_offset(self, finger: int) -> Array:
        """4x4 fingertip frame in the last joint frame {kn}."""
    def jacobian(self, finger: int, q: ArrayLike, frame: int = -1,
                 point: ArrayLike = ..., in_base: bool = False, *, threads: int = 0) -> Array:
        """(6, dof): linear [m/s] then angular [rad/s] velocity per unit joint rate;
        q (N, dof) gives (N, 6, dof)."""
    def ik(self, finger: int, target: ArrayLike, q0: Optional[ArrayLike] = None,
           phi: Optional[float] = None, *, return_miss: bool = False,
           point: str = "tip", threads: int = 0) -> Any:
        """Joint values putting the fingertip at `target` ({P}, m); targets (N, 3) give
        (N, dof). Raises UnreachableTarget; return_miss=True returns (q, miss) instead."""
    def ik_hand(self, target: ArrayLike, finger: Optional[int] = None,
                link: Optional[str] = None, q_now: Optional[Sequence[ArrayLike]] = None,
                shared: str = "locked", rotation: Optional[ArrayLike] = None) -> list[Array]:
        """Whole-hand joint values putting a finger tip or link at `target` ({P}, m); shared
        'locked' or 'free'. Raises UnreachableTarget."""
    def link_poses(self, q: Sequence[ArrayLike], *, threads: int = 0) -> dict[str, Array]:
        """Every link's 4x4 pose in {P} by name; (N, dof) per finger gives (N, 4, 4)."""
    def joint_values(self, q: Sequence[ArrayLike]) -> dict[str, float]:
        """Every movable joint's value by name."""
    def ik_actuators(self, finger: int, target: ArrayLike, actuators_now: Sequence[float],
                     clutches: Optional[Sequence[ClutchState]] = None,
                     phi: Optional[float] = None, *, point: str = "tip") -> list[float]:
        """Actuator positions putting the point ('tip' or 'last_frame') at `target` through
        the transmission."""
    def dynamics(self, finger: int, q: ArrayLike, qd: ArrayLike,
                 gravity: ArrayLike = ...) -> tuple[Array, Array, Array]:
        """Lagrange-Euler (D [kg m^2], H [N m], C [N m]); gravity in {P} [m/s^2]."""
    def inverse_dynamics(self, finger: int, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike,
                         gravity: ArrayLike = ...) -> Array:
        """tau = D qdd + H + C [N m or N]."""
    def newton_euler(self, finger: int, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike,
                     gravity: ArrayLike = ...) -> Array:
        """tau by recursive Newton-Euler [N m or N]."""
    def forward_dynamics(self, finger: int, q: ArrayLike, qd: ArrayLike, tau: ArrayLike,
                         gravity: ArrayLike = ...) -> Array:
        """qdd [rad/s^2 or m/s^2]."""
    def joint_positions(self, actuators: Sequence[float],
                        clutches: Optional[Sequence[ClutchState]] = None) -> list[Array]:
        """Joint values per finger from actuator positions (seed 000 eq. 1-4, 10)."""
    def actuators_for_joints(self, q: Sequence[ArrayLike],
                             actuators_now: Optional[Sequence[float]] = None,
                             clutches: Optional[Sequence[ClutchState]] = None) -> list[float]: ...
    def clamp_actuators(self, actuators: Sequence[float]) -> tuple[list[float], list[str]]: ...

def load_hand(id_or_path: str, palm: str = "") -> Hand:
    """A built-in hand id or a hand file; palm: the URDF link that is the palm (the joints
    from the root link to it are the arm). Raises InputError, FileNotFoundError."""
def builtin_hands() -> list[str]: ...
def chain_fk(rows: Sequence[dict], q: ArrayLike, base: Optional[ArrayLike] = None) -> Array:
    """Frames {k0}..{kn}, (n+1, 4, 4), of a chain of row dicts ('dh' or 'placement')."""
def placement_row(placement: ArrayLike, axis: ArrayLike, type: str = "revolute",
                  lower: float = 0.0, upper: float = 0.0) -> dict:
    """A general-placement row dict (URDF joint)."""
def asset_directory() -> str: ...

# --- simulation -----------------------------------------------------------------------------

class ContactOptions:
    """kdop_k, mu, continuous for every model; the others belong to one model each (stiffness,
    slop, sink_rate, object_push, torsional, resting_tolerance: 'default'; friction_law,
    integration: 'seed004') and raise ValueError under the other model."""
    stiffness: float  # [-]
    slop: float  # [m]
    sink_rate: float  # [-]
    kdop_k: int  # 14, 18 or 26
    mu: float  # [-]
    object_push: float  # [-]
    torsional: float  # [m]
    resting_tolerance: float  # [m]; 0: every body pair queried every step
    continuous: bool
    model: str  # 'default' or 'seed004'
    friction_law: str  # 'anchor' or 'tanh'
    integration: str  # 'implicit' or 'explicit'
    def __init__(self) -> None: ...

class SolverOptions:
    sweeps: int
    tolerance: float  # [-]
    warm_start: bool
    warm_start_radius: float  # [m]
    row_floor: float  # [-]
    standstill_speed: float  # [actuator unit/s]
    def __init__(self) -> None: ...

class GroundOptions:
    enabled: bool
    height: float  # world z [m]
    friction: float  # [-]; negative: each object's own
    def __init__(self) -> None: ...

class Options:
    dt: float  # [s]
    gravity_world: Array  # [m/s^2]
    contact: ContactOptions
    solver: SolverOptions
    ground: GroundOptions
    contact_slop: float  # [m]
    contact_stiffness: float  # [-]
    solver_sweeps: int
    def __init__(self) -> None: ...

class Object:
    name: str
    source: str
    scale: float
    friction: float  # Coulomb coefficient hand-object [-]
    torsional: float  # torsional friction length [m]; negative: the scene's torsional_m
    @property
    def pose(self) -> NoReturn:
        """Gone: raises AttributeError. Start poses are the plan's: RunPlan.object_poses."""
    mass: float  # [kg]; setting it sets the density
    density: float  # [kg/m^3]; setting it recomputes the mass properties
    free: bool  # moves under gravity and contacts
    @property
    def linear_velocity(self) -> NoReturn:
        """Gone: raises AttributeError. Start velocities are the plan's: RunPlan.object_twists."""
    @property
    def angular_velocity(self) -> NoReturn:
        """Gone: raises AttributeError. Start velocities are the plan's: RunPlan.object_twists."""
    centre_of_mass: Array  # object frame [m]
    inertia: Array  # about the centre of mass [kg m^2]
    warnings: list[str]

def load_object(path: str, scale: float = 1.0, name: str = "",
                density: float = 1000.0) -> Object:
    """An object from a mesh file; mass properties at `density` [kg/m^3]."""

class Model:
    """Compiled, immutable: hand, link and object meshes with their k-DOP trees, options."""
    hand: Hand
    objects: list[Object]
    options: Options
    bodies: list[dict]  # id, kind, name, finger, row, object, fixed; ground 0, palm 1
    def __init__(self, hand: Hand, objects: Sequence[Object] = ...,
                 options: Optional[Options] = None) -> None: ...

class RunPlan:
    duration: float  # [s]; 0: no end
    record_every: int
    kept_rows: int
    initial: list[float]  # actuator positions [actuator units]
    initial_tendons: list[float]  # [m]
    palm_pose: Array  # 4x4 in {W}
    object_poses: Array  # (no, 4, 4) start poses in {W}, a copy (assign to change)
    object_twists: Array  # (no, 6) start twists in {W} [m/s, rad/s], a copy (assign to change)
    has_controller: bool
    def __init__(self, other: Optional["RunPlan"] = None) -> None: ...
    def copy(self) -> "RunPlan": ...
    def set_palm_motion(
        self,
        axis: str,
        segments: list[tuple[float, float, float, float | None]] = ...,
        sinusoids: list[tuple[float, float, float, float]] = ...,
    ) -> None: ...
    arm_initial: list[float]  # arm joints at t = 0 [rad or m], arm_joint_names order
    @property
    def arm_moves(self) -> bool:
        """Whether an arm joint has a motion (the arm then drives the palm)."""
    def set_arm(self, hand: Union[Hand, Model],
                initial: Union[dict[str, float], ArrayLike, None] = None) -> None:
        """The arm's start by joint name or per joint, within the limits (others 0 clamped)."""
    def set_arm_motion(
        self,
        hand: Union[Hand, Model],
        joint: Union[int, str],
        segments: list[tuple[float, float, float, float | None]] = ...,
        sinusoids: list[tuple[float, float, float, float]] = ...,
    ) -> None:
        """An arm joint's offsets from its start: segments and sinusoids as set_palm_motion."""
    def set_trajectory(self, model: Model, actuator: Union[int, str],
                       segments: Sequence[tuple[float, float, float, Optional[float]]]) -> None:
        """(to, max_velocity, max_acceleration, start_s or None) per segment, actuator units."""

class Scenario:
    source_file: str
    description: str
    hand: Hand
    objects: list[Object]
    options: Options
    plan: RunPlan
    def __init__(self, hand: Hand, objects: Sequence[Object] = ...,
                 options: Optional[Options] = None, plan: Optional[RunPlan] = None,
                 description: str = "") -> None: ...
    def compile(self) -> Model: ...
    def save(self, path: str) -> None: ...

def load_scenario(path: str) -> Scenario:
    """Reads a scenario file. Raises InputError, FileNotFoundError."""

class Contact:
    finger: int
    row: int  # the link rigid with DH frame {row + 1}
    object: int
    body_a: int  # pushing body, index into Model.bodies
    body_b: int  # pushed body (the normal points from body_a into body_b)
    point: Array  # {W} [m]
    normal: Array  # unit, INTO the object
    depth: float  # [m]
    force: float  # normal force on the object [N]
    other: int  # object contacts: -1 ground, -2 palm, else the other object
    other_finger: int  # link-link contacts: the pushed link's finger (-1: palm)
    other_row: int
    friction: Array  # friction force on the object, {W} [N]
    spin_moment: float  # torsional friction moment on the object about the normal [N m]
    force_on_object: Array  # normal + friction, {W} [N]

class Run:
    """One state on a model, advanced by the staged step; records every signal."""
    model: Model
    plan: RunPlan
    finished: bool
    total_steps: int
    time: float  # [s]
    steps: int
    q: list[Array]  # per finger [rad or m], read-only views
    qd: list[Array]
    qdd: list[Array]
    tau: list[Array]  # [N m or N]
    actuator_positions: Array  # writable view [actuator units]
    actuator_velocities: Array  # writable view
    actuator_commands: Array  # writable view, checked at the next step
    actuator_efforts: Array  # [N m], read-only view
    actuator_modes: list[str]  # 'position' or 'torque' per actuator; settable
    actuator_torques: Array  # [N m or N] writable view, used in torque mode
    tendon_tensions: Array  # [N], read-only view
    tendon_commands: Array  # [m], read-only view
    object_poses: Array  # (no, 4, 4) writable view, {W}
    object_twists: Array  # (no, 6) writable view, {W}
    clutches: list[ClutchState]
    contacts: list[Contact]
    object_contacts: list[Contact]
    link_contacts: list[Contact]
    warnings: list[str]
    warning_count: int
    palm_pose: Array  # 4x4 in {W}, settable between steps
    columns: list[str]
    def __init__(self, model: Model, plan: Optional[RunPlan] = None) -> None: ...
    @staticmethod
    def from_scenario(scenario: Scenario) -> "Run": ...
    def reset(self) -> None: ...
    def step(self, n: int = 1, controller: Optional[Callable[["Run"], None]] = None) -> None: ...
    def run_to_end(self, controller: Optional[Callable[["Run"], None]] = None) -> None: ...
    def set_actuator_command(self, actuator: Union[int, str], value: float) -> None: ...
    def set_actuator_commands(self, commands: ArrayLike) -> None: ...
    def set_actuator_mode(self, actuator: Union[int, str], mode: str) -> None: ...
    def set_actuator_torques(self, torques: ArrayLike) -> None: ...
    def set_tendon_command(self, tendon: Union[int, str], value: float) -> None: ...
    def object_pose(self, index: int) -> Array: ...
    def set_object_pose(self, index: int, pose: ArrayLike) -> None: ...
    def object_twist(self, index: int) -> Array: ...
    @property
    def palm_twist(self) -> Array: ...
    def units(self) -> dict[str, str]: ...
    def signals(self) -> dict[str, Array]: ...
    def csv(self) -> str: ...
    def write_csv(self, path: str) -> None: ...
    def stream_csv(self, path: str, kept_rows: int = ...) -> None: ...
    def finish_csv(self) -> None: ...
    @property
    def recorded_rows(self) -> int: ...
    @property
    def kept_stride(self) -> int: ...
    @property
    def first_non_finite(self) -> str: ...

# --- meshes and collision -------------------------------------------------------------------

class Mesh:
    """Indexed triangle mesh [m], counter-clockwise seen from outside. Immutable."""
    vertices: Array  # (N, 3) [m]
    triangles: npt.NDArray[np.int64]  # (M, 3) vertex indices
    normals: Array  # (M, 3) unit outward; zero rows for degenerate triangles
    area: float  # total surface area [m^2]
    def __init__(self, vertices: ArrayLike, triangles: ArrayLike) -> None:
        """Raises ValueError for a wrong shape, a non-finite vertex or an index out of range,
        naming the row."""
    def mass_properties(self, density: float = 1000.0) -> MassProperties:
        """Uniform solid of this density [kg/m^3]; meaningful only when `closed`."""

class MassProperties:
    mass: float  # [kg]
    volume: float  # [m^3]
    centre_of_mass: Array  # (3,) [m], mesh frame
    inertia: Array  # (3, 3) about the centre of mass, mesh axes [kg m^2]
    closed: bool  # every edge shared by two triangles in opposite directions
    winding_flipped: bool  # the mesh was wound inwards and treated as reversed

def load_mesh(path: str, scale: float = 1.0) -> Mesh:
    """All shapes of a mesh file merged [m, times scale]: VRML by handsim's reader, others by
    Assimp. Raises FileNotFoundError, InputError (file, line, column); loader warnings become
    Python warnings."""

class ContactPatch:
    """One connected piece of the intersection, as a point contact in the common frame."""
    point: Array  # (3,) [m]
    normal: Array  # (3,) unit, OUT OF B (the direction in which B pushes A)
    depth: float  # penetration estimate [m]
    area: float  # area of B's triangles in the patch [m^2]
    triangles_a: list[int]  # ascending
    triangles_b: list[int]  # ascending

def collide(a: Mesh, pose_a: ArrayLike, b: Mesh, pose_b: ArrayLike,
            k: int = 18) -> list[ContactPatch]:
    """Contact patches of mesh a placed by the 4x4 pose_a and mesh b placed by pose_b (each
    mesh frame -> common frame), in the common frame. k-DOP trees with k = 14, 18 or 26; the
    GIL is released."""

def intersects(a: Mesh, pose_a: ArrayLike, b: Mesh, pose_b: ArrayLike, k: int = 18) -> bool:
    """True when the two surfaces share a point (a mesh wholly inside the other does not)."""

# --- grasp quality and sweeps ---------------------------------------------------------------

class GraspQuality:
    """L1 grasp wrench space (Ferrari & Canny 1992); torques divided by the torque radius."""
    force_closure: bool
    epsilon: float  # inscribed ball radius [N per unit normal force]; 0 unless force closure
    volume: float  # 6-D volume of the wrench space; 0 when degenerate
    hull_facets: int
    weakest_direction: Array  # (6,) unit; zero when the hull is degenerate
    note: str  # why the result is degenerate; empty otherwise

def evaluate_grasp(points: ArrayLike, normals: ArrayLike, friction: Union[float, ArrayLike],
                   torque_reference: ArrayLike = ..., torque_radius: float = 1.0,
                   cone_edges: int = 8) -> GraspQuality:
    """Points (N, 3) [m], normals (N, 3) INTO the object, friction [-] for all or (N,);
    torques about torque_reference (3,) [m] divided by torque_radius [m]. More than 256
    wrench points (N x cone_edges) raise ValueError up front."""

def torque_radius(mesh: Mesh, centre: ArrayLike) -> float:
    """Largest distance of a vertex of mesh from centre (3,) [m]; 0 for an empty mesh."""

class HoldTest:
    """The hold test after closing (docs/grasp-sweep.md); HoldTest() has the defaults."""
    release_s: float  # [s]
    lift_m: float  # [m]
    lift_speed_mps: float  # [m/s]
    lift_acceleration_mps2: float  # [m/s^2]
    shake_amplitude_m: float  # A of A (sin wt - sin 2wt / 2) [m]
    shake_frequency_hz: float  # [Hz]
    shake_cycles: int
    settle_s: float  # [s]
    tolerance_m: float  # [m]
    gravity_object_mps2: Array  # (3,) object frame [m/s^2]
    shake_direction_palm: Array  # (3,) palm frame; zeros: gravity x palm z
    mass_kg: float  # [kg]; 0: from density_kg_m3
    density_kg_m3: float  # [kg/m^3]
    def __init__(self) -> None: ...

class SweepSpec:
    """A grasp sweep file (docs/grasp-sweep.md)."""
    source_file: str
    pose_count: int
    palm_positions: Array  # (n, 3) in the object frame [m]
    palm_rotation: Array  # (3, 3) palm orientation in the object frame
    object_centre: Array  # (3,) bounding-box centre, the torque reference [m]
    friction: float  # settable, >= 0 [-]
    cone_edges: int  # settable, 3 to 64
    torque_radius: float  # settable, > 0 [m]
    hold_test: Optional[HoldTest]  # settable (a copy); None: no hold test
    def __len__(self) -> int: ...

def load_sweep(path: str) -> SweepSpec:
    """Raises FileNotFoundError, InputError (file, line, column, field)."""

class SweepResult:
    index: int
    palm_position: Array  # (3,) object frame [m]
    start_collision: bool  # then not run, default quality
    contacts: int
    quality: GraspQuality
    held: Optional[bool]  # hold test; None when not run
    slip_m: Optional[float]  # [m], from the end of the release to the end
    seat_m: Optional[float]  # [m], during the release

def run_sweep(spec: SweepSpec, indices: Optional[Sequence[int]] = None, threads: int = 0,
              shard: Optional[tuple[int, int]] = None) -> list[SweepResult]:
    """Poses `indices` (default all) with index % n == i for shard=(i, n), on `threads`
    threads (0: all cores), without the GIL; results in the order of the indices. Raises
    IndexError for an index out of range; Ctrl+C stops it."""

def summarize(results: Sequence[SweepResult]) -> dict[str, Union[int, float]]:
    """Seed 002's Table I: configurations, collision_free, force_closure, epsilon_mean,
    epsilon_std (sample, over force-closure grasps); the hold test's hold_tested, held,
    force_closure_tested, held_force_closure, epsilon_held_mean/std, epsilon_dropped_mean/std."""

def sweep_csv(results: Sequence[SweepResult]) -> str:
    """The CLI's CSV: index,x,y,z,start_collision,contacts,force_closure,epsilon,volume,held,
    slip_m,seat_m (the last three empty without a hold result)."""

class DirectionOutcome:
    """A validation preset's outcome along one load direction."""
    direction: Array  # (3,) object frame
    displacement_m: float  # COM in the palm frame at the end [m]
    rotation_rad: Optional[float]  # relative to the palm; None: not measured (lift-shake)
    time_to_slip_s: Optional[float]  # from the start of the load [s]; None: never
    steady_at_s: Optional[float]  # ended early in a steady hold at [s]; None: full duration
    contacts: int
    links: int
    passed: bool

class Validation:
    """One validation preset run on one grasp (docs/planner.md, 'Validation')."""
    preset: str
    hold: str  # 'drives' or 'pd'
    passed: bool
    start_collision: bool
    held: bool  # closed on the held object, released under the load
    force_closure: bool
    epsilon: float
    volume: float
    directions: list[DirectionOutcome]
    verdicts: Array  # (nd,) bool
    displacements_m: Array  # (nd,) [m]
    load_directions: Array  # (nd, 3) object frame

class Grasp:
    """A planned grasp: one record of a grasp file (docs/planner.md, 'Records')."""
    hand: str
    hand_source: str
    object: str
    object_source: str
    object_scale: float
    actuators: list[str]
    run: dict
    candidate: int
    palm_pose: Array  # (4, 4) palm in the object frame [m]
    amplitudes: Array  # (k,)
    pregrasp: Array  # (na,) [actuator unit]
    energy: float
    posture: Array  # (na,) after closing [actuator unit]
    joints: list[Array]  # per finger [rad or m]
    closing_time_s: float
    stalled: bool
    held: bool  # closed on the held object (the floating one escaped)
    force_closure: bool
    epsilon: float
    volume: float
    contacts: dict[str, Array]  # finger, row, point_object_m, normal_into_object, force_N
    validation: list[Validation]
    def to_json(self) -> str: ...
    @staticmethod
    def from_json(line: str) -> "Grasp": ...

def load_grasps(path: str) -> list[Grasp]:
    """Reads a grasp file (JSON Lines)."""

def save_grasps(path: str, grasps: Sequence[Grasp]) -> None:
    """Writes a grasp file atomically, as handsim-cli writes it."""

class EnergyInput:
    """What a custom energy of plan() receives for a legal configuration (object frame, SI)."""
    palm: Array  # (4, 4) palm pose in the object frame
    amplitudes: Array  # (k,) eigengrasp amplitudes
    posture: Array  # (na,) [actuator unit]
    points: Array  # (n, 3) preset contact points [m]
    normals: Array  # (n, 3) their outward unit normals
    surface_points: Array  # (n, 3) nearest surface points [m]
    surface_normals: Array  # (n, 3) outward surface normals there
    distances: Array  # (n,) signed distances [m], negative inside

def plan(object: Union[str, Object], hand: Union[str, Hand], *, grasps: int = 20,
         candidates: int = 0, seed: int = 1, threads: int = 1,
         strategy: str = "surface-normals",
         energy: Union[str, Callable[[EnergyInput], float]] = "contact", friction: float = 0.5,
         scale: float = 1.0, support_plane: Optional[Union[str, tuple[ArrayLike, ArrayLike]]] = None,
         approach_cone: Optional[tuple[ArrayLike, float]] = None,
         palm_region: Optional[tuple[ArrayLike, ArrayLike]] = None, annealing_steps: int = 2000,
         descent_steps: int = 60, eigengrasps: Optional[tuple[ArrayLike, ArrayLike]] = None,
         shard: Optional[tuple[int, int]] = None,
         progress: Optional[Callable[[int, int, int], None]] = None) -> list[Grasp]:
    """Plans grasps as handsim-cli plan does (docs/planner.md); the GIL is released."""

def validate(grasps: Sequence[Grasp], preset: str = "six-directions", *, hold: str = "drives",
             full_duration: bool = False, threads: int = 1, hand: Optional[Union[str, Hand]] = None,
             object: Optional[Union[str, Object]] = None,
             progress: Optional[Callable[[int, int], None]] = None) -> list[Validation]:
    """Runs a validation preset on each grasp, stores and returns the outcomes."""

def eigengrasps(hand: Union[str, Hand], seed: int = 1) -> dict[str, Any]:
    """The planner's eigengrasp basis: origin (na,), directions (na, k), lower, upper (k,),
    names, computed."""

def validation_presets() -> list[str]:
    """The validation presets' names."""

def plot(run: Run, path: str, *, signals: Optional[Sequence[str]] = None,
         preset: Optional[str] = None, size: Optional[str] = None, dpi: int = 300,
         title: str = "", events: bool = True, overlay: bool = False) -> None:
    """A figure of the run's recorded signals (.svg, .png, .pdf), the plot code of the GUI
    and of handsim-cli simulate --plot."""

class Camera:
    """A pinhole camera in the world frame for render()."""
    eye: Array  # [m], world
    target: Array  # [m], world
    up: Array
    fov_y: float  # [rad]
    width: int  # [px]
    height: int  # [px]
    near: float  # [m]
    far: float  # [m]
    def __init__(self, eye: ArrayLike, target: ArrayLike, up: ArrayLike = ..., fov_deg: float = 40.0,
                 width: int = 640, height: int = 480) -> None: ...
    @staticmethod
    def framing(run: Run, width: int = 640, height: int = 480) -> "Camera": ...
    def project(self, points: ArrayLike) -> Array: ...  # (N, 3): u, v [px], depth [m]

def render(run: Run, camera: Optional[Camera] = None, width: int = 640, height: int = 480,
           contacts: bool = True, ground: bool = True) -> Array: ...  # (height, width, 3) uint8
