// SPDX-License-Identifier: GPL-3.0-or-later
// The compiled model: meshes and trees loaded once and shared, object mass properties from
// the closed mesh (worked by hand for the shipped cube), warnings for open meshes, located
// errors for bad link meshes, and object poses as state.
#include "handsim/sim/model.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/io/input_error.hpp"
#include "handsim/sim/step.hpp"

using namespace handsim;
using namespace handsim::sim;

namespace {
std::shared_ptr<const hand::HandModel> barrett() {
  return std::make_shared<const hand::HandModel>(hand::loadHand("barrett"));
}
std::string cubePath() {
  return hand::assetDirectory() + "/objects/cube.wrl";
}
}  // namespace

TEST(Model, RecompilingWithOtherObjectsSharesTheHandAndItsGeometry) {
  const auto m = compileModel(barrett(), {});
  ASSERT_EQ(m->hand_geometry->links.size(), 3u);
  // The BarrettHand's links 2 and 3 of every finger have meshes with trees.
  for (const auto& finger : m->hand_geometry->links)
    for (std::size_t r = 1; r < finger.size(); ++r) EXPECT_FALSE(finger[r].collision.empty());
  EXPECT_FALSE(m->hand_geometry->palm.collision.empty());
  const auto with = withObjects(*m, {loadObject(cubePath())});
  EXPECT_EQ(with->hand_ptr, m->hand_ptr);
  EXPECT_EQ(with->hand_geometry, m->hand_geometry);
  ASSERT_EQ(with->objects.size(), 1u);
  EXPECT_EQ(with->objects[0].name, "cube");
}

// The shipped cube is 50 mm on a side (docs/assets): m = rho a^3, I = m a^2 / 6 about each
// axis through the centre, products zero.
TEST(Model, ObjectMassPropertiesComeFromTheClosedMesh) {
  const ObjectModel cube = loadObject(cubePath(), {}, "", 18, 2000.0);
  const double a = 0.05, m = 2000.0 * a * a * a;
  EXPECT_TRUE(cube.warnings.empty());
  EXPECT_NEAR(cube.mass.mass_kg, m, 1e-12);
  EXPECT_NEAR(cube.mass.volume_m3, a * a * a, 1e-15);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_NEAR(cube.mass.inertia_com(i, j), i == j ? m * a * a / 6.0 : 0.0, 1e-12);
  // Scaled by 2: eight times the mass, 32 times the inertia.
  geometry::MeshLoadOptions twice;
  twice.scale = 2.0;
  const ObjectModel big = loadObject(cubePath(), twice, "", 18, 2000.0);
  EXPECT_NEAR(big.mass.mass_kg, 8.0 * m, 1e-10);
  EXPECT_NEAR(big.mass.inertia_com(0, 0), 32.0 * m * a * a / 6.0, 1e-12);
}

TEST(Model, AnOpenMeshGetsZeroMassAndAWarning) {
  const std::string path = ::testing::TempDir() + "/handsim_open_box.obj";
  {
    // A unit box without its top (two triangles missing).
    std::ofstream out(path);
    out << "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
           "f 1 3 2\nf 1 4 3\nf 1 2 6\nf 1 6 5\nf 2 3 7\nf 2 7 6\nf 3 4 8\nf 3 8 7\n"
           "f 4 1 5\nf 4 5 8\n";
  }
  const ObjectModel o = loadObject(path);
  EXPECT_EQ(o.mass.mass_kg, 0.0);
  ASSERT_EQ(o.warnings.size(), 1u);
  EXPECT_NE(o.warnings[0].find("not a closed mesh"), std::string::npos) << o.warnings[0];
  EXPECT_NE(o.warnings[0].find("handsim_open_box"), std::string::npos) << o.warnings[0];
}

TEST(Model, ABadLinkMeshIsALocatedError) {
  hand::HandModel h = hand::loadHand("barrett");
  const std::string path = ::testing::TempDir() + "/handsim_bad_link.wrl";
  {
    std::ofstream out(path);
    out << "#VRML V2.0 utf8\nShape { geometry IndexedFaceSet { coord Coordinate { point [ 0 0 0, "
           "1 0 0 ] } coordIndex [ 0 1 7 -1 ] } }\n";
  }
  h.link_meshes[1][2] = path;
  try {
    compileModel(std::make_shared<const hand::HandModel>(h), {});
    FAIL() << "a bad link mesh compiled";
  } catch (const io::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("handsim_bad_link.wrl"), std::string::npos) << e.what();
  }
}

// Moving an object is a change of state, not of the model: the contacts of a state whose cube
// was moved equal those of a state made with the cube already there (the model holds no pose).
TEST(Model, ObjectPosesAreState) {
  const auto m = compileModel(barrett(), {loadObject(cubePath())});
  Eigen::Isometry3d there = Eigen::Isometry3d::Identity();
  there.translation() = Eigen::Vector3d(0.0, 0.03, 0.13);
  const std::vector<double> closed = {9000, 9000, 9000, 0};
  SimState a = makeState(*m, closed);
  EXPECT_TRUE(a.object_pose_world[0].isApprox(Eigen::Isometry3d::Identity(), 0.0));
  a.object_pose_world[0] = there;
  SimState b = makeState(*m, closed, Eigen::Isometry3d::Identity(), {there});
  EXPECT_THROW(makeState(*m, closed, Eigen::Isometry3d::Identity(), {there, there}),
               std::invalid_argument);
  detectContacts(*m, a);
  detectContacts(*m, b);
  ASSERT_FALSE(a.contacts.empty());
  ASSERT_EQ(a.contacts.size(), b.contacts.size());
  for (std::size_t i = 0; i < a.contacts.size(); ++i) {
    EXPECT_EQ(a.contacts[i].point_world, b.contacts[i].point_world);
    EXPECT_EQ(a.contacts[i].normal_world, b.contacts[i].normal_world);
  }
}
