// SPDX-License-Identifier: GPL-3.0-or-later
// sim::placeObjectInReach: an imported object lands clear of the hand (checked with the contact
// stage's own query, sim::handTouchesObjects, and a plain vertex-in-box test) and within the
// fingers' reach (brute-force distance to sampled fingertip workspace points).
#include "handsim/tools/placement.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>

#include "../support/corpus.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/geometry/mass_properties.hpp"
#include "handsim/hand/transmission_ik.hpp"
#include "handsim/kinematics/workspace.hpp"
#include "handsim/sim/step.hpp"

namespace handsim {
namespace {

const std::string kMustard = test::corpusPath("meshes/ycb_mustard_bottle.obj");
// Reach bound: some fingertip workspace point lies within this distance of the object's surface.
constexpr double kReachBound = 0.01;  // [m]

// A closed UV sphere of `rings` x `segments` quads (two triangles each, minus the pole
// slivers' degenerate halves kept: they do not matter for contacts).
geometry::TriangleMesh uvSphere(double r, int rings, int segments) {
  geometry::TriangleMesh m;
  const double pi = 3.14159265358979323846;
  for (int i = 0; i <= rings; ++i)
    for (int j = 0; j < segments; ++j) {
      const double th = pi * i / rings, ph = 2.0 * pi * j / segments;
      m.vertices.emplace_back(r * std::sin(th) * std::cos(ph), r * std::sin(th) * std::sin(ph),
                              r * std::cos(th));
    }
  auto id = [&](int i, int j) { return i * segments + (j % segments); };
  for (int i = 0; i < rings; ++i)
    for (int j = 0; j < segments; ++j) {
      m.triangles.push_back({id(i, j), id(i + 1, j), id(i + 1, j + 1)});
      m.triangles.push_back({id(i, j), id(i + 1, j + 1), id(i, j + 1)});
    }
  m.updateNormals();
  return m;
}

sim::ObjectModel objectFromMesh(geometry::TriangleMesh mesh, const std::string& name) {
  sim::ObjectModel o;
  o.name = name;
  auto g = std::make_shared<sim::BodyGeometry>();
  g->collision = sim::makeCollisionBody(std::move(mesh), 18);
  o.geometry = g;
  return o;
}

std::vector<sim::ObjectModel> shippedObjects() {
  std::vector<sim::ObjectModel> objects;
  for (const char* f : {"cube", "cylinder", "sphere", "bottle", "mug"})
    objects.push_back(sim::loadObject(hand::assetDirectory() + "/objects/" + f + ".wrl"));
  objects.push_back(objectFromMesh(uvSphere(0.03, 224, 224), "sphere100k"));
  if (std::filesystem::exists(kMustard)) objects.push_back(sim::loadObject(kMustard));
  return objects;
}

// Every fingertip workspace point of the hand (grid, every joint through its range), world.
// What the fingers reach: points along every finger's last link (from the origin of its last
// frame but one to its tip) over a grid of joint values. A pad grasps along its whole face, not
// only at the tip (seed 004's parallel jaws), so the whole distal link counts.
std::vector<Eigen::Vector3d> fingertipWorkspace(const sim::Model& model,
                                                const sim::SimState& state) {
  std::vector<Eigen::Vector3d> points;
  for (const kinematics::Chain& chain : model.hand().fingers) {
    kinematics::WorkspaceOptions opt;
    opt.samples_per_joint = chain.dof() > 3 ? 5 : 12;
    for (const kinematics::JointVector& q : kinematics::workspaceJointSamples(chain, opt)) {
      const kinematics::ChainFrames frames = kinematics::forwardKinematics(chain, q);
      const Eigen::Vector3d tip = frames.tip().translation();
      const Eigen::Vector3d before = frames.at(std::max(0, frames.count - 2)).translation();
      for (int k = 0; k <= 4; ++k)
        points.push_back(state.palm_pose_world *
                         (chain.base * (before + (tip - before) * (k / 4.0))));
    }
  }
  return points;
}

double distanceToWorkspace(const geometry::TriangleMesh& mesh, const Eigen::Isometry3d& pose,
                           const std::vector<Eigen::Vector3d>& workspace) {
  double best = std::numeric_limits<double>::infinity();
  const std::size_t stride = std::max<std::size_t>(1, mesh.vertices.size() / 1000);
  for (std::size_t v = 0; v < mesh.vertices.size(); v += stride) {
    const Eigen::Vector3d p = pose * mesh.vertices[v];
    for (const Eigen::Vector3d& w : workspace) best = std::min(best, (p - w).norm());
  }
  return best;
}

// Generalised winding number of a closed mesh about p: the sum of the triangles' signed solid
// angles (Van Oosterom and Strackee, 1983) over 4 pi; 1 inside, 0 outside. Independent of the
// ray-parity test that placement uses.
double windingNumber(const geometry::TriangleMesh& mesh, const Eigen::Isometry3d& pose,
                     const Eigen::Vector3d& p_world) {
  const Eigen::Vector3d p = pose.inverse() * p_world;
  double sum = 0.0;
  for (const auto& t : mesh.triangles) {
    const Eigen::Vector3d a = mesh.vertices[static_cast<std::size_t>(t[0])] - p;
    const Eigen::Vector3d b = mesh.vertices[static_cast<std::size_t>(t[1])] - p;
    const Eigen::Vector3d c = mesh.vertices[static_cast<std::size_t>(t[2])] - p;
    const double la = a.norm(), lb = b.norm(), lc = c.norm();
    const double num = a.dot(b.cross(c));
    const double den = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
    sum += 2.0 * std::atan2(num, den);
  }
  return sum / (4.0 * 3.14159265358979323846);
}

// Some collision vertex of the palm or a link lies inside the (closed) object, or a vertex of
// the object inside a hand body: one body wholly inside the other is a collision that a
// surface test misses.
bool handAndObjectNest(const sim::Model& model, const sim::SimState& state,
                       const geometry::TriangleMesh& mesh, const Eigen::Isometry3d& pose) {
  // Only points within a mesh's bounding sphere can be inside it.
  Eigen::Vector3d centre = Eigen::Vector3d::Zero();
  for (const Eigen::Vector3d& v : mesh.vertices) centre += v;
  centre /= static_cast<double>(mesh.vertices.size());
  double radius = 0.0;
  for (const Eigen::Vector3d& v : mesh.vertices) radius = std::max(radius, (v - centre).norm());
  const Eigen::Vector3d centre_world = pose * centre;
  auto nests = [&](const sim::CollisionBody& body, const Eigen::Isometry3d& body_pose) {
    if (body.mesh.vertices.empty()) return false;
    for (const Eigen::Vector3d& v : body.mesh.vertices) {
      const Eigen::Vector3d w = body_pose * v;
      if ((w - centre_world).norm() <= radius && windingNumber(mesh, pose, w) > 0.5) return true;
    }
    return windingNumber(body.mesh, body_pose, pose * mesh.vertices.front()) > 0.5;
  };
  const sim::HandGeometry& g = *model.hand_geometry;
  if (nests(g.palm.collision, state.palm_pose_world)) return true;
  for (std::size_t f = 0; f < g.links.size(); ++f)
    for (std::size_t r = 0; r < g.links[f].size(); ++r)
      if (nests(g.links[f][r].collision,
                sim::linkPoseWorld(model, state, static_cast<int>(f), static_cast<int>(r))))
        return true;
  return false;
}

TEST(Placement, EveryShippedObjectLandsClearOfEveryShippedHandAndWithinReach) {
  const std::vector<sim::ObjectModel> objects = shippedObjects();
  double worst_gap = 0.0;
  for (const std::string& id : hand::builtinHandIds()) {
    auto hand = std::make_shared<const hand::HandModel>(hand::loadHand(id));
    const auto model = sim::compileModel(hand, {});
    // A palm turned and moved in the world, so nothing relies on the identity.
    Eigen::Isometry3d palm = Eigen::Isometry3d::Identity();
    palm.translate(Eigen::Vector3d(0.1, -0.2, 0.3));
    palm.rotate(Eigen::AngleAxisd(0.7, Eigen::Vector3d(1, 2, 0.5).normalized()));
    const sim::SimState state = sim::makeState(*model, {}, palm);
    const std::vector<Eigen::Vector3d> workspace = fingertipWorkspace(*model, state);
    for (const sim::ObjectModel& o : objects) {
      SCOPED_TRACE(id + " / " + o.name);
      const sim::Placement p = sim::placeObjectInReach(*model, state, o);
      ASSERT_TRUE(p.clear);
      // The contact stage's query with the object in the model at that pose.
      const auto with = sim::withObjects(*model, {o});
      sim::SimState s = state;
      s.object_pose_world = {p.pose_world};
      EXPECT_FALSE(sim::handTouchesObjects(*with, s));
      // Skip the nesting check for open meshes (the mug): their winding number is not 0 or 1.
      if (geometry::checkClosed(o.geometry->collision.mesh).closed) {
        EXPECT_FALSE(handAndObjectNest(*model, state, o.geometry->collision.mesh, p.pose_world));
      }
      // In front of the palm: the object's centre lies on the approach side.
      const Eigen::Vector3d approach = palm.linear() * hand->approach_palm;
      const Eigen::Vector3d centre_world = p.pose_world * o.geometry->collision.centre;
      EXPECT_GT((centre_world - palm.translation()).dot(approach), 0.0);
      double gap = distanceToWorkspace(o.geometry->collision.mesh, p.pose_world, workspace);
      // A finger that sweeps through the object reaches it wherever the vertices are (a 50 mm
      // cube between parallel jaws: its corners are 25 mm off the jaws' centre lines).
      if (gap >= kReachBound && geometry::checkClosed(o.geometry->collision.mesh).closed)
        for (const Eigen::Vector3d& w : workspace)
          if (windingNumber(o.geometry->collision.mesh, p.pose_world, w) > 0.5) {
            gap = 0.0;
            break;
          }
      // Seed 004's grippers are sized for its 40-60 mm objects (docs/hands.md): larger ones
      // (bottles, the mug) land clear of them but beyond what their short fingers reach.
      const bool gripper = id.rfind("gripper", 0) == 0;
      const bool seed004_object = o.name == "cube" || o.name == "sphere50" ||
                                  o.name == "lumpy_bunny";
      if (gripper && !seed004_object) continue;
      EXPECT_LT(gap, kReachBound);
      worst_gap = std::max(worst_gap, gap);
      // Upright: the orientation follows the world.
      EXPECT_TRUE(p.pose_world.linear().isIdentity(1e-12));
    }
  }
  std::printf("largest object-to-fingertip-workspace gap: %.4f m\n", worst_gap);
}

TEST(Placement, TheBottleLandsClearOfEveryHandInEveryNamedPose) {
  // The YCB mustard bottle when the corpus is there, else the shipped bottle.
  const sim::ObjectModel bottle =
      sim::loadObject(std::filesystem::exists(kMustard)
                          ? std::string(kMustard)
                          : hand::assetDirectory() + "/objects/bottle.wrl");
  int poses = 0;
  for (const std::string& id : hand::builtinHandIds()) {
    auto hand = std::make_shared<const hand::HandModel>(hand::loadHand(id));
    const auto model = sim::compileModel(hand, {});
    const auto with = sim::withObjects(*model, {bottle});
    for (const hand::NamedPose& pose : hand->poses) {
      SCOPED_TRACE(id + " / " + pose.name);
      const sim::SimState zero = sim::makeState(*model);
      std::vector<kinematics::JointVector> q;
      for (const auto& v : pose.q) q.push_back(Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size())));
      const sim::SimState state = sim::makeState(
          *model, hand::actuatorsForJoints(*hand, q, zero.actuator_position, zero.clutches));
      const sim::Placement p = sim::placeObjectInReach(*model, state, bottle);
      ASSERT_TRUE(p.clear);
      sim::SimState s = sim::makeState(*with, state.actuator_position);
      s.object_pose_world = {p.pose_world};
      EXPECT_FALSE(sim::handTouchesObjects(*with, s));
      ++poses;
    }
  }
  EXPECT_GE(poses, 8);  // the shipped hands name 8 poses
}

TEST(Placement, AvoidsObjectsAlreadyInTheScene) {
  auto hand = std::make_shared<const hand::HandModel>(hand::loadHand("barrett"));
  const sim::ObjectModel cube = sim::loadObject(hand::assetDirectory() + "/objects/cube.wrl");
  const auto empty = sim::compileModel(hand, {});
  const sim::SimState s0 = sim::makeState(*empty);
  const sim::Placement first = sim::placeObjectInReach(*empty, s0, cube);
  ASSERT_TRUE(first.clear);
  // With that cube in the scene, a second cube goes further out and does not overlap it.
  const auto one = sim::withObjects(*empty, {cube});
  sim::SimState s1 = sim::makeState(*one);
  s1.object_pose_world[0] = first.pose_world;
  const sim::Placement second = sim::placeObjectInReach(*one, s1, cube);
  ASSERT_TRUE(second.clear);
  EXPECT_GT(second.distance_m, first.distance_m);
  // The cube is 5 cm on a side: centres at least that far apart along the approach.
  EXPECT_GE((second.pose_world.translation() - first.pose_world.translation()).norm(), 0.05 - 1e-9);
}

TEST(Placement, RestsOnTheGroundWhenTheApproachIsHorizontal) {
  auto hand = std::make_shared<const hand::HandModel>(hand::loadHand("barrett"));
  const sim::ObjectModel cyl = sim::loadObject(hand::assetDirectory() + "/objects/cylinder.wrl");
  const auto model = sim::compileModel(hand, {});
  // Palm z (the approach) turned to world +x, the wrist 12 cm above the ground.
  Eigen::Isometry3d palm = Eigen::Isometry3d::Identity();
  palm.translate(Eigen::Vector3d(0, 0, 0.12));
  palm.rotate(Eigen::AngleAxisd(3.14159265358979323846 / 2.0, Eigen::Vector3d::UnitY()));
  const sim::SimState s = sim::makeState(*model, {}, palm);
  sim::PlacementOptions opt;
  opt.ground_z = 0.0;
  const sim::Placement p = sim::placeObjectInReach(*model, s, cyl, opt);
  ASSERT_TRUE(p.clear);
  double lowest = std::numeric_limits<double>::infinity();
  for (const Eigen::Vector3d& v : cyl.geometry->collision.mesh.vertices)
    lowest = std::min(lowest, (p.pose_world * v).z());
  EXPECT_NEAR(lowest, 0.0, 1e-9);
  EXPECT_GT(p.pose_world.translation().x(), 0.0);  // in front of the palm, along world +x
}

TEST(Placement, ContainmentCountsAsTouching) {
  // A 50 cm sphere around the whole BarrettHand shares no surface point with it: the surface
  // test alone would call it clear.
  auto hand = std::make_shared<const hand::HandModel>(hand::loadHand("barrett"));
  const auto model = sim::compileModel(hand, {});
  const sim::SimState s = sim::makeState(*model);
  const sim::ObjectModel big = objectFromMesh(uvSphere(0.5, 24, 24), "big");
  EXPECT_TRUE(sim::bodyTouchesHand(*model, s, big.geometry->collision,
                                   Eigen::Isometry3d(Eigen::Translation3d(0, 0, 0.1))));
  // ... and so does a 4 mm sphere inside the palm's cylinder.
  const sim::ObjectModel tiny = objectFromMesh(uvSphere(0.004, 8, 8), "tiny");
  EXPECT_TRUE(sim::bodyTouchesHand(*model, s, tiny.geometry->collision,
                                   Eigen::Isometry3d(Eigen::Translation3d(0, 0, 0.03))));
  // Far away: clear.
  EXPECT_FALSE(sim::bodyTouchesHand(*model, s, tiny.geometry->collision,
                                    Eigen::Isometry3d(Eigen::Translation3d(1, 1, 1))));
}

TEST(Placement, PointInsideMeshAgreesWithTheSphereEquation) {
  const geometry::TriangleMesh m = uvSphere(1.0, 40, 40);
  // The faceted sphere lies between radius cos(pi/40) and 1: test points off that band.
  int checked = 0;
  for (double x = -1.2; x <= 1.2; x += 0.13)
    for (double y = -1.2; y <= 1.2; y += 0.17)
      for (double z = -1.2; z <= 1.2; z += 0.19) {
        const double r = std::sqrt(x * x + y * y + z * z);
        if (r > 0.98 && r < 1.01) continue;
        EXPECT_EQ(sim::pointInsideMesh(m, Eigen::Vector3d(x, y, z)), r < 1.0) << x << ' ' << y << ' ' << z;
        ++checked;
      }
  EXPECT_GT(checked, 1000);
}

TEST(Placement, MillimetreFilesAreRecognisedByTheirSize) {
  geometry::TriangleMesh bottle = uvSphere(0.095, 8, 8);  // 19 cm across
  double extent = 0.0;
  EXPECT_FALSE(sim::looksLikeMillimetres(bottle, &extent));
  EXPECT_NEAR(extent, 0.19, 1e-3);
  for (Eigen::Vector3d& v : bottle.vertices) v *= 1000.0;  // the same numbers read as metres
  EXPECT_TRUE(sim::looksLikeMillimetres(bottle, &extent));
  EXPECT_NEAR(extent, 190.0, 1.0);
  const std::string w = sim::millimetreWarning("bottle.obj", extent);
  EXPECT_NE(w.find("bottle.obj"), std::string::npos);
  EXPECT_NE(w.find("\"scale\": 0.001"), std::string::npos);
}

}  // namespace
}  // namespace handsim
