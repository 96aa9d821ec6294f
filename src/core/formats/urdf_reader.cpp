// SPDX-License-Identifier: GPL-3.0-or-later
// URDF hands (docs/hand-format.md, "URDF hands"). liburdfdom parses the file; a small scan of
// the text of our own only finds the lines of elements for error messages and notices tags
// the reader ignores. The tree becomes root-to-leaf chains of general-placement rows.
#include "handsim/formats/urdf_reader.hpp"

#include <console_bridge/console.h>

#include <urdf_parser/urdf_parser.h>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "collision_field.hpp"
#include "drive_blocks.hpp"
#include "handsim/dynamics/lagrange_euler.hpp"
#include "handsim/formats/mesh_loader.hpp"
#include "handsim/geometry/primitives.hpp"
#include "handsim/hand/transmission.hpp"
#include "handsim/io/input_error.hpp"
#include "handsim/io/input_file.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "json_document.hpp"

namespace handsim::hand {

namespace {

using kinematics::JointType;
namespace fs = std::filesystem;
constexpr double kPi = 3.14159265358979323846;
constexpr std::size_t kMaxUrdfBytes = std::size_t{64} << 20;

std::mutex g_path_mutex;
std::vector<std::string> g_package_path;

// ---------------------------------------------------------------------------------------------
// Locating elements: the line of <joint name="x">, <link name="x">; tags we do not read.

struct XmlIndex {
  std::map<std::pair<std::string, std::string>, int> line_of;  ///< (tag, name) -> line
  std::vector<std::string> joint_order;                        ///< joint names in file order
  std::vector<std::string> link_order;
  std::vector<std::pair<std::string, int>> unknown;  ///< first use of each unknown tag
  /// The first place the text is not well-formed XML (a tag cut off, a closing tag that does
  /// not match, an element never closed), for liburdfdom's messages that name no line.
  std::string malformed;
  int malformed_line = 0;
  /// The line of the first element nested deeper than kMaxUrdfDepth (0: none). The scan stops
  /// there: such a file is refused before liburdfdom (whose XML parser recurses once per level
  /// and would exhaust the stack) sees it.
  int too_deep_line = 0;
  /// Each top-level joint's <parent link> and <child link> as written (empty when absent), for
  /// the link graph's checks before liburdfdom builds it (a joint from a link to itself or a
  /// cycle of joints leaves liburdfdom's links and joints holding each other: a leak).
  struct JointLinks {
    std::string joint, parent, child;
    int line = 0;
  };
  std::vector<JointLinks> joint_links;
  int line(const std::string& tag, const std::string& name) const {
    const auto it = line_of.find({tag, name});
    return it == line_of.end() ? 0 : it->second;
  }
};

const std::set<std::string>& knownTags() {
  static const std::set<std::string> tags = {
      "robot",      "link",   "joint",     "inertial", "origin",   "mass",
      "inertia",    "visual", "collision", "geometry", "box",      "cylinder",
      "sphere",     "mesh",   "material",  "color",    "texture",  "parent",
      "child",      "axis",   "limit",     "mimic",    "dynamics", "safety_controller",
      "calibration"};
  return tags;
}

std::string attribute(const std::string& tag_text, const std::string& attr) {
  std::size_t pos = 0;
  while ((pos = tag_text.find(attr, pos)) != std::string::npos) {
    const bool starts = pos > 0 && std::isspace(static_cast<unsigned char>(tag_text[pos - 1]));
    std::size_t p = pos + attr.size();
    while (p < tag_text.size() && std::isspace(static_cast<unsigned char>(tag_text[p]))) ++p;
    if (starts && p < tag_text.size() && tag_text[p] == '=') {
      ++p;
      while (p < tag_text.size() && std::isspace(static_cast<unsigned char>(tag_text[p]))) ++p;
      if (p < tag_text.size() && (tag_text[p] == '"' || tag_text[p] == '\'')) {
        const char q = tag_text[p];
        const std::size_t end = tag_text.find(q, p + 1);
        if (end != std::string::npos) return tag_text.substr(p + 1, end - p - 1);
      }
    }
    pos += attr.size();
  }
  return {};
}

XmlIndex scanXml(const std::string& text) {
  XmlIndex index;
  std::set<std::string> reported;
  std::vector<std::string> stack;  // open elements
  std::size_t ignored_depth = 0;   // how many of them are elements handsim does not read
  std::vector<int> open_lines;     // the line of each
  int line = 1;
  std::size_t i = 0;
  const auto advance = [&](std::size_t to) {
    for (; i < to && i < text.size(); ++i)
      if (text[i] == '\n') ++line;
  };
  while (i < text.size()) {
    const std::size_t lt = text.find('<', i);
    if (lt == std::string::npos) break;
    advance(lt);
    const int tag_line = line;
    if (text.compare(lt, 4, "<!--") == 0) {
      const std::size_t end = text.find("-->", lt);
      advance(end == std::string::npos ? text.size() : end + 3);
      continue;
    }
    if (text.compare(lt, 9, "<![CDATA[") == 0) {
      const std::size_t end = text.find("]]>", lt);
      advance(end == std::string::npos ? text.size() : end + 3);
      continue;
    }
    const auto malformed = [&](int at, const std::string& what) {
      if (index.malformed.empty()) {
        index.malformed = what;
        index.malformed_line = at;
      }
    };
    const std::size_t gt = text.find('>', lt);
    if (gt == std::string::npos) {
      malformed(tag_line, "a tag is cut off at the end of the file");
      break;
    }
    const std::string tag = text.substr(lt + 1, gt - lt - 1);
    advance(gt + 1);
    if (tag.empty() || tag[0] == '?' || tag[0] == '!') continue;
    if (tag[0] == '/') {
      const std::string closing = tag.substr(1, tag.find_first_of(" \t\r\n", 1) - 1);
      // Only a matching closing tag closes: a stray one leaves the depth as it was, so the
      // depth counted here is never below the one an XML parser reaches.
      if (stack.empty() || stack.back() != closing) {
        malformed(tag_line,
                  "</" + closing + "> does not close " +
                      (stack.empty() ? std::string("any element") : "<" + stack.back() + ">"));
        continue;
      }
      if (knownTags().count(stack.back()) == 0) --ignored_depth;
      stack.pop_back();
      open_lines.pop_back();
      continue;
    }
    std::size_t name_end = 0;
    while (name_end < tag.size() && !std::isspace(static_cast<unsigned char>(tag[name_end])) &&
           tag[name_end] != '/')
      ++name_end;
    const std::string name = tag.substr(0, name_end);
    const bool self_closing = tag.back() == '/';
    // Inside an element we skip (gazebo, transmission...), nothing is reported.
    const bool inside_ignored = ignored_depth > 0;
    if (!inside_ignored) {
      if (knownTags().count(name) == 0) {
        if (reported.insert(name).second) index.unknown.emplace_back(name, tag_line);
      } else if ((name == "joint" || name == "link") && stack.size() == 1) {
        const std::string element_name = attribute(tag, "name");
        index.line_of.emplace(std::make_pair(name, element_name), tag_line);
        (name == "joint" ? index.joint_order : index.link_order).push_back(element_name);
        if (name == "joint") index.joint_links.push_back({element_name, {}, {}, tag_line});
      } else if ((name == "parent" || name == "child") && stack.size() == 2 &&
                 stack.back() == "joint" && !index.joint_links.empty()) {
        (name == "parent" ? index.joint_links.back().parent : index.joint_links.back().child) =
            attribute(tag, "link");
      }
    }
    if (!self_closing) {
      if (stack.size() >= static_cast<std::size_t>(kMaxUrdfDepth)) {
        index.too_deep_line = tag_line;
        return index;
      }
      if (knownTags().count(name) == 0) ++ignored_depth;
      stack.push_back(name);
      open_lines.push_back(tag_line);
    }
  }
  if (index.malformed.empty() && !stack.empty()) {
    index.malformed = "<" + stack.back() + "> (line " + std::to_string(open_lines.back()) +
                      ") is not closed: the file ends first";
    index.malformed_line = line;
  }
  return index;
}

/// Collects what liburdfdom prints through console_bridge while it parses.
class CaptureOutput : public console_bridge::OutputHandler {
 public:
  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_WARN) messages.push_back(text);
  }
  std::vector<std::string> messages;
};

std::mutex g_console_mutex;

// ---------------------------------------------------------------------------------------------

Eigen::Isometry3d toIsometry(const urdf::Pose& p) {
  Eigen::Isometry3d t = Eigen::Isometry3d::Identity();
  t.linear() = Eigen::Quaterniond(p.rotation.w, p.rotation.x, p.rotation.y, p.rotation.z)
                   .normalized()
                   .toRotationMatrix();
  t.translation() = Eigen::Vector3d(p.position.x, p.position.y, p.position.z);
  return t;
}

Eigen::Vector3d toVector(const urdf::Vector3& v) {
  return {v.x, v.y, v.z};
}

class UrdfReader {
 public:
  UrdfReader(std::string text, std::string file, UrdfOptions options)
      : text_(std::move(text)), file_(std::move(file)), options_(std::move(options)) {
    const fs::path p(file_);
    dir_ = p.has_parent_path() ? p.parent_path() : fs::path(".");
  }

  // The file's element index (its nesting bounded before anything else reads it), then the
  // liburdfdom parse: the start of read() and readArm().
  void scanAndParse() {
    index_ = scanXml(text_);
    if (index_.too_deep_line > 0)
      fail(index_.too_deep_line,
           "elements are nested more than " + std::to_string(kMaxUrdfDepth) +
               " levels deep (a URDF needs fewer than 10); refused before parsing");
    checkLinkGraph();
    parse();
  }

  // The joints' links must form a tree: no joint from a link to itself, no link that is the
  // child of two joints, no cycle. Checked on the text before liburdfdom links its objects
  // (it would refuse some of these, but only after they hold each other and leak).
  void checkLinkGraph() const {
    std::map<std::string, const XmlIndex::JointLinks*> parent_joint;  // child link -> joint
    for (const XmlIndex::JointLinks& j : index_.joint_links) {
      if (j.parent.empty() || j.child.empty()) continue;  // liburdfdom says which is missing
      if (j.parent == j.child)
        fail(j.line,
             "joint '" + j.joint + "': its parent and child are the same link '" + j.parent + "'");
      const auto [it, fresh] = parent_joint.emplace(j.child, &j);
      if (!fresh)
        fail(j.line, "joint '" + j.joint + "': link '" + j.child +
                         "' is already the child of joint '" + it->second->joint +
                         "' (a link has one parent)");
    }
    // Up from every link until a link known to reach a root (linear in the joints: each link
    // is walked once); meeting a link of the walk in progress closes a cycle.
    std::map<std::string, int> state;  // 1: on the current walk, 2: reaches a root
    std::vector<std::string> walk;
    for (const XmlIndex::JointLinks& j : index_.joint_links) {
      walk.clear();
      std::string link = j.child;
      while (true) {
        int& st = state[link];
        if (st == 2) break;
        if (st == 1)
          fail(j.line, "joint '" + j.joint +
                           "': its links are part of a cycle of joints through "
                           "link '" +
                           link + "' (a URDF is a tree)");
        st = 1;
        walk.push_back(link);
        const auto up = parent_joint.find(link);
        if (up == parent_joint.end()) break;
        link = up->second->parent;
      }
      for (const std::string& l : walk) state[l] = 2;
    }
  }

  HandModel read() {
    scanAndParse();
    HandModel m;
    m.source_file = file_;
    m.self_collision = false;  // unless the sidecar turns it on (HandModel::self_collision)
    m.id = fs::path(file_).stem().string();
    m.name = model_->getName().empty() ? m.id : model_->getName();
    m.description = "URDF robot '" + model_->getName() + "' read from " + file_;
    for (const auto& [tag, line] : index_.unknown)
      warn(line, "element <" + tag + "> is not read by handsim; ignored");
    buildTree(m);
    std::string palm = options_.palm_link.empty() ? sidecarPalmLink() : options_.palm_link;
    if (!palm.empty()) {
      const int p = m.tree.linkIndex(palm);
      if (p < 0)
        fail(0, "palm link '" + io::excerpt(palm) + "' is not a link of the URDF" +
                    (options_.palm_link.empty() ? " (the sidecar's \"palm_link\")" : ""));
      if (p != 0) m.arm = extractArm(m.tree, p, true, options_.load_geometry);
      if (p != 0) rerootAt(m.tree, p);
    }
    buildChains(m);
    buildActuators(m);
    setCollisionShapes(m, kUrdfDefaultCollision);
    readSidecar(m);
    m.warnings = std::move(warnings_);
    return m;
  }

  /// Only the arm from the root link to `flange` (loadUrdfArm).
  ArmModel readArm(const std::string& flange) {
    scanAndParse();
    HandModel m;
    buildTree(m);
    const int p = m.tree.linkIndex(flange);
    if (p < 0) fail(0, "flange link '" + io::excerpt(flange) + "' is not a link of the URDF");
    if (p == 0) fail(0, "flange link '" + flange + "' is the root link: the arm has no joint");
    return extractArm(m.tree, p, false, options_.load_geometry);
  }

 private:
  [[noreturn]] void fail(int line, const std::string& what) const {
    throw io::InputError({file_, line, 0, ""}, what);
  }

  /// Per tree link, the (finger, row) of the body copy holding its shapes ((-1, -1): the palm).
  std::vector<std::pair<int, int>> link_owner_;
  [[noreturn]] void failJoint(const std::string& joint, const std::string& what) const {
    fail(index_.line("joint", joint), "joint '" + joint + "': " + what);
  }
  [[noreturn]] void failLink(const std::string& link, const std::string& what) const {
    fail(index_.line("link", link), "link '" + link + "': " + what);
  }
  void warn(int line, const std::string& what) {
    warnings_.push_back(io::formatLocation({file_, line, 0, ""}) + what);
  }

  void parse() {
    CaptureOutput capture;
    {
      std::lock_guard<std::mutex> lock(g_console_mutex);
      console_bridge::useOutputHandler(&capture);
      try {
        model_ = urdf::parseURDF(text_);
      } catch (const std::exception& e) {
        capture.messages.push_back(e.what());
        model_.reset();
      }
      console_bridge::restorePreviousOutputHandler();
    }
    if (model_) return;
    std::string why;
    for (const auto& s : capture.messages) why += (why.empty() ? "" : "; ") + s;
    if (why.empty()) why = "not a URDF robot description";
    // XML that is not well-formed (e.g. a truncated file): where it breaks, which liburdfdom's
    // message ("Failed to read Element name") does not say.
    if (!index_.malformed.empty())
      fail(index_.malformed_line, "not well-formed XML: " + index_.malformed + " (" + why + ")");
    // Point at the element the message names ("... joint [j3] ..." / "link [l2]").
    int line = 0;
    const std::size_t open = why.find('['), close = why.find(']');
    if (open != std::string::npos && close != std::string::npos && close > open) {
      const std::string name = why.substr(open + 1, close - open - 1);
      line = index_.line("joint", name);
      if (line == 0) line = index_.line("link", name);
    }
    fail(line, "cannot read the URDF: " + why);
  }

  // -------------------------------------------------------------------------------------------
  void buildTree(HandModel& m) {
    const urdf::LinkConstSharedPtr root = model_->getRoot();
    if (!root) fail(0, "the URDF has no root link");
    KinematicTree& tree = m.tree;
    // Names are looked up in maps, so that files of many links take linear time.
    std::map<std::string, int> link_index;
    const auto addLink = [&](const std::string& name) {
      if (link_index.emplace(name, static_cast<int>(tree.links.size())).second)
        tree.links.push_back({name});
    };
    const auto linkIndex = [&](const std::string& name) {
      const auto it = link_index.find(name);
      return it == link_index.end() ? -1 : it->second;
    };
    // Links: the root first, then file order.
    addLink(root->name);
    for (const std::string& name : index_.link_order)
      if (model_->getLink(name)) addLink(name);
    // Links urdfdom knows but the scan missed (should not happen): appended.
    for (const auto& [name, link] : model_->links_) addLink(name);
    std::vector<std::string> joint_names;
    std::set<std::string> joint_seen;
    for (const std::string& name : index_.joint_order)
      if (joint_seen.insert(name).second) joint_names.push_back(name);
    for (const auto& [name, joint] : model_->joints_)
      if (joint_seen.insert(name).second) joint_names.push_back(name);
    int movable = 0;
    for (const std::string& name : joint_names) {
      const urdf::JointConstSharedPtr j = model_->getJoint(name);
      if (!j) continue;
      TreeJoint tj;
      tj.name = name;
      switch (j->type) {
        case urdf::Joint::REVOLUTE:
          tj.type = JointType::Revolute;
          break;
        case urdf::Joint::CONTINUOUS:
          tj.type = JointType::Revolute;
          tj.continuous = true;
          break;
        case urdf::Joint::PRISMATIC:
          tj.type = JointType::Prismatic;
          break;
        case urdf::Joint::FIXED:
          tj.type = JointType::Fixed;
          break;
        default:
          failJoint(name,
                    "type floating or planar is not supported (a hand's joints are "
                    "revolute, continuous, prismatic or fixed)");
      }
      tj.parent_link = linkIndex(j->parent_link_name);
      tj.child_link = linkIndex(j->child_link_name);
      if (tj.parent_link < 0 || tj.child_link < 0) failJoint(name, "unknown parent or child link");
      if (const int other = tree.links[static_cast<std::size_t>(tj.child_link)].parent_joint;
          other >= 0)
        failJoint(name, "its child link '" + j->child_link_name + "' already has parent joint '" +
                            tree.joints[static_cast<std::size_t>(other)].name +
                            "' (a link has one parent)");
      if (tj.child_link == 0)
        failJoint(name, "its child is the root link '" + j->child_link_name + "'");
      if (tj.type != JointType::Fixed && ++movable > kMaxUrdfMovableJoints)
        failJoint(name, "the URDF has more than " + std::to_string(kMaxUrdfMovableJoints) +
                            " movable joints; at most that many are supported");
      tj.origin = toIsometry(j->parent_to_joint_origin_transform);
      if (!tj.origin.matrix().allFinite()) failJoint(name, "origin is not finite");
      if (tj.type != JointType::Fixed) {
        const Eigen::Vector3d axis = toVector(j->axis);
        const double n = axis.norm();
        if (!(n > 1e-12) || !std::isfinite(n)) failJoint(name, "axis is zero or not finite");
        tj.axis = axis / n;
      }
      if (tj.continuous) {
        tj.lower = -kPi;
        tj.upper = kPi;
      } else if (tj.type != JointType::Fixed) {
        if (!j->limits) failJoint(name, "a revolute or prismatic joint needs <limit>");
        tj.lower = j->limits->lower;
        tj.upper = j->limits->upper;
        if (!std::isfinite(tj.lower) || !std::isfinite(tj.upper))
          failJoint(name, "limit lower/upper is not finite");
        if (tj.lower > tj.upper) failJoint(name, "limit lower > upper");
      }
      if (j->limits) {
        tj.effort = j->limits->effort;
        tj.velocity = j->limits->velocity;
        if (!(tj.effort >= 0.0) || !std::isfinite(tj.effort))
          failJoint(name, "limit effort must be finite and not negative");
        if (!(tj.velocity >= 0.0) || !std::isfinite(tj.velocity))
          failJoint(name, "limit velocity must be finite and not negative");
      }
      if (j->mimic) {
        if (tj.type == JointType::Fixed) failJoint(name, "a fixed joint cannot mimic");
        tj.multiplier = j->mimic->multiplier;
        tj.offset = j->mimic->offset;
        if (!std::isfinite(tj.multiplier) || !std::isfinite(tj.offset))
          failJoint(name, "mimic multiplier/offset is not finite");
        if (tj.multiplier == 0.0) failJoint(name, "mimic multiplier must not be zero");
        mimic_names_.push_back(j->mimic->joint_name);
      } else {
        mimic_names_.emplace_back();
      }
      tree.links[static_cast<std::size_t>(tj.child_link)].parent_joint =
          static_cast<int>(tree.joints.size());
      tree.joints.push_back(tj);
    }
    std::map<std::string, int> joint_index;
    for (std::size_t i = 0; i < tree.joints.size(); ++i)
      joint_index.emplace(tree.joints[i].name, static_cast<int>(i));
    for (std::size_t i = 0; i < tree.joints.size(); ++i) {
      if (mimic_names_[i].empty()) continue;
      TreeJoint& tj = tree.joints[i];
      const auto master = joint_index.find(mimic_names_[i]);
      tj.mimic = master == joint_index.end() ? -1 : master->second;
      if (tj.mimic < 0) failJoint(tj.name, "mimics unknown joint '" + mimic_names_[i] + "'");
      if (tree.joints[static_cast<std::size_t>(tj.mimic)].type == JointType::Fixed)
        failJoint(tj.name, "mimics fixed joint '" + mimic_names_[i] + "'");
      if (tj.mimic == static_cast<int>(i)) failJoint(tj.name, "mimics itself");
    }
    // Inertials: checked here, where the link's line is known. The root link and the links
    // fixed to it never move (the palm is fixed), so their inertias are not used: not checked.
    // Links fixed to the root: found from the root down (linear in the links whatever order
    // the file lists them in).
    std::vector<std::vector<int>> fixed_children(tree.links.size());
    for (const TreeJoint& tj : tree.joints)
      if (tj.type == JointType::Fixed)
        fixed_children[static_cast<std::size_t>(tj.parent_link)].push_back(tj.child_link);
    std::vector<char> on_root(tree.links.size(), 0);
    on_root[0] = 1;
    for (std::vector<int> todo = {0}; !todo.empty();) {
      const int l = todo.back();
      todo.pop_back();
      for (int c : fixed_children[static_cast<std::size_t>(l)])
        if (!on_root[static_cast<std::size_t>(c)]) {
          on_root[static_cast<std::size_t>(c)] = 1;
          todo.push_back(c);
        }
    }
    for (std::size_t li = 0; li < tree.links.size(); ++li) {
      const TreeLink& l = tree.links[li];
      if (on_root[li]) continue;
      const urdf::LinkConstSharedPtr link = model_->getLink(l.name);
      if (!link->inertial) continue;
      const urdf::Inertial& in = *link->inertial;
      if (!(in.mass >= 0.0) || !std::isfinite(in.mass))
        failLink(l.name, "inertial mass must be finite and not negative");
      const Eigen::Matrix3d ic = inertiaAboutCom(l.name, in);
      if (!ic.allFinite()) failLink(l.name, "inertia is not finite");
      // Published hands often carry tensors no rigid body has (CAD exports, hand-typed
      // numbers). Such a tensor is repaired, and said: negative principal moments become 0,
      // and a largest moment above the sum of the other two is lowered to that sum.
      const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(ic);
      Eigen::Vector3d ev = eig.eigenvalues();  // ascending
      const double tol = 1e-9 * std::max(1e-12, ev.cwiseAbs().maxCoeff());
      if (ev.minCoeff() >= -tol && ev[0] + ev[1] >= ev[2] - tol) continue;
      std::ostringstream what;
      what.precision(4);
      what << "link '" << l.name << "': principal moments of inertia (" << ev[0] << ", " << ev[1]
           << ", " << ev[2] << ") kg m^2 are not those of a rigid body";
      ev = ev.cwiseMax(0.0);
      ev[2] = std::min(ev[2], ev[0] + ev[1]);
      what << "; repaired to (" << ev[0] << ", " << ev[1] << ", " << ev[2] << ")";
      warn(index_.line("link", l.name), what.str());
      repaired_[l.name] = eig.eigenvectors() * ev.asDiagonal() * eig.eigenvectors().transpose();
    }
  }

  /// The link's inertia about its centre of mass, inertial-frame axes: URDF's ixx..izz are
  /// the tensor's entries (products of inertia with their sign already in), or the repaired
  /// tensor.
  Eigen::Matrix3d inertiaAboutCom(const std::string& link_name, const urdf::Inertial& in) const {
    if (const auto it = repaired_.find(link_name); it != repaired_.end()) return it->second;
    Eigen::Matrix3d ic;
    ic << in.ixx, in.ixy, in.ixz,  //
        in.ixy, in.iyy, in.iyz,    //
        in.ixz, in.iyz, in.izz;
    return ic;
  }

  /// Adds link `l`'s inertial to `acc` (our convention: about the body frame's origin, in its
  /// axes), the link frame being `in_body` in the body frame.
  void addInertial(const std::string& link_name, const Eigen::Isometry3d& in_body,
                   kinematics::LinkInertia& acc) {
    const urdf::LinkConstSharedPtr link = model_->getLink(link_name);
    if (!link->inertial) return;
    const urdf::Inertial& in = *link->inertial;
    const Eigen::Isometry3d frame = in_body * toIsometry(in.origin);
    const Eigen::Vector3d c = frame.translation();
    const Eigen::Matrix3d r = frame.linear();
    const Eigen::Matrix3d about_com = r * inertiaAboutCom(link_name, in) * r.transpose();
    const Eigen::Matrix3d shift =
        in.mass * (c.squaredNorm() * Eigen::Matrix3d::Identity() - c * c.transpose());
    const double m = acc.mass + in.mass;
    acc.com = m > 0.0 ? ((acc.mass * acc.com + in.mass * c) / m).eval() : Eigen::Vector3d::Zero();
    acc.mass = m;
    acc.inertia += about_com + shift;
    if (!std::isfinite(acc.mass) || !acc.com.allFinite() || !acc.inertia.allFinite())
      failLink(link_name,
               "the inertial overflows double precision in the body frame (mass, origin or "
               "inertia far too large)");
  }

  // -------------------------------------------------------------------------------------------
  // The arm: the joints from the root link to the palm link (docs/arm.md).

  /// The sidecar's "palm_link", or "" (the sidecar itself is read later by readSidecar).
  std::string sidecarPalmLink() const {
    const fs::path path = dir_ / (fs::path(file_).stem().string() + ".handsim.json");
    std::error_code ec;
    if (!options_.sidecar_text && !fs::is_regular_file(path, ec)) return {};
    const io::JsonDocument doc =
        options_.sidecar_text ? io::JsonDocument::parse(*options_.sidecar_text, path.string())
                              : io::JsonDocument::load(path.string());
    const nlohmann::json& root = doc.object(doc.root(), "");
    const nlohmann::json* palm = doc.optional(root, "palm_link");
    if (!palm) return {};
    const std::string name = doc.string(*palm, "/palm_link");
    if (name.empty()) doc.fail("/palm_link", "must name a link");
    return name;
  }

  /// The chain from the root link to link `palm`, and the drawn shapes of every link that is
  /// not below the palm. With `below_palm_is_hand` false everything below `palm` is drawn
  /// with the arm's last frame (an arm URDF's own flange parts).
  ArmModel extractArm(const KinematicTree& tree, int palm, bool below_palm_is_hand,
                      bool load_geometry) {
    const std::size_t nl = tree.links.size();
    std::vector<char> on_path(tree.joints.size(), 0);
    for (int l = palm; tree.links[static_cast<std::size_t>(l)].parent_joint >= 0;) {
      const int j = tree.links[static_cast<std::size_t>(l)].parent_joint;
      on_path[static_cast<std::size_t>(j)] = 1;
      l = tree.joints[static_cast<std::size_t>(j)].parent_link;
    }
    std::vector<std::vector<int>> child_joints(nl);
    for (std::size_t j = 0; j < tree.joints.size(); ++j)
      child_joints[static_cast<std::size_t>(tree.joints[j].parent_link)].push_back(
          static_cast<int>(j));
    ArmModel arm;
    arm.base_link = tree.links[0].name;
    arm.palm_link = tree.links[static_cast<std::size_t>(palm)].name;
    arm.source_file = file_;
    arm.chain.name = "arm";
    // Frame of each link: the chain frame it is rigid with and where it sits in it.
    std::vector<int> frame_of(nl, -1);
    std::vector<Eigen::Isometry3d> in_frame(nl, Eigen::Isometry3d::Identity());
    std::vector<Eigen::Isometry3d> since_joint(nl, Eigen::Isometry3d::Identity());
    frame_of[0] = 0;
    Eigen::Isometry3d palm_in_last = Eigen::Isometry3d::Identity();
    for (std::vector<int> todo = {0}; !todo.empty();) {
      const int l = todo.back();
      todo.pop_back();
      const auto ul = static_cast<std::size_t>(l);
      if (l == palm) palm_in_last = in_frame[ul];
      if (l == palm && below_palm_is_hand) continue;
      for (int j : child_joints[ul]) {
        const TreeJoint& tj = tree.joints[static_cast<std::size_t>(j)];
        const auto c = static_cast<std::size_t>(tj.child_link);
        if (tj.type == JointType::Fixed) {
          frame_of[c] = frame_of[ul];
          in_frame[c] = in_frame[ul] * tj.origin;
        } else if (on_path[static_cast<std::size_t>(j)]) {
          if (tj.mimic >= 0)
            failJoint(tj.name, "an arm joint (between the root and the palm link) cannot mimic");
          arm.chain.rows.push_back(kinematics::placementRow(in_frame[ul] * tj.origin, tj.axis,
                                                            tj.type, tj.lower, tj.upper));
          arm.chain.joint_names.push_back(tj.name);
          arm.chain.links.emplace_back();  // kinematic: no mass
          frame_of[c] = static_cast<int>(arm.chain.rows.size());
          in_frame[c] = Eigen::Isometry3d::Identity();
        } else {
          failJoint(tj.name, "moves link '" + tree.links[c].name +
                                 "', which is neither on the arm (the root link '" + arm.base_link +
                                 "' to the palm link '" + arm.palm_link +
                                 "') nor below the palm; not supported");
        }
        todo.push_back(tj.child_link);
      }
    }
    // Below the palm no joint may mimic an arm joint.
    for (std::size_t j = 0; j < tree.joints.size(); ++j) {
      const TreeJoint& tj = tree.joints[j];
      if (tj.mimic >= 0 && on_path[static_cast<std::size_t>(tj.mimic)])
        failJoint(tj.name, "mimics arm joint '" +
                               tree.joints[static_cast<std::size_t>(tj.mimic)].name +
                               "'; the arm is kinematic and drives no hand joint");
    }
    if (arm.chain.rows.empty())
      failLink(arm.palm_link, "no movable joint between the root link '" + arm.base_link +
                                  "' and the palm link: the arm would have no joint");
    if (!palm_in_last.isApprox(Eigen::Isometry3d::Identity(), 1e-15)) {
      arm.chain.rows.push_back(
          kinematics::placementRow(palm_in_last, Eigen::Vector3d::UnitZ(), JointType::Fixed));
      arm.chain.joint_names.emplace_back("palm");
      arm.chain.links.emplace_back();
    }
    arm.link_shapes.resize(arm.chain.rows.size() + 1);
    if (load_geometry)
      for (std::size_t l = 0; l < nl; ++l) {
        if (frame_of[l] < 0) continue;
        if (below_palm_is_hand && static_cast<int>(l) == palm) continue;
        BodyShapes& into = arm.link_shapes[static_cast<std::size_t>(frame_of[l])];
        if (into.source.empty()) into.source = "arm link '" + tree.links[l].name + "' of " + file_;
        const urdf::LinkConstSharedPtr link = model_->getLink(tree.links[l].name);
        for (const auto& v : link->visual_array)
          if (v)
            addShape(into.visual, v->geometry.get(), v->origin, in_frame[l], tree.links[l].name,
                     v->material.get());
      }
    return arm;
  }

  /// Keeps only the subtree below link `palm`, which becomes links[0].
  void rerootAt(KinematicTree& tree, int palm) {
    const std::size_t nl = tree.links.size();
    std::vector<std::vector<int>> child_joints(nl);
    for (std::size_t j = 0; j < tree.joints.size(); ++j)
      child_joints[static_cast<std::size_t>(tree.joints[j].parent_link)].push_back(
          static_cast<int>(j));
    std::vector<char> below(nl, 0);
    below[static_cast<std::size_t>(palm)] = 1;
    for (std::vector<int> todo = {palm}; !todo.empty();) {
      const int l = todo.back();
      todo.pop_back();
      for (int j : child_joints[static_cast<std::size_t>(l)]) {
        const int c = tree.joints[static_cast<std::size_t>(j)].child_link;
        below[static_cast<std::size_t>(c)] = 1;
        todo.push_back(c);
      }
    }
    std::vector<int> new_link(nl, -1);
    KinematicTree out;
    new_link[static_cast<std::size_t>(palm)] = 0;
    out.links.push_back(tree.links[static_cast<std::size_t>(palm)]);
    out.links.back().parent_joint = -1;
    for (std::size_t l = 0; l < nl; ++l)
      if (below[l] && static_cast<int>(l) != palm) {
        new_link[l] = static_cast<int>(out.links.size());
        out.links.push_back(tree.links[l]);
      }
    std::vector<int> new_joint(tree.joints.size(), -1);
    for (std::size_t j = 0; j < tree.joints.size(); ++j)
      if (below[static_cast<std::size_t>(tree.joints[j].parent_link)]) {
        new_joint[j] = static_cast<int>(out.joints.size());
        out.joints.push_back(tree.joints[j]);
      }
    for (TreeJoint& tj : out.joints) {
      tj.parent_link = new_link[static_cast<std::size_t>(tj.parent_link)];
      tj.child_link = new_link[static_cast<std::size_t>(tj.child_link)];
      if (tj.mimic >= 0) tj.mimic = new_joint[static_cast<std::size_t>(tj.mimic)];
    }
    for (std::size_t l = 1; l < out.links.size(); ++l)
      out.links[l].parent_joint = new_joint[static_cast<std::size_t>(out.links[l].parent_joint)];
    tree = std::move(out);
  }

  // -------------------------------------------------------------------------------------------
  // Bodies (links joined by fixed joints) and the root-to-leaf chains.
  struct Body {
    int joint = -1;                         ///< movable tree joint into it; -1 for the root
    int parent = -1;                        ///< parent body
    std::vector<int> children;              ///< child bodies in file order
    std::vector<int> links;                 ///< tree links in it
    Eigen::Isometry3d placement;            ///< parent body frame -> joint frame
    int owner_finger = -1, owner_row = -1;  ///< the chain copy holding its mass and shapes
  };

  void buildChains(HandModel& m) {
    KinematicTree& tree = m.tree;
    const std::size_t nl = tree.links.size();
    std::vector<int> body_of(nl, -1);
    std::vector<Eigen::Isometry3d> in_body(nl, Eigen::Isometry3d::Identity());
    bodies_.clear();
    bodies_.push_back(Body{});
    bodies_[0].links.push_back(0);
    body_of[0] = 0;
    // Depth-first from the root in file order of the joints.
    std::vector<std::vector<int>> child_joints(nl);
    for (std::size_t j = 0; j < tree.joints.size(); ++j)
      child_joints[static_cast<std::size_t>(tree.joints[j].parent_link)].push_back(
          static_cast<int>(j));
    // Depth-first from the root, children in file order; iterative, so that no file can
    // exhaust the stack.
    std::vector<int> todo = {0};
    while (!todo.empty()) {
      const int link = todo.back();
      todo.pop_back();
      const auto ul = static_cast<std::size_t>(link);
      for (int j : child_joints[ul]) {
        const TreeJoint& tj = tree.joints[static_cast<std::size_t>(j)];
        const auto child = static_cast<std::size_t>(tj.child_link);
        if (tj.type == JointType::Fixed) {
          body_of[child] = body_of[ul];
          in_body[child] = in_body[ul] * tj.origin;
        } else {
          Body b;
          b.joint = j;
          b.parent = body_of[ul];
          b.placement = in_body[ul] * tj.origin;
          body_of[child] = static_cast<int>(bodies_.size());
          bodies_[static_cast<std::size_t>(b.parent)].children.push_back(body_of[child]);
          bodies_.push_back(b);
        }
        bodies_[static_cast<std::size_t>(body_of[child])].links.push_back(tj.child_link);
      }
      for (auto it = child_joints[ul].rbegin(); it != child_joints[ul].rend(); ++it)
        todo.push_back(tree.joints[static_cast<std::size_t>(*it)].child_link);
    }
    for (std::size_t l = 0; l < nl; ++l)
      if (body_of[l] < 0) failLink(tree.links[l].name, "is not connected to the root link");

    // One chain per leaf body, leaves in depth-first order, each path read up its parents.
    std::vector<std::vector<int>> paths;  // bodies from the first below the root to the leaf
    std::size_t path_rows = 0;            // their lengths added up: the chains' rows in all
    std::vector<int> body_todo = {0};
    while (!body_todo.empty()) {
      const int b = body_todo.back();
      body_todo.pop_back();
      const Body& body = bodies_[static_cast<std::size_t>(b)];
      if (body.children.empty() && b != 0) {
        std::vector<int> path;
        for (int k = b; k != 0; k = bodies_[static_cast<std::size_t>(k)].parent) path.push_back(k);
        std::reverse(path.begin(), path.end());
        // Every chain repeats the joints it shares with others (an arm, a palm joint): a
        // deep tree with many leaves would multiply them.
        path_rows += path.size();
        if (path_rows > kMaxUrdfChainRows)
          failLink(tree.links[static_cast<std::size_t>(body.links.front())].name,
                   "the chains from the root to the leaves have more than " +
                       std::to_string(kMaxUrdfChainRows) +
                       " movable joints in all (a shared joint counts once per chain); at most "
                       "that many are supported");
        paths.push_back(std::move(path));
      }
      for (auto it = body.children.rbegin(); it != body.children.rend(); ++it)
        body_todo.push_back(*it);
    }
    if (paths.empty()) fail(0, "the URDF has no movable joint: nothing to simulate");

    std::vector<kinematics::LinkInertia> body_inertia(bodies_.size());
    for (std::size_t b = 0; b < bodies_.size(); ++b)
      for (int l : bodies_[b].links)
        addInertial(tree.links[static_cast<std::size_t>(l)].name,
                    in_body[static_cast<std::size_t>(l)], body_inertia[b]);
    // A moving body without mass (no <inertial> on any of its links): allowed, but said.
    for (std::size_t b = 1; b < bodies_.size(); ++b) {
      if (body_inertia[b].mass > 0.0) continue;
      const std::string& top = tree.links[static_cast<std::size_t>(bodies_[b].links.front())].name;
      warn(index_.line("link", top), "link '" + top +
                                         "' has no <inertial> (nor any link fixed to it): "
                                         "treated as massless");
    }

    for (std::size_t f = 0; f < paths.size(); ++f) {
      const std::vector<int>& p = paths[f];
      const Body& leaf = bodies_[static_cast<std::size_t>(p.back())];
      const std::string leaf_name = tree.links[static_cast<std::size_t>(leaf.links.front())].name;
      kinematics::Chain chain;
      chain.name = leaf_name;
      for (std::size_t r = 0; r < p.size(); ++r) {
        Body& body = bodies_[static_cast<std::size_t>(p[r])];
        TreeJoint& tj = tree.joints[static_cast<std::size_t>(body.joint)];
        chain.rows.push_back(
            kinematics::placementRow(body.placement, tj.axis, tj.type, tj.lower, tj.upper));
        chain.joint_names.push_back(tj.name);
        tj.copies.push_back({static_cast<int>(f), static_cast<int>(r)});
        if (body.owner_finger < 0) {
          body.owner_finger = static_cast<int>(f);
          body.owner_row = static_cast<int>(r);
          chain.links.push_back(body_inertia[static_cast<std::size_t>(p[r])]);
        } else {
          chain.links.emplace_back();  // massless copy: the mass is in the owner's chain
        }
      }
      m.fingers.push_back(std::move(chain));
    }
    // The body copy of each link, also without geometry (a sidecar's "link_collision" needs
    // it either way).
    link_owner_.assign(nl, {-1, -1});
    for (std::size_t l = 0; l < nl; ++l) {
      const Body& b = bodies_[static_cast<std::size_t>(body_of[l])];
      tree.links[l].finger = b.owner_finger;
      tree.links[l].row = b.owner_row;
      tree.links[l].in_frame = in_body[l];
      link_owner_[l] = {b.owner_finger, b.owner_row};
    }
    if (options_.load_geometry) loadGeometry(m, in_body, body_of);
  }

  // -------------------------------------------------------------------------------------------
  // Geometry: meshes through geometry::loadMesh, primitives tessellated.

  std::string resolveMesh(const std::string& uri, const std::string& link) const {
    std::string rest = uri;
    if (rest.rfind("file://", 0) == 0) {
      rest = rest.substr(7);
      return rest;
    }
    if (rest.rfind("package://", 0) != 0) {
      const fs::path p(rest);
      return p.is_absolute() ? rest : (dir_ / p).string();
    }
    rest = rest.substr(10);
    const std::size_t slash = rest.find('/');
    const std::string package = rest.substr(0, slash);
    const std::string inside = slash == std::string::npos ? "" : rest.substr(slash + 1);
    std::vector<fs::path> search;
    for (const auto& d : options_.package_path) search.emplace_back(d);
    for (const auto& d : defaultPackagePath()) search.emplace_back(d);
    if (const char* env = std::getenv("HANDSIM_PACKAGE_PATH"); env && *env) {
      std::stringstream ss(env);
      std::string item;
      while (std::getline(ss, item, ':'))
        if (!item.empty()) search.emplace_back(item);
    }
    std::error_code ec;
    fs::path here = fs::absolute(dir_, ec);
    for (int depth = 0; depth < 16 && !here.empty(); ++depth) {
      search.push_back(here);
      if (here == here.parent_path()) break;
      here = here.parent_path();
    }
    for (const fs::path& d : search) {
      for (const fs::path& candidate :
           {d / package / inside, d.filename() == package ? d / inside : fs::path()}) {
        if (!candidate.empty() && fs::is_regular_file(candidate, ec)) return candidate.string();
      }
    }
    fail(index_.line("link", link),
         "link '" + link + "': mesh '" + uri + "' not found: package '" + package +
             "' is in none of the package folders (--package-path, HANDSIM_PACKAGE_PATH, the "
             "URDF's folder and its parents)");
  }

  geometry::TriangleMesh shapeMesh(const urdf::Geometry& g, const std::string& link,
                                   Eigen::Vector3f& colour) {
    geometry::TriangleMesh mesh;
    constexpr int kSegments = 24;
    const auto size = [&](double v, const char* what) {
      if (!(v > 0.0) || !(v <= kMaxUrdfShapeSizeM))
        failLink(link, std::string(what) + " " + std::to_string(v) +
                           " m: primitive sizes must be positive and at most " +
                           std::to_string(static_cast<int>(kMaxUrdfShapeSizeM)) + " m");
    };
    switch (g.type) {
      case urdf::Geometry::BOX: {
        const auto& b = static_cast<const urdf::Box&>(g);
        size(b.dim.x, "box size x");
        size(b.dim.y, "box size y");
        size(b.dim.z, "box size z");
        mesh = geometry::makeBox(toVector(b.dim));
        break;
      }
      case urdf::Geometry::SPHERE:
        size(static_cast<const urdf::Sphere&>(g).radius, "sphere radius");
        mesh = geometry::makeSphere(static_cast<const urdf::Sphere&>(g).radius, kSegments);
        break;
      case urdf::Geometry::CYLINDER: {
        const auto& c = static_cast<const urdf::Cylinder&>(g);
        size(c.radius, "cylinder radius");
        size(c.length, "cylinder length");
        mesh = geometry::makeCylinder(c.radius, c.length, kSegments);
        // Ours runs along y, URDF's along z.
        mesh.transform(Eigen::Affine3d(Eigen::AngleAxisd(kPi / 2, Eigen::Vector3d::UnitX())));
        break;
      }
      case urdf::Geometry::MESH: {
        const auto& mg = static_cast<const urdf::Mesh&>(g);
        const Eigen::Vector3d scale = toVector(mg.scale);
        if (!scale.allFinite() || scale.cwiseAbs().minCoeff() == 0.0)
          failLink(link, "mesh scale must be finite and not zero");
        if (mg.filename.size() > kMaxUrdfMeshNameBytes)
          failLink(link, "mesh file name of " + std::to_string(mg.filename.size()) +
                             " bytes; at most " + std::to_string(kMaxUrdfMeshNameBytes) +
                             " are read ('" + io::excerpt(mg.filename) + "')");
        const std::string path = resolveMesh(mg.filename, link);
        std::error_code ec;
        if (!fs::is_regular_file(path, ec))
          fail(index_.line("link", link),
               "link '" + link + "': mesh file '" + path + "' does not exist");
        auto it = mesh_cache_.find(path);
        if (it == mesh_cache_.end()) {
          geometry::LoadedModel loaded;
          try {
            loaded = geometry::loadMesh(path);
          } catch (const io::InputError& e) {
            fail(index_.line("link", link), "link '" + link + "': " + e.what());
          }
          for (const std::string& w : loaded.warnings) warnings_.push_back(w);
          it = mesh_cache_.emplace(path, std::move(loaded)).first;
        }
        std::size_t triangles = 0;
        for (const auto& s : it->second.shapes) triangles += s.mesh.triangleCount();
        countTriangles(triangles, link);
        for (const auto& s : it->second.shapes) mesh.append(s.mesh);
        if (!it->second.shapes.empty()) colour = it->second.shapes.front().diffuse_color;
        if (scale != Eigen::Vector3d::Ones())
          mesh.transform(Eigen::Affine3d(Eigen::Scaling(scale)));
        break;
      }
    }
    if (g.type != urdf::Geometry::MESH) countTriangles(mesh.triangleCount(), link);
    // Scaled or placed out of all proportion (scale 1e308 gives infinite vertices).
    Eigen::Vector3d lo = Eigen::Vector3d::Constant(std::numeric_limits<double>::infinity());
    Eigen::Vector3d hi = -lo;
    for (const Eigen::Vector3d& v : mesh.vertices) {
      lo = lo.cwiseMin(v);
      hi = hi.cwiseMax(v);
    }
    if (!mesh.vertices.empty() &&
        (!lo.allFinite() || !hi.allFinite() || (hi - lo).maxCoeff() > kMaxUrdfShapeSizeM))
      failLink(link, "a shape larger than " + std::to_string(static_cast<int>(kMaxUrdfShapeSizeM)) +
                         " m (or not finite) after its scale; check the mesh scale and units");
    return mesh;
  }

  /// Counts a shape's triangles against the hand's budget (kMaxUrdfTriangles) before they are
  /// copied: a mesh named 400 times or 20,000 spheres stop here, not in memory exhaustion.
  void countTriangles(std::size_t triangles, const std::string& link) {
    triangles_ += triangles;
    if (triangles_ > options_.max_triangles)
      failLink(link, "the hand's shapes have more than " + std::to_string(options_.max_triangles) +
                         " triangles in all (each use of a mesh counts); at most that many are "
                         "read");
  }

  void addShape(geometry::LoadedModel& into, const urdf::Geometry* g, const urdf::Pose& origin,
                const Eigen::Isometry3d& link_in_frame, const std::string& link,
                const urdf::Material* material) {
    if (!g) return;
    Eigen::Vector3f colour(0.7f, 0.7f, 0.72f);
    geometry::MeshShape s;
    s.mesh = shapeMesh(*g, link, colour);
    if (g->type == urdf::Geometry::SPHERE)
      s.sphere =
          geometry::Sphere{Eigen::Vector3d::Zero(), static_cast<const urdf::Sphere*>(g)->radius};
    if (material && material->color.a > 0.0f)
      colour = Eigen::Vector3f(material->color.r, material->color.g, material->color.b);
    geometry::transformShape(s, Eigen::Affine3d((link_in_frame * toIsometry(origin)).matrix()));
    s.diffuse_color = colour;
    s.name = link;
    into.shapes.push_back(std::move(s));
  }

  void loadGeometry(HandModel& m, const std::vector<Eigen::Isometry3d>& in_body,
                    const std::vector<int>& body_of) {
    m.link_shapes.resize(m.fingers.size());
    for (std::size_t f = 0; f < m.fingers.size(); ++f)
      m.link_shapes[f].resize(m.fingers[f].rows.size());
    for (std::size_t l = 0; l < m.tree.links.size(); ++l) {
      const TreeLink& tl = m.tree.links[l];
      const Body& b = bodies_[static_cast<std::size_t>(body_of[l])];
      BodyShapes& into = b.owner_finger < 0
                             ? m.palm_shapes
                             : m.link_shapes[static_cast<std::size_t>(b.owner_finger)]
                                            [static_cast<std::size_t>(b.owner_row)];
      if (into.source.empty()) into.source = "link '" + tl.name + "' of " + file_;
      const urdf::LinkConstSharedPtr link = model_->getLink(tl.name);
      for (const auto& v : link->visual_array)
        if (v)
          addShape(into.visual, v->geometry.get(), v->origin, in_body[l], tl.name,
                   v->material.get());
      for (const auto& c : link->collision_array)
        if (c) addShape(into.collision, c->geometry.get(), c->origin, in_body[l], tl.name, nullptr);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Actuators: one per non-mimic movable joint; mimic joints ride on their master's.

  /// The actuator's joint at the end of a mimic chain, with the composed multiplier and offset.
  std::tuple<int, double, double> mimicRoot(const KinematicTree& tree, int j) const {
    double mult = 1.0, off = 0.0;
    const int first = j;
    std::set<int> seen;
    while (tree.joints[static_cast<std::size_t>(j)].mimic >= 0) {
      if (!seen.insert(j).second)
        failJoint(tree.joints[static_cast<std::size_t>(j)].name, "mimic joints form a cycle");
      const TreeJoint& tj = tree.joints[static_cast<std::size_t>(j)];
      off = mult * tj.offset + off;
      mult *= tj.multiplier;
      j = tj.mimic;
      if (!std::isfinite(mult) || !std::isfinite(off) || mult == 0.0)
        failJoint(tree.joints[static_cast<std::size_t>(first)].name,
                  "its chain of mimic multipliers and offsets overflows double precision "
                  "(or underflows to zero)");
    }
    return {j, mult, off};
  }

  void buildActuators(HandModel& m) {
    const KinematicTree& tree = m.tree;
    std::map<int, int> actuator_of;  // tree joint -> actuator
    for (std::size_t j = 0; j < tree.joints.size(); ++j) {
      const TreeJoint& tj = tree.joints[j];
      if (tj.type == JointType::Fixed || tj.mimic >= 0) continue;
      Actuator a;
      a.name = tj.name;
      a.unit = tj.type == JointType::Prismatic ? "m" : "rad";
      a.lower = tj.lower;
      a.upper = tj.upper;
      for (const JointRef& c : tj.copies) a.drives.push_back({c, 1.0, 0.0});
      actuator_of[static_cast<int>(j)] = static_cast<int>(m.actuators.size());
      m.actuators.push_back(std::move(a));
    }
    for (std::size_t j = 0; j < tree.joints.size(); ++j) {
      const TreeJoint& tj = tree.joints[j];
      if (tj.mimic < 0) continue;
      const auto [root, mult, off] = mimicRoot(tree, static_cast<int>(j));
      Actuator& a = m.actuators[static_cast<std::size_t>(actuator_of.at(root))];
      if (tree.joints[static_cast<std::size_t>(root)].type != tj.type)
        failJoint(tj.name, "mimics a joint of another type (revolute/prismatic)");
      for (const JointRef& c : tj.copies) a.drives.push_back({c, mult, off});
    }
    // The actuator's range: its joint's limits narrowed by those of its mimic joints (the
    // engine does the same at every step; here it is stated once, for users and sweeps).
    for (Actuator& a : m.actuators) {
      for (const JointDrive& d : a.drives) {
        const auto& chain = m.fingers[static_cast<std::size_t>(d.joint.finger)];
        const auto& row = chain.rows[static_cast<std::size_t>(chain.rowOfJoint(d.joint.joint))];
        hand::narrowByJointLimits(row.lower, row.upper, d.ratio, d.offset, a.lower, a.upper);
      }
      if (a.lower > a.upper) failJoint(a.name, "its mimic joints' limits leave no common range");
    }
    setServoGains(m);
  }

  /// Default servo: full effort at 0.1 rad (0.01 m) of error, natural frequency at most
  /// kServoHz with the reflected link inertia at the zero pose, critically damped; a rotor
  /// inertia is added where the links alone are too light for that (docs/hand-format.md).
  void setServoGains(HandModel& m) const {
    constexpr double kServoHz = 5.0;
    const double omega = 2.0 * kPi * kServoHz;
    std::vector<double> inertia(m.actuators.size(), 0.0);
    for (std::size_t f = 0; f < m.fingers.size(); ++f) {
      const auto& chain = m.fingers[f];
      kinematics::JointVector q(chain.dof());
      for (int j = 0; j < chain.dof(); ++j) {
        const auto& row = chain.rows[static_cast<std::size_t>(chain.rowOfJoint(j))];
        q[j] = std::clamp(0.0, row.lower, row.upper);
      }
      const auto terms = dynamics::lagrangeEuler(
          chain, q, kinematics::JointVector::Zero(chain.dof()), Eigen::Vector3d::Zero());
      for (std::size_t a = 0; a < m.actuators.size(); ++a)
        for (const JointDrive& di : m.actuators[a].drives)
          for (const JointDrive& dk : m.actuators[a].drives)
            if (di.joint.finger == static_cast<int>(f) && dk.joint.finger == static_cast<int>(f))
              inertia[a] += di.ratio * dk.ratio * terms.D(di.joint.joint, dk.joint.joint);
    }
    const KinematicTree& tree = m.tree;
    for (std::size_t a = 0; a < m.actuators.size(); ++a) {
      Actuator& act = m.actuators[a];
      const TreeJoint& tj = tree.joints[static_cast<std::size_t>(tree.jointIndex(act.name))];
      const bool prismatic = tj.type == JointType::Prismatic;
      const double effort = tj.effort > 0.0 ? tj.effort : (prismatic ? 10.0 : 1.0);
      act.servo.torque_limit = effort;
      act.servo.kp = effort / (prismatic ? 0.01 : 0.1);
      const double needed = act.servo.kp / (omega * omega);
      act.servo.rotor_inertia = std::max(needed - inertia[a], 1e-6);
      act.servo.kd = 2.0 * std::sqrt(act.servo.kp * (inertia[a] + act.servo.rotor_inertia));
      if (!std::isfinite(act.servo.kp) || !std::isfinite(act.servo.kd) ||
          !std::isfinite(act.servo.rotor_inertia))
        failJoint(act.name, "the servo gains from its limit effort " + std::to_string(effort) +
                                " and the links it moves overflow double precision (effort or "
                                "inertias far too large)");
    }
  }

  // -------------------------------------------------------------------------------------------
  // Collision shapes: every body's (the default, or the sidecar's "collision"), then per URDF
  // link ("link_collision": {"link": "mesh"}); links merged by fixed joints are one body.

  static void setCollisionShapes(HandModel& m, collision::CollisionShape shape) {
    m.palm_collision = shape;
    m.link_collision.assign(m.fingers.size(), {});
    for (std::size_t f = 0; f < m.fingers.size(); ++f)
      m.link_collision[f].assign(m.fingers[f].rows.size(), shape);
  }

  void readCollisionShapes(const io::JsonDocument& doc, const nlohmann::json& root,
                           HandModel& m) const {
    setCollisionShapes(m, io::readCollisionShape(doc, root, "", kUrdfDefaultCollision));
    const nlohmann::json* links = doc.optional(root, "link_collision");
    if (!links) return;
    doc.object(*links, "/link_collision");
    std::vector<std::string> named(link_owner_.size());  // per tree link
    for (auto it = links->begin(); it != links->end(); ++it) {
      const std::string p = io::JsonDocument::child("/link_collision", it.key());
      const int l = m.tree.linkIndex(it.key());
      if (l < 0) doc.fail(p, "no link '" + it.key() + "' in the URDF");
      const std::string name = doc.string(it.value(), p);
      const auto shape = collision::collisionShapeFromName(name);
      if (!shape) doc.fail(p, "expected \"mesh\" or \"hull\", got \"" + io::excerpt(name) + "\"");
      const auto owner = link_owner_[static_cast<std::size_t>(l)];
      // Another link of the same body named with another shape: one body has one shape.
      for (std::size_t k = 0; k < named.size(); ++k)
        if (!named[k].empty() && named[k] != name && link_owner_[k] == owner)
          doc.fail(p, "link '" + it.key() + "' is one body with link '" + m.tree.links[k].name +
                          "' (fixed joint), which is given \"" + named[k] + "\"");
      named[static_cast<std::size_t>(l)] = name;
      if (owner.first < 0)
        m.palm_collision = *shape;
      else
        m.link_collision[static_cast<std::size_t>(owner.first)]
                        [static_cast<std::size_t>(owner.second)] = *shape;
    }
  }

  // -------------------------------------------------------------------------------------------
  // Sidecar <stem>.handsim.json: tendons, clutches, named poses and grasp actuators.

  void readSidecar(HandModel& m) {
    const fs::path path = dir_ / (fs::path(file_).stem().string() + ".handsim.json");
    std::error_code ec;
    if (!options_.sidecar_text && !fs::is_regular_file(path, ec)) return;
    using json = nlohmann::json;
    const io::JsonDocument doc =
        options_.sidecar_text ? io::JsonDocument::parse(*options_.sidecar_text, path.string())
                              : io::JsonDocument::load(path.string());
    const json& root = doc.object(doc.root(), "");
    doc.allowOnly(root, "",
                  {"format", "version", "couplings", "tendons", "clutches", "poses", "grasp",
                   "self_collision", "collision", "link_collision", "eigengrasps", "palm_link",
                   "contact_points"});
    readCollisionShapes(doc, root, m);
    if (const json* sc = doc.optional(root, "self_collision")) {
      if (!sc->is_boolean()) doc.fail("/self_collision", "expected true or false");
      m.self_collision = sc->get<bool>();
    }
    const std::string format = doc.string(doc.require(root, "", "format"), "/format");
    if (format != "handsim-urdf-sidecar")
      doc.fail("/format", "expected \"handsim-urdf-sidecar\", got \"" + io::excerpt(format) + "\"");
    if (doc.integer(doc.require(root, "", "version"), "/version") != 1)
      doc.fail("/version", "unsupported version");
    if (const json* couplings = doc.optional(root, "couplings")) {
      doc.array(*couplings, "/couplings");
      for (std::size_t c = 0; c < couplings->size(); ++c)
        readCoupling(doc, (*couplings)[c], io::JsonDocument::child("/couplings", c), m);
      setServoGains(m);
    }
    // The hand files' blocks, naming URDF joints; tendons first, so that a clutch or a pose
    // sees the passive actuators they leave.
    if (const json* tendons = doc.optional(root, "tendons")) {
      doc.array(*tendons, "/tendons");
      for (std::size_t t = 0; t < tendons->size(); ++t)
        detail::readTendonBlock(doc, (*tendons)[t], io::JsonDocument::child("/tendons", t), m);
    }
    if (const json* clutches = doc.optional(root, "clutches")) {
      doc.array(*clutches, "/clutches");
      for (std::size_t c = 0; c < clutches->size(); ++c)
        detail::readClutchBlock(doc, (*clutches)[c], io::JsonDocument::child("/clutches", c), m);
    }
    if (const json* poses = doc.optional(root, "poses")) {
      doc.array(*poses, "/poses");
      std::set<std::string> pose_names;
      for (const NamedPose& pose : m.poses) pose_names.insert(pose.name);
      for (std::size_t i = 0; i < poses->size(); ++i) {
        const std::string p = io::JsonDocument::child("/poses", i);
        const json& pj = doc.object((*poses)[i], p);
        doc.allowOnly(pj, p, {"name", "joints", "joints_deg"});
        NamedPose pose;
        pose.name = doc.string(doc.require(pj, p, "name"), io::JsonDocument::child(p, "name"));
        if (!pose_names.insert(pose.name).second)
          doc.fail(io::JsonDocument::child(p, "name"), "duplicate pose name");
        std::vector<double> act(m.actuators.size());
        for (std::size_t a = 0; a < act.size(); ++a)
          act[a] = std::clamp(0.0, m.actuators[a].lower, m.actuators[a].upper);
        for (const char* key : {"joints", "joints_deg"}) {
          const json* joints = doc.optional(pj, key);
          if (!joints) continue;
          const std::string jp = io::JsonDocument::child(p, key);
          doc.object(*joints, jp);
          for (auto it = joints->begin(); it != joints->end(); ++it) {
            const std::string vp = io::JsonDocument::child(jp, it.key());
            const int a = m.actuatorIndex(it.key());
            if (a < 0)
              doc.fail(vp, "no actuated joint named '" + it.key() +
                               "' (mimic joints follow their master)");
            double v = doc.number(it.value(), vp);
            if (std::string(key) == "joints_deg") v *= kPi / 180.0;
            const Actuator& ac = m.actuators[static_cast<std::size_t>(a)];
            if (v < ac.lower - 1e-12 || v > ac.upper + 1e-12)
              doc.fail(vp, "value outside the joint's limits");
            act[static_cast<std::size_t>(a)] = v;
          }
        }
        const auto q = jointPositions(m, act);
        for (const auto& qf : q) pose.q.emplace_back(qf.data(), qf.data() + qf.size());
        m.poses.push_back(std::move(pose));
      }
    }
    if (const json* grasp = doc.optional(root, "grasp")) {
      doc.object(*grasp, "/grasp");
      doc.allowOnly(*grasp, "/grasp", {"closing_actuators", "closing_tendons"});
      if (const json* acts = doc.optional(*grasp, "closing_actuators")) {
        const std::string ap = "/grasp/closing_actuators";
        doc.array(*acts, ap);
        for (std::size_t i = 0; i < acts->size(); ++i) {
          const std::string p = io::JsonDocument::child(ap, i);
          const std::string name = doc.string((*acts)[i], p);
          const int a = m.actuatorIndex(name);
          if (a < 0) doc.fail(p, "no actuator named '" + io::excerpt(name) + "'");
          for (const Tendon& t : m.tendons)
            for (const TendonJoint& tj : t.joints)
              if (m.driverOf(tj.joint).first == a)
                doc.fail(p, "'" + name + "' is the passive actuator of tendon '" + t.name +
                                "''s joint; list the tendon under 'closing_tendons'");
          if (std::find(m.closing_actuators.begin(), m.closing_actuators.end(), a) !=
              m.closing_actuators.end())
            doc.fail(p, "actuator '" + name + "' is listed twice");
          m.closing_actuators.push_back(a);
        }
      }
      if (const json* tendons = doc.optional(*grasp, "closing_tendons")) {
        const std::string tp = "/grasp/closing_tendons";
        doc.array(*tendons, tp);
        for (std::size_t i = 0; i < tendons->size(); ++i) {
          const std::string p = io::JsonDocument::child(tp, i);
          const std::string name = doc.string((*tendons)[i], p);
          const int t = m.tendonIndex(name);
          if (t < 0) doc.fail(p, "no tendon named '" + io::excerpt(name) + "'");
          if (std::find(m.closing_tendons.begin(), m.closing_tendons.end(), t) !=
              m.closing_tendons.end())
            doc.fail(p, "tendon '" + name + "' is listed twice");
          m.closing_tendons.push_back(t);
        }
      }
    }
    if (const json* eg = doc.optional(root, "eigengrasps"))
      detail::readEigengraspBlock(doc, *eg, "/eigengrasps", m);
    if (const json* cp = doc.optional(root, "contact_points")) readContactPoints(doc, *cp, m);
  }

  /// The sidecar's "contact_points": {"link": [{"point_m", "normal"}, ...]}, in each URDF
  /// link's frame, stored in the frame of the body the link is rigid with (palm first, then
  /// finger by finger and link by link, as hand files give them).
  void readContactPoints(const io::JsonDocument& doc, const nlohmann::json& cp, HandModel& m) {
    doc.object(cp, "/contact_points");
    struct Entry {
      int finger, row;
      std::string link;
    };
    std::vector<Entry> order;
    for (auto it = cp.begin(); it != cp.end(); ++it) {
      const std::string p = io::JsonDocument::child("/contact_points", it.key());
      const int l = m.tree.linkIndex(it.key());
      if (l < 0) doc.fail(p, "no link '" + io::excerpt(it.key()) + "' in the URDF");
      const TreeLink& link = m.tree.links[static_cast<std::size_t>(l)];
      order.push_back({link.finger, link.row, it.key()});
    }
    std::stable_sort(order.begin(), order.end(), [](const Entry& a, const Entry& b) {
      return std::pair(a.finger, a.row) < std::pair(b.finger, b.row);
    });
    for (const Entry& e : order) {
      const TreeLink& link = m.tree.links[static_cast<std::size_t>(m.tree.linkIndex(e.link))];
      detail::readContactPointList(doc, cp[e.link],
                                   io::JsonDocument::child("/contact_points", e.link), link.finger,
                                   link.row, link.in_frame, m);
    }
  }

  /// A sidecar coupling: the joint follows another as a <mimic> would (q = multiplier q_master
  /// + offset). Its actuator's drives (the joint, its copies and its own mimic joints) move to
  /// the master's actuator with composed ratios and offsets, and its actuator goes.
  void readCoupling(const io::JsonDocument& doc, const nlohmann::json& cj, const std::string& ptr,
                    HandModel& m) {
    using io::JsonDocument;
    doc.object(cj, ptr);
    doc.allowOnly(cj, ptr, {"joint", "follows", "multiplier", "offset"});
    const auto jointAt = [&](const char* key) {
      const std::string kp = JsonDocument::child(ptr, key);
      const std::string name = doc.string(doc.require(cj, ptr, key), kp);
      const int t = m.tree.jointIndex(name);
      if (t < 0 || m.tree.joints[static_cast<std::size_t>(t)].copies.empty())
        doc.fail(kp, "no movable joint '" + io::excerpt(name) + "' in the URDF");
      return t;
    };
    const int follower = jointAt("joint");
    const int master = jointAt("follows");
    TreeJoint& tf = m.tree.joints[static_cast<std::size_t>(follower)];
    const TreeJoint& tm = m.tree.joints[static_cast<std::size_t>(master)];
    const std::string jp = JsonDocument::child(ptr, "joint");
    if (tf.mimic >= 0) doc.fail(jp, "joint '" + tf.name + "' already mimics another joint");
    if (tf.type != tm.type) doc.fail(jp, "joints of different types (revolute/prismatic)");
    const double mult = doc.optional(cj, "multiplier")
                            ? doc.number(cj["multiplier"], JsonDocument::child(ptr, "multiplier"))
                            : 1.0;
    const double off = doc.optional(cj, "offset")
                           ? doc.number(cj["offset"], JsonDocument::child(ptr, "offset"))
                           : 0.0;
    if (mult == 0.0 || !std::isfinite(mult) || !std::isfinite(off))
      doc.fail(ptr, "multiplier must be finite and not zero, offset finite");
    const int fa = m.driverOf(tf.copies.front()).first;
    const auto [ma, md] = m.driverOf(tm.copies.front());
    if (fa < 0 || ma < 0) doc.fail(ptr, "joint has no actuator");
    if (fa == ma) doc.fail(jp, "the joints already share an actuator (a coupling cycle)");
    // q_follower = mult (r_m a + o_m) + off; each drive d of the follower's actuator had
    // q = r_d q_follower + o_d (its primary joint's actuator value is q_follower).
    const JointDrive primary =
        m.actuators[static_cast<std::size_t>(ma)].drives[static_cast<std::size_t>(md)];
    Actuator& target = m.actuators[static_cast<std::size_t>(ma)];
    for (const JointDrive& d : m.actuators[static_cast<std::size_t>(fa)].drives) {
      const JointDrive composed{d.joint, d.ratio * mult * primary.ratio,
                                d.ratio * (mult * primary.offset + off) + d.offset};
      if (!std::isfinite(composed.ratio) || !std::isfinite(composed.offset) ||
          composed.ratio == 0.0)
        doc.fail(ptr, "the composed multiplier and offset overflow double precision");
      target.drives.push_back(composed);
    }
    for (const JointDrive& d : target.drives) {
      const auto& chain = m.fingers[static_cast<std::size_t>(d.joint.finger)];
      const auto& row = chain.rows[static_cast<std::size_t>(chain.rowOfJoint(d.joint.joint))];
      hand::narrowByJointLimits(row.lower, row.upper, d.ratio, d.offset, target.lower,
                                target.upper);
    }
    if (target.lower > target.upper)
      doc.fail(ptr, "the coupled joints' limits leave the actuator no common range");
    tf.mimic = master;
    tf.multiplier = mult;
    tf.offset = off;
    m.actuators.erase(m.actuators.begin() + fa);
  }

  std::string text_;
  std::string file_;
  UrdfOptions options_;
  fs::path dir_;
  XmlIndex index_;
  urdf::ModelInterfaceSharedPtr model_;
  std::vector<std::string> mimic_names_;
  std::vector<Body> bodies_;
  std::map<std::string, Eigen::Matrix3d> repaired_;  ///< link -> repaired inertia about the COM
  std::map<std::string, geometry::LoadedModel> mesh_cache_;
  std::size_t triangles_ = 0;  ///< of all shapes so far (countTriangles)
  std::vector<std::string> warnings_;
};

}  // namespace

void setDefaultPackagePath(const std::vector<std::string>& folders) {
  std::lock_guard<std::mutex> lock(g_path_mutex);
  g_package_path = folders;
}

std::vector<std::string> defaultPackagePath() {
  std::lock_guard<std::mutex> lock(g_path_mutex);
  return g_package_path;
}

bool isUrdfPath(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".urdf";
}

HandModel parseUrdfHand(const std::string& text, const std::string& file_name,
                        const UrdfOptions& options) {
  return UrdfReader(text, file_name, options).read();
}

HandModel loadUrdfHand(const std::string& path, const UrdfOptions& options) {
  return parseUrdfHand(io::readInputFile(path, kMaxUrdfBytes), path, options);
}

ArmModel loadUrdfArm(const std::string& path, const std::string& flange_link,
                     const UrdfOptions& options) {
  return UrdfReader(io::readInputFile(path, kMaxUrdfBytes), path, options).readArm(flange_link);
}

void mountOnArm(HandModel& hand, ArmModel arm, const Eigen::Isometry3d& flange_to_palm) {
  if (!flange_to_palm.matrix().allFinite())
    throw std::invalid_argument("mountOnArm: the mount transform is not finite");
  if (!flange_to_palm.isApprox(Eigen::Isometry3d::Identity(), 1e-15)) {
    arm.chain.rows.push_back(kinematics::placementRow(flange_to_palm, Eigen::Vector3d::UnitZ(),
                                                      kinematics::JointType::Fixed));
    arm.chain.joint_names.emplace_back("mount");
    arm.chain.links.emplace_back();
    arm.link_shapes.emplace_back();
  }
  hand.arm = std::move(arm);
}

}  // namespace handsim::hand
