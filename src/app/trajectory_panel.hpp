// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QSlider>
#include <QTableWidget>
#include <QWidget>
#include <string>
#include <vector>

#include "simulation_controller.hpp"

namespace handsim::app {

/// Trapezoidal actuator trajectories (target, maximum velocity and acceleration, start time)
/// edited in a table, loaded and saved as JSON, run through the fixed-step simulator with
/// play / pause / single step / reset, a speed (real-time factor), loop, and a time scrubber
/// over the recorded history.
class TrajectoryPanel : public QWidget {
  Q_OBJECT
 public:
  explicit TrajectoryPanel(SimulationController* controller, QWidget* parent = nullptr);

  QTableWidget* table() const { return table_; }
  QSlider* scrubber() const { return scrubber_; }
  /// Sends the table to the controller; false (and a message) when a row is invalid.
  bool apply();
  /// Reads and writes trajectory files (format handsim-trajectories); throw
  /// std::runtime_error naming the file and the problem.
  void loadFile(const QString& path);
  void saveFile(const QString& path) const;

 private:
  void addRow(const TrajectorySegment& s);
  void fillFromController();
  void updateTransport();
  std::vector<TrajectorySegment> rows(QString* error) const;

  SimulationController* controller_;
  QTableWidget* table_ = nullptr;
  QLabel* message_ = nullptr;
  QDoubleSpinBox* speed_ = nullptr;
  QCheckBox* loop_ = nullptr;
  QSlider* scrubber_ = nullptr;
  QLabel* time_ = nullptr;
};

/// Segments as JSON text (format handsim-trajectories, actuators by name).
std::string trajectoriesToJson(const hand::HandModel& hand,
                               const std::vector<TrajectorySegment>& segments);
/// Parses that JSON value; throws std::runtime_error naming the problem.
std::vector<TrajectorySegment> trajectoriesFromJson(const hand::HandModel& hand,
                                                    const std::string& text);

}  // namespace handsim::app
