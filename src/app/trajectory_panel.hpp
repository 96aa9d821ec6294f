// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QSlider>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QWidget>
#include <string>
#include <vector>

#include "simulation_controller.hpp"

namespace handsim::app {

/// One row of the palm table: a trapezoidal move or a sinusoid on one world axis of the
/// palm's prescribed motion (sim::PalmMotion), in m, rad and s.
struct PalmRow {
  int axis = sim::PalmMotion::Z;  ///< sim::PalmMotion::Axis: x, y, z, rx, ry, rz
  bool sinusoid = false;
  double to_or_amplitude = 0.1;         ///< move: target offset; sine: amplitude [m or rad]
  double velocity_or_frequency = 0.05;  ///< move: max velocity [/s]; sine: frequency [Hz]
  double acceleration_or_cycles = 0.25;  ///< move: max acceleration [/s^2]; sine: cycles
  double start = 0.0;                   ///< earliest start (move) or start (sine) [s]
};

/// The palm motion of these rows: per axis the moves one after the other from offset 0 (each
/// no earlier than the previous one ended, as actuator segments), the sinusoids summed on
/// top. Throws std::runtime_error naming the row (1-based) and the field, with the limits a
/// scenario file has (|to| <= 100 m or 50 turns, |amplitude| <= 10 m or pi rad).
sim::PalmMotion palmMotionFromRows(const std::vector<PalmRow>& rows);
/// The rows of a palm motion: each axis's moves, then its sinusoids.
std::vector<PalmRow> palmRowsFromMotion(const sim::PalmMotion& motion);

/// Trapezoidal actuator trajectories (target, maximum velocity and acceleration, start time)
/// edited in a table, loaded and saved as JSON, run through the fixed-step simulator with
/// play / pause / single step / reset, a speed (real-time factor), loop, and a time scrubber
/// over the recorded history.
class TrajectoryPanel : public QWidget {
  Q_OBJECT
 public:
  explicit TrajectoryPanel(SimulationController* controller, QWidget* parent = nullptr);

  QTableWidget* table() const { return table_; }
  /// The palm's moves and sinusoids (columns: axis, kind, to/amplitude, max vel/frequency,
  /// max acc/cycles, start).
  QTableWidget* palmTable() const { return palm_table_; }
  /// Appends a row to the palm table (not applied yet).
  void addPalmRow(const PalmRow& row);
  QSlider* scrubber() const { return scrubber_; }
  /// Sends both tables to the controller (actuator trajectories and the palm's motion); false
  /// (and a message, also in `error` when given) when a row is invalid, and then nothing
  /// changes.
  bool apply(QString* error = nullptr);
  /// True when the tables hold rows the controller does not run yet (typed or added, not
  /// applied), or a row that cannot run.
  bool hasUnappliedRows() const;
  /// Reads and writes trajectory files (format handsim-trajectories); throw
  /// std::runtime_error naming the file and the problem.
  void loadFile(const QString& path);
  void saveFile(const QString& path) const;

 private:
  /// The constructor's parts: the segment table with its buttons, the palm table with its
  /// buttons, and the transport with the scrubber, each added to `layout`.
  void buildSegmentTable(QVBoxLayout* layout);
  void buildPalmTable(QVBoxLayout* layout);
  void buildTransport(QVBoxLayout* layout);
  /// The actuator a new row gets: the first without a row.
  int nextActuator() const;
  void addRow(const TrajectorySegment& s);
  void fillFromController();
  void updateTransport();
  std::vector<TrajectorySegment> rows(QString* error) const;
  std::vector<PalmRow> palmRows(QString* error) const;
  void setPalmRowKind(int row, bool sinusoid);

  SimulationController* controller_;
  QTableWidget* table_ = nullptr;
  QTableWidget* palm_table_ = nullptr;
  QLabel* message_ = nullptr;
  QDoubleSpinBox* speed_ = nullptr;
  QCheckBox* loop_ = nullptr;
  QSlider* scrubber_ = nullptr;
  QLabel* time_ = nullptr;
};

/// Segments as JSON text (format handsim-trajectories, actuators by name), with a "palm"
/// array of palm rows when `palm` is given and not empty.
std::string trajectoriesToJson(const hand::HandModel& hand,
                               const std::vector<TrajectorySegment>& segments,
                               const std::vector<PalmRow>& palm = {});
/// Parses that JSON value; throws std::runtime_error naming the problem. `palm` (may be null)
/// receives the palm rows; `has_palm` (may be null) whether the file has a "palm" array.
std::vector<TrajectorySegment> trajectoriesFromJson(const hand::HandModel& hand,
                                                    const std::string& text,
                                                    std::vector<PalmRow>* palm = nullptr,
                                                    bool* has_palm = nullptr);

}  // namespace handsim::app
