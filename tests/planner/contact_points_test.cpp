// SPDX-License-Identifier: GPL-3.0-or-later
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/urdf_reader.hpp"
#include "handsim/io/input_error.hpp"
#include "handsim/planner/contact_points.hpp"
#include "handsim/planner/energy.hpp"
#include "handsim/planner/surface_distance.hpp"
#include "handsim/sim/step.hpp"

using namespace handsim;

TEST(ContactPoints, BarrettPadsFaceTheWayTheLinksClose) {
  const auto hand = std::make_shared<const hand::HandModel>(hand::loadHand("barrett"));
  const auto model = sim::compileModel(hand, {});
  const auto points = planner::palmarContactPoints(*model);
  // The palm and the two moving links of each finger (the knuckle links only spread).
  ASSERT_EQ(points.size(), 7u);
  EXPECT_EQ(points[0].finger, -1);
  EXPECT_GT(points[0].normal_body.dot(hand->approach_palm), 0.7);
  // Each link point: on its mesh, and its normal along the motion of that point as the
  // finger motor turns a little (finite difference of the kinematics, done here).
  std::vector<double> a(4, 8000.0), b = a;
  a[3] = b[3] = 0.0;
  for (int m = 0; m < 3; ++m) b[static_cast<std::size_t>(m)] += 100.0;
  const sim::SimState s0 = sim::makeState(*model, a), s1 = sim::makeState(*model, b);
  for (std::size_t i = 1; i < points.size(); ++i) {
    const auto& p = points[i];
    ASSERT_GE(p.row, 1);
    const auto& mesh =
        model->hand_geometry
            ->links[static_cast<std::size_t>(p.finger)][static_cast<std::size_t>(p.row)]
            .collision.mesh;
    const planner::SurfaceTree tree = planner::buildSurfaceTree(mesh);
    EXPECT_NEAR(planner::closestSurfacePoint(tree, p.point_body).distance, 0.0, 1e-9);
    const Eigen::Isometry3d t0 = sim::linkPoseWorld(*model, s0, p.finger, p.row);
    const Eigen::Isometry3d t1 = sim::linkPoseWorld(*model, s1, p.finger, p.row);
    const Eigen::Vector3d motion = (t1 * p.point_body - t0 * p.point_body).normalized();
    EXPECT_GT((t0.linear() * p.normal_body).dot(motion), 0.5) << p.finger << "." << p.row;
  }
}

namespace {

// The shipped gripper2r with preset contact points added: one on the palm, one on the distal
// pad of finger L given with a normal of length 2 (the reader makes it unit).
nlohmann::json gripperWithPoints() {
  std::ifstream in(hand::assetDirectory() + "/hands/gripper2r.json");
  nlohmann::json j = nlohmann::json::parse(in, nullptr, true, /*ignore_comments=*/true);
  j["palm"]["contact_points"] = {{{"point_m", {0.0, 0.0, 0.0}}, {"normal", {0.0, 0.0, 1.0}}}};
  j["fingers"][0]["joints"][1]["contact_points"] = {
      {{"point_m", {-0.0225, 0.006, 0.0}}, {"normal", {0.0, 2.0, 0.0}}}};
  return j;
}

}  // namespace

TEST(ContactPoints, AHandFileGivesItsOwnAndThePlannerMeasuresThem) {
  const std::string file = hand::assetDirectory() + "/hands/gripper2r.json";
  const auto hand = std::make_shared<const hand::HandModel>(
      hand::parseHandFile(gripperWithPoints().dump(2), file));
  ASSERT_EQ(hand->contact_points.size(), 2u);
  EXPECT_EQ(hand->contact_points[0].finger, -1);
  EXPECT_EQ(hand->contact_points[1].finger, 0);
  EXPECT_EQ(hand->contact_points[1].row, 1);
  EXPECT_DOUBLE_EQ(hand->contact_points[1].normal_body.y(), 1.0);

  // A 50 mm cube at the origin; the planner takes the file's points, not generated ones.
  const planner::PlannerModel pm = planner::compilePlannerModel(
      hand, sim::loadObject(hand::assetDirectory() + "/objects/cube.wrl"));
  ASSERT_EQ(pm.contact_points.size(), 2u);
  sim::SimState s = sim::makeState(*pm.model);
  // Both fingers upright (q = 0): finger L's base at (-40, 0, 12) mm with x0 along the palm's z
  // and y0 towards finger R, so frame {2} sits at z = 12 + 60 + 45 mm with the same axes, and
  // the pad point (-22.5, 6, 0) mm of it is (-34, 0, 94.5) mm in the palm, its normal +x. The
  // palm moved by (94, 0, -94.5) mm puts it at (60, 0, 0) mm: 35 mm outside the cube's +x face.
  const Eigen::Isometry3d palm(Eigen::Translation3d(0.094, 0.0, -0.0945));
  planner::setConfiguration(pm, palm, Eigen::VectorXd::Zero(2), s);
  const auto d = planner::contactDistances(pm, s);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_LT((d[1].point - Eigen::Vector3d(0.06, 0.0, 0.0)).norm(), 1e-12);
  EXPECT_LT((d[1].normal - Eigen::Vector3d::UnitX()).norm(), 1e-12);
  EXPECT_NEAR(d[1].surface.distance, 0.035, 1e-12);
  EXPECT_LT((d[1].surface.normal - Eigen::Vector3d::UnitX()).norm(), 1e-12);
  // The palm point is the palm frame's origin.
  EXPECT_LT((d[0].point - palm.translation()).norm(), 1e-12);
}

TEST(ContactPoints, AZeroNormalIsRefusedWithItsPlace) {
  nlohmann::json j = gripperWithPoints();
  j["fingers"][0]["joints"][1]["contact_points"][0]["normal"] = {0.0, 0.0, 0.0};
  try {
    hand::parseHandFile(j.dump(2), "g.json");
    FAIL() << "accepted a zero normal";
  } catch (const io::InputError& e) {
    EXPECT_EQ(e.location().field, "/fingers/0/joints/1/contact_points/0/normal");
    EXPECT_GT(e.location().line, 1);
    EXPECT_NE(std::string(e.what()).find("g.json"), std::string::npos) << e.what();
  }
  j = gripperWithPoints();
  j["palm"]["contact_points"][0].erase("point_m");
  EXPECT_THROW(hand::parseHandFile(j.dump(2), "g.json"), io::InputError);
}

// A URDF link's points are given in the link's frame; the hand stores them in the frame of the
// chain body the link is rigid with. Checked against the link's pose composed here from the
// URDF's joint origins and axes (not the DH chains the reader built), on a fixed pad link too.
TEST(ContactPoints, AUrdfSidecarGivesThemPerLinkInTheLinksFrame) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("handsim_contact_points_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ifstream in(hand::assetDirectory() + "/hands/urdf/mimic_gripper.urdf");
  std::string urdf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  urdf.insert(urdf.rfind("</robot>"), R"(<joint name="pad_mount" type="fixed">
    <parent link="hook2"/><child link="pad"/><origin xyz="0.003 0 0.02" rpy="0.3 0 0"/>
  </joint>
  <link name="pad"/>
)");
  std::ofstream(dir / "g.urdf") << urdf;
  std::ofstream(dir / "g.handsim.json") << R"({"format": "handsim-urdf-sidecar", "version": 1,
    "contact_points": {"pad": [{"point_m": [0, 0, 0.005], "normal": [0, 1, 0]}],
                       "base": [{"point_m": [0, 0, 0.02], "normal": [0, 0, 1]}]}})";
  hand::UrdfOptions opt;
  opt.load_geometry = false;
  const auto hand =
      std::make_shared<const hand::HandModel>(hand::loadUrdfHand((dir / "g.urdf").string(), opt));
  std::ofstream(dir / "g.handsim.json") << R"({"format": "handsim-urdf-sidecar", "version": 1,
    "contact_points": {"padd": [{"point_m": [0, 0, 0], "normal": [0, 1, 0]}]}})";
  EXPECT_THROW(hand::loadUrdfHand((dir / "g.urdf").string(), opt), io::InputError);
  fs::remove_all(dir);

  ASSERT_EQ(hand->contact_points.size(), 2u);
  const auto& base = hand->contact_points[0];  // the palm's first, whatever the file's order
  const auto& pad = hand->contact_points[1];
  EXPECT_EQ(base.finger, -1);
  ASSERT_GE(pad.finger, 0);
  EXPECT_LT((base.point_body - Eigen::Vector3d(0.0, 0.0, 0.02)).norm(), 1e-12);

  const auto model = sim::compileModel(hand, {});
  std::vector<double> act(static_cast<std::size_t>(hand->actuators.size()), 0.0);
  const double q1 = 0.5;
  act[static_cast<std::size_t>(hand->actuatorIndex("hook_proximal"))] = q1;
  const sim::SimState s = sim::makeState(*model, act);
  const double q2 = 0.8 * q1 + 0.1;  // hook_distal's mimic
  const auto rx = [](double a) {
    return Eigen::Isometry3d(Eigen::AngleAxisd(a, Eigen::Vector3d::UnitX()));
  };
  const Eigen::Isometry3d pad_world = Eigen::Translation3d(0.0, 0.03, 0.02) *
                                      Eigen::AngleAxisd(1.5707963, Eigen::Vector3d::UnitZ()) *
                                      rx(q1) * Eigen::Translation3d(0.0, 0.0, 0.04) * rx(q2) *
                                      Eigen::Translation3d(0.003, 0.0, 0.02) * rx(0.3);
  const Eigen::Isometry3d body = sim::linkPoseWorld(*model, s, pad.finger, pad.row);
  EXPECT_LT((body * pad.point_body - pad_world * Eigen::Vector3d(0.0, 0.0, 0.005)).norm(), 1e-9);
  EXPECT_LT(
      (body.linear() * pad.normal_body - pad_world.linear() * Eigen::Vector3d::UnitY()).norm(),
      1e-9);
}
