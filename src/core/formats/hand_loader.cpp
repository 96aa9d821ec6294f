// SPDX-License-Identifier: GPL-3.0-or-later
// Hand-file loader (format: docs/hand-format.md). Units are explicit in every key name
// (a_m, alpha_deg, mass_kg...); everything is converted to SI and radians here.
#include "handsim/formats/hand_loader.hpp"

#include "drive_blocks.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "collision_field.hpp"
#include "handsim/formats/urdf_reader.hpp"
#include "handsim/kinematics/types.hpp"
#include "json_document.hpp"
#include "pose_entry.hpp"

#ifndef HANDSIM_DEFAULT_ASSET_DIR
#define HANDSIM_DEFAULT_ASSET_DIR "assets"
#endif

namespace handsim::hand {

namespace {

using io::JsonDocument;
using json = nlohmann::json;
using kinematics::JointType;
constexpr double kDeg = 3.14159265358979323846 / 180.0;

}  // namespace

namespace detail {

namespace {
double num(const JsonDocument& doc, const json& obj, const std::string& ptr, const char* key,
           double fallback) {
  const json* v = doc.optional(obj, key);
  return v ? doc.rational(*v, JsonDocument::child(ptr, key)) : fallback;
}
}  // namespace

JointRef namedJoint(const JsonDocument& doc, const HandModel& m, const json& v,
                    const std::string& ptr) {
  const std::string name = doc.string(v, ptr);
  if (!m.tree.empty()) {
    const int t = m.tree.jointIndex(name);
    if (t < 0 || m.tree.joints[static_cast<std::size_t>(t)].copies.empty())
      doc.fail(ptr, "no movable joint '" + io::excerpt(name) + "' in the URDF");
    if (m.tree.joints[static_cast<std::size_t>(t)].copies.size() > 1)
      doc.fail(ptr, "joint '" + name + "' is shared by several fingers (a wrist joint)");
    return m.tree.joints[static_cast<std::size_t>(t)].copies.front();
  }
  const JointRef j = m.jointRef(name);
  if (j.finger < 0)
    doc.fail(ptr, "no movable joint '" + io::excerpt(name) + "' (write FINGER.JOINT, e.g. F1.J2)");
  return j;
}

void readTendonBlock(const JsonDocument& doc, const json& tj, const std::string& ptr,
                     HandModel& m) {
  doc.object(tj, ptr);
  doc.allowOnly(tj, ptr, {"name", "range_m", "stiffness_N_per_m", "joints"});
  Tendon t;
  t.name = doc.string(doc.require(tj, ptr, "name"), JsonDocument::child(ptr, "name"));
  if (m.tendonIndex(t.name) >= 0 || m.actuatorIndex(t.name) >= 0)
    doc.fail(JsonDocument::child(ptr, "name"), "duplicate name '" + t.name + "'");
  const std::string rp = JsonDocument::child(ptr, "range_m");
  const auto range = doc.numbers(doc.require(tj, ptr, "range_m"), rp, 2);
  t.lower = range[0];
  t.upper = range[1];
  if (t.lower > t.upper) doc.fail(rp, "lower limit is greater than upper limit");
  t.stiffness = num(doc, tj, ptr, "stiffness_N_per_m", t.stiffness);
  if (!(t.stiffness > 0.0))
    doc.fail(JsonDocument::child(ptr, "stiffness_N_per_m"), "must be positive");
  const std::string jp = JsonDocument::child(ptr, "joints");
  const json& joints = doc.array(doc.require(tj, ptr, "joints"), jp);
  if (joints.empty()) doc.fail(jp, "a tendon must pull at least one joint");
  for (std::size_t i = 0; i < joints.size(); ++i) {
    const std::string p = JsonDocument::child(jp, i);
    doc.object(joints[i], p);
    doc.allowOnly(
        joints[i], p,
        {"joint", "pulley_radius_m", "spring_Nm_per_rad", "rest_deg", "damping_Nms_per_rad"});
    TendonJoint tj2;
    tj2.joint =
        namedJoint(doc, m, doc.require(joints[i], p, "joint"), JsonDocument::child(p, "joint"));
    const auto& row =
        m.fingers[static_cast<std::size_t>(tj2.joint.finger)].rows[static_cast<std::size_t>(
            m.fingers[static_cast<std::size_t>(tj2.joint.finger)].rowOfJoint(tj2.joint.joint))];
    if (row.type != JointType::Revolute)
      doc.fail(JsonDocument::child(p, "joint"), "tendons pull revolute joints only");
    const int driver = m.driverOf(tj2.joint).first;
    if (driver >= 0) {
      // A URDF joint comes with its own actuator: the tendon takes it over (made passive
      // below) unless that actuator also drives mimic joints.
      Actuator& own = m.actuators[static_cast<std::size_t>(driver)];
      if (m.tree.empty())
        doc.fail(JsonDocument::child(p, "joint"), "joint is driven by an actuator");
      if (own.drives.size() != 1)
        doc.fail(JsonDocument::child(p, "joint"),
                 "joint's actuator also drives its mimic joints; a tendon cannot pull it");
      // Passive, as a hand file's tendon joints (addDirectActuators).
      own.servo.kp = own.servo.kd = 0.0;
      own.servo.rotor_inertia = 1e-5;
    }
    for (const auto& other : m.tendons)
      for (const auto& oj : other.joints)
        if (oj.joint == tj2.joint)
          doc.fail(JsonDocument::child(p, "joint"), "joint is pulled by another tendon");
    for (std::size_t k = 0; k < t.joints.size(); ++k)
      if (t.joints[k].joint == tj2.joint)
        doc.fail(JsonDocument::child(p, "joint"), "joint is listed twice in this tendon (also at " +
                                                      JsonDocument::child(jp, k) + ")");
    tj2.pulley_radius = num(doc, joints[i], p, "pulley_radius_m", tj2.pulley_radius);
    tj2.spring = num(doc, joints[i], p, "spring_Nm_per_rad", tj2.spring);
    tj2.rest = num(doc, joints[i], p, "rest_deg", 0.0) * kDeg;
    tj2.damping = num(doc, joints[i], p, "damping_Nms_per_rad", tj2.damping);
    if (!(tj2.pulley_radius > 0.0) || tj2.spring < 0.0 || tj2.damping < 0.0)
      doc.fail(p, "pulley radius must be positive, spring and damping non-negative");
    t.joints.push_back(tj2);
  }
  m.tendons.push_back(std::move(t));
}

void readClutchBlock(const JsonDocument& doc, const json& cj, const std::string& ptr,
                     HandModel& m) {
  doc.object(cj, ptr);
  doc.allowOnly(cj, ptr, {"actuator", "inner", "outer", "tau_break_Nm", "closing_direction"});
  ClutchModel c;
  const std::string ap = JsonDocument::child(ptr, "actuator");
  const std::string an = doc.string(doc.require(cj, ptr, "actuator"), ap);
  c.actuator = m.actuatorIndex(an);
  if (c.actuator < 0) doc.fail(ap, "no actuator named '" + io::excerpt(an) + "'");
  if (m.clutchOfActuator(c.actuator) >= 0) doc.fail(ap, "actuator already has a clutch");
  c.inner = namedJoint(doc, m, doc.require(cj, ptr, "inner"), JsonDocument::child(ptr, "inner"));
  c.outer = namedJoint(doc, m, doc.require(cj, ptr, "outer"), JsonDocument::child(ptr, "outer"));
  for (const auto& [ref, key] : {std::pair{c.inner, "inner"}, std::pair{c.outer, "outer"}}) {
    if (m.driverOf(ref).first != c.actuator)
      doc.fail(JsonDocument::child(ptr, key), "joint is not driven by actuator '" + an + "'");
  }
  if (c.inner == c.outer) doc.fail(ptr, "inner and outer joints must differ");
  const std::string tp = JsonDocument::child(ptr, "tau_break_Nm");
  c.tau_break = doc.rational(doc.require(cj, ptr, "tau_break_Nm"), tp);
  if (c.tau_break <= 0.0) doc.fail(tp, "breakaway torque must be positive");
  if (const auto it = cj.find("closing_direction"); it != cj.end()) {
    const std::string dp = JsonDocument::child(ptr, "closing_direction");
    c.closing_direction = doc.integer(*it, dp);
    if (c.closing_direction != 1 && c.closing_direction != -1)
      doc.fail(dp, "must be 1 (closes as the actuator's position grows) or -1");
  }
  m.clutches.push_back(c);
}

void readEigengraspBlock(const JsonDocument& doc, const json& ej, const std::string& ptr,
                         HandModel& m) {
  doc.object(ej, ptr);
  doc.allowOnly(ej, ptr, {"origin", "directions"});
  const std::size_t na = m.actuators.size();
  if (na == 0) doc.fail(ptr, "the hand has no actuators to move along eigengrasps");
  // Actuator -> value maps; actuators a map leaves out get `fill` (clamped into the range).
  auto readMap = [&](const json& v, const std::string& p, bool origin) {
    doc.object(v, p);
    std::vector<double> out(na, 0.0);
    if (origin)
      for (std::size_t a = 0; a < na; ++a)
        out[a] = std::clamp(0.0, m.actuators[a].lower, m.actuators[a].upper);
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string vp = JsonDocument::child(p, it.key());
      const int a = m.actuatorIndex(it.key());
      if (a < 0) doc.fail(vp, "no actuator named '" + it.key() + "'");
      const double x = doc.rational(it.value(), vp);
      const Actuator& act = m.actuators[static_cast<std::size_t>(a)];
      if (origin && (x < act.lower || x > act.upper)) doc.fail(vp, "outside the actuator's range");
      out[static_cast<std::size_t>(a)] = x;
    }
    return out;
  };
  const std::string op = JsonDocument::child(ptr, "origin");
  m.eigengrasp_origin = readMap(doc.require(ej, ptr, "origin"), op, true);
  const std::string dp = JsonDocument::child(ptr, "directions");
  const json& dirs = doc.array(doc.require(ej, ptr, "directions"), dp);
  if (dirs.empty()) doc.fail(dp, "expected at least one direction");
  if (dirs.size() > na) doc.fail(dp, "more directions than the hand has actuators");
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    const std::string p = JsonDocument::child(dp, i);
    doc.object(dirs[i], p);
    doc.allowOnly(dirs[i], p, {"name", "actuators"});
    Eigengrasp e;
    e.name = dirs[i].contains("name") ? doc.string(dirs[i]["name"], JsonDocument::child(p, "name"))
                                      : "E" + std::to_string(i + 1);
    e.direction =
        readMap(doc.require(dirs[i], p, "actuators"), JsonDocument::child(p, "actuators"), false);
    double norm = 0.0;
    for (double x : e.direction) norm += x * x;
    if (!(norm > 0.0)) doc.fail(p, "the direction must not be zero");
    m.eigengrasps.push_back(std::move(e));
  }
}

void readContactPointList(const JsonDocument& doc, const json& list, const std::string& ptr,
                          int finger, int row, const Eigen::Isometry3d& frame, HandModel& m) {
  doc.array(list, ptr);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string p = JsonDocument::child(ptr, i);
    doc.object(list[i], p);
    doc.allowOnly(list[i], p, {"point_m", "normal"});
    PresetContactPoint c;
    c.finger = finger;
    c.row = row;
    const Eigen::Vector3d point =
        doc.vector3(doc.require(list[i], p, "point_m"), JsonDocument::child(p, "point_m"));
    const std::string np = JsonDocument::child(p, "normal");
    const Eigen::Vector3d normal = doc.vector3(doc.require(list[i], p, "normal"), np);
    if (!(normal.norm() > 1e-12)) doc.fail(np, "the normal must not be zero");
    c.point_body = frame * point;
    c.normal_body = (frame.linear() * normal).normalized();
    m.contact_points.push_back(c);
  }
}

}  // namespace detail

namespace {

class HandReader {
 public:
  explicit HandReader(const JsonDocument& doc) : doc_(doc) {
    const std::filesystem::path p(doc.file());
    dir_ = p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
  }

  HandModel read() {
    const json& root = doc_.object(doc_.root(), "");
    doc_.allowOnly(
        root, "",
        {"format", "version", "id", "name", "description", "sources", "palm", "fingers",
         "actuators", "tendons", "clutches", "poses", "grasp", "collision", "eigengrasps"});
    const std::string format = doc_.string(doc_.require(root, "", "format"), "/format");
    if (format != "handsim-hand")
      doc_.fail("/format", "expected \"handsim-hand\", got \"" + io::excerpt(format) + "\"");
    const int version = doc_.integer(doc_.require(root, "", "version"), "/version");
    if (version != 1) doc_.fail("/version", "unsupported version " + std::to_string(version));

    HandModel m;
    m.source_file = doc_.file();
    m.id = doc_.string(doc_.require(root, "", "id"), "/id");
    m.name = str(root, "", "name", m.id);
    m.description = str(root, "", "description", "");
    // Every body's collision shape unless it says otherwise.
    collision_ = io::readCollisionShape(doc_, root, "", collision::CollisionShape::Mesh);
    m.palm_collision = collision_;
    if (const json* palm = doc_.optional(root, "palm")) {
      doc_.object(*palm, "/palm");
      doc_.allowOnly(*palm, "/palm", {"mesh", "visual_mesh", "collision", "contact_points"});
      if (const json* cp = doc_.optional(*palm, "contact_points"))
        detail::readContactPointList(doc_, *cp, "/palm/contact_points", -1, -1,
                                     Eigen::Isometry3d::Identity(), m);
      m.palm_collision = io::readCollisionShape(doc_, *palm, "/palm", collision_);
      if (const json* mesh = doc_.optional(*palm, "mesh"))
        m.palm_mesh = resolve(doc_.string(*mesh, "/palm/mesh"));
      if (const json* mesh = doc_.optional(*palm, "visual_mesh"))
        m.palm_visual_mesh = resolve(doc_.string(*mesh, "/palm/visual_mesh"));
    }

    const json& fingers = doc_.array(doc_.require(root, "", "fingers"), "/fingers");
    if (fingers.empty()) doc_.fail("/fingers", "a hand needs at least one finger");
    for (std::size_t f = 0; f < fingers.size(); ++f) {
      readFinger(fingers[f], JsonDocument::child("/fingers", f), m);
    }
    m.approach_origin_palm = Eigen::Vector3d::Zero();
    for (const kinematics::Chain& c : m.fingers) m.approach_origin_palm += c.base.translation();
    m.approach_origin_palm /= static_cast<double>(m.fingers.size());
    if (const json* acts = doc_.optional(root, "actuators")) {
      doc_.array(*acts, "/actuators");
      for (std::size_t a = 0; a < acts->size(); ++a)
        readActuator((*acts)[a], JsonDocument::child("/actuators", a), m);
    }
    if (const json* tendons = doc_.optional(root, "tendons")) {
      doc_.array(*tendons, "/tendons");
      for (std::size_t t = 0; t < tendons->size(); ++t)
        readTendon((*tendons)[t], JsonDocument::child("/tendons", t), m);
    }
    addDirectActuators(m);
    if (const json* clutches = doc_.optional(root, "clutches")) {
      doc_.array(*clutches, "/clutches");
      for (std::size_t c = 0; c < clutches->size(); ++c)
        readClutch((*clutches)[c], JsonDocument::child("/clutches", c), m);
    }
    if (const json* poses = doc_.optional(root, "poses")) {
      doc_.array(*poses, "/poses");
      for (std::size_t p = 0; p < poses->size(); ++p)
        readPose((*poses)[p], JsonDocument::child("/poses", p), m);
    }
    if (const json* grasp = doc_.optional(root, "grasp")) readGrasp(*grasp, "/grasp", m);
    if (const json* eg = doc_.optional(root, "eigengrasps"))
      detail::readEigengraspBlock(doc_, *eg, "/eigengrasps", m);
    return m;
  }

 private:
  std::string str(const json& obj, const std::string& ptr, const char* key,
                  const std::string& fallback) {
    const json* v = doc_.optional(obj, key);
    return v ? doc_.string(*v, JsonDocument::child(ptr, key)) : fallback;
  }

  double num(const json& obj, const std::string& ptr, const char* key, double fallback) {
    const json* v = doc_.optional(obj, key);
    return v ? doc_.rational(*v, JsonDocument::child(ptr, key)) : fallback;
  }

  std::string resolve(const std::string& rel) const {
    if (rel.empty()) return rel;
    const std::filesystem::path p(rel);
    return p.is_absolute() ? rel : (dir_ / p).lexically_normal().string();
  }

  void readFinger(const json& fj, const std::string& ptr, HandModel& m) {
    doc_.object(fj, ptr);
    doc_.allowOnly(fj, ptr, {"name", "base", "joints"});
    kinematics::Chain chain;
    chain.name = doc_.string(doc_.require(fj, ptr, "name"), JsonDocument::child(ptr, "name"));
    if (chain.name.empty() || chain.name.find('.') != std::string::npos)
      doc_.fail(JsonDocument::child(ptr, "name"), "finger names must be non-empty without '.'");
    if (m.fingerIndex(chain.name) >= 0)
      doc_.fail(JsonDocument::child(ptr, "name"), "duplicate finger name '" + chain.name + "'");
    if (const json* base = doc_.optional(fj, "base"))
      chain.base = doc_.pose(*base, JsonDocument::child(ptr, "base"));
    const std::string jptr = JsonDocument::child(ptr, "joints");
    const json& joints = doc_.array(doc_.require(fj, ptr, "joints"), jptr);
    if (joints.empty()) doc_.fail(jptr, "a finger needs at least one DH row");
    std::vector<std::string> meshes;
    std::vector<std::string> visual_meshes;
    std::vector<collision::CollisionShape> shapes;
    for (std::size_t r = 0; r < joints.size(); ++r) {
      const std::string rp = JsonDocument::child(jptr, r);
      const json& jj = doc_.object(joints[r], rp);
      doc_.allowOnly(
          jj, rp,
          {"name", "type", "a_m", "alpha_deg", "d_m", "theta_deg", "limits_deg", "limits_m",
           "inertial", "mesh", "visual_mesh", "collision", "contact_points"});
      const std::string name =
          doc_.string(doc_.require(jj, rp, "name"), JsonDocument::child(rp, "name"));
      if (name.empty() || name.find('.') != std::string::npos)
        doc_.fail(JsonDocument::child(rp, "name"), "joint names must be non-empty without '.'");
      if (std::find(chain.joint_names.begin(), chain.joint_names.end(), name) !=
          chain.joint_names.end())
        doc_.fail(JsonDocument::child(rp, "name"), "duplicate joint name '" + name + "'");
      kinematics::DhRow row;
      const std::string type = str(jj, rp, "type", "revolute");
      if (type == "revolute") {
        row.type = JointType::Revolute;
      } else if (type == "prismatic") {
        row.type = JointType::Prismatic;
      } else if (type == "fixed") {
        row.type = JointType::Fixed;
      } else {
        doc_.fail(
            JsonDocument::child(rp, "type"),
            "expected \"revolute\", \"prismatic\" or \"fixed\", got \"" + io::excerpt(type) + "\"");
      }
      row.a = num(jj, rp, "a_m", 0.0);
      row.alpha = num(jj, rp, "alpha_deg", 0.0) * kDeg;
      row.d = num(jj, rp, "d_m", 0.0);
      row.theta = num(jj, rp, "theta_deg", 0.0) * kDeg;
      readLimits(jj, rp, row);
      chain.rows.push_back(row);
      chain.joint_names.push_back(name);
      chain.links.push_back(readInertial(jj, rp, row));
      const json* mesh = doc_.optional(jj, "mesh");
      meshes.push_back(mesh ? resolve(doc_.string(*mesh, JsonDocument::child(rp, "mesh"))) : "");
      const json* visual = doc_.optional(jj, "visual_mesh");
      visual_meshes.push_back(
          visual ? resolve(doc_.string(*visual, JsonDocument::child(rp, "visual_mesh"))) : "");
      shapes.push_back(io::readCollisionShape(doc_, jj, rp, collision_));
      if (const json* cp = doc_.optional(jj, "contact_points"))
        detail::readContactPointList(doc_, *cp, JsonDocument::child(rp, "contact_points"),
                                     static_cast<int>(m.fingers.size()), static_cast<int>(r),
                                     Eigen::Isometry3d::Identity(), m);
    }
    m.fingers.push_back(std::move(chain));
    m.link_collision.push_back(std::move(shapes));
    m.link_meshes.push_back(std::move(meshes));
    m.link_visual_meshes.push_back(std::move(visual_meshes));
  }

  void readLimits(const json& jj, const std::string& rp, kinematics::DhRow& row) {
    const json* deg = doc_.optional(jj, "limits_deg");
    const json* si = doc_.optional(jj, "limits_m");
    if (row.type == JointType::Fixed) {
      if (deg || si) doc_.fail(rp, "a fixed row takes no limits");
      return;
    }
    const char* want = row.type == JointType::Revolute ? "limits_deg" : "limits_m";
    const json* given = row.type == JointType::Revolute ? deg : si;
    if ((row.type == JointType::Revolute && si) || (row.type == JointType::Prismatic && deg))
      doc_.fail(rp, std::string("limits of this joint type are given as '") + want + "'");
    if (!given) doc_.fail(rp, std::string("missing required field '") + want + "'");
    const std::string lp = JsonDocument::child(rp, want);
    const auto lim = doc_.numbers(*given, lp, 2);
    const double scale = row.type == JointType::Revolute ? kDeg : 1.0;
    row.lower = lim[0] * scale;
    row.upper = lim[1] * scale;
    if (row.lower > row.upper) doc_.fail(lp, "lower limit is greater than upper limit");
  }

  kinematics::LinkInertia readInertial(const json& jj, const std::string& rp,
                                       const kinematics::DhRow& row) {
    kinematics::LinkInertia li;
    const json* in = doc_.optional(jj, "inertial");
    if (!in) return li;
    const std::string ip = JsonDocument::child(rp, "inertial");
    doc_.object(*in, ip);
    doc_.allowOnly(
        *in, ip,
        {"mass_kg", "com_m", "inertia_kgm2", "inertia_about", "off_diagonal", "rod_radius_m"});
    const std::string mp = JsonDocument::child(ip, "mass_kg");
    li.mass = doc_.rational(doc_.require(*in, ip, "mass_kg"), mp);
    if (li.mass < 0.0) doc_.fail(mp, "mass must not be negative");
    const json* rod = doc_.optional(*in, "rod_radius_m");
    const json* tensor = doc_.optional(*in, "inertia_kgm2");
    if (rod && tensor) doc_.fail(ip, "give either 'inertia_kgm2' or 'rod_radius_m', not both");
    if (rod) {
      // A solid rod along the link: from the origin of {i} back along -x_i by a (the DH link
      // length), radius r. Used where a paper gives no mass properties.
      const double r = doc_.rational(*rod, JsonDocument::child(ip, "rod_radius_m"));
      const double len = std::abs(row.a);
      if (r <= 0.0) doc_.fail(JsonDocument::child(ip, "rod_radius_m"), "radius must be positive");
      li.com = Eigen::Vector3d(-row.a / 2.0, 0.0, 0.0);
      Eigen::Matrix3d ic = Eigen::Matrix3d::Zero();
      ic(0, 0) = li.mass * r * r / 2.0;
      ic(1, 1) = ic(2, 2) = li.mass * (3.0 * r * r + len * len) / 12.0;
      li.inertia = ic + li.mass * (li.com.squaredNorm() * Eigen::Matrix3d::Identity() -
                                   li.com * li.com.transpose());
      return li;
    }
    if (const json* c = doc_.optional(*in, "com_m"))
      li.com = doc_.vector3(*c, JsonDocument::child(ip, "com_m"));
    if (!tensor) {
      if (li.mass > 0.0) doc_.fail(ip, "a link with mass needs 'inertia_kgm2' or 'rod_radius_m'");
      return li;
    }
    const std::string tp = JsonDocument::child(ip, "inertia_kgm2");
    const auto v = doc_.numbers(*tensor, tp, 6);  // xx, xy, xz, yy, yz, zz
    const std::string about = str(*in, ip, "inertia_about", "com");
    const std::string off = str(*in, ip, "off_diagonal", "tensor");
    if (about != "com" && about != "frame_origin")
      doc_.fail(JsonDocument::child(ip, "inertia_about"), "expected \"com\" or \"frame_origin\"");
    if (off != "tensor" && off != "products")
      doc_.fail(JsonDocument::child(ip, "off_diagonal"), "expected \"tensor\" or \"products\"");
    // "products": the numbers are products of inertia P_xy = +integral(x y dm); the tensor's
    // off-diagonal entries are their negatives (docs/design.md section 4).
    const double s = off == "products" ? -1.0 : 1.0;
    Eigen::Matrix3d given;
    given << v[0], s * v[1], s * v[2], s * v[1], v[3], s * v[4], s * v[2], s * v[4], v[5];
    const Eigen::Matrix3d shift = li.mass * (li.com.squaredNorm() * Eigen::Matrix3d::Identity() -
                                             li.com * li.com.transpose());
    const Eigen::Matrix3d at_com = about == "com" ? given : Eigen::Matrix3d(given - shift);
    li.inertia = about == "frame_origin" ? given : Eigen::Matrix3d(given + shift);
    checkPhysical(at_com, li.mass, tp);
    return li;
  }

  void checkPhysical(const Eigen::Matrix3d& at_com, double mass, const std::string& ptr) {
    if (mass == 0.0) {
      if (at_com.cwiseAbs().maxCoeff() > 0.0) doc_.fail(ptr, "a massless link has inertia");
      return;
    }
    const Eigen::Vector3d ev = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(at_com).eigenvalues();
    const double tol = 1e-12 + 1e-9 * ev.cwiseAbs().maxCoeff();
    if (ev.minCoeff() <= 0.0)
      doc_.fail(ptr,
                "inertia about the centre of mass is not positive definite (principal "
                "moments " +
                    fmt(ev) +
                    " kg m^2); check the sign convention in "
                    "'off_diagonal' and the reference point in 'inertia_about'");
    if (ev[0] + ev[1] < ev[2] - tol)
      doc_.fail(ptr, "principal moments " + fmt(ev) +
                         " kg m^2 violate the triangle inequality (no real body has them)");
  }

  static std::string fmt(const Eigen::Vector3d& v) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "(%.3g, %.3g, %.3g)", v[0], v[1], v[2]);
    return buf;
  }

  JointRef jointNamed(const HandModel& m, const json& v, const std::string& ptr) {
    return detail::namedJoint(doc_, m, v, ptr);
  }

  void readActuator(const json& aj, const std::string& ptr, HandModel& m) {
    doc_.object(aj, ptr);
    doc_.allowOnly(aj, ptr, {"name", "unit", "range", "drives", "servo"});
    Actuator a;
    a.name = doc_.string(doc_.require(aj, ptr, "name"), JsonDocument::child(ptr, "name"));
    if (m.actuatorIndex(a.name) >= 0)
      doc_.fail(JsonDocument::child(ptr, "name"), "duplicate actuator name '" + a.name + "'");
    a.unit = str(aj, ptr, "unit", "rad");
    if (a.unit != "counts" && a.unit != "rad" && a.unit != "m")
      doc_.fail(JsonDocument::child(ptr, "unit"), "expected \"counts\", \"rad\" or \"m\"");
    const std::string rp = JsonDocument::child(ptr, "range");
    const auto range = doc_.numbers(doc_.require(aj, ptr, "range"), rp, 2);
    a.lower = range[0];
    a.upper = range[1];
    if (a.lower > a.upper) doc_.fail(rp, "lower limit is greater than upper limit");
    const std::string dp = JsonDocument::child(ptr, "drives");
    const json& drives = doc_.array(doc_.require(aj, ptr, "drives"), dp);
    if (drives.empty()) doc_.fail(dp, "an actuator must drive at least one joint");
    for (std::size_t d = 0; d < drives.size(); ++d) {
      const std::string p = JsonDocument::child(dp, d);
      doc_.object(drives[d], p);
      doc_.allowOnly(drives[d], p, {"joint", "ratio", "ratio_deg"});
      JointDrive drive;
      drive.joint =
          jointNamed(m, doc_.require(drives[d], p, "joint"), JsonDocument::child(p, "joint"));
      if (m.driverOf(drive.joint).first >= 0 ||
          std::any_of(a.drives.begin(), a.drives.end(),
                      [&](const JointDrive& o) { return o.joint == drive.joint; }))
        doc_.fail(JsonDocument::child(p, "joint"), "joint is already driven by an actuator");
      const json* r = doc_.optional(drives[d], "ratio");
      const json* rd = doc_.optional(drives[d], "ratio_deg");
      if (!!r == !!rd) doc_.fail(p, "give exactly one of 'ratio' (SI units) or 'ratio_deg'");
      drive.ratio = r ? doc_.rational(*r, JsonDocument::child(p, "ratio"))
                      : doc_.rational(*rd, JsonDocument::child(p, "ratio_deg")) * kDeg;
      if (drive.ratio == 0.0) doc_.fail(p, "ratio must not be zero");
      a.drives.push_back(drive);
    }
    if (const json* servo = doc_.optional(aj, "servo")) {
      const std::string sp = JsonDocument::child(ptr, "servo");
      doc_.object(*servo, sp);
      doc_.allowOnly(*servo, sp,
                     {"kp_Nm_per_rad", "kd_Nms_per_rad", "torque_limit_Nm", "rotor_inertia_kgm2"});
      a.servo.kp = num(*servo, sp, "kp_Nm_per_rad", a.servo.kp);
      a.servo.kd = num(*servo, sp, "kd_Nms_per_rad", a.servo.kd);
      a.servo.torque_limit = num(*servo, sp, "torque_limit_Nm", a.servo.torque_limit);
      a.servo.rotor_inertia = num(*servo, sp, "rotor_inertia_kgm2", a.servo.rotor_inertia);
      if (a.servo.kp < 0 || a.servo.kd < 0 || a.servo.torque_limit <= 0 ||
          a.servo.rotor_inertia < 0)
        doc_.fail(sp, "gains and inertia must be non-negative and the torque limit positive");
    }
    m.actuators.push_back(std::move(a));
  }

  void readTendon(const json& tj, const std::string& ptr, HandModel& m) {
    detail::readTendonBlock(doc_, tj, ptr, m);
  }

  void addDirectActuators(HandModel& m) {
    for (int f = 0; f < static_cast<int>(m.fingers.size()); ++f) {
      const auto& chain = m.fingers[static_cast<std::size_t>(f)];
      for (int j = 0; j < chain.dof(); ++j) {
        const JointRef ref{f, j};
        if (m.driverOf(ref).first >= 0) continue;
        const auto& row = chain.rows[static_cast<std::size_t>(chain.rowOfJoint(j))];
        Actuator a;
        a.name = m.jointName(ref);
        a.unit = row.type == JointType::Prismatic ? "m" : "rad";
        a.lower = row.lower;
        a.upper = row.upper;
        a.drives.push_back({ref, 1.0});
        // A tendon-pulled joint is passive: no servo. Its pulley and spring add a little
        // inertia (1e-5 kg m^2); without it the lightest phalanxes against the stiff tendon
        // ring at the 1 ms step (period-2 oscillation of the contact force).
        for (const auto& t : m.tendons)
          for (const auto& tj : t.joints)
            if (tj.joint == ref) {
              a.servo.kp = a.servo.kd = 0.0;
              a.servo.rotor_inertia = 1e-5;
            }
        m.actuators.push_back(std::move(a));
      }
    }
  }

  void readClutch(const json& cj, const std::string& ptr, HandModel& m) {
    detail::readClutchBlock(doc_, cj, ptr, m);
  }

  // Which actuators and tendons close the hand is data, not a guess from their names; after
  // addDirectActuators, so a joint's own actuator ("index.J2") can be named.
  void readGrasp(const json& gj, const std::string& ptr, HandModel& m) {
    doc_.object(gj, ptr);
    doc_.allowOnly(
        gj, ptr,
        {"closing_actuators", "closing_tendons", "approach_palm", "approach_origin_palm_m"});
    if (const json* origin = doc_.optional(gj, "approach_origin_palm_m")) {
      const std::string op = JsonDocument::child(ptr, "approach_origin_palm_m");
      doc_.array(*origin, op);
      if (origin->size() != 3) doc_.fail(op, "expected 3 numbers (a point in the palm frame, m)");
      for (std::size_t i = 0; i < 3; ++i)
        m.approach_origin_palm[static_cast<Eigen::Index>(i)] =
            doc_.rational((*origin)[i], JsonDocument::child(op, i));
    }
    if (const json* approach = doc_.optional(gj, "approach_palm")) {
      const std::string ap = JsonDocument::child(ptr, "approach_palm");
      doc_.array(*approach, ap);
      if (approach->size() != 3)
        doc_.fail(ap, "expected 3 numbers (a direction in the palm frame)");
      Eigen::Vector3d v;
      for (std::size_t i = 0; i < 3; ++i)
        v[static_cast<Eigen::Index>(i)] = doc_.rational((*approach)[i], JsonDocument::child(ap, i));
      if (!(v.norm() > 1e-9) || !v.allFinite()) doc_.fail(ap, "the direction must not be zero");
      m.approach_palm = v.normalized();
    }
    if (const json* acts = doc_.optional(gj, "closing_actuators")) {
      const std::string ap = JsonDocument::child(ptr, "closing_actuators");
      doc_.array(*acts, ap);
      for (std::size_t i = 0; i < acts->size(); ++i) {
        const std::string p = JsonDocument::child(ap, i);
        const std::string name = doc_.string((*acts)[i], p);
        const int a = m.actuatorIndex(name);
        if (a < 0) doc_.fail(p, "no actuator named '" + io::excerpt(name) + "'");
        for (const TendonJoint& tj : tendonJoints(m))
          if (m.driverOf(tj.joint).first == a)
            doc_.fail(p, "'" + name +
                             "' is the passive actuator of a tendon's joint; list the tendon "
                             "under 'closing_tendons'");
        if (std::find(m.closing_actuators.begin(), m.closing_actuators.end(), a) !=
            m.closing_actuators.end())
          doc_.fail(p, "actuator '" + name + "' is listed twice");
        m.closing_actuators.push_back(a);
      }
    }
    if (const json* tendons = doc_.optional(gj, "closing_tendons")) {
      const std::string tp = JsonDocument::child(ptr, "closing_tendons");
      doc_.array(*tendons, tp);
      for (std::size_t i = 0; i < tendons->size(); ++i) {
        const std::string p = JsonDocument::child(tp, i);
        const std::string name = doc_.string((*tendons)[i], p);
        const int t = m.tendonIndex(name);
        if (t < 0) doc_.fail(p, "no tendon named '" + io::excerpt(name) + "'");
        if (std::find(m.closing_tendons.begin(), m.closing_tendons.end(), t) !=
            m.closing_tendons.end())
          doc_.fail(p, "tendon '" + name + "' is listed twice");
        m.closing_tendons.push_back(t);
      }
    }
  }

  static std::vector<TendonJoint> tendonJoints(const HandModel& m) {
    std::vector<TendonJoint> out;
    for (const Tendon& t : m.tendons) out.insert(out.end(), t.joints.begin(), t.joints.end());
    return out;
  }

  void readPose(const json& pj, const std::string& ptr, HandModel& m) {
    NamedPose pose = readPoseEntry(doc_, pj, ptr, m);
    // A set of the names read so far: a file of 200,000 poses is read in linear time.
    if (!pose_names_.insert(pose.name).second)
      doc_.fail(JsonDocument::child(ptr, "name"), "duplicate pose name");
    m.poses.push_back(std::move(pose));
  }

  std::set<std::string> pose_names_;

  const JsonDocument& doc_;
  std::filesystem::path dir_;
  collision::CollisionShape collision_ = collision::CollisionShape::Mesh;  // the file's default
};

}  // namespace

HandModel parseHandFile(const std::string& text, const std::string& file_name) {
  const JsonDocument doc = JsonDocument::parse(text, file_name);
  return HandReader(doc).read();
}

HandModel loadHandFile(const std::string& path) {
  const JsonDocument doc = JsonDocument::load(path);
  return HandReader(doc).read();
}

std::string assetDirectory() {
  if (const char* env = std::getenv("HANDSIM_ASSET_DIR"); env && *env) return env;
  return HANDSIM_DEFAULT_ASSET_DIR;
}

std::vector<std::string> builtinHandIds() {
  std::vector<std::string> ids;
  const std::filesystem::path dir = std::filesystem::path(assetDirectory()) / "hands";
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".json") ids.push_back(e.path().stem().string());
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<std::string> handSearchPath() {
  std::vector<std::string> out;
  const char* env = std::getenv("HANDSIM_HAND_PATH");
  if (!env) return out;
  const std::string all = env;
  std::size_t from = 0;
  while (from <= all.size()) {
    const std::size_t colon = std::min(all.find(':', from), all.size());
    if (colon > from) out.push_back(all.substr(from, colon - from));
    from = colon + 1;
  }
  return out;
}

std::string findOnHandSearchPath(const std::string& path) {
  const std::filesystem::path rel(path);
  if (path.empty() || rel.is_absolute()) return {};
  std::error_code ec;
  for (const std::string& dir : handSearchPath()) {
    const std::filesystem::path candidate = std::filesystem::path(dir) / rel;
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate.string();
  }
  return {};
}

HandModel loadHand(const std::string& id_or_path) {
  return loadHand(id_or_path, std::string());
}

HandModel loadHand(const std::string& id_or_path, const std::string& palm_link) {
  std::error_code ec;
  auto loadFile = [&palm_link](const std::string& path) {
    if (!isUrdfPath(path) && !palm_link.empty())
      throw io::InputError({path, 0, 0, ""},
                           "a palm link ('" + io::excerpt(palm_link) +
                               "') names a link of a URDF hand; this is a hand file");
    UrdfOptions options;
    options.palm_link = palm_link;
    return isUrdfPath(path) ? loadUrdfHand(path, options) : loadHandFile(path);
  };
  if (std::filesystem::is_regular_file(id_or_path, ec)) return loadFile(id_or_path);
  const auto ids = builtinHandIds();
  if (std::find(ids.begin(), ids.end(), id_or_path) != ids.end() && palm_link.empty())
    return loadHandFile(
        (std::filesystem::path(assetDirectory()) / "hands" / (id_or_path + ".json")).string());
  if (const std::string found = findOnHandSearchPath(id_or_path); !found.empty())
    return loadFile(found);
  std::string known;
  for (const auto& id : ids) known += (known.empty() ? "" : ", ") + id;
  const auto path = handSearchPath();
  std::string searched;
  for (const auto& d : path) searched += (searched.empty() ? "" : ":") + d;
  throw io::InputError({id_or_path, 0, 0, ""},
                       "no such hand file, not a built-in hand id (known: " + known +
                           ") and not found on HANDSIM_HAND_PATH (" +
                           (path.empty() ? std::string("unset") : searched) + ")");
}

}  // namespace handsim::hand
