// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace handsim::app {

class SimulationController;

/// A whole scene as JSON (format handsim-scene, docs/gui.md): the hand (id or path), the
/// actuator set points, the objects (file, name, pose) and the trajectories with the run's
/// initial positions and length.
std::string sceneToJson(const SimulationController& controller);

/// Saves sceneToJson atomically. Throws std::runtime_error naming the path.
void saveScene(const SimulationController& controller, const std::string& path);

/// Loads a scene file into the controller. Everything is read and checked first (hand file,
/// object meshes, trajectories); on any error it throws (io::InputError or std::runtime_error
/// naming the file and field) and the controller is left exactly as it was.
void loadScene(SimulationController& controller, const std::string& path);

/// True when the file's "format" field says handsim-scene (otherwise it may be a scenario).
bool isSceneFile(const std::string& path);

}  // namespace handsim::app
