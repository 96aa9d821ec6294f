// SPDX-License-Identifier: GPL-3.0-or-later
// Named poses to and from text: hand-file "poses" entries, pose files and CSV.
#include "handsim/formats/pose_io.hpp"

#include "pose_entry.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "handsim/io/atomic_file.hpp"
#include "json_document.hpp"

namespace handsim::hand {
namespace {

using io::JsonDocument;
using kinematics::JointType;
constexpr double kDeg = 3.14159265358979323846 / 180.0;

const kinematics::DhRow& jointRow(const kinematics::Chain& chain, int j) {
  return chain.rows[static_cast<std::size_t>(chain.rowOfJoint(j))];
}

// 15 significant digits: degrees converted from radians come back as the short decimal the
// user typed (59.99999999999999 -> 60), and the rounding (< 1e-14 relative) stays far inside
// the loader's 1e-12 rad limit tolerance.
std::string number(double v, int digits) {
  if (v == 0.0) v = 0.0;  // no "-0" in files
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

void checkFits(const HandModel& hand, const NamedPose& pose, bool limits) {
  if (pose.name.empty()) throw std::invalid_argument("a pose needs a non-empty name");
  if (pose.q.size() != hand.fingers.size())
    throw std::invalid_argument("pose '" + pose.name + "' has values for " +
                                std::to_string(pose.q.size()) + " fingers, hand '" + hand.id +
                                "' has " + std::to_string(hand.fingers.size()));
  for (std::size_t f = 0; f < hand.fingers.size(); ++f) {
    const auto& chain = hand.fingers[f];
    if (static_cast<int>(pose.q[f].size()) != chain.dof())
      throw std::invalid_argument("pose '" + pose.name + "': finger " + chain.name + " has " +
                                  std::to_string(chain.dof()) + " joints, got " +
                                  std::to_string(pose.q[f].size()) + " values");
    for (int j = 0; j < chain.dof(); ++j) {
      const double q = pose.q[f][static_cast<std::size_t>(j)];
      const JointRef ref{static_cast<int>(f), j};
      if (!std::isfinite(q))
        throw std::invalid_argument("pose '" + pose.name + "': " + hand.jointName(ref) +
                                    " is not a finite number");
      const auto& row = jointRow(chain, j);
      if (limits && (q < row.lower - 1e-12 || q > row.upper + 1e-12)) {
        const double s = row.type == JointType::Revolute ? 1.0 / kDeg : 1.0;
        const char* unit = row.type == JointType::Revolute ? " deg" : " m";
        throw std::invalid_argument("pose '" + pose.name + "': " + hand.jointName(ref) + " = " +
                                    number(q * s, 6) + unit + " is outside its limits [" +
                                    number(row.lower * s, 6) + ", " + number(row.upper * s, 6) +
                                    "]" + unit);
      }
    }
  }
}

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

NamedPose readPoseEntry(const JsonDocument& doc, const nlohmann::json& pj, const std::string& ptr,
                        const HandModel& hand) {
  doc.object(pj, ptr);
  doc.allowOnly(pj, ptr, {"name", "joints_deg", "joints"});
  NamedPose pose;
  const std::string name_ptr = JsonDocument::child(ptr, "name");
  pose.name = doc.string(doc.require(pj, ptr, "name"), name_ptr);
  if (pose.name.empty()) doc.fail(name_ptr, "a pose needs a non-empty name");
  const auto* deg = doc.optional(pj, "joints_deg");
  const auto* si = doc.optional(pj, "joints");
  if (!!deg == !!si) doc.fail(ptr, "give exactly one of 'joints_deg' or 'joints' (SI)");
  const std::string jp = JsonDocument::child(ptr, deg ? "joints_deg" : "joints");
  const auto& joints = doc.object(deg ? *deg : *si, jp);
  for (const auto& chain : hand.fingers)
    pose.q.emplace_back(static_cast<std::size_t>(chain.dof()), 0.0);
  for (auto it = joints.begin(); it != joints.end(); ++it) {
    const std::string fp = JsonDocument::child(jp, it.key());
    const int f = hand.fingerIndex(it.key());
    if (f < 0) doc.fail(fp, "hand '" + hand.id + "' has no finger named '" + it.key() + "'");
    const auto& chain = hand.fingers[static_cast<std::size_t>(f)];
    const auto values = doc.numbers(it.value(), fp, chain.dof());
    for (int j = 0; j < chain.dof(); ++j) {
      const auto& row = jointRow(chain, j);
      const bool revolute = row.type == JointType::Revolute;
      const double scale = deg && revolute ? kDeg : 1.0;
      const double q = values[static_cast<std::size_t>(j)] * scale;
      if (q < row.lower - 1e-12 || q > row.upper + 1e-12) {
        const double s = deg && revolute ? 1.0 / kDeg : 1.0;
        doc.fail(JsonDocument::child(fp, static_cast<std::size_t>(j)),
                 "value is outside the joint's limits [" + number(row.lower * s, 6) + ", " +
                     number(row.upper * s, 6) + "]");
      }
      pose.q[static_cast<std::size_t>(f)][static_cast<std::size_t>(j)] = q;
    }
  }
  return pose;
}

std::string poseToJson(const HandModel& hand, const NamedPose& pose) {
  checkFits(hand, pose, false);
  std::string out = "{\"name\": " + nlohmann::json(pose.name).dump() + ", \"joints_deg\": {";
  for (std::size_t f = 0; f < hand.fingers.size(); ++f) {
    const auto& chain = hand.fingers[f];
    out += (f ? ", " : "") + nlohmann::json(chain.name).dump() + ": [";
    for (int j = 0; j < chain.dof(); ++j) {
      const bool revolute = jointRow(chain, j).type == JointType::Revolute;
      const double q = pose.q[f][static_cast<std::size_t>(j)];
      out += (j ? ", " : "") + number(revolute ? q / kDeg : q, 15);
    }
    out += "]";
  }
  return out + "}}";
}

std::string posesToCsv(const HandModel& hand, const std::vector<NamedPose>& poses) {
  std::string out = "pose";
  for (std::size_t f = 0; f < hand.fingers.size(); ++f)
    for (int j = 0; j < hand.fingers[f].dof(); ++j)
      out += "," + csvField(hand.jointName({static_cast<int>(f), j}));
  out += "\n";
  for (const auto& pose : poses) {
    checkFits(hand, pose, false);
    out += csvField(pose.name);
    for (const auto& qf : pose.q)
      for (double q : qf) out += "," + number(q, 17);
    out += "\n";
  }
  return out;
}

std::vector<NamedPose> readPoseFile(const std::string& path, const HandModel& hand) {
  const JsonDocument doc = JsonDocument::load(path);
  const auto& root = doc.object(doc.root(), "");
  doc.allowOnly(root, "", {"hand", "poses"});
  if (const auto* id = doc.optional(root, "hand")) {
    const std::string file_hand = doc.string(*id, "/hand");
    if (file_hand != hand.id)
      doc.fail("/hand", "poses recorded for hand '" + file_hand + "', not '" + hand.id + "'");
  }
  const auto& entries = doc.array(doc.require(root, "", "poses"), "/poses");
  std::vector<NamedPose> poses;
  for (std::size_t p = 0; p < entries.size(); ++p) {
    const std::string ptr = JsonDocument::child("/poses", p);
    NamedPose pose = readPoseEntry(doc, entries[p], ptr, hand);
    for (const auto& earlier : poses)
      if (earlier.name == pose.name)
        doc.fail(JsonDocument::child(ptr, "name"), "duplicate pose name '" + pose.name + "'");
    poses.push_back(std::move(pose));
  }
  return poses;
}

void appendPoseToFile(const std::string& path, const HandModel& hand, const NamedPose& pose) {
  checkFits(hand, pose, true);
  std::vector<NamedPose> poses;
  if (std::filesystem::exists(path)) poses = readPoseFile(path, hand);
  bool replaced = false;
  for (auto& p : poses) {
    if (p.name == pose.name) {
      p = pose;
      replaced = true;
    }
  }
  if (!replaced) poses.push_back(pose);
  // One entry per line keeps the file diffable and lets entries be pasted into a hand file.
  std::string text = "{\n  \"hand\": " + nlohmann::json(hand.id).dump() + ",\n  \"poses\": [\n";
  for (std::size_t i = 0; i < poses.size(); ++i)
    text += "    " + poseToJson(hand, poses[i]) + (i + 1 < poses.size() ? ",\n" : "\n");
  text += "  ]\n}\n";
  io::writeFileAtomically(path, text);
}

}  // namespace handsim::hand
