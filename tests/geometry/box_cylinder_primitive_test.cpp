// SPDX-License-Identifier: GPL-3.0-or-later
// A file's box and cylinder primitives are kept next to their tessellations (MeshShape::box,
// MeshShape::cylinder, docs/collision.md "Analytic boxes and cylinders") through every transform
// that keeps them a box and a circular cylinder, and dropped by one that does not. The
// reference is the tessellation: a box's vertices are the kept box's corners, a cylinder's lie
// on its two rims (or are its cap centres).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "handsim/formats/mesh_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/urdf_reader.hpp"
#include "handsim/formats/vrml_reader.hpp"
#include "handsim/sim/model.hpp"

using namespace handsim;
using namespace handsim::geometry;

namespace {

// The largest distance of a vertex from the kept box's corners (in the box frame, every
// coordinate is plus or minus its half extent).
double boxCornerError(const MeshShape& s) {
  double worst = 0.0;
  for (const Eigen::Vector3d& v : s.mesh.vertices) {
    const Eigen::Vector3d q = s.box->pose.inverse() * v;
    worst = std::max(worst, (q.cwiseAbs() - s.box->half_extent).cwiseAbs().maxCoeff());
  }
  return worst;
}

// The largest distance of a vertex from the kept cylinder's rims and cap centres.
double cylinderRimError(const MeshShape& s) {
  double worst = 0.0;
  for (const Eigen::Vector3d& v : s.mesh.vertices) {
    const Eigen::Vector3d q = s.cylinder->pose.inverse() * v;
    const double rho = q.head<2>().norm();
    const double radial = std::min(std::abs(rho - s.cylinder->radius), rho);
    worst = std::max({worst, radial, std::abs(std::abs(q.z()) - s.cylinder->half_length)});
  }
  return worst;
}

std::string urdf(const std::string& shapes) {
  return "<?xml version=\"1.0\"?>\n<robot name=\"h\">\n<link name=\"base\"/>\n"
         "<link name=\"a\"><inertial><mass value=\"0.1\"/><inertia ixx=\"1e-5\" ixy=\"0\" "
         "ixz=\"0\" iyy=\"1e-5\" iyz=\"0\" izz=\"1e-5\"/></inertial>" +
         shapes +
         "</link>\n<joint name=\"j1\" type=\"continuous\"><origin xyz=\"0 0 0.05\"/>"
         "<parent link=\"base\"/><child link=\"a\"/></joint>\n</robot>\n";
}

// The one link's collision shapes and its row.
const hand::BodyShapes* linkShapes(const hand::HandModel& h, std::size_t& row) {
  for (std::size_t r = 0; r < h.link_shapes[0].size(); ++r)
    if (!h.link_shapes[0][r].collision.shapes.empty()) {
      row = r;
      return &h.link_shapes[0][r];
    }
  return nullptr;
}

}  // namespace

TEST(BoxCylinderPrimitive, AVrmlBoxKeepsItsBoxThroughTransformsAndAScaleAlongItsAxes) {
  const std::string text = R"(#VRML V2.0 utf8
Transform {
  translation 0.1 -0.2 0.3
  rotation 0 1 1 0.8
  scale 2 2 2
  children Transform {
    center 0.5 0 0
    rotation 1 0 0 1.1
    children Transform {
      scale 1 2 3
      children Shape { geometry Box { size 0.02 0.04 0.06 } }
    }
  }
}
)";
  const LoadedModel m = parseVrml(text, "box.wrl");
  ASSERT_EQ(m.shapes.size(), 1u);
  ASSERT_TRUE(m.shapes[0].box.has_value());
  EXPECT_LT((m.shapes[0].box->half_extent - Eigen::Vector3d(0.02, 0.08, 0.18)).norm(), 1e-15);
  EXPECT_LT(boxCornerError(m.shapes[0]), 1e-14);
  EXPECT_NEAR(m.shapes[0].box->pose.linear().determinant(), 1.0, 1e-14);
  ASSERT_TRUE(m.onlyBox().has_value());
  EXPECT_FALSE(m.onlyCylinder().has_value());
  EXPECT_FALSE(m.onlySphere().has_value());
}

TEST(BoxCylinderPrimitive, AScaleAcrossARotatedBoxOrAShearDropsTheBox) {
  // A non-uniform scale across axes the box is turned against: a parallelepiped.
  const LoadedModel skew = parseVrml(R"(#VRML V2.0 utf8
Transform { scale 1 2 1 children Transform { rotation 0 0 1 0.5
  children Shape { geometry Box { } } } }
)",
                                     "skew.wrl");
  ASSERT_EQ(skew.shapes.size(), 1u);
  EXPECT_FALSE(skew.shapes[0].box.has_value());
  MeshShape s;
  s.mesh.vertices = {Eigen::Vector3d(1, 1, 1)};
  s.box = Box{Eigen::Isometry3d::Identity(), Eigen::Vector3d::Ones()};
  Eigen::Affine3d reflect = Eigen::Affine3d::Identity();
  reflect.linear() = Eigen::Vector3d(-0.5, 0.5, 2.0).asDiagonal();
  transformShape(s, reflect);
  ASSERT_TRUE(s.box.has_value());
  EXPECT_LT((s.box->half_extent - Eigen::Vector3d(0.5, 0.5, 2.0)).norm(), 1e-15);
  EXPECT_NEAR(s.box->pose.linear().determinant(), 1.0, 1e-15);
  Eigen::Affine3d shear = Eigen::Affine3d::Identity();
  shear.linear()(0, 1) = 1e-3;
  transformShape(s, shear);
  EXPECT_FALSE(s.box.has_value());
}

TEST(BoxCylinderPrimitive, AVrmlCylinderRunsAlongYAndKeepsItsCylinder) {
  const std::string text = R"(#VRML V2.0 utf8
Transform {
  translation 0.1 -0.2 0.3
  rotation 1 1 0 0.7
  scale 0.5 1.5 0.5
  children Shape { geometry Cylinder { radius 0.02 height 0.1 } }
}
)";
  const LoadedModel m = parseVrml(text, "cylinder.wrl");
  ASSERT_EQ(m.shapes.size(), 1u);
  ASSERT_TRUE(m.shapes[0].cylinder.has_value());
  // The scale along y (the axis) stretches it; across, it shrinks the circle.
  EXPECT_NEAR(m.shapes[0].cylinder->radius, 0.01, 1e-15);
  EXPECT_NEAR(m.shapes[0].cylinder->half_length, 0.075, 1e-15);
  EXPECT_LT(cylinderRimError(m.shapes[0]), 1e-14);
  const Eigen::Vector3d axis_y =
      Eigen::AngleAxisd(0.7, Eigen::Vector3d(1, 1, 0).normalized()) * Eigen::Vector3d::UnitY();
  EXPECT_NEAR(std::abs(m.shapes[0].cylinder->pose.linear().col(2).dot(axis_y)), 1.0, 1e-14);
  ASSERT_TRUE(m.onlyCylinder().has_value());
  EXPECT_FALSE(m.onlyBox().has_value());
}

TEST(BoxCylinderPrimitive, AnEllipticOrOpenCylinderIsNotACylinder) {
  const LoadedModel elliptic = parseVrml(
      "#VRML V2.0 utf8\nTransform { scale 2 1 1 children Shape { geometry Cylinder { } } }\n",
      "elliptic.wrl");
  EXPECT_FALSE(elliptic.shapes.at(0).cylinder.has_value());
  for (const char* part : {"side", "top", "bottom"}) {
    const LoadedModel open = parseVrml(
        std::string("#VRML V2.0 utf8\nShape { geometry Cylinder { ") + part + " FALSE } }\n",
        "open.wrl");
    ASSERT_EQ(open.shapes.size(), 1u) << part;
    EXPECT_FALSE(open.shapes[0].cylinder.has_value()) << part;
  }
}

TEST(BoxCylinderPrimitive, TheShippedCylinderIsACylinderThroughTheLoadersScale) {
  MeshLoadOptions options;
  options.scale = 2.0;
  const LoadedModel m =
      loadMesh(std::string(HANDSIM_SOURCE_DIR) + "/assets/objects/cylinder.wrl", options);
  ASSERT_TRUE(m.onlyCylinder().has_value());
  EXPECT_NEAR(m.onlyCylinder()->radius, 0.05, 1e-15);
  EXPECT_NEAR(m.onlyCylinder()->half_length, 0.1, 1e-15);
  EXPECT_LT(cylinderRimError(m.shapes[0]), 1e-14);
}

TEST(BoxCylinderPrimitive, UrdfBoxAndCylinderCollideAsThemselves) {
  const std::string origin = "<origin xyz=\"0.01 0.002 0.03\" rpy=\"0.3 0.2 0.1\"/>";
  for (const bool box : {true, false}) {
    const std::string geometry =
        box ? "<box size=\"0.02 0.03 0.04\"/>" : "<cylinder radius=\"0.01\" length=\"0.05\"/>";
    const hand::HandModel h = hand::parseUrdfHand(
        urdf("<collision>" + origin + "<geometry>" + geometry + "</geometry></collision>"),
        "prim.urdf");
    std::size_t row = 0;
    const hand::BodyShapes* body = linkShapes(h, row);
    ASSERT_NE(body, nullptr);
    const MeshShape& shape = body->collision.shapes.at(0);
    const auto g = sim::loadHandGeometry(h, 18);
    const sim::CollisionBody& link = g->links[0][row].collision;
    if (box) {
      ASSERT_TRUE(body->collision.onlyBox().has_value());
      EXPECT_LT((shape.box->half_extent - Eigen::Vector3d(0.01, 0.015, 0.02)).norm(), 1e-16);
      EXPECT_LT(boxCornerError(shape), 1e-15);
      ASSERT_TRUE(link.box.has_value());
      EXPECT_NEAR(link.radius, Eigen::Vector3d(0.01, 0.015, 0.02).norm(), 1e-16);
    } else {
      // URDF's cylinder runs along z of its origin.
      ASSERT_TRUE(body->collision.onlyCylinder().has_value());
      EXPECT_EQ(shape.cylinder->radius, 0.01);
      EXPECT_EQ(shape.cylinder->half_length, 0.025);
      EXPECT_LT(cylinderRimError(shape), 1e-15);
      ASSERT_TRUE(link.cylinder.has_value());
    }
    // The link's bounding box holds its mesh.
    for (const Eigen::Vector3d& v : link.mesh.vertices)
      EXPECT_TRUE(((v - link.centre).cwiseAbs() - link.half_extent).maxCoeff() <= 1e-15);
  }
}
