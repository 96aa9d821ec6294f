// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "handsim/hand/hand_model.hpp"
#include "handsim/sim/model.hpp"
#include "handsim/sim/sim_state.hpp"

namespace handsim::io {
class AtomicFileWriter;
}

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
///
/// Long runs (docs/simulation.md, "Long runs"): by default every row stays in memory (8 bytes
/// per column and row). streamCsv() writes rows to a CSV file as they are recorded, and a
/// limit on kept rows (streamCsv, setKeptRows) bounds the memory: when the kept rows reach
/// the limit, every other one is dropped and from then on only every stride-th recorded row
/// is kept (the stride doubles each time), so the kept rows stay evenly spaced over the whole
/// run, which is what plots need; the latest row is always kept as well. value(), series()
/// and toCsv() read the kept rows; the streamed file has all of them.
class Recorder {
 public:
  /// Kept rows when streaming and the caller does not say: 2^17, about 100 MB for the
  /// 20-joint hand's 190 columns, enough for any plot.
  static constexpr std::size_t kDefaultKeptRows = std::size_t{1} << 17;

  explicit Recorder(const hand::HandModel& hand);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  /// Adds a column computed at each record (e.g. a controller's variables), whose values are
  /// in `unit` ("" for a pure number). Only before the first record; throws std::logic_error
  /// afterwards.
  void addChannel(const std::string& name, const std::string& unit,
                  std::function<double(const SimState&)> value);

  /// Appends a row (or, when a limit applies, keeps it only if it falls on the stride; see
  /// the class comment). Throws std::runtime_error naming the file when a streamed write fails.
  void record(const SimState& state);
  /// Forgets every row; a streamed file starts again with its header.
  void clear();
  /// Takes over the kept rows of `earlier`, a recorder of the same run whose columns differ
  /// (a model change added or removed an object's columns): each column of this recorder takes
  /// the values of `earlier`'s column of the same name, and reads NaN (a gap in plots) in the
  /// rows recorded before it existed; columns only `earlier` has are dropped. The count of
  /// recorded rows and the kept stride carry over, so later rows keep the spacing. Only on a
  /// recorder without rows that does not stream; throws std::logic_error otherwise.
  void adoptRows(const Recorder& earlier);

  /// Streams the recording to a CSV file: the header and the rows already recorded are
  /// written now, every later row as it is recorded, and finishCsv() makes the complete file
  /// appear at `path` (atomically, as io::writeFileAtomically; until then `path` is
  /// untouched). Memory keeps at most `kept_rows` rows (>= 2). Throws std::runtime_error
  /// naming the path when the file cannot be created.
  void streamCsv(const std::string& path, std::size_t kept_rows = kDefaultKeptRows);
  /// Writes what is buffered, flushes the file and renames it into place; streaming stops.
  /// Throws std::logic_error when not streaming, std::runtime_error naming the path on
  /// failure.
  void finishCsv();
  bool streaming() const { return stream_ != nullptr; }
  /// Bounds the kept rows without streaming (the GUI's endless free play); 0: keep all. Rows
  /// beyond the bound are dropped as described above at the next record.
  void setKeptRows(std::size_t kept_rows) { kept_limit_ = kept_rows; }
  /// Rows recorded since the last clear(), kept or not.
  std::int64_t recordedRows() const { return recorded_; }
  /// Every how many recorded rows one is kept (1 until a limit was reached).
  std::int64_t keptStride() const { return stride_; }
  /// The first value that was not finite, as "<column> at t = <time> s"; empty if none.
  const std::string& firstNonFinite() const { return non_finite_; }

  const std::vector<std::string>& columns() const { return columns_; }
  /// Unit of each column, same order and size as columns() (see the class comment).
  const std::vector<std::string>& units() const { return units_; }
  /// Unit of the column named `column`; throws std::invalid_argument naming unknown columns.
  std::string unit(const std::string& column) const;
  /// Kept rows (all recorded rows unless a limit applies).
  std::size_t rowCount() const { return columns_.empty() ? 0 : data_.size() / columns_.size(); }
  /// Index of a column, or -1.
  int columnIndex(const std::string& name) const;
  double value(std::size_t row, std::size_t column) const {
    return data_[row * columns_.size() + column];
  }
  /// One column over time; throws std::invalid_argument naming unknown columns.
  std::vector<double> series(const std::string& name) const;

  /// CSV text of the kept rows: a header row of column names, then one row per record,
  /// numbers in the shortest form that reads back exactly.
  std::string toCsv() const;
  /// Writes toCsv() atomically (see io::writeFileAtomically).
  void writeCsv(const std::string& path) const;

 private:
  void appendCsvRow(std::string& out, const double* row) const;
  void keep(const std::vector<double>& row);
  void writeStream(bool force);
  std::string header() const;

  const hand::HandModel& hand_;
  std::vector<std::string> columns_;
  std::vector<std::string> units_;  ///< one per column
  std::vector<double> data_;        ///< kept rows, row-major
  std::vector<double> row_;         ///< the row being recorded
  std::vector<std::function<double(const SimState&)>> channels_;
  std::size_t kept_limit_ = 0;   ///< 0: keep every row
  std::int64_t recorded_ = 0;    ///< rows recorded since clear()
  std::int64_t stride_ = 1;      ///< every stride-th recorded row is kept
  bool tail_ = false;            ///< the last kept row is off the stride (the latest row)
  std::string non_finite_;
  std::unique_ptr<io::AtomicFileWriter> stream_;
  std::string stream_path_;
  std::string stream_buffer_;
};

/// Adds the columns of moving bodies when the model has a free object or `palm_moves`
/// (docs/free-objects.md): the palm `palm.x|y|z` [m] and `palm.qw|qx|qy|qz` [""], then per free object, world frame,
/// `<object>.x|y|z` (its centre of mass) [m], `.qw|qx|qy|qz` (orientation of its frame, qw >= 0)
/// [""], `.vx|vy|vz` (velocity of the centre of mass) [m/s], `.wx|wy|wz` [rad/s] and
/// `.kinetic_energy` [J]. `model` points at the run's model pointer, read at each record (a
/// scenario without free objects gets no new column, so its CSV is unchanged).
/// With a free object, also the contact pair columns (addContactPairChannels).
void addBodyChannels(Recorder& recorder, const std::shared_ptr<const Model>* model,
                     bool palm_moves = false);

/// Contact forces per body pair when `model` has a free object (docs/simulation.md):
/// `contact.<A>.<B>.force` [N], the magnitude of the sum of the sustained contact forces
/// (normal and friction) that body A applies to body B during the step. Bodies: fingers (all
/// links of one finger together), `palm`, `ground`, objects by name. Pairs: every finger with
/// every object; per free object, the palm, the ground (when enabled) and every other object
/// (a pair of free objects once); every two fingers; every finger with the palm.
void addContactPairChannels(Recorder& recorder, const Model& model);

}  // namespace handsim::sim
