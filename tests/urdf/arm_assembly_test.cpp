// SPDX-License-Identifier: GPL-3.0-or-later
// Arm + hand assemblies as researchers build them (issue 24, docs/arm.md): a public hand of the
// reference corpus mounted on the flange of an industrial arm, written here as one URDF. The
// arms come from their makers' published kinematics, as standard DH tables:
//  - Universal Robots UR5e (6 joints; UR's published DH parameters: d1 0.1625, a2 -0.425,
//    a3 -0.3922, d4 0.1333, d5 0.0997, d6 0.0996 m; alpha pi/2, 0, 0, pi/2, -pi/2, 0);
//  - KUKA LBR iiwa 14 R820 (7 joints; d 0.36, 0, 0.42, 0, 0.4, 0, 0.126 m; alpha -pi/2, pi/2,
//    pi/2, -pi/2, -pi/2, pi/2, 0; KUKA's published link lengths).
// Each joint is a revolute joint about its frame's z followed by a fixed joint (a, 0, d) and a
// roll of alpha, so the arm's flange at angles q is the DH product worked in the test. Checked:
// the arm is the group of joints from the root to the hand's root link (6 or 7), a finger's
// chain from the root is longer than the 8 joints the loader once refused, the palm pose from
// the arm's chain equals the DH product to 1e-12 at random angles, and every finger's frames in
// the palm are those of the hand loaded alone (the assembly changes nothing below the palm).
// Skips without the corpus (tests/support/corpus.hpp).
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../support/corpus.hpp"
#include "handsim/formats/urdf_reader.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"

namespace handsim {
namespace {

namespace fs = std::filesystem;
constexpr double kPi = 3.14159265358979323846;

struct DhRow {
  double d, a, alpha;
};

const std::vector<DhRow> kUr5e = {{0.1625, 0.0, kPi / 2}, {0.0, -0.425, 0.0},
                                  {0.0, -0.3922, 0.0},    {0.1333, 0.0, kPi / 2},
                                  {0.0997, 0.0, -kPi / 2}, {0.0996, 0.0, 0.0}};
const std::vector<DhRow> kIiwa14 = {{0.36, 0.0, -kPi / 2}, {0.0, 0.0, kPi / 2},
                                    {0.42, 0.0, kPi / 2},  {0.0, 0.0, -kPi / 2},
                                    {0.4, 0.0, -kPi / 2},  {0.0, 0.0, kPi / 2},
                                    {0.126, 0.0, 0.0}};

/// The arm's flange in its base frame: the standard DH product Rz(q) Tz(d) Tx(a) Rx(alpha).
Eigen::Isometry3d dhProduct(const std::vector<DhRow>& arm, const Eigen::VectorXd& q) {
  Eigen::Isometry3d t = Eigen::Isometry3d::Identity();
  for (std::size_t i = 0; i < arm.size(); ++i) {
    t.rotate(Eigen::AngleAxisd(q[static_cast<Eigen::Index>(i)], Eigen::Vector3d::UnitZ()));
    t.translate(Eigen::Vector3d(arm[i].a, 0.0, arm[i].d));
    t.rotate(Eigen::AngleAxisd(arm[i].alpha, Eigen::Vector3d::UnitX()));
  }
  return t;
}

std::string readText(const std::string& path) {
  std::stringstream ss;
  ss << std::ifstream(path).rdbuf();
  return ss.str();
}

/// The hand's root link: the one link no joint has as its child.
std::string rootLink(const std::string& urdf) {
  std::set<std::string> links, children;
  const std::regex link("<link\\s+name=\"([^\"]+)\""), child("<child\\s+link=\"([^\"]+)\"");
  for (std::sregex_iterator i(urdf.begin(), urdf.end(), link), e; i != e; ++i) links.insert((*i)[1]);
  for (std::sregex_iterator i(urdf.begin(), urdf.end(), child), e; i != e; ++i)
    children.insert((*i)[1]);
  for (const auto& l : links)
    if (!children.count(l)) return l;
  return {};
}

/// The arm's links and joints, then the hand's (its <robot> element's content) on the flange.
std::string assembly(const std::vector<DhRow>& arm, const std::string& hand_urdf,
                     const std::string& hand_root) {
  std::ostringstream out;
  out.precision(17);
  out << "<robot name=\"assembly\">\n  <link name=\"arm_base\"/>\n";
  std::string parent = "arm_base";
  for (std::size_t i = 0; i < arm.size(); ++i) {
    const std::string n = std::to_string(i + 1);
    out << "  <joint name=\"arm_j" << n << "\" type=\"revolute\"><parent link=\"" << parent
        << "\"/><child link=\"arm_m" << n << "\"/><axis xyz=\"0 0 1\"/>"
        << "<limit lower=\"-3.1\" upper=\"3.1\" effort=\"100\" velocity=\"2\"/></joint>\n"
        << "  <link name=\"arm_m" << n << "\"/>\n"
        << "  <joint name=\"arm_dh" << n << "\" type=\"fixed\"><origin xyz=\"" << arm[i].a
        << " 0 " << arm[i].d << "\" rpy=\"" << arm[i].alpha << " 0 0\"/><parent link=\"arm_m" << n
        << "\"/><child link=\"arm_l" << n << "\"/></joint>\n"
        << "  <link name=\"arm_l" << n << "\"/>\n";
    parent = "arm_l" + n;
  }
  out << "  <joint name=\"flange\" type=\"fixed\"><parent link=\"" << parent
      << "\"/><child link=\"" << hand_root << "\"/></joint>\n";
  const std::size_t open = hand_urdf.find('>', hand_urdf.find("<robot"));
  const std::size_t close = hand_urdf.rfind("</robot>");
  out << hand_urdf.substr(open + 1, close - open - 1) << "</robot>\n";
  return out.str();
}

hand::UrdfOptions options(const std::string& palm) {
  hand::UrdfOptions o;
  o.palm_link = palm;
  o.load_geometry = false;  // kinematics only: the meshes play no part here
  o.sidecar_text = std::string(R"({"format": "handsim-urdf-sidecar", "version": 1})");
  return o;
}

void checkAssembly(const std::vector<DhRow>& arm, const std::string& hand_file) {
  const std::string hand_path = test::corpusPath("urdf/" + hand_file);
  if (hand_path.empty() || !fs::is_regular_file(hand_path))
    GTEST_SKIP() << test::corpusSkipReason("urdf/" + hand_file);
  const std::string hand_text = readText(hand_path);
  const std::string root = rootLink(hand_text);
  ASSERT_FALSE(root.empty());
  // Named beside the hand's file, so its relative mesh paths would resolve as the hand's do.
  const std::string name = (fs::path(hand_path).parent_path() / "assembly.urdf").string();
  const hand::HandModel mounted =
      hand::parseUrdfHand(assembly(arm, hand_text, root), name, options(root));
  const hand::HandModel alone = hand::parseUrdfHand(hand_text, hand_path, options(""));
  ASSERT_EQ(mounted.arm.dof(), static_cast<int>(arm.size()));
  EXPECT_EQ(mounted.arm.palm_link, root);
  ASSERT_EQ(mounted.fingers.size(), alone.fingers.size());
  int longest = 0;
  for (const auto& f : mounted.fingers) longest = std::max(longest, f.dof());
  EXPECT_GT(mounted.arm.dof() + longest, 8) << "the root-to-tip chain the loader once refused";
  std::mt19937 rng(24);
  std::uniform_real_distribution<double> angle(-3.0, 3.0), unit(0.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    Eigen::VectorXd q(mounted.arm.dof());
    for (Eigen::Index j = 0; j < q.size(); ++j) q[j] = angle(rng);
    const Eigen::Isometry3d palm = kinematics::forwardKinematics(mounted.arm.chain, q).tip();
    const Eigen::Isometry3d expected = dhProduct(arm, q);
    EXPECT_LT((palm.matrix() - expected.matrix()).cwiseAbs().maxCoeff(), 1e-12)
        << hand_file << " trial " << trial;
    // Below the palm the hand is the hand alone: the same frames at the same finger angles.
    for (std::size_t f = 0; f < mounted.fingers.size(); ++f) {
      const kinematics::Chain& m = mounted.fingers[f];
      const kinematics::Chain& a = alone.fingers[f];
      ASSERT_EQ(m.dof(), a.dof());
      kinematics::JointVector qf(m.dof());
      for (int j = 0; j < m.dof(); ++j) {
        const auto& row = m.rows[static_cast<std::size_t>(m.rowOfJoint(j))];
        qf[j] = row.lower + unit(rng) * (row.upper - row.lower);
      }
      const auto fm = kinematics::forwardKinematics(m, qf);
      const auto fa = kinematics::forwardKinematics(a, qf);
      const Eigen::Matrix4d tip_m = (m.base * fm.tip()).matrix();
      const Eigen::Matrix4d tip_a = (a.base * fa.tip()).matrix();
      EXPECT_LT((tip_m - tip_a).cwiseAbs().maxCoeff(), 1e-12) << hand_file << " finger " << f;
    }
  }
}

}  // namespace

TEST(ArmAssembly, ShadowHandOnAUr5e) { checkAssembly(kUr5e, "shadow_hand/shadow_hand_right.urdf"); }

TEST(ArmAssembly, AbilityHandOnAnIiwa14) {
  checkAssembly(kIiwa14, "ability_hand/ability_hand_right.urdf");
}

TEST(ArmAssembly, InspireHandOnAnIiwa14) {
  checkAssembly(kIiwa14, "inspire_hand/inspire_hand_right.urdf");
}

}  // namespace handsim
