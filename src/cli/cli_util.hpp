// SPDX-License-Identifier: GPL-3.0-or-later
// Helpers shared by handsim-cli commands: JSON output and common argument conversions.
#pragma once

#include <Eigen/Geometry>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "args.hpp"
#include "handsim/hand/hand_model.hpp"

namespace handsim::cli {

inline constexpr double kDegToRad = 3.14159265358979323846 / 180.0;

/// A result holding NaN or an infinity, which JSON cannot carry (it would print null): the
/// command fails with exit code kNonFinite.
class NonFiniteResult : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// JSON pointer ("/tau/2") of the first non-finite number in `j`, or "" when all are finite.
template <typename Json>
std::string firstNonFinite(const Json& j, const std::string& where = "") {
  if (j.is_number_float()) {
    const double v = j.template get<double>();
    return std::isfinite(v) ? "" : (where.empty() ? "/" : where);
  }
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      if (auto w = firstNonFinite(it.value(), where + "/" + it.key()); !w.empty()) return w;
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i)
      if (auto w = firstNonFinite(j[i], where + "/" + std::to_string(i)); !w.empty()) return w;
  }
  return "";
}

/// Prints a result as is, even with non-finite numbers (as null): for a command that has
/// already decided to fail with kNonFinite and says where.
template <typename Json = nlohmann::ordered_json>
void printJsonUnchecked(const Json& j) {
  std::cout << j.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
}

/// Prints a command's result. Strings from users (file names, names read from VRML) may hold
/// bytes that are not UTF-8: they are printed as U+FFFD, so the output is always valid JSON.
/// A non-finite number throws NonFiniteResult naming where it is, and nothing is printed.
/// (A braced list prints as ordered_json.)
template <typename Json = nlohmann::ordered_json>
void printJson(const Json& j) {
  if (const std::string where = firstNonFinite(j); !where.empty())
    throw NonFiniteResult("the result has a non-finite number (NaN or infinity) at " + where +
                          "; the inputs are too large for double precision or inconsistent");
  printJsonUnchecked(j);
}

inline nlohmann::ordered_json toJson(const Eigen::Vector3d& v) {
  return {v.x(), v.y(), v.z()};
}

inline nlohmann::ordered_json toJson(const Eigen::Isometry3d& t) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) out.push_back(t.matrix()(r, c));
  return out;
}

template <typename Vec>
nlohmann::ordered_json vectorJson(const Vec& v) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (Eigen::Index i = 0; i < v.size(); ++i) out.push_back(v[i]);
  return out;
}

/// The finger named `name` or a UsageError listing the hand's fingers.
inline int requireFinger(const hand::HandModel& h, const std::string& name) {
  const int f = h.fingerIndex(name);
  if (f >= 0) return f;
  std::string list;
  for (const auto& c : h.fingers) list += (list.empty() ? "" : ", ") + c.name;
  throw UsageError("--finger: hand '" + h.id + "' has no finger '" + name + "' (fingers: " + list +
                   ")");
}

/// Joint values for one finger from a comma list; --deg converts revolute joints.
inline Eigen::VectorXd fingerValues(const kinematics::Chain& chain, const std::string& text,
                                    const std::string& flag, bool degrees) {
  const auto v = parseNumbers(text, flag);
  if (static_cast<int>(v.size()) != chain.dof())
    throw UsageError(flag + ": finger " + chain.name + " has " + std::to_string(chain.dof()) +
                     " joints, got " + std::to_string(v.size()) + " values");
  Eigen::VectorXd q(chain.dof());
  for (int j = 0; j < chain.dof(); ++j) {
    const bool revolute = chain.rows[static_cast<std::size_t>(chain.rowOfJoint(j))].type ==
                          kinematics::JointType::Revolute;
    q[j] = v[static_cast<std::size_t>(j)] * (degrees && revolute ? kDegToRad : 1.0);
  }
  return q;
}

}  // namespace handsim::cli
