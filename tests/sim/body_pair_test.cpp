// SPDX-License-Identifier: GPL-3.0-or-later
// queryBodyPair, the contact query of two bodies whatever their collision shapes: two hulls and
// a hull with a convex mesh through the convex narrow phase, a hull with a non-convex mesh
// through the k-DOP pipeline on the hull's triangulation (checked against the pipeline called
// directly), the normal from A into B whichever body is listed first; and the files' choice of
// shape ("collision" in hand files, URDF sidecars and scenario objects) with located errors.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "handsim/collision/contact_patch.hpp"
#include "handsim/collision/convex_contact.hpp"
#include "handsim/collision/primitives.hpp"
#include "handsim/collision/tree_collision.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/io/input_error.hpp"
#include "handsim/sim/body_pair.hpp"
#include "handsim/sim/model.hpp"
#include "handsim/sim/sim_state.hpp"

#include "../support/random_pose.hpp"

using namespace handsim;
using namespace handsim::sim;
using collision::CollisionShape;

namespace {

using test::randomRigidPose;

// An L-shaped prism (not convex): the outline (0,0) (4,0) (4,1) (1,1) (1,3) (0,3) [cm], 2 cm deep.
geometry::TriangleMesh lShape() {
  const double c = 0.01;
  const Eigen::Vector2d outline[6] = {{0, 0}, {4, 0}, {4, 1}, {1, 1}, {1, 3}, {0, 3}};
  geometry::TriangleMesh m;
  for (double z : {-1.0, 1.0})
    for (const auto& p : outline) m.vertices.emplace_back(c * p.x(), c * p.y(), c * z);
  // Caps (the outline split into two convex pieces: 0 1 2 3 and 0 3 4 5), then the sides.
  const int caps[4][3] = {{0, 1, 2}, {0, 2, 3}, {0, 3, 4}, {0, 4, 5}};
  for (const auto& t : caps) {
    m.triangles.push_back({t[0], t[2], t[1]});              // bottom, facing -z
    m.triangles.push_back({t[0] + 6, t[1] + 6, t[2] + 6});  // top
  }
  for (int i = 0; i < 6; ++i) {
    const int j = (i + 1) % 6;
    m.triangles.push_back({i, j, j + 6});
    m.triangles.push_back({i, j + 6, i + 6});
  }
  m.updateNormals();
  return m;
}

}  // namespace

TEST(BodyPair, TwoHullsGiveTheConvexManifoldWithTheNormalFromAIntoB) {
  const CollisionBody box = makeCollisionBody(
      collision::makeBox(Eigen::Vector3d(0.04, 0.03, 0.02), 2), 18, CollisionShape::Hull);
  const CollisionBody ball =
      makeCollisionBody(collision::makeUvSphere(0.02, 10, 20), 18, CollisionShape::Hull);
  ASSERT_EQ(box.shape, CollisionShape::Hull);
  EXPECT_EQ(box.mesh.triangles.size(), 12u);  // the hull's triangulation, not the 48 triangles
  StepWorkspace work;
  std::vector<BodyPairContact> ab, ba;
  collision::ConvexScratch scratch;
  collision::ConvexManifold m;
  std::mt19937 rng(3);
  int hits = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Eigen::Isometry3d pa = randomRigidPose(rng, 0.02), pb = randomRigidPose(rng, 0.02);
    queryBodyPair(box, pa, ball, pb, PatchPoints::Centre, work, ab);
    queryBodyPair(ball, pb, box, pa, PatchPoints::Corners, work, ba);
    const bool hit = collision::convexContact(box.hull, pa, ball.hull, pb, scratch, m);
    ASSERT_EQ(ab.size(), static_cast<std::size_t>(hit ? m.count : 0));
    ASSERT_EQ(ab.size(), ba.size());
    hits += hit;
    for (std::size_t k = 0; k < ab.size(); ++k) {
      EXPECT_EQ(ab[k].normal_world, m.normal);
      EXPECT_EQ(ab[k].point_world, m.points[k]);
      EXPECT_EQ(ab[k].depth, m.depths[k]);
      EXPECT_EQ(ba[k].normal_world, Eigen::Vector3d(-m.normal));
      EXPECT_EQ(ba[k].point_world, m.points[k]);
    }
  }
  EXPECT_GT(hits, 100);
}

TEST(BodyPair, AHullAgainstAConvexMeshIsExactlyHullAgainstHull) {
  // A convex Mesh body keeps its hull (the mesh is that hull's boundary); a non-convex one not.
  const geometry::TriangleMesh box_mesh = collision::makeBox(Eigen::Vector3d(0.05, 0.05, 0.05), 3);
  const CollisionBody box_exact = makeCollisionBody(box_mesh, 18);
  const CollisionBody box_hull = makeCollisionBody(box_mesh, 18, CollisionShape::Hull);
  EXPECT_EQ(box_exact.shape, CollisionShape::Mesh);
  EXPECT_EQ(box_exact.mesh.triangles.size(), box_mesh.triangles.size());
  EXPECT_FALSE(box_exact.hull.empty());
  EXPECT_TRUE(makeCollisionBody(lShape(), 18).hull.empty());
  const CollisionBody tip =
      makeCollisionBody(collision::makeUvSphere(0.015, 8, 16), 18, CollisionShape::Hull);
  StepWorkspace work;
  std::vector<BodyPairContact> exact, hull;
  std::mt19937 rng(9);
  int hits = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const Eigen::Isometry3d pa = randomRigidPose(rng, 0.03), pb = randomRigidPose(rng, 0.03);
    queryBodyPair(tip, pa, box_exact, pb, PatchPoints::Corners, work, exact);
    const std::vector<BodyPairContact> first = exact;
    queryBodyPair(tip, pa, box_hull, pb, PatchPoints::Corners, work, hull);
    ASSERT_EQ(first.size(), hull.size());
    for (std::size_t k = 0; k < hull.size(); ++k) {
      EXPECT_EQ(first[k].point_world, hull[k].point_world);
      EXPECT_EQ(first[k].normal_world, hull[k].normal_world);
      EXPECT_EQ(first[k].depth, hull[k].depth);
    }
    hits += !hull.empty();
  }
  EXPECT_GT(hits, 30);
}

TEST(BodyPair, TheBroadPhaseNeverRejectsAPairThatTouches) {
  // bodiesMayTouch against the exact query of the two meshes (collision::anyContact): a pair it
  // rejects never touches, it answers the same whichever body is first, and it does reject
  // pairs that are apart.
  const CollisionBody box =
      makeCollisionBody(collision::makeBox(Eigen::Vector3d(0.06, 0.02, 0.01), 2), 18);
  const CollisionBody l_body = makeCollisionBody(lShape(), 18);
  std::mt19937 rng(31);
  int touching = 0, rejected = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const Eigen::Isometry3d pa = randomRigidPose(rng, 0.04), pb = randomRigidPose(rng, 0.04);
    const bool touch = collision::anyContact(box.tree, l_body.tree, pa.inverse() * pb);
    const bool may = bodiesMayTouch(box, pa, l_body, pb);
    EXPECT_EQ(may, bodiesMayTouch(l_body, pb, box, pa)) << "trial " << trial;  // symmetric
    if (touch) {
      EXPECT_TRUE(may) << "trial " << trial;
    }
    touching += touch;
    rejected += !may;
  }
  EXPECT_GT(touching, 40);
  EXPECT_GT(rejected, 100);
  EXPECT_FALSE(bodiesMayTouch(CollisionBody{}, Eigen::Isometry3d::Identity(), box,
                              Eigen::Isometry3d::Identity()));
}

// PatchPoints::Manifold (objects among themselves and with the palm): two convex Mesh bodies go
// through the convex narrow phase (their hulls are exactly their meshes), a non-convex one
// keeps the k-DOP pipeline's corners; a cube resting flat on a table box touches at its four
// bottom corners, each at the depth it was placed (worked here, not by the code under test).
TEST(BodyPair, ManifoldTakesTwoConvexMeshesThroughTheConvexNarrowPhase) {
  const CollisionBody cube =
      makeCollisionBody(collision::makeBox(Eigen::Vector3d::Constant(0.05)), 18);
  const CollisionBody table =
      makeCollisionBody(collision::makeBox(Eigen::Vector3d(0.3, 0.2, 0.05), 2), 18);
  ASSERT_EQ(cube.shape, CollisionShape::Mesh);
  ASSERT_FALSE(cube.hull.empty());
  ASSERT_FALSE(table.hull.empty());
  StepWorkspace work;
  std::vector<BodyPairContact> out, corners;
  collision::ConvexScratch scratch;
  collision::ConvexManifold m;
  std::mt19937 rng(5);
  int hits = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Eigen::Isometry3d pa = randomRigidPose(rng, 0.03), pb = randomRigidPose(rng, 0.03);
    queryBodyPair(cube, pa, table, pb, PatchPoints::Manifold, work, out);
    const bool hit = collision::convexContact(cube.hull, pa, table.hull, pb, scratch, m);
    ASSERT_EQ(out.size(), static_cast<std::size_t>(hit ? m.count : 0));
    for (std::size_t k = 0; k < out.size(); ++k) {
      EXPECT_EQ(out[k].point_world, m.points[k]);
      EXPECT_EQ(out[k].normal_world, m.normal);
      EXPECT_EQ(out[k].depth, m.depths[k]);
    }
    hits += hit;
  }
  EXPECT_GT(hits, 50);

  // Resting flat, 0.1 mm into the table's top face (z = 0.025), turned 30 deg about z.
  const double depth = 1e-4;
  Eigen::Isometry3d on = Eigen::Isometry3d::Identity();
  on.linear() = Eigen::AngleAxisd(M_PI / 6.0, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  on.translation() = Eigen::Vector3d(0.01, -0.02, 0.025 + 0.025 - depth);
  queryBodyPair(table, Eigen::Isometry3d::Identity(), cube, on, PatchPoints::Manifold, work, out);
  ASSERT_EQ(out.size(), 4u);
  for (const BodyPairContact& c : out) {
    EXPECT_NEAR(c.normal_world.z(), 1.0, 1e-12);  // from the table (A) into the cube (B)
    EXPECT_NEAR(c.depth, depth, 1e-12);
    // Each point is one bottom corner of the cube, within the depth of its place.
    double nearest = 1.0;
    for (double x : {-0.025, 0.025})
      for (double y : {-0.025, 0.025})
        nearest = std::min(nearest,
                           (c.point_world - on * Eigen::Vector3d(x, y, -0.025)).head<2>().norm());
    EXPECT_LT(nearest, 1e-12);
  }

  // A non-convex body keeps the pipeline: Manifold gives exactly the corners.
  const CollisionBody l_body = makeCollisionBody(lShape(), 18);
  for (int trial = 0; trial < 100; ++trial) {
    const Eigen::Isometry3d pa = randomRigidPose(rng, 0.02), pb = randomRigidPose(rng, 0.02);
    queryBodyPair(cube, pa, l_body, pb, PatchPoints::Manifold, work, out);
    const std::vector<BodyPairContact> manifold = out;
    queryBodyPair(cube, pa, l_body, pb, PatchPoints::Corners, work, corners);
    ASSERT_EQ(manifold.size(), corners.size());
    for (std::size_t k = 0; k < corners.size(); ++k) {
      EXPECT_EQ(manifold[k].point_world, corners[k].point_world);
      EXPECT_EQ(manifold[k].depth, corners[k].depth);
    }
  }
}

TEST(BodyPair, AHullAgainstANonConvexMeshUsesTheTrianglePipelineOnTheHull) {
  const geometry::TriangleMesh l_mesh = lShape();
  const CollisionBody l_body = makeCollisionBody(l_mesh, 18);
  const CollisionBody ball =
      makeCollisionBody(collision::makeUvSphere(0.012, 8, 16), 18, CollisionShape::Hull);
  StepWorkspace work;
  std::vector<BodyPairContact> out;
  collision::ContactScratch scratch;
  std::mt19937 rng(21);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  int hits = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const Eigen::Isometry3d pa = Eigen::Isometry3d::Identity();
    Eigen::Isometry3d pb = randomRigidPose(rng, 0.0);
    // Near the inner corner of the L, where its hull would be wrong.
    pb.translation() = Eigen::Vector3d(0.01 + 0.02 * u(rng), 0.01 + 0.02 * u(rng), 0.02 * u(rng));
    queryBodyPair(ball, pb, l_body, pa, PatchPoints::Centre, work, out);
    // The pipeline itself: ball (its hull's triangles) as A, the L as B.
    const Eigen::Isometry3d b_in_a = pb.inverse() * pa;
    collision::allContacts(ball.tree, l_body.tree, b_in_a, scratch, scratch.pairs);
    const std::size_t patches = scratch.pairs.empty()
                                    ? 0
                                    : collision::buildContactPatches(ball.mesh, l_body.mesh, b_in_a,
                                                                     scratch.pairs, scratch);
    std::size_t k = 0;
    for (std::size_t p = 0; p < patches; ++p) {
      const collision::ContactPatch& patch = scratch.patches[p];
      if (patch.normal.squaredNorm() == 0.0) continue;
      ASSERT_LT(k, out.size());
      EXPECT_EQ(out[k].point_world, pb * patch.point);
      EXPECT_EQ(out[k].normal_world, Eigen::Vector3d(-(pb.linear() * patch.normal)));
      EXPECT_EQ(out[k].depth, patch.depth_m);
      ++k;
    }
    EXPECT_EQ(k, out.size());
    hits += !out.empty();
  }
  EXPECT_GT(hits, 20);
}

TEST(CollisionShapeFiles, HandFileChoosesPerBodyWithLocatedErrors) {
  const std::string dir = hand::assetDirectory() + "/hands/";
  const std::string text = R"({"format": "handsim-hand", "version": 1, "id": "t",
    "collision": "hull",
    "fingers": [{"name": "F", "joints": [
      {"name": "J1", "a_m": 0.05, "limits_deg": [0, 90], "mesh": "barrett/link1.wrl"},
      {"name": "J2", "a_m": 0.05, "limits_deg": [0, 90], "mesh": "barrett/link1.wrl",
       "collision": "mesh"}]}]})";
  const hand::HandModel h = hand::parseHandFile(text, dir + "t.json");
  EXPECT_EQ(h.palm_collision, CollisionShape::Hull);
  EXPECT_EQ(h.linkCollision(0, 0), CollisionShape::Hull);
  EXPECT_EQ(h.linkCollision(0, 1), CollisionShape::Mesh);
  std::string bad = text;
  const std::string key = "\"collision\": \"mesh\"";
  bad.replace(bad.find(key), key.size(), "\"collision\": \"hul\"");
  try {
    hand::parseHandFile(bad, dir + "t.json");
    FAIL() << "no error";
  } catch (const io::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t.json:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("/fingers/0/joints/1/collision"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("expected \"mesh\" or \"hull\""), std::string::npos);
  }
}

TEST(CollisionShapeFiles, ScenarioObjectsChooseTheirShapeAndSaveIt) {
  const std::string text = R"({"format": "handsim-scenario", "version": 1, "hand": "barrett",
    "duration_s": 0.01,
    "objects": [{"name": "a", "mesh": "objects/cube.wrl", "collision": "hull"},
                {"name": "b", "mesh": "objects/mug.wrl", "pose": {"translation_m": [1, 0, 0]}}]})";
  const Scenario sc = parseScenario(text, "s.json");
  ASSERT_EQ(sc.objects.size(), 2u);
  EXPECT_EQ(sc.objects[0].geometry->collision.shape, CollisionShape::Hull);
  EXPECT_EQ(sc.objects[1].geometry->collision.shape, CollisionShape::Mesh);
  // The mass stays the file's cube's (the hull of a cube is the cube anyway).
  EXPECT_GT(sc.objects[0].mass.mass_kg, 0.0);
  const std::string saved = scenarioToJson(sc, "s.json");
  EXPECT_NE(saved.find("\"collision\": \"hull\""), std::string::npos) << saved;
  std::string bad = text;
  bad.replace(bad.find("\"hull\""), 6, "\"box\"");
  try {
    parseScenario(bad, "s.json");
    FAIL() << "no error";
  } catch (const io::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("s.json:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("/objects/0/collision"), std::string::npos) << e.what();
  }
}
