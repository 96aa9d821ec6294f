// SPDX-License-Identifier: GPL-3.0-or-later
// The URDF reader on our own test hands (assets/hands/urdf): structure, merged bodies,
// inertia conversion, mimic couplings, geometry, sidecar; errors with file, line, element;
// a short closing motion in the engine.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/urdf_reader.hpp"
#include "handsim/geometry/triangle_mesh.hpp"
#include "handsim/hand/transmission.hpp"
#include "handsim/io/input_error.hpp"
#include "handsim/sim/run.hpp"

namespace handsim {
namespace {

namespace fs = std::filesystem;

std::string urdfDir() {
  return std::string(HANDSIM_SOURCE_DIR) + "/assets/hands/urdf/";
}

const hand::JointRef kNone{};

TEST(UrdfReader, WristHandHasOneChainPerFingerSharingTheWrist) {
  const hand::HandModel h = hand::loadHand(urdfDir() + "wrist_hand.urdf");
  ASSERT_EQ(h.fingers.size(), 3u);
  EXPECT_EQ(h.fingers[0].name, "index_distal");
  EXPECT_EQ(h.fingers[1].name, "middle_distal");
  EXPECT_EQ(h.fingers[2].name, "thumb_distal");
  EXPECT_EQ(h.fingers[0].dof(), 5);  // wrist_yaw, wrist_pitch, index_abd, index_mcp, index_pip
  EXPECT_EQ(h.fingers[1].dof(), 4);
  EXPECT_EQ(h.fingers[2].dof(), 4);
  EXPECT_EQ(h.actuators.size(), 9u);  // every movable joint, none mimics
  const int yaw = h.tree.jointIndex("wrist_yaw");
  ASSERT_GE(yaw, 0);
  EXPECT_EQ(h.tree.joints[static_cast<std::size_t>(yaw)].copies.size(), 3u);
  EXPECT_EQ(h.actuators[static_cast<std::size_t>(h.actuatorIndex("wrist_yaw"))].drives.size(), 3u);
  // The palm body (palm + the fixed sensor) sits in the first chain only: 0.4 + 0.02 kg.
  EXPECT_NEAR(h.fingers[0].links[1].mass, 0.42, 1e-15);
  EXPECT_EQ(h.fingers[1].links[1].mass, 0.0);
  EXPECT_EQ(h.fingers[2].links[1].mass, 0.0);
  // Its centre of mass: mass-weighted mean of the two links' (sensor at y = 0.016).
  EXPECT_NEAR(h.fingers[0].links[1].com.y(), 0.02 * 0.016 / 0.42, 1e-15);
  EXPECT_NEAR(h.fingers[0].links[1].com.z(), 0.04, 1e-15);
  // Inertia about the body origin, axes of the body: the sensor is a point-like 0.02 kg at
  // (0, 0.016, 0.04) with its own (rotated) tensor; check Izz by the parallel-axis theorem:
  // palm Izz about its COM in body axes (rpy 0.1 0 0.2 mixes xx, yy, zz) + m (x^2 + y^2).
  const Eigen::Matrix3d r = (Eigen::AngleAxisd(0.2, Eigen::Vector3d::UnitZ()) *
                             Eigen::AngleAxisd(0.1, Eigen::Vector3d::UnitX()))
                                .toRotationMatrix();
  Eigen::Matrix3d palm_c;
  palm_c << 3e-4, 1e-6, 0, 1e-6, 2.5e-4, 0, 0, 0, 1.2e-4;
  const double palm_zz = (r * palm_c * r.transpose())(2, 2);
  // Sensor frame rpy (pi/2, 0, 0): its local y becomes z, so its Izz is its Iyy = 1e-6.
  const double sensor_zz = 1e-6 + 0.02 * 0.016 * 0.016;
  EXPECT_NEAR(h.fingers[0].links[1].inertia(2, 2), palm_zz + sensor_zz, 1e-12);
  // Named pose and grasp actuators from the sidecar.
  ASSERT_NE(h.pose("half"), nullptr);
  EXPECT_NEAR(h.pose("half")->q[0][3], 45.0 * 3.14159265358979323846 / 180.0, 1e-15);
  EXPECT_EQ(h.closing_actuators.size(), 5u);
  // The index tip (fixed) is merged into index_distal's body.
  const int tip = h.tree.linkIndex("index_tip");
  ASSERT_GE(tip, 0);
  EXPECT_EQ(h.tree.links[static_cast<std::size_t>(tip)].finger, 0);
  EXPECT_EQ(h.tree.links[static_cast<std::size_t>(tip)].row, 4);
  EXPECT_NEAR(h.tree.links[static_cast<std::size_t>(tip)].in_frame.translation().z(), 0.03,
              1e-15);
  EXPECT_TRUE(h.warnings.empty()) << h.warnings.front();
}

TEST(UrdfReader, PrimitivesArePlacedAndCylindersRunAlongZ) {
  const hand::HandModel h = hand::loadHand(urdfDir() + "wrist_hand.urdf");
  // The forearm's cylinder (r 0.03, length 0.08) is on the palm (the root body).
  const geometry::Aabb box = geometry::boundingBox(h.palm_shapes.visual.merged());
  EXPECT_NEAR(box.max.z(), 0.04, 1e-12);
  EXPECT_NEAR(box.min.z(), -0.04, 1e-12);
  EXPECT_NEAR(box.max.x(), 0.03, 1e-3);
  // index_distal: a cylinder at z 0..0.03 and the tip's sphere (r 0.008) at z = 0.03.
  const geometry::Aabb d = geometry::boundingBox(h.link_shapes[0][4].collision.merged());
  EXPECT_NEAR(d.min.z(), 0.0, 1e-12);
  EXPECT_NEAR(d.max.z(), 0.038, 1e-12);
}

TEST(UrdfReader, MimicJointsRideOnTheirMastersActuator) {
  const hand::HandModel h = hand::loadHand(urdfDir() + "mimic_gripper.urdf");
  ASSERT_EQ(h.actuators.size(), 2u);
  EXPECT_EQ(h.actuators[0].name, "jaw_left");
  EXPECT_EQ(h.actuators[1].name, "hook_proximal");
  // The distal hook joint's chain holds both hook joints.
  const auto q = hand::jointPositions(h, {0.02, 0.5});
  const hand::JointRef right = h.findJoint("jaw_right");
  const hand::JointRef left = h.findJoint("jaw_left");
  const hand::JointRef distal = h.findJoint("hook_distal");
  ASSERT_FALSE(right == kNone);
  ASSERT_FALSE(distal == kNone);
  EXPECT_DOUBLE_EQ(q[static_cast<std::size_t>(left.finger)][left.joint], 0.02);
  EXPECT_DOUBLE_EQ(q[static_cast<std::size_t>(right.finger)][right.joint], -0.02);
  EXPECT_NEAR(q[static_cast<std::size_t>(distal.finger)][distal.joint], 0.8 * 0.5 + 0.1, 1e-15);
}

TEST(UrdfReader, MeshesThroughPackageUrisWithScaleAndWarnings) {
  const hand::HandModel h = hand::loadHand(urdfDir() + "primitives_hand.urdf");
  ASSERT_EQ(h.fingers.size(), 1u);
  ASSERT_EQ(h.fingers[0].rows.size(), 2u);
  // The OBJ box spans z 0..0.01; the scale (1 1 2) makes it 0..0.02.
  const geometry::Aabb b = geometry::boundingBox(h.link_shapes[0][1].visual.merged());
  // (The mesh importer hands over single-precision coordinates.)
  EXPECT_NEAR(b.max.z(), 0.02, 1e-9);
  EXPECT_NEAR(b.max.x(), 0.005, 1e-9);
  // Continuous joint: limits +-pi, axis normalised.
  EXPECT_NEAR(h.fingers[0].rows[1].axis.norm(), 1.0, 1e-15);
  EXPECT_NEAR(h.fingers[0].rows[1].upper, 3.14159265358979323846, 1e-15);
  bool gazebo = false, inertial = false;
  for (const auto& w : h.warnings) {
    gazebo |= w.find("<gazebo>") != std::string::npos;
    inertial |= w.find("'l2' has no <inertial>") != std::string::npos;
  }
  EXPECT_TRUE(gazebo);
  EXPECT_TRUE(inertial);
  // The rotated inertial of l1 (rpy 0.3 0.2 0.1 at z 0.02): the tensor about the link origin
  // is symmetric and its trace is tr(Ic) + 2 m |c|^2 (rotations keep the trace).
  const auto& l1 = h.fingers[0].links[0];
  EXPECT_NEAR(l1.inertia.trace(), 4e-6 + 3.5e-6 + 1e-6 + 2 * 0.03 * 0.02 * 0.02, 1e-15);
  EXPECT_LT((l1.inertia - l1.inertia.transpose()).norm(), 1e-20);
}

/// Writes `text` to a fresh temporary folder as `name` and returns the path.
std::string writeTemp(const std::string& name, const std::string& text) {
  const fs::path dir = fs::temp_directory_path() / ("handsim_urdf_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path p = dir / name;
  std::ofstream(p) << text;
  return p.string();
}

std::string loadError(const std::string& path) {
  try {
    hand::loadUrdfHand(path);
  } catch (const io::InputError& e) {
    return e.what();
  }
  return "no error";
}

const char* kHead = "<?xml version=\"1.0\"?>\n<robot name=\"bad\">\n<link name=\"base\"/>\n";

/// A URDF of the base link, link `a` (written as `link`, line 4) and one joint base -> a
/// (line 5) of `type` with `extra` inside; returns its path.
std::string oneJointUrdf(const std::string& file, const std::string& link,
                         const std::string& joint, const std::string& type,
                         const std::string& extra) {
  return writeTemp(file, std::string(kHead) + link + "\n<joint name=\"" + joint + "\" type=\"" +
                             type + "\">\n  <parent link=\"base\"/><child link=\"a\"/>\n" + extra +
                             "</joint>\n</robot>\n");
}

TEST(UrdfReader, ErrorsNameFileLineAndElement) {
  struct Case {
    const char* file;
    std::string link, joint, type, extra;
    std::vector<std::string> expected;  ///< substrings of the message
  };
  const std::string mass_inertia =
      "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/>";
  const std::vector<Case> cases = {
      {"limits.urdf", "<link name=\"a\"/>", "j1", "revolute",
       "  <limit lower=\"1\" upper=\"0\" effort=\"1\" velocity=\"1\"/>\n",
       {"limits.urdf:5: joint 'j1': limit lower > upper"}},
      {"mesh.urdf",
       "<link name=\"a\"><visual><geometry><mesh filename=\"nowhere/x.stl\"/></geometry>"
       "</visual></link>",
       "j1", "continuous", "", {"mesh.urdf:4: link 'a'", "x.stl"}},
      {"package.urdf",
       "<link name=\"a\"><visual><geometry><mesh filename=\"package://no_such_pkg/x.stl\"/>"
       "</geometry></visual></link>",
       "j1", "continuous", "", {"package.urdf:4: link 'a'", "package 'no_such_pkg'"}},
      {"mimic.urdf", "<link name=\"a\"/>", "j1", "continuous", "  <mimic joint=\"ghost\"/>\n",
       {"mimic.urdf:5: joint 'j1': mimics unknown joint 'ghost'"}},
      {"floating.urdf", "<link name=\"a\"/>", "free", "floating", "",
       {"floating.urdf:5: joint 'free'", "floating"}},
      {"negative.urdf",
       "<link name=\"a\"><inertial><mass value=\"-1\"/>" + mass_inertia + "</inertial></link>",
       "j1", "continuous", "", {"negative.urdf:4: link 'a': inertial mass"}},
  };
  for (const Case& c : cases) {
    const std::string e = loadError(oneJointUrdf(c.file, c.link, c.joint, c.type, c.extra));
    for (const std::string& want : c.expected)
      EXPECT_NE(e.find(want), std::string::npos) << c.file << ": " << e;
  }

  std::string deep_text = kHead;
  for (int i = 0; i < 10; ++i)
    deep_text += "<link name=\"d" + std::to_string(i) + "\"/>\n<joint name=\"q" +
                 std::to_string(i) + "\" type=\"continuous\"><parent link=\"" +
                 (i == 0 ? std::string("base") : "d" + std::to_string(i - 1)) +
                 "\"/><child link=\"d" + std::to_string(i) + "\"/></joint>\n";
  const std::string deep = writeTemp("deep.urdf", deep_text + "</robot>\n");
  // A chain has any length: ten joints in a row make one finger of ten.
  {
    hand::UrdfOptions opt;
    opt.load_geometry = false;
    const hand::HandModel h = hand::loadUrdfHand(deep, opt);
    ASSERT_EQ(h.fingers.size(), 1u);
    EXPECT_EQ(h.fingers.front().dof(), 10);
  }
  // But a deep tree with a leaf at every joint would copy the spine into every chain: a spine
  // of 100 joints with 100 leaves is 5,150 rows in all (limit 4,096), refused at the leaf
  // that passes the limit.
  std::string comb_text = kHead;
  for (int i = 0; i < 100; ++i) {
    const std::string parent = i == 0 ? "base" : "s" + std::to_string(i - 1);
    comb_text += "<link name=\"s" + std::to_string(i) + "\"/>\n<joint name=\"js" +
                 std::to_string(i) + "\" type=\"continuous\"><parent link=\"" + parent +
                 "\"/><child link=\"s" + std::to_string(i) + "\"/></joint>\n<link name=\"t" +
                 std::to_string(i) + "\"/>\n<joint name=\"jt" + std::to_string(i) +
                 "\" type=\"continuous\"><parent link=\"s" + std::to_string(i) +
                 "\"/><child link=\"t" + std::to_string(i) + "\"/></joint>\n";
  }
  const std::string comb = writeTemp("comb.urdf", comb_text + "</robot>\n");
  EXPECT_NE(loadError(comb).find("comb.urdf:"), std::string::npos) << loadError(comb);
  EXPECT_NE(loadError(comb).find("the chains from the root to the leaves have more than 4096 "
                                 "movable joints in all"),
            std::string::npos)
      << loadError(comb);

  const std::string broken = writeTemp("broken.urdf", "<robot name=\"x\"><link name=\"a\">");
  EXPECT_NE(loadError(broken).find("broken.urdf"), std::string::npos) << loadError(broken);
  // XML that is not well-formed is placed where it breaks (liburdfdom names no line).
  const std::vector<std::pair<std::string, std::string>> malformed = {
      {"<robot name=\"x\">\n<link name=\"a\"/>\n<joint na",
       "cut.urdf:3: not well-formed XML: a tag is cut off"},
      {"<robot name=\"x\">\n<link name=\"a\">\n</robot>\n",
       "mismatch.urdf:3: not well-formed XML: </robot> does not close <link>"},
      {"<robot name=\"x\">\n<link name=\"a\"/>\n",
       "open.urdf:2: not well-formed XML: <robot> (line 1) is not closed"}};
  const char* names[] = {"cut.urdf", "mismatch.urdf", "open.urdf"};
  for (std::size_t i = 0; i < malformed.size(); ++i) {
    const std::string e = loadError(writeTemp(names[i], malformed[i].first));
    EXPECT_NE(e.find(malformed[i].second), std::string::npos) << e;
  }

  // No rigid body has principal moments (1, 1, 3): repaired to (1, 1, 2), with a warning.
  const hand::HandModel repaired = hand::loadUrdfHand(oneJointUrdf(
      "inertia.urdf",
      "<link name=\"a\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" "
      "iyy=\"1\" iyz=\"0\" izz=\"3\"/></inertial></link>",
      "j1", "continuous", ""));
  ASSERT_EQ(repaired.warnings.size(), 1u);
  EXPECT_NE(repaired.warnings[0].find("inertia.urdf:4: link 'a': principal moments"),
            std::string::npos)
      << repaired.warnings[0];
  EXPECT_NEAR(repaired.fingers[0].links[0].inertia(2, 2), 2.0, 1e-12);
  EXPECT_NEAR(repaired.fingers[0].links[0].inertia(0, 0), 1.0, 1e-12);
}

TEST(UrdfReader, PackageFoldersFromOptionsAndEnvironment) {
  const fs::path root = fs::temp_directory_path() / ("handsim_pkg_" + std::to_string(::getpid()));
  fs::create_directories(root / "store" / "mypkg" / "meshes");
  fs::copy_file(urdfDir() + "meshes/phalanx.obj", root / "store" / "mypkg" / "meshes" / "p.obj",
                fs::copy_options::overwrite_existing);
  fs::create_directories(root / "elsewhere");
  const fs::path urdf = root / "elsewhere" / "pkg.urdf";
  std::ofstream(urdf) << kHead
                      << "<link name=\"a\"><collision><geometry><mesh "
                         "filename=\"package://mypkg/meshes/p.obj\"/></geometry></collision>"
                         "</link>\n<joint name=\"j1\" type=\"continuous\"><parent link=\"base\"/>"
                         "<child link=\"a\"/></joint>\n</robot>\n";
  EXPECT_NE(loadError(urdf.string()).find("package 'mypkg'"), std::string::npos);
  hand::UrdfOptions opt;
  opt.package_path = {(root / "store").string()};
  EXPECT_EQ(hand::loadUrdfHand(urdf.string(), opt).link_shapes[0][0].collision.triangleCount(),
            12u);
  ::setenv("HANDSIM_PACKAGE_PATH", ("/nonexistent:" + (root / "store").string()).c_str(), 1);
  EXPECT_EQ(hand::loadHand(urdf.string()).link_shapes[0][0].collision.triangleCount(), 12u);
  ::unsetenv("HANDSIM_PACKAGE_PATH");
  fs::remove_all(root);
}

TEST(UrdfReader, SidecarErrorsNameTheSidecar) {
  const fs::path dir = fs::temp_directory_path() / ("handsim_side_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::copy_file(urdfDir() + "mimic_gripper.urdf", dir / "g.urdf",
                fs::copy_options::overwrite_existing);
  std::ofstream(dir / "g.handsim.json")
      << "{\"format\": \"handsim-urdf-sidecar\", \"version\": 1,\n"
         " \"poses\": [{\"name\": \"p\", \"joints\": {\"hook_distal\": 0.2}}]}\n";
  const std::string e = loadError((dir / "g.urdf").string());
  EXPECT_NE(e.find("g.handsim.json:2"), std::string::npos) << e;
  EXPECT_NE(e.find("hook_distal"), std::string::npos) << e;
  fs::remove_all(dir);
}

TEST(UrdfReader, WristHandClosesInTheEngineWithoutWarnings) {
  auto h = std::make_shared<const hand::HandModel>(hand::loadHand(urdfDir() + "wrist_hand.urdf"));
  const auto model = sim::compileModel(h, {});
  sim::RunPlan plan;
  plan.duration = 1.5;
  plan.trajectories.resize(h->actuators.size());
  std::vector<double> target(h->actuators.size(), 0.0);
  for (int a : h->closing_actuators) {
    const auto& act = h->actuators[static_cast<std::size_t>(a)];
    target[static_cast<std::size_t>(a)] = act.lower + 0.6 * (act.upper - act.lower);
    plan.trajectories[static_cast<std::size_t>(a)].append(
        sim::TrapezoidalProfile(0.0, target[static_cast<std::size_t>(a)], 2.0, 10.0));
  }
  sim::Run run(model, plan);
  run.runToEnd();
  EXPECT_EQ(run.state().warning_count, 0) << run.state().warnings.front();
  for (int a : h->closing_actuators)
    EXPECT_NEAR(run.state().actuator_position[static_cast<std::size_t>(a)],
                target[static_cast<std::size_t>(a)], 0.05)
        << h->actuators[static_cast<std::size_t>(a)].name;
}

TEST(UrdfReader, SelfCollisionIsOffUnlessTheSidecarTurnsItOn) {
  const fs::path dir = fs::temp_directory_path() / ("handsim_self_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::copy_file(urdfDir() + "mimic_gripper.urdf", dir / "g.urdf",
                fs::copy_options::overwrite_existing);
  EXPECT_FALSE(hand::loadHand((dir / "g.urdf").string()).self_collision);
  EXPECT_TRUE(hand::loadHand("barrett").self_collision);  // hand files: always on
  std::ofstream(dir / "g.handsim.json")
      << "{\"format\": \"handsim-urdf-sidecar\", \"version\": 1, \"self_collision\": true}\n";
  EXPECT_TRUE(hand::loadHand((dir / "g.urdf").string()).self_collision);
  std::ofstream(dir / "g.handsim.json")
      << "{\"format\": \"handsim-urdf-sidecar\", \"version\": 1,\n \"self_collision\": 1}\n";
  const std::string e = loadError((dir / "g.urdf").string());
  EXPECT_NE(e.find("g.handsim.json:2"), std::string::npos) << e;
  EXPECT_NE(e.find("self_collision"), std::string::npos) << e;
  fs::remove_all(dir);
}

TEST(UrdfReader, CollisionShapesAreHullsUnlessTheSidecarSaysOtherwise) {
  const fs::path dir = fs::temp_directory_path() / ("handsim_shape_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::copy_file(urdfDir() + "mimic_gripper.urdf", dir / "g.urdf",
                fs::copy_options::overwrite_existing);
  const hand::HandModel plain = hand::loadHand((dir / "g.urdf").string());
  EXPECT_EQ(plain.palm_collision, hand::kUrdfDefaultCollision);
  EXPECT_EQ(plain.linkCollision(0, 0), hand::kUrdfDefaultCollision);
  std::ofstream(dir / "g.handsim.json")
      << "{\"format\": \"handsim-urdf-sidecar\", \"version\": 1, \"collision\": \"mesh\",\n"
         " \"link_collision\": {\"right\": \"hull\"}}\n";
  const hand::HandModel chosen = hand::loadHand((dir / "g.urdf").string());
  EXPECT_EQ(chosen.palm_collision, collision::CollisionShape::Mesh);
  int hulls = 0;
  for (const auto& f : chosen.link_collision)
    for (collision::CollisionShape c : f) hulls += c == collision::CollisionShape::Hull;
  EXPECT_EQ(hulls, 1);
  std::ofstream(dir / "g.handsim.json")
      << "{\"format\": \"handsim-urdf-sidecar\", \"version\": 1,\n"
         " \"link_collision\": {\"nope\": \"hull\"}}\n";
  const std::string e = loadError((dir / "g.urdf").string());
  EXPECT_NE(e.find("g.handsim.json:2"), std::string::npos) << e;
  EXPECT_NE(e.find("/link_collision/nope"), std::string::npos) << e;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace handsim
