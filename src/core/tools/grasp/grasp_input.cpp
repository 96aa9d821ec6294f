// SPDX-License-Identifier: GPL-3.0-or-later
// Reader of grasp contact files (docs/grasp.md): every problem is reported with its location.
#include "handsim/grasp/grasp_input.hpp"

#include <cmath>

#include "../../formats/json_document.hpp"

namespace handsim::grasp {
namespace {

using io::JsonDocument;
using json = nlohmann::json;

GraspInput readGraspInput(const JsonDocument& doc) {
  const json& root = doc.object(doc.root(), "");
  doc.allowOnly(root, "", {"contacts", "object_centre", "torque_radius_m", "cone_edges"});
  GraspInput in;
  in.options.torque_reference =
      doc.vector3(doc.require(root, "", "object_centre"), "/object_centre");
  in.options.torque_radius =
      doc.number(doc.require(root, "", "torque_radius_m"), "/torque_radius_m");
  if (!(in.options.torque_radius > 0.0)) doc.fail("/torque_radius_m", "must be positive");
  if (const json* e = doc.optional(root, "cone_edges")) {
    in.options.cone_edges = doc.integer(*e, "/cone_edges");
    if (in.options.cone_edges < 3 || in.options.cone_edges > 4096)
      doc.fail("/cone_edges", "must be from 3 to 4096");
  }
  const json& contacts = doc.array(doc.require(root, "", "contacts"), "/contacts");
  for (std::size_t i = 0; i < contacts.size(); ++i) {
    const std::string p = JsonDocument::child("/contacts", i);
    const json& c = doc.object(contacts[i], p);
    // Files of earlier versions gave "normal" out of the object; reading them with the new
    // meaning would turn every grasp inside out, so they are refused with the fix.
    if (c.is_object() && c.contains("normal"))
      doc.fail(JsonDocument::child(p, "normal"),
               "'normal' (out of the object) is now 'normal_into_object', handsim's one contact "
               "convention: rename the key and negate the vector");
    doc.allowOnly(c, p, {"point", "normal_into_object", "friction"});
    const Eigen::Vector3d point =
        doc.vector3(doc.require(c, p, "point"), JsonDocument::child(p, "point"));
    const std::string np = JsonDocument::child(p, "normal_into_object");
    const Eigen::Vector3d into = doc.vector3(doc.require(c, p, "normal_into_object"), np);
    // A normal far from unit length is more likely a typo than a direction, so it is refused
    // rather than silently normalised.
    if (std::abs(into.norm() - 1.0) > 1e-3) doc.fail(np, "must be a unit vector");
    const std::string fp = JsonDocument::child(p, "friction");
    const double mu = doc.number(doc.require(c, p, "friction"), fp);
    if (mu < 0.0) doc.fail(fp, "must not be negative");
    in.contacts.push_back({point, into.normalized(), mu});
  }
  return in;
}

}  // namespace

GraspInput loadGraspInput(const std::string& path) {
  return readGraspInput(JsonDocument::load(path));
}

GraspInput parseGraspInput(const std::string& text, const std::string& file) {
  return readGraspInput(JsonDocument::parse(text, file));
}

}  // namespace handsim::grasp
