// SPDX-License-Identifier: GPL-3.0-or-later
#include "scene_file.hpp"

#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "handsim/geometry/mesh_loader.hpp"
#include "handsim/hand/hand_loader.hpp"
#include "handsim/io/atomic_file.hpp"
#include "handsim/io/input_error.hpp"
#include "simulation_controller.hpp"
#include "trajectory_panel.hpp"

namespace handsim::app {
namespace {

nlohmann::ordered_json poseJson(const Eigen::Isometry3d& pose) {
  nlohmann::ordered_json rotation = nlohmann::ordered_json::array();
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) rotation.push_back(pose.linear()(r, c));
  const Eigen::Vector3d t = pose.translation();
  return {{"translation_m", {t.x(), t.y(), t.z()}}, {"rotation", rotation}};
}

Eigen::Isometry3d poseFromJson(const nlohmann::json& j) {
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  const auto& t = j.at("translation_m");
  if (!t.is_array() || t.size() != 3) throw std::runtime_error("translation_m needs 3 numbers");
  for (int i = 0; i < 3; ++i)
    pose.translation()(i) = t.at(static_cast<std::size_t>(i)).get<double>();
  const auto& r = j.at("rotation");
  if (!r.is_array() || r.size() != 9)
    throw std::runtime_error("rotation needs 9 numbers (row-major)");
  Eigen::Matrix3d R;
  for (int i = 0; i < 9; ++i) R(i / 3, i % 3) = r.at(static_cast<std::size_t>(i)).get<double>();
  if (!R.allFinite() || !pose.translation().allFinite() ||
      (R.transpose() * R - Eigen::Matrix3d::Identity()).norm() > 1e-6 || R.determinant() < 0.0)
    throw std::runtime_error("rotation is not a finite proper rotation matrix");
  pose.linear() = R;
  return pose;
}

std::string resolve(const std::string& path, const std::string& scene_file) {
  const QFileInfo info(QString::fromStdString(path));
  if (info.isAbsolute()) return path;
  return QFileInfo(QFileInfo(QString::fromStdString(scene_file)).absoluteDir(), info.filePath())
      .absoluteFilePath()
      .toStdString();
}

}  // namespace

std::string sceneToJson(const SimulationController& c) {
  const hand::HandModel& hand = c.hand();
  nlohmann::ordered_json commands = nlohmann::ordered_json::object();
  nlohmann::ordered_json initial = nlohmann::ordered_json::object();
  for (std::size_t a = 0; a < hand.actuators.size(); ++a) {
    commands[hand.actuators[a].name] = c.liveState().actuator_command[a];
    if (a < c.initialPositions().size()) initial[hand.actuators[a].name] = c.initialPositions()[a];
  }
  nlohmann::ordered_json objects = nlohmann::ordered_json::array();
  for (const sim::WorldObject& o : c.objects())
    objects.push_back({{"name", o.name}, {"file", o.source}, {"pose", poseJson(o.pose)}});
  const nlohmann::ordered_json trajectories =
      nlohmann::ordered_json::parse(trajectoriesToJson(hand, c.trajectories()));
  const nlohmann::ordered_json doc = {
      {"format", "handsim-scene"}, {"version", 1},
      {"hand", c.handSource()},    {"commands", commands},
      {"initial", initial},        {"duration_s", c.duration()},
      {"objects", objects},        {"trajectories", trajectories["segments"]}};
  return doc.dump(2) + "\n";
}

void saveScene(const SimulationController& controller, const std::string& path) {
  io::writeFileAtomically(path, sceneToJson(controller));
}

bool isSceneFile(const std::string& path) {
  try {
    const nlohmann::json doc = nlohmann::json::parse(io::readFile(path), nullptr, true, true);
    return doc.is_object() && doc.value("format", "") == "handsim-scene";
  } catch (const std::exception&) {
    return false;
  }
}

void loadScene(SimulationController& controller, const std::string& path) {
  const std::string text = io::readFile(path);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text, nullptr, true, true);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(path + ": not valid JSON: " + e.what());
  }
  if (!doc.is_object() || doc.value("format", "") != "handsim-scene")
    throw std::runtime_error(path + ": expected \"format\": \"handsim-scene\"");
  std::string where = "/hand";
  try {
    std::string hand_ref = doc.at("hand").get<std::string>();
    const auto& ids = hand::builtinHandIds();
    if (std::find(ids.begin(), ids.end(), hand_ref) == ids.end())
      hand_ref = resolve(hand_ref, path);
    const hand::HandModel hand = hand::loadHand(hand_ref);  // validates before anything changes
    auto actuatorValues = [&](const char* key) {
      std::vector<double> v;
      if (!doc.contains(key)) return v;
      v.assign(hand.actuators.size(), 0.0);
      for (const auto& [name, value] : doc.at(key).items()) {
        const int a = hand.actuatorIndex(name);
        if (a < 0) throw std::runtime_error("unknown actuator '" + name + "'");
        v[static_cast<std::size_t>(a)] = value.get<double>();
      }
      return v;
    };
    where = "/commands";
    const std::vector<double> commands = actuatorValues("commands");
    where = "/initial";
    const std::vector<double> initial = actuatorValues("initial");
    where = "/trajectories";
    nlohmann::json traj = {{"format", "handsim-trajectories"},
                           {"segments", doc.value("trajectories", nlohmann::json::array())}};
    const std::vector<TrajectorySegment> segments = trajectoriesFromJson(hand, traj.dump());
    std::vector<sim::WorldObject> objects;
    const nlohmann::json object_list = doc.value("objects", nlohmann::json::array());
    for (std::size_t i = 0; i < object_list.size(); ++i) {
      where = "/objects/" + std::to_string(i);
      const auto& o = object_list[i];
      sim::WorldObject w;
      w.source = resolve(o.at("file").get<std::string>(), path);
      w.model = geometry::loadMesh(w.source);
      w.name = o.value(
          "name", QFileInfo(QString::fromStdString(w.source)).completeBaseName().toStdString());
      w.pose = poseFromJson(o.at("pose"));
      objects.push_back(std::move(w));
    }
    where = "/palm_pose";
    const Eigen::Isometry3d palm = doc.contains("palm_pose") ? poseFromJson(doc.at("palm_pose"))
                                                             : Eigen::Isometry3d::Identity();
    where = "/duration_s";
    const double duration = doc.value("duration_s", 0.0);
    if (!(duration >= 0.0)) throw std::runtime_error("must be >= 0");

    // Everything read: now change the scene.
    controller.loadHand(hand_ref);
    controller.setInitialPositions(initial);
    controller.setDuration(duration);
    controller.setTrajectories(segments);
    controller.resetRun();
    controller.clearObjects();
    controller.setPalmPose(palm);
    for (sim::WorldObject& w : objects) controller.addObject(std::move(w));
    if (!commands.empty()) controller.setActuatorCommands(commands);
  } catch (const io::InputError&) {
    throw;
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": " + where + ": " + e.what());
  }
}

}  // namespace handsim::app
