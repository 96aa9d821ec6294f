// SPDX-License-Identifier: GPL-3.0-or-later
// A file's sphere primitive is kept as a sphere next to its tessellation (MeshShape::sphere,
// docs/collision.md "Analytic spheres") through every transform that keeps a ball a ball, and
// dropped by one that does not. The reference is the tessellation itself: its vertices lie on
// the sphere, so every vertex must be at the kept radius from the kept centre.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "handsim/formats/mesh_loader.hpp"
#include "handsim/formats/vrml_reader.hpp"

using namespace handsim::geometry;

namespace {

// The largest |distance of a vertex from the centre - radius| [m].
double vertexRadiusError(const MeshShape& s) {
  double worst = 0.0;
  for (const Eigen::Vector3d& v : s.mesh.vertices)
    worst = std::max(worst, std::abs((v - s.sphere->centre).norm() - s.sphere->radius));
  return worst;
}

}  // namespace

TEST(SpherePrimitive, AVrmlSphereKeepsItsSphereThroughTransforms) {
  const std::string text = R"(#VRML V2.0 utf8
Transform {
  translation 0.1 -0.2 0.3
  rotation 0 1 1 0.8
  scale 2 2 2
  children Transform {
    center 0.5 0 0
    rotation 1 0 0 1.1
    scale 0.25 0.25 0.25
    scaleOrientation 0 0 1 0.4
    children Shape { geometry Sphere { radius 0.03 } }
  }
}
)";
  const LoadedModel m = parseVrml(text, "sphere.wrl");
  ASSERT_EQ(m.shapes.size(), 1u);
  ASSERT_TRUE(m.shapes[0].sphere.has_value());
  EXPECT_NEAR(m.shapes[0].sphere->radius, 0.03 * 2.0 * 0.25, 1e-15);
  EXPECT_LT(vertexRadiusError(m.shapes[0]), 1e-14);
  ASSERT_TRUE(m.onlySphere().has_value());
  EXPECT_EQ(m.onlySphere()->radius, m.shapes[0].sphere->radius);
}

TEST(SpherePrimitive, GeometryOutsideAShapeKeepsItsSphere) {
  const LoadedModel m =
      parseVrml("#VRML V2.0 utf8\nTransform { translation 1 2 3 children Sphere { radius 0.5 } }\n",
                "bare.wrl");
  ASSERT_EQ(m.shapes.size(), 1u);
  ASSERT_TRUE(m.shapes[0].sphere.has_value());
  EXPECT_EQ(m.shapes[0].sphere->centre, Eigen::Vector3d(1, 2, 3));
  EXPECT_EQ(m.shapes[0].sphere->radius, 0.5);
}

TEST(SpherePrimitive, ANonUniformScaleMakesItAnEllipsoidAndDropsTheSphere) {
  const LoadedModel m = parseVrml(
      "#VRML V2.0 utf8\nTransform { scale 1 1 1.01 children Shape { geometry Sphere { } } }\n",
      "ellipsoid.wrl");
  ASSERT_EQ(m.shapes.size(), 1u);
  EXPECT_FALSE(m.shapes[0].sphere.has_value());
  EXPECT_FALSE(m.onlySphere().has_value());
}

TEST(SpherePrimitive, OnlySphereNeedsOneShapeThatIsASphere) {
  const LoadedModel two = parseVrml(
      "#VRML V2.0 utf8\nShape { geometry Sphere { } }\nShape { geometry Sphere { radius 2 } }\n",
      "two.wrl");
  ASSERT_EQ(two.shapes.size(), 2u);
  EXPECT_TRUE(two.shapes[1].sphere.has_value());
  EXPECT_FALSE(two.onlySphere().has_value());
  const LoadedModel box = parseVrml("#VRML V2.0 utf8\nShape { geometry Box { } }\n", "box.wrl");
  EXPECT_FALSE(box.onlySphere().has_value());
}

TEST(SpherePrimitive, TheLoadersScaleKeepsTheShippedSphere) {
  MeshLoadOptions options;
  options.scale = 3.0;
  const LoadedModel m = loadMesh(std::string(HANDSIM_SOURCE_DIR) + "/assets/objects/sphere.wrl",
                                 options);
  ASSERT_TRUE(m.onlySphere().has_value());
  EXPECT_NEAR(m.onlySphere()->radius, 0.09, 1e-15);
  EXPECT_LT(vertexRadiusError(m.shapes[0]), 1e-14);
}

TEST(SpherePrimitive, TransformShapeKeepsSimilaritiesOnly) {
  MeshShape s;
  s.mesh.vertices = {Eigen::Vector3d(1, 0, 0)};
  s.sphere = Sphere{Eigen::Vector3d::Zero(), 1.0};
  Eigen::Affine3d reflect = Eigen::Affine3d::Identity();
  reflect.linear() = Eigen::Vector3d(-0.5, 0.5, 0.5).asDiagonal();
  transformShape(s, reflect);
  ASSERT_TRUE(s.sphere.has_value());
  EXPECT_NEAR(s.sphere->radius, 0.5, 1e-15);
  Eigen::Affine3d shear = Eigen::Affine3d::Identity();
  shear.linear()(0, 1) = 1e-3;
  transformShape(s, shear);
  EXPECT_FALSE(s.sphere.has_value());
}
