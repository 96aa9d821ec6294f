// SPDX-License-Identifier: GPL-3.0-or-later
// The bodies of a model read from mesh files: an object's mesh, the hand's link and palm meshes.
// The engine (sim/model.hpp) compiles models from geometry in memory and reads no file; these
// read the files (geometry::loadMesh) and hand the shapes to it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "handsim/formats/mesh_loader.hpp"
#include "handsim/geometry/triangle_mesh.hpp"
#include "handsim/hand/hand_model.hpp"
#include "handsim/sim/model.hpp"
#include "handsim/sim/options.hpp"

namespace handsim::sim {

/// Loads a mesh file (geometry::loadMesh) into a BodyGeometry. Throws io::InputError naming
/// the file (and line and column where the reader knows them).
std::shared_ptr<const BodyGeometry> loadBodyGeometry(const std::string& path,
                                                     const geometry::MeshLoadOptions& options,
                                                     int kdop_k);

/// Loads every link and palm mesh of the hand once (sim::buildHandGeometry reading the files
/// the hand names). Links without a mesh get an empty body. Throws io::InputError naming the
/// first mesh file that fails to load.
std::shared_ptr<const HandGeometry> loadHandGeometry(const hand::HandModel& hand, int kdop_k);

/// Loads an object from a mesh file and computes its mass properties at `density`
/// [kg/m^3] (an open mesh gets zero mass and a warning). Throws io::InputError naming the file.
ObjectModel loadObject(const std::string& path, const geometry::MeshLoadOptions& options = {},
                       const std::string& name = "", int kdop_k = 18,
                       double density = ObjectModel::kDefaultDensity);

/// Compiles a model (sim::compileModel) with the hand's geometry loaded from its mesh files
/// (loadHandGeometry) after the model's checks. Throws io::InputError on a bad mesh, and
/// std::invalid_argument as sim::compileModel does.
std::shared_ptr<const Model> compileModel(std::shared_ptr<const hand::HandModel> hand,
                                          std::vector<ObjectModel> objects, Options options = {});

/// The size of a mesh file read in metres suggests millimetres: its largest bounding-box extent
/// exceeds `limit_m` (5 m by default: a hand is about 0.2 m, so a 190 mm bottle read as 190 m
/// is caught while a 2 m table is not). `extent_m` is that largest extent.
bool looksLikeMillimetres(const geometry::TriangleMesh& mesh, double* extent_m = nullptr,
                          double limit_m = 5.0);

/// The warning for such a file on the command-line and scenario path: names the file and the
/// extent and suggests "scale": 0.001.
std::string millimetreWarning(const std::string& path, double extent_m);

}  // namespace handsim::sim
