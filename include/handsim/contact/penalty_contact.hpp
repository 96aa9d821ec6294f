// SPDX-License-Identifier: GPL-3.0-or-later
// Seed 004's penalty contact laws as pure functions (arXiv:2108.00348, Sect. II-C and III):
// the second-order low-pass filter of eq. 4, the first-contact gain of eq. 5, the Kelvin-Voigt
// force of eq. 6 and its torque (eq. 7), the tanh + viscous friction of eq. 8, and a stick-slip
// anchor-spring friction that holds a grasp without creeping. Units, the paper's parameters in SI
// and the choices the paper leaves open: docs/free-objects.md, "Contact model (seed 004)".
#pragma once

#include <Eigen/Geometry>

namespace handsim::contact {

/// Parameters of seed 004's contact and friction laws, SI. Defaults are the paper's values
/// (Sect. III) converted, plus documented choices where the paper gives none.
struct PenaltyContactParams {
  /// g1: stiffness per unit of equivalent depth d = v / A_ref (eq. 6 as we read it) [N/m];
  /// the paper's 740 N/cm.
  double stiffness_n_per_m = 740.0 * 100.0;
  /// g2: damping per unit of depth rate [N s/m]; the paper's 50 N s/cm.
  double damping_ns_per_m = 50.0 * 100.0;
  /// gi: first-contact gain (eq. 5), dimensionless; the paper's 250.
  double first_contact_gain = 250.0;
  /// gt: delay of the gain's peak after first contact, in impact durations d_v (eq. 5); the paper
  /// gives no value. 2 puts the peak two durations late, so the gain starts at exp(-4) of its
  /// peak instead of jumping.
  double first_contact_delay = 2.0;
  /// Admissible (target) depth d_t of eq. 5 [m]: the impact lasts d_v = d_t / Δv_c; 2 mm.
  double target_depth_m = 0.002;
  /// ζ of the filter (eq. 4); the paper gives none: 1, critically damped (no overshoot).
  double filter_damping_ratio = 1.0;
  /// ω_n of the filter (eq. 4) [rad/s]; the paper gives none: 2π·100 Hz, above the contact's
  /// own frequency sqrt(g1 / m) = 608 rad/s for the paper's 0.2 kg objects. A floor: each
  /// contact's filter runs at least at filterNaturalFrequency's damper-rate bound.
  double filter_natural_frequency_radps = 2.0 * 3.14159265358979323846 * 100.0;
  /// μ of eq. 8 (Coulomb coefficient), 0.2.
  double mu = 0.2;
  /// β of eq. 8 (viscous friction) [N s/m]: the paper's 0.2 read in its centimetre units,
  /// 0.2 N s/cm (docs/free-objects.md explains the choice and gives the SI-literal numbers).
  double viscous_ns_per_m = 0.2 * 100.0;
  /// γ of eq. 8 (tanh slope) [s/m]: the paper's 1 read as 1 s/cm.
  double tanh_slope_s_per_m = 1.0 * 100.0;
};

/// State of eq. 4's filter: x_f and its derivative, and the last input (the filter integrates
/// with the input linear between two calls).
struct LowPassState {
  double value = 0.0;  ///< x_f [unit of the input]
  double rate = 0.0;   ///< dx_f/dt [unit per s]: the filtered derivative estimate
  double input = 0.0;  ///< last input x
};

/// Eq. 4's initial state for input x(0): x_f(0) = x(0), dx_f/dt(0) = 0.
LowPassState startLowPass(double input);

/// Advances eq. 4, x_f'' = -2 ζ ω x_f' + ω² (x - x_f), over `dt` [s] with the input going
/// linearly from `state.input` to `input`: the exact solution for that input (stable for any dt).
/// Throws std::invalid_argument for dt < 0, ζ <= 0 or ω <= 0.
void advanceLowPass(LowPassState& state, double input, double dt, double damping_ratio,
                    double natural_frequency_radps);

/// First contact of a pair: when it started and the approach speed then.
struct FirstContact {
  double time_s = 0.0;        ///< t_c [s]
  double approach_mps = 0.0;  ///< Δv_c: B's speed relative to A along s_n at c [m/s], >= 0
};

/// Eq. 5 as printed, with the peak at t_v = t_c + g_t d_v (the paper's "g_t d_v - t_c" puts it
/// before the contact): δ_i(t) = i_v / (sqrt(π) d_v) exp(-((t - t_v) / d_v)²), i_v = g_i (m_A +
/// m_B) Δv_c, d_v = d_t / Δv_c. A force [N] whose integral over all t is the impulse i_v [N s];
/// zero when Δv_c <= 0 (no approach, no impact).
double firstContactForce(const PenaltyContactParams& p, const FirstContact& contact,
                         double total_mass_kg, double t);

/// The dimensionless multiplier eq. 6 applies: κ(t) = 1 + δ_i(t) / (g1 d_t) = 1 + (g_i / sqrt(π))
/// (M Δv_c² / (g1 d_t²)) exp(-((t - t_v) / d_v)²): eq. 5's force in units of the contact's own
/// force at the admissible depth, plus 1 so that the steady contact keeps its Kelvin-Voigt force
/// after the impact. M Δv_c² / (g1 d_t²) is the impact's kinetic energy over the spring's energy
/// at the admissible depth, so a slow touch gets no gain (docs/free-objects.md). M =
/// `total_mass_kg` [kg], the masses the contact has to stop; 1 when Δv_c <= 0 or g1 <= 0.
double firstContactGain(const PenaltyContactParams& p, const FirstContact& contact,
                        double total_mass_kg, double t);

/// Eq. 4's natural frequency for a contact whose depth answers a force with the acceleration
/// `inverse_mass` [1/kg] per N, under eq. 5's gain κ: max(ω_n, 2 κ g2 inverse_mass / ζ) [rad/s].
/// The damper acts on the filtered rate; a filter slower than the damper's own rate κ g2 / m
/// lags it so that it pumps energy (Routh-Hurwitz: m d'' = -g1 d - g2 d_f' is unstable for
/// ω_n < κ g2 / (2 ζ m)); the floor keeps a margin of 4 (docs/free-objects.md).
double filterNaturalFrequency(const PenaltyContactParams& p, double gain, double inverse_mass);

/// Reference area A_ref of a contact [m^2]: the largest mean area (area_a + area_b) / 2 of the
/// overlap's two sub-meshes since the contact began, `previous_m2` (0 for a new contact) the
/// value until now. Fixed while the contact's area shrinks, eq. 6 on d = v / A_ref is a bed of
/// springs of modulus g1 / A_ref [N/m^3] under the overlap, a conservative force; on the current
/// mean area it gave g1 delta / 2 on an edge sunk by delta whatever its length, which is not,
/// and a rocking box gained energy (docs/free-objects.md). Growing with the contact, it only ever
/// softens the bed, which removes energy.
double referenceArea(double previous_m2, double area_a_m2, double area_b_m2);

/// Equivalent depth d = v / A_ref [m]: the overlap volume over the contact's reference area
/// (exactly the depth for a thin slab between two flat faces); 0 when the area is 0.
double equivalentDepth(double volume_m3, double reference_area_m2);

/// Eq. 6's magnitude: κ (g1 d + g2 d_f'), never negative (a penalty contact pushes, it never
/// pulls; the damper alone would pull while the bodies separate) [N].
double penaltyForceMagnitude(const PenaltyContactParams& p, double gain, double depth_m,
                             double depth_rate_mps);

/// Eq. 6's force on B: magnitude along s_n = s_d / |s_d| (s_d from A into B, see
/// collision/overlap_volume.hpp); the force on A is its opposite. Zero when s_d is zero [N].
Eigen::Vector3d penaltyForceOnB(double magnitude_n, const Eigen::Vector3d& direction);

/// Eq. 7: torque about the body's centre of mass p_o of a force f applied at c [N m].
Eigen::Vector3d penaltyTorque(const Eigen::Vector3d& application_point,
                              const Eigen::Vector3d& centre_of_mass, const Eigen::Vector3d& force);

/// Eq. 8: friction on the body whose velocity relative to the other at the contact is
/// `slip_velocity` (tangential) [m/s], under normal force magnitude `normal_force_n` [N]:
/// -(μ |f_n| tanh(γ |v_r|) + β |v_r|) v_r / |v_r|, zero at zero slip [N].
Eigen::Vector3d tanhFriction(const PenaltyContactParams& p, double normal_force_n,
                             const Eigen::Vector3d& slip_velocity);

/// Steady slip speed of eq. 8 under a constant tangential load F_t and normal force F_n: the
/// root v >= 0 of μ F_n tanh(γ v) + β v = F_t [m/s] (0 for F_t <= 0). With β = 0 and F_t >= μ
/// F_n there is no steady speed: returns +infinity.
double tanhCreepSpeed(const PenaltyContactParams& p, double tangential_load_n,
                      double normal_force_n);

/// Parameters of the stick-slip anchor-spring friction (the default; docs/free-objects.md).
struct AnchorFrictionParams {
  double mu = 0.5;                   ///< Coulomb coefficient
  double stiffness_n_per_m = 1.0e4;  ///< k_t: tangential spring from the anchor [N/m]
  double damping_ns_per_m = 20.0;    ///< c_t: tangential damper while sticking [N s/m]
};

/// The anchor of one contact: the spring's extension z (the contact point's tangential
/// displacement from where it stuck) [m], in whatever frame the caller uses for velocities.
struct AnchorState {
  Eigen::Vector3d extension = Eigen::Vector3d::Zero();  ///< z [m]
  bool active = false;  ///< false until the first contact step (and after a release)
};

/// One step's friction of the anchor model.
struct AnchorFrictionResult {
  Eigen::Vector3d force =
      Eigen::Vector3d::Zero();  ///< on the body slipping with `slip_velocity` [N]
  bool sliding = false;         ///< the spring reached Coulomb's cone and the anchor slid
  double dissipated_j = 0.0;    ///< energy removed this step, >= 0 [J]
};

/// Advances the anchor over `dt` [s] and returns the friction force. z is first projected on the
/// tangent plane of `normal` (unit), then z_trial = z + v_t dt (v_t = slip_velocity minus its
/// normal part). Stick (k |z_trial| <= μ f_n): f = -k z_trial - β c v_t, the damper scaled by the
/// largest β in [0, 1] keeping |f| <= μ f_n. Slip: the anchor slides so the spring stays on the
/// cone, z = z_trial μ f_n / (k |z_trial|), f = -k z. With f_n <= 0 the anchor is released (z = 0,
/// f = 0). Dissipative by construction (`dissipated_j` >= 0), and under a steady load below μ f_n
/// the extension settles at F_t / k: no creep.
AnchorFrictionResult anchorFriction(const AnchorFrictionParams& p, AnchorState& state,
                                    const Eigen::Vector3d& normal,
                                    const Eigen::Vector3d& slip_velocity, double normal_force_n,
                                    double dt);

}  // namespace handsim::contact
