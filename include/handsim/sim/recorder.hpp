// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "handsim/hand/hand_model.hpp"
#include "handsim/sim/model.hpp"
#include "handsim/sim/sim_state.hpp"

namespace handsim::sim {

/// Time series of a run, one row per recorded state. Columns (SI units, radians):
///   time [s];
///   per movable joint `<finger>.<joint>.angle|velocity|acceleration|torque`
///     [rad, rad/s, rad/s^2, N m] (m, m/s, m/s^2, N for prismatic joints);
///   per joint `<finger>.<joint>.contact_force`: magnitude of the sum of the sustained contact
///     forces and the external loads on the link that joint moves, summed in the world frame [N];
///   per joint `<finger>.<joint>.impact_force`: the impacts on that link during the step, as
///     impulse over dt [N];
///   per finger `<finger>.tactile_force`: the normal contact forces on all its links, summed
///     (seed 002's per-finger tactile signal) [N];
///   per actuator `<actuator>.position|reference` [its unit: counts, rad or m] and
///     `<actuator>.effort` [N m at its primary joint; N if that joint is prismatic];
///   per tendon `<tendon>.position` (retraction) [m] and `<tendon>.tension` [N];
///   per clutch `<finger>.clutch` (0 engaged, 1 broken away) and `<finger>.inner_load_torque`
///     [N m].
/// units() gives each column's unit in these words ("s", "rad", "rad/s", "rad/s^2", "N m",
/// "m", "m/s", "m/s^2", "N", "counts"; "" for the clutch flag), so plots need not guess.
class Recorder {
 public:
  explicit Recorder(const hand::HandModel& hand);

  /// Adds a column computed at each record (e.g. a controller's variables), whose values are
  /// in `unit` ("" for a pure number). Only before the first record; throws std::logic_error
  /// afterwards.
  void addChannel(const std::string& name, const std::string& unit,
                  std::function<double(const SimState&)> value);

  void record(const SimState& state);
  void clear() { data_.clear(); }

  const std::vector<std::string>& columns() const { return columns_; }
  /// Unit of each column, same order and size as columns() (see the class comment).
  const std::vector<std::string>& units() const { return units_; }
  /// Unit of the column named `column`; throws std::invalid_argument naming unknown columns.
  std::string unit(const std::string& column) const;
  std::size_t rowCount() const { return columns_.empty() ? 0 : data_.size() / columns_.size(); }
  /// Index of a column, or -1.
  int columnIndex(const std::string& name) const;
  double value(std::size_t row, std::size_t column) const {
    return data_[row * columns_.size() + column];
  }
  /// One column over time; throws std::invalid_argument naming unknown columns.
  std::vector<double> series(const std::string& name) const;

  /// CSV text: a header row of column names, then one row per record, numbers in the
  /// shortest form that reads back exactly.
  std::string toCsv() const;
  /// Writes toCsv() atomically (see io::writeFileAtomically).
  void writeCsv(const std::string& path) const;

 private:
  const hand::HandModel& hand_;
  std::vector<std::string> columns_;
  std::vector<std::string> units_;  ///< one per column
  std::vector<double> data_;        ///< row-major
  std::vector<std::function<double(const SimState&)>> channels_;
};

/// Adds the columns of moving bodies when the model has a free object (docs/free-objects.md):
/// the palm `palm.x|y|z` [m] and `palm.qw|qx|qy|qz` [""], then per free object, world frame,
/// `<object>.x|y|z` (its centre of mass) [m], `.qw|qx|qy|qz` (orientation of its frame, qw >= 0)
/// [""], `.vx|vy|vz` (velocity of the centre of mass) [m/s], `.wx|wy|wz` [rad/s] and
/// `.kinetic_energy` [J]. `model` points at the run's model pointer, read at each record (a
/// scenario without free objects gets no new column, so its CSV is unchanged).
void addBodyChannels(Recorder& recorder, const std::shared_ptr<const Model>* model);

}  // namespace handsim::sim
