// SPDX-License-Identifier: GPL-3.0-or-later
// handsim.Hand: a hand model with its kinematics (DH forward kinematics, Jacobians, closed-form
// and numerical IK), Lagrange-Euler and Newton-Euler dynamics and the transmission (actuator
// units <-> joint angles, clutch states). Frames: {P} palm, {k0} finger base.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <set>

#include "arrays.hpp"
#include "batch.hpp"
#include "bindings.hpp"
#include "hand_args.hpp"
#include "handsim/dynamics/forward_dynamics.hpp"
#include "handsim/dynamics/lagrange_euler.hpp"
#include "handsim/dynamics/newton_euler.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/hand/arm_ik.hpp"
#include "handsim/hand/breakaway_clutch.hpp"
#include "handsim/hand/hand_ik.hpp"
#include "handsim/hand/transmission.hpp"
#include "handsim/hand/transmission_ik.hpp"
#include "handsim/kinematics/closed_form_ik.hpp"
#include "handsim/kinematics/dh_row.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/kinematics/numerical_ik.hpp"
#include "handsim/planner/grasp_defaults.hpp"

namespace py = pybind11;

namespace handsim::python {

namespace {

using hand::HandModel;
using Vector = Eigen::VectorXd;

void bindClutchState(py::module_& m) {
  py::class_<hand::ClutchState>(m, "ClutchState",
                                "State of one breakaway clutch (seed 000 sec. II.D).")
      .def(py::init<>())
      .def(py::init([](bool broken, double break_position) {
             return hand::ClutchState{broken, break_position};
           }),
           py::arg("broken"), py::arg("break_position") = 0.0)
      .def_readwrite("broken", &hand::ClutchState::broken,
                     "True while the inner joint is disengaged and locked.")
      .def_readwrite("break_position", &hand::ClutchState::break_position,
                     "Actuator position when it broke away [actuator unit].")
      .def("__repr__", [](const hand::ClutchState& c) {
        return "ClutchState(broken=" + std::string(c.broken ? "True" : "False") +
               ", break_position=" + std::to_string(c.break_position) + ")";
      });
}

// What a hand is made of: fingers, joints, actuators, tendons, poses.
void bindHandParts(HandClass& h) {
  h.def_readonly("id", &HandModel::id, "Short id ('barrett'; a URDF's robot name).")
      .def_readonly("name", &HandModel::name, "Display name.")
      .def_readonly("description", &HandModel::description, "Free text from the hand file.")
      .def_readonly("source_file", &HandModel::source_file, "The file the hand was read from.")
      .def_property_readonly(
          "fingers",
          [](const HandModel& x) {
            std::vector<std::string> out;
            for (const auto& f : x.fingers) out.push_back(f.name);
            return out;
          },
          "Finger names.")
      .def_property_readonly(
          "actuators",
          [](const HandModel& x) {
            std::vector<std::string> out;
            for (const auto& a : x.actuators) out.push_back(a.name);
            return out;
          },
          "Actuator names.")
      .def_property_readonly(
          "actuator_torque_limits",
          [](const HandModel& x) {
            std::vector<double> out;
            for (const auto& a : x.actuators) out.push_back(a.servo.torque_limit);
            return out;
          },
          "Each actuator's servo torque limit at its primary joint [N m, or N]: the bound of "
          "its effort, in position and in torque mode (Run.actuator_modes).")
      .def_property_readonly(
          "actuator_units",
          [](const HandModel& x) {
            std::vector<std::string> out;
            for (const auto& a : x.actuators) out.push_back(a.unit);
            return out;
          },
          "Each actuator's unit ('counts', 'rad' or 'm').")
      .def_property_readonly(
          "actuator_ranges",
          [](const HandModel& x) {
            Eigen::MatrixXd r(static_cast<Eigen::Index>(x.actuators.size()), 2);
            for (std::size_t a = 0; a < x.actuators.size(); ++a)
              r.row(static_cast<Eigen::Index>(a)) << x.actuators[a].lower, x.actuators[a].upper;
            return r;
          },
          "(na, 2) array of each actuator's [lower, upper] [actuator unit].")
      .def_property_readonly(
          "tendons",
          [](const HandModel& x) {
            std::vector<std::string> out;
            for (const auto& t : x.tendons) out.push_back(t.name);
            return out;
          },
          "Tendon names.")
      .def_property_readonly(
          "clutches",
          [](const HandModel& x) {
            std::vector<std::string> out;
            for (const auto& c : x.clutches)
              out.push_back(x.actuators[static_cast<std::size_t>(c.actuator)].name);
            return out;
          },
          "For each breakaway clutch, the actuator it sits on.")
      .def_property_readonly(
          "poses",
          [](const HandModel& x) {
            std::vector<std::string> out;
            for (const auto& p : x.poses) out.push_back(p.name);
            return out;
          },
          "Named poses of the hand file.");
}

// Looking parts up by name and the chains' rows and poses.
void bindHandLookups(HandClass& h) {
  h.def("finger_index", &HandModel::fingerIndex, py::arg("name"),
        "Index of a finger by name, -1 when there is none.")
      .def("actuator_index", &HandModel::actuatorIndex, py::arg("name"),
           "Index of an actuator by name, -1 when there is none.")
      .def(
          "dof", [](const HandModel& x, int f) { return finger(x, f).dof(); }, py::arg("finger"),
          "Number of movable joints of a finger.")
      .def(
          "joint_names",
          [](const HandModel& x, int f) {
            const auto& c = finger(x, f);
            std::vector<std::string> out;
            for (int j = 0; j < c.dof(); ++j) out.push_back(x.jointName({f, j}));
            return out;
          },
          py::arg("finger"), "Dotted names ('F1.J2') of a finger's movable joints.")
      .def(
          "joint_types",
          [](const HandModel& x, int f) {
            const auto& c = finger(x, f);
            std::vector<std::string> out;
            for (int j = 0; j < c.dof(); ++j)
              out.push_back(typeName(c.rows[static_cast<std::size_t>(c.rowOfJoint(j))].type));
            return out;
          },
          py::arg("finger"), "'revolute' or 'prismatic' for each movable joint.")
      .def(
          "joint_limits",
          [](const HandModel& x, int f) {
            const auto& c = finger(x, f);
            Eigen::MatrixXd r(c.dof(), 2);
            for (int j = 0; j < c.dof(); ++j) {
              const auto& row = c.rows[static_cast<std::size_t>(c.rowOfJoint(j))];
              r.row(j) << row.lower, row.upper;
            }
            return r;
          },
          py::arg("finger"), "(dof, 2) array of [lower, upper] joint limits [rad or m].")
      .def(
          "dh_rows",
          [](const HandModel& x, int f) {
            py::list out;
            for (const auto& row : finger(x, f).rows) out.append(rowDict(row));
            return out;
          },
          py::arg("finger"),
          "The finger's joint rows, base to tip (docs/kinematics.md, 'Joint frames'): dicts "
          "with form 'dh' (standard DH, T = Rz(theta + q) Tz(d + q) Tx(a) Rx(alpha), q added "
          "to theta for revolute and to d for prismatic rows) or 'placement' (URDF joints: "
          "T = placement Rot(axis, q) or placement Trans(axis q)); a [m], alpha [rad], d [m], "
          "theta [rad], placement (4x4), axis (unit, joint frame), type and the joint limits. "
          "chain_fk() takes the same dicts.")
      .def(
          "base",
          [](const HandModel& x, int f) { return Eigen::Matrix4d(finger(x, f).base.matrix()); },
          py::arg("finger"), "4x4 transform of the finger base {k0} in the palm frame {P}.")
      .def(
          "pose",
          [](const HandModel& x, const std::string& name) {
            const hand::NamedPose* p = x.pose(name);
            if (!p)
              throw std::invalid_argument("no pose named '" + name + "' in hand '" + x.id + "'");
            std::vector<Vector> out;
            for (const auto& v : p->q)
              out.push_back(
                  Eigen::Map<const Vector>(v.data(), static_cast<Eigen::Index>(v.size())));
            return out;
          },
          py::arg("name"), "Joint values of a named pose, one array per finger [rad or m].");
}

/// The arm group (docs/arm.md): its joints, forward kinematics and reach.
void bindHandArm(HandClass& h) {
  const auto armOf = [](const HandModel& x) -> const hand::ArmModel& {
    if (x.arm.empty())
      throw std::invalid_argument("hand '" + x.id +
                                  "' has no arm (load a URDF hand with palm='LINK')");
    return x.arm;
  };
  h.def_property_readonly(
      "grasp_defaults",
      [](const HandModel& x) {
        const planner::GraspSummary g = planner::graspSummary(x);
        py::list closing;
        for (std::size_t i = 0; i < g.closing_actuators.size(); ++i)
          closing.append(py::make_tuple(
              x.actuators[static_cast<std::size_t>(g.closing_actuators[i])].name,
              g.closing_directions[i] > 0 ? "upper" : "lower"));
        py::list others;
        for (int a : g.not_closing) others.append(x.actuators[static_cast<std::size_t>(a)].name);
        py::dict d;
        d["source"] = planner::sourceName(g.source);
        d["closing_actuators"] = closing;
        d["not_closing"] = others;
        d["approach_palm"] = Eigen::Vector3d(g.approach_palm);
        d["approach_origin_palm"] = Eigen::Vector3d(g.approach_origin_palm);
        if (g.source == planner::GraspSummary::Source::Inferred) {
          d["pinch"] = g.inferred.pinch;
          d["palm_normal"] = Eigen::Vector3d(g.inferred.palm_normal);
        }
        return d;
      },
      "What the planner closes and how it approaches (docs/planner.md): a dict with 'source' "
      "('file': the hand file's grasp key; 'inferred': read from the kinematics for a hand that "
      "names no closing actuators, e.g. a URDF without a sidecar), 'closing_actuators' as "
      "(name, 'upper'|'lower') pairs, 'not_closing', 'approach_palm', 'approach_origin_palm' "
      "[m], and for inferred defaults 'pinch' and 'palm_normal'.");
  h.def_property_readonly(
      "contact_points",
      [](const HandModel& x) {
        py::list out;
        for (const hand::PresetContactPoint& c : x.contact_points) {
          py::dict d;
          d["body"] = c.finger < 0 ? std::string("palm")
                                   : x.fingers[static_cast<std::size_t>(c.finger)].name + "." +
                                         x.fingers[static_cast<std::size_t>(c.finger)]
                                             .joint_names[static_cast<std::size_t>(c.row)];
          d["point"] = Eigen::Vector3d(c.point_body);
          d["normal"] = Eigen::Vector3d(c.normal_body);
          out.append(d);
        }
        return out;
      },
      "The hand file's preset contact points of the grasp planner (docs/hand-format.md, "
      "'Contact points'): dicts with 'body' ('palm' or the link's joint, 'F1.J2'), 'point' [m] "
      "and unit 'normal' in that body's frame. Empty: the planner generates them from the "
      "meshes.");
  h.def_property_readonly(
       "arm_joint_names",
       [](const HandModel& x) {
         std::vector<std::string> names;
         const kinematics::Chain& c = x.arm.chain;
         for (int j = 0; j < x.arm.dof(); ++j)
           names.push_back(c.joint_names[static_cast<std::size_t>(c.rowOfJoint(j))]);
         return names;
       },
       "The arm's joints, base to palm (empty without an arm; docs/arm.md).")
      .def_property_readonly(
          "arm_limits",
          [](const HandModel& x) {
            Eigen::MatrixXd l(x.arm.dof(), 2);
            const kinematics::Chain& c = x.arm.chain;
            for (int j = 0; j < x.arm.dof(); ++j) {
              const auto& row = c.rows[static_cast<std::size_t>(c.rowOfJoint(j))];
              l(j, 0) = row.lower;
              l(j, 1) = row.upper;
            }
            return l;
          },
          "Lower and upper limits of the arm's joints, one row per joint [rad or m].")
      .def(
          "arm_fk",
          [armOf](const HandModel& x, const Vector& q) {
            const hand::ArmModel& arm = armOf(x);
            kinematics::checkJointVectorSize(arm.chain, q.size(), "arm joint values");
            return Eigen::Matrix4d(kinematics::forwardKinematics(arm.chain, q).tip().matrix());
          },
          py::arg("q"), "4x4 palm frame in the arm's base (root link) frame at arm joints q.")
      .def(
          "arm_ik",
          [armOf](const HandModel& x, const Eigen::Matrix4d& palm_in_base,
                  std::optional<Vector> q0) {
            const hand::ArmModel& arm = armOf(x);
            Eigen::Isometry3d target;
            target.matrix() = palm_in_base;
            const Vector start = q0 ? *q0 : Vector::Zero(arm.dof()).eval();
            hand::ArmIkResult r;
            {
              py::gil_scoped_release release;
              r = hand::solveArmIk(arm, target, start);
            }
            py::dict out;
            out["q"] = r.q;
            out["reached"] = r.reached;
            out["miss_mm"] = r.position_error * 1e3;
            out["miss_deg"] = r.orientation_error * 180.0 / 3.14159265358979323846;
            return out;
          },
          py::arg("palm_in_base"), py::arg("q0") = py::none(),
          "The arm's joints for a palm pose (4x4, arm base frame): damped least squares on the "
          "6-D pose error within the joint limits. Returns {'q', 'reached', 'miss_mm', "
          "'miss_deg'}; an unreachable pose is not an error (reached False, the miss given).");
}

void bindHandLoading(py::module_& m) {
  m.def(
      "load_hand",
      [](const std::string& id_or_path, const std::string& palm) {
        const auto ids = hand::builtinHandIds();
        if (std::find(ids.begin(), ids.end(), id_or_path) == ids.end()) requireFile(id_or_path);
        return std::make_shared<HandModel>(hand::loadHand(id_or_path, palm));
      },
      py::arg("id_or_path"), py::arg("palm") = "",
      "A built-in hand ('barrett', 'anthro20', 'dexterous3', 'kthand') or a hand file. palm: "
      "the URDF link that is the palm; the joints from the root link to it are the arm "
      "(docs/arm.md). Raises InputError (file, line, column, field) for a bad file, "
      "FileNotFoundError for a missing one.");
  m.def("builtin_hands", &hand::builtinHandIds, "Ids of the shipped hands.");
  m.def("asset_directory", &hand::assetDirectory,
        "The folder of the shipped hands, objects and scenarios.");
}

}  // namespace

void bindHand(py::module_& m) {
  bindClutchState(m);
  py::class_<HandModel, std::shared_ptr<HandModel>> h(
      m, "Hand",
      "A hand model read from a hand file (docs/hand-format.md): fingers as standard-DH chains, "
      "actuators and their couplings, breakaway clutches, tendons, named poses. Fingers are "
      "indexed 0..len(fingers)-1 or named.");
  bindHandParts(h);
  bindHandLookups(h);
  bindHandForwardKinematics(h);
  bindHandJacobians(h);
  bindHandIk(h);
  bindHandIkThroughParts(h);
  bindHandTransmission(h);
  bindHandDynamics(h);
  bindHandArm(h);
  bindHandLoading(m);
  bindChains(m);
}

}  // namespace handsim::python
