// SPDX-License-Identifier: GPL-3.0-or-later
// Seed 004's three grippers (assets/hands/gripper2p, gripper2r, gripper3r; docs/hands.md):
// fingertip positions from the DH chains against the closed forms of the documented
// dimensions, the fingertips closing across a 50 mm object, closed link meshes lying along
// their DH links with the pads where the fingertips are, and servos that squeeze about 10 N
// per pad and are stable at dt = 1 ms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "handsim/collision/overlap_volume.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/mesh_loader.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/sim/stability.hpp"

using namespace handsim;

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kDeg = kPi / 180.0;

const hand::NamedPose& pose(const hand::HandModel& h, const std::string& name) {
  for (const auto& p : h.poses)
    if (p.name == name) return p;
  throw std::runtime_error("no pose " + name + " in " + h.id);
}

kinematics::JointVector vec(const std::vector<double>& v) {
  kinematics::JointVector q(static_cast<Eigen::Index>(v.size()));
  for (std::size_t i = 0; i < v.size(); ++i) q[static_cast<Eigen::Index>(i)] = v[i];
  return q;
}

// Fingertip (last frame's origin) of finger f in the palm frame.
Eigen::Vector3d tipPalm(const hand::HandModel& h, std::size_t f, const std::vector<double>& q) {
  const auto& chain = h.fingers[f];
  return chain.base * kinematics::fingertipPosition(chain, vec(q));
}

std::vector<Eigen::Vector3d> tipsAt(const hand::HandModel& h, const std::string& name) {
  const auto& p = pose(h, name);
  std::vector<Eigen::Vector3d> tips;
  for (std::size_t f = 0; f < h.fingers.size(); ++f) tips.push_back(tipPalm(h, f, p.q[f]));
  return tips;
}

// Diameter of the circle through three points: 2 R = a b c / (2 area).
double circleDiameter(const Eigen::Vector3d& a, const Eigen::Vector3d& b,
                      const Eigen::Vector3d& c) {
  const double area = 0.5 * (b - a).cross(c - a).norm();
  return (b - a).norm() * (c - b).norm() * (a - c).norm() / (2.0 * area);
}

// Largest distance of the mesh's vertices from the segment x in [-a, 0] on the x axis.
double distanceFromLink(const geometry::TriangleMesh& mesh, double a) {
  double worst = 0.0;
  for (const auto& v : mesh.vertices) {
    const double x = std::clamp(v.x(), -a, 0.0);
    worst = std::max(worst, (v - Eigen::Vector3d(x, 0, 0)).norm());
  }
  return worst;
}

geometry::TriangleMesh loadClosed(const std::string& path) {
  const auto model = geometry::loadMesh(path);
  EXPECT_TRUE(model.warnings.empty()) << path;
  const auto mesh = model.merged();
  const collision::MeshClosure closure = collision::checkMeshClosure(mesh);
  EXPECT_TRUE(closure.closed) << path << ": " << closure.describe();
  EXPECT_GT(geometry::signedVolume(mesh), 0.0) << path << ": faces point inwards";
  return mesh;
}

// Every mesh of the hand is closed; every link mesh lies within `radius` of its DH link and
// above the palm's top face (z >= 0 in the palm frame) at the named poses.
void checkMeshes(const hand::HandModel& h, double radius) {
  loadClosed(h.palm_mesh);
  for (std::size_t f = 0; f < h.fingers.size(); ++f) {
    const auto& chain = h.fingers[f];
    for (std::size_t r = 0; r < chain.rows.size(); ++r) {
      ASSERT_FALSE(h.link_meshes[f][r].empty()) << h.id << " finger " << f << " row " << r;
      const auto mesh = loadClosed(h.link_meshes[f][r]);
      EXPECT_LE(distanceFromLink(mesh, chain.rows[r].a), radius) << h.link_meshes[f][r];
      for (const char* name : {"open", "closed"}) {
        const auto frames = kinematics::forwardKinematics(chain, vec(pose(h, name).q[f]));
        const Eigen::Isometry3d to_palm = chain.base * frames.at(static_cast<int>(r) + 1);
        for (const auto& v : mesh.vertices)
          EXPECT_GE((to_palm * v).z(), -1e-12)
              << h.link_meshes[f][r] << " below the palm at " << name;
      }
    }
  }
}

double stableStepAt(const hand::HandModel& h, const std::string& name) {
  std::vector<kinematics::JointVector> q;
  for (const auto& v : pose(h, name).q) q.push_back(vec(v));
  return sim::stableStep(h, q, {}).dt_max;
}

int actuatorIndex(const hand::HandModel& h, const std::string& name) {
  for (std::size_t a = 0; a < h.actuators.size(); ++a)
    if (h.actuators[a].name == name) return static_cast<int>(a);
  return -1;
}

}  // namespace

TEST(Seed004Grippers, AreBuiltInWithPosesAndGraspActuators) {
  const auto ids = hand::builtinHandIds();
  for (const char* id : {"gripper2p", "gripper2r", "gripper3r"}) {
    ASSERT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << id;
    const hand::HandModel h = hand::loadHand(id);
    EXPECT_EQ(h.id, id);
    EXPECT_NO_THROW(pose(h, "open")) << id;
    EXPECT_NO_THROW(pose(h, "closed")) << id;
    EXPECT_FALSE(h.closing_actuators.empty()) << id;
    // Every movable joint is driven by a named (coupled) actuator, none by a default one.
    for (const auto& a : h.actuators) EXPECT_GE(a.drives.size(), 2u) << id << " " << a.name;
    for (const auto& chain : h.fingers)
      for (const auto& link : chain.links) {
        EXPECT_GT(link.mass, 0.0) << id;
        EXPECT_GT(link.inertia.trace(), 0.0) << id;
      }
  }
}

TEST(Seed004Grippers, PrismaticJawsFollowTheirDimensions) {
  const hand::HandModel h = hand::loadHand("gripper2p");
  ASSERT_EQ(h.fingers.size(), 2u);
  ASSERT_EQ(h.actuators.size(), 1u);
  // Documented: jaw bases 50 mm either side of the palm centre, fingertips 70 mm above the
  // palm top on the pad faces, each jaw closing by q along x: x = -/+(50 mm - q).
  for (const double q : {0.0, 0.01, 0.025, 0.045, 0.05}) {
    const Eigen::Vector3d l = tipPalm(h, 0, {q}), r = tipPalm(h, 1, {q});
    EXPECT_NEAR((l - Eigen::Vector3d(-0.05 + q, 0, 0.07)).norm(), 0.0, 1e-15) << q;
    EXPECT_NEAR((r - Eigen::Vector3d(0.05 - q, 0, 0.07)).norm(), 0.0, 1e-15) << q;
  }
  const auto open = tipsAt(h, "open"), closed = tipsAt(h, "closed");
  const double gap_open = (open[1] - open[0]).norm(), gap_closed = (closed[1] - closed[0]).norm();
  EXPECT_NEAR(gap_open, 0.100, 1e-15);
  EXPECT_NEAR(gap_closed, 0.010, 1e-15);
  EXPECT_LT(gap_closed, 0.05);
  EXPECT_GT(gap_open, 0.05);
  // Full travel: 100 mm down to 0.
  EXPECT_DOUBLE_EQ(h.fingers[0].rows[0].upper, 0.05);
  EXPECT_DOUBLE_EQ(h.fingers[0].rows[0].lower, 0.0);
}

TEST(Seed004Grippers, PrismaticPadsAreWhereTheFingertipsAre) {
  const hand::HandModel h = hand::loadHand("gripper2p");
  checkMeshes(h, 0.032);
  // The jaw mesh (row 2, frame = fingertip, z towards the other jaw): its innermost face is
  // the plane z = 0 through the fingertip, 40 mm tall from the fingertip down and 30 mm wide,
  // so the pad-face gap is the fingertip gap.
  const auto jaw = loadClosed(h.link_meshes[0][1]);
  double zmax = -1.0, xmin = 1.0, xmax = -1.0, ymin = 1.0, ymax = -1.0;
  for (const auto& v : jaw.vertices) zmax = std::max(zmax, v.z());
  for (const auto& v : jaw.vertices)
    if (std::abs(v.z() - zmax) < 1e-12) {
      xmin = std::min(xmin, v.x()), xmax = std::max(xmax, v.x());
      ymin = std::min(ymin, v.y()), ymax = std::max(ymax, v.y());
    }
  EXPECT_NEAR(zmax, 0.0, 1e-12);
  EXPECT_NEAR(xmax, 0.0, 1e-12);
  EXPECT_NEAR(xmin, -0.04, 1e-12);
  EXPECT_NEAR(ymax - ymin, 0.03, 1e-12);
}

TEST(Seed004Grippers, TwoFingerRevoluteTipsMatchClosedForm) {
  const hand::HandModel h = hand::loadHand("gripper2r");
  ASSERT_EQ(h.fingers.size(), 2u);
  // Documented: knuckles at x = -/+40 mm, z = 12 mm; phalanges 60 and 45 mm; q = 0 upright,
  // positive angles towards the other finger.
  const double l1 = 0.06, l2 = 0.045;
  for (const double q1 : {-15.0, 0.0, 10.0, 30.0})
    for (const double q2 : {0.0, 30.0, 45.0, 90.0}) {
      const double a = q1 * kDeg, b = (q1 + q2) * kDeg;
      const double x = -0.04 + l1 * std::sin(a) + l2 * std::sin(b);
      const double z = 0.012 + l1 * std::cos(a) + l2 * std::cos(b);
      EXPECT_NEAR((tipPalm(h, 0, {a, q2 * kDeg}) - Eigen::Vector3d(x, 0, z)).norm(), 0, 1e-15);
      EXPECT_NEAR((tipPalm(h, 1, {a, q2 * kDeg}) - Eigen::Vector3d(-x, 0, z)).norm(), 0, 1e-15);
    }
  // Named poses: open (-15, 0) deg, tips 2 (40 + 105 sin 15) = 134.35 mm apart; closed
  // (0, 45) deg, 2 (40 - 45 sin 45) = 16.36 mm.
  const auto open = tipsAt(h, "open"), closed = tipsAt(h, "closed");
  const double gap_open = (open[1] - open[0]).norm(), gap_closed = (closed[1] - closed[0]).norm();
  EXPECT_NEAR(gap_open, 2 * (0.04 + 0.105 * std::sin(15 * kDeg)), 1e-15);
  EXPECT_NEAR(gap_closed, 2 * (0.04 - 0.045 * std::sin(45 * kDeg)), 1e-15);
  EXPECT_LT(gap_closed, 0.05);
  EXPECT_GT(gap_open, 0.05);
  // At q1 = 0 the proximal links' inner faces (9 mm from their axes) leave room for 50 mm.
  EXPECT_GT(2 * (0.04 - 0.009), 0.05);
  checkMeshes(h, 0.015);
}

TEST(Seed004Grippers, ThreeFingerRevoluteTipsMatchClosedForm) {
  const hand::HandModel h = hand::loadHand("gripper3r");
  ASSERT_EQ(h.fingers.size(), 3u);
  // Documented: knuckles on a 40 mm radius at azimuths 0, 120, 240 deg, z = 12 mm; phalanges
  // 50 and 40 mm flexing towards the axis: rho = 40 mm - l1 sin q1 - l2 sin(q1 + q2).
  const double l1 = 0.05, l2 = 0.04;
  for (const double q1 : {-15.0, 0.0, 20.0})
    for (const double q2 : {0.0, 45.0, 80.0})
      for (std::size_t k = 0; k < 3; ++k) {
        const double a = q1 * kDeg, b = (q1 + q2) * kDeg,
                     phi = 120.0 * kDeg * static_cast<double>(k);
        const double rho = 0.04 - l1 * std::sin(a) - l2 * std::sin(b);
        const double z = 0.012 + l1 * std::cos(a) + l2 * std::cos(b);
        const Eigen::Vector3d expected(rho * std::cos(phi), rho * std::sin(phi), z);
        EXPECT_NEAR((tipPalm(h, k, {a, q2 * kDeg}) - expected).norm(), 0, 1e-15) << k;
      }
  // Named poses: the circle through the tips, diameter 2 (40 + 90 sin 15) = 126.59 mm open
  // and 2 (40 - 40 sin 45) = 23.43 mm closed.
  const auto open = tipsAt(h, "open"), closed = tipsAt(h, "closed");
  const double d_open = circleDiameter(open[0], open[1], open[2]);
  const double d_closed = circleDiameter(closed[0], closed[1], closed[2]);
  EXPECT_NEAR(d_open, 2 * (0.04 + 0.09 * std::sin(15 * kDeg)), 1e-14);
  EXPECT_NEAR(d_closed, 2 * (0.04 - 0.04 * std::sin(45 * kDeg)), 1e-14);
  EXPECT_LT(d_closed, 0.05);
  EXPECT_GT(d_open, 0.05);
  checkMeshes(h, 0.015);
}

TEST(Seed004Grippers, RevolutePadsFaceTheClosingDirection) {
  // The distal phalanx's flat +y side is the pad: it spans the whole link (x from -a to 0) at
  // y = 8 mm, and +y of the distal frame points towards the gripper axis.
  for (const char* id : {"gripper2r", "gripper3r"}) {
    const hand::HandModel h = hand::loadHand(id);
    for (std::size_t f = 0; f < h.fingers.size(); ++f) {
      const auto& chain = h.fingers[f];
      const auto mesh = loadClosed(h.link_meshes[f][1]);
      double ymax = -1.0, xmin = 1.0, xmax = -1.0;
      for (const auto& v : mesh.vertices) ymax = std::max(ymax, v.y());
      for (const auto& v : mesh.vertices)
        if (std::abs(v.y() - ymax) < 1e-12)
          xmin = std::min(xmin, v.x()), xmax = std::max(xmax, v.x());
      EXPECT_NEAR(ymax, 0.008, 1e-12) << id;
      EXPECT_NEAR(xmin, -chain.rows[1].a, 1e-12) << id;
      EXPECT_NEAR(xmax, 0.0, 1e-12) << id;
      const auto frames = kinematics::forwardKinematics(chain, vec(pose(h, "open").q[f]));
      const Eigen::Isometry3d distal = chain.base * frames.at(2);
      Eigen::Vector3d inward = -distal.translation();
      inward.z() = 0.0;
      EXPECT_GT(distal.linear().col(1).dot(inward.normalized()), 0.9) << id << " finger " << f;
    }
  }
}

TEST(Seed004Grippers, ServosSqueezeAboutTenNewtonsPerPadAndAreStableAtOneMillisecond) {
  {
    // Prismatic: a 50 mm object stops each jaw at q = 25 mm, 25 mm short of the closing
    // target (the range's upper end). Virtual work with one actuator coordinate driving both
    // jaws at ratio 1: F_actuator = f_left + f_right, so each pad gets half the servo force.
    const hand::HandModel h = hand::loadHand("gripper2p");
    const auto& act = h.actuators.front();
    const double servo = std::clamp(act.servo.kp * (act.upper - 0.025), -act.servo.torque_limit,
                                    act.servo.torque_limit);
    EXPECT_NEAR(servo / 2.0, 10.0, 1e-12);
  }
  for (const char* id : {"gripper2r", "gripper3r"}) {
    // Revolute: the object pushes along -y2 on the middle of the distal pad with the proximal
    // link upright and the distal one at 30 deg. Per unit force the moment about J2 is l2 / 2
    // and about J1 is l1 cos(q2) + l2 / 2 (the force's line is normal to the distal link).
    // The largest pad force the two saturated servos hold, each split over the fingers:
    const hand::HandModel h = hand::loadHand(id);
    const double n = static_cast<double>(h.fingers.size());
    const double l1 = h.fingers[0].rows[0].a, l2 = h.fingers[0].rows[1].a, q2 = 30 * kDeg;
    const int close = actuatorIndex(h, "close"), curl = actuatorIndex(h, "curl");
    ASSERT_GE(close, 0);
    ASSERT_GE(curl, 0);
    const double tau1 = h.actuators[static_cast<std::size_t>(close)].servo.torque_limit / n;
    const double tau2 = h.actuators[static_cast<std::size_t>(curl)].servo.torque_limit / n;
    const double f = std::min(tau1 / (l1 * std::cos(q2) + l2 / 2), tau2 / (l2 / 2));
    EXPECT_GT(f, 8.0) << id;
    EXPECT_LT(f, 12.0) << id;
    // The servos saturate before the fingers reach a 50 mm object: at most 0.5 rad short.
    for (int a : {close, curl}) {
      const auto& act = h.actuators[static_cast<std::size_t>(a)];
      EXPECT_LE(act.servo.torque_limit / act.servo.kp, 0.5) << id << " " << act.name;
    }
  }
  for (const char* id : {"gripper2p", "gripper2r", "gripper3r"}) {
    const hand::HandModel h = hand::loadHand(id);
    for (const char* name : {"open", "closed"})
      EXPECT_GT(stableStepAt(h, name), 1e-3) << id << " " << name;
  }
}
