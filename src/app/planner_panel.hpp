// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QComboBox>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QWidget>
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "handsim/planner/grasp_records.hpp"
#include "handsim/planner/planner.hpp"
#include "handsim/planner/validation.hpp"

namespace handsim::app {

class SimulationController;

/// The grasp planner in the application (docs/gui.md, "Planner"; docs/planner.md): plans
/// grasps of the scene's first object with the scene's hand on a worker thread (the window
/// stays live; progress below), lists the accepted grasps as they come, best epsilon first,
/// shows a clicked grasp in the viewport, validates it with a preset on the worker thread while
/// the viewport plays the hand closing on the object, and exports the list as a grasp file
/// (JSON Lines, docs/planner.md "Records").
class PlannerPanel : public QWidget {
  Q_OBJECT
 public:
  explicit PlannerPanel(SimulationController* controller, QWidget* parent = nullptr);
  ~PlannerPanel() override;

  /// Starts a run with the panel's settings (nothing when one runs or there is no object).
  void start();
  /// Shows which actuators the planner closes for the scene's hand, and whether the hand
  /// file names them or they are inferred from the kinematics.
  void showClosing();
  /// Asks the run to stop: no new candidate starts; finished() follows.
  void stop();
  bool busy() const { return busy_; }
  /// The accepted grasps in candidate order, and their rows' order in the list (best first).
  const std::vector<planner::GraspRecord>& records() const { return records_; }
  /// Record index of the list's row `row`, or -1.
  int recordOfRow(int row) const;
  /// Shows record `index` in the viewport: the palm at its pose relative to the object, the
  /// fingers at the closed posture (the run is reset there, paused).
  void showGrasp(int index);
  /// Validates record `index` with the chosen preset on the worker thread and plays the
  /// closing from its pre-grasp in the viewport; validated() follows.
  void validateGrasp(int index);
  /// Writes the records (with their validations) to `path` atomically; false and a message on
  /// error.
  bool exportTo(const QString& path, QString* error = nullptr);

  QComboBox* strategyBox() const { return strategy_; }
  QComboBox* energyBox() const { return energy_; }
  QComboBox* presetBox() const { return preset_; }
  QComboBox* holdBox() const { return hold_; }
  QSpinBox* graspsBox() const { return grasps_; }
  QSpinBox* candidatesBox() const { return candidates_; }
  QSpinBox* seedBox() const { return seed_; }
  QSpinBox* threadsBox() const { return threads_; }
  QPushButton* startButton() const { return start_button_; }
  QPushButton* stopButton() const { return stop_button_; }
  QPushButton* validateButton() const { return validate_button_; }
  QTableWidget* table() const { return table_; }
  QProgressBar* progressBar() const { return progress_; }
  QString statusText() const { return status_->text(); }
  QString closingText() const { return closing_->text(); }
  QString validationText() const { return verdict_->text(); }

 Q_SIGNALS:
  void finished();
  void validated(int index);

 private:
  void addGrasp(planner::PlannedGrasp grasp);
  void onProgress(qint64 done, int accepted, qint64 budget);
  void onFinished(const QString& error);
  void onValidated(int index, const planner::ValidationOutcome& outcome, const QString& error);
  void rebuildTable();
  void updateButtons();
  void joinWorker();

  SimulationController* controller_;
  QComboBox* strategy_ = nullptr;
  QComboBox* energy_ = nullptr;
  QComboBox* preset_ = nullptr;
  QComboBox* hold_ = nullptr;
  QSpinBox* grasps_ = nullptr;
  QSpinBox* candidates_ = nullptr;
  QSpinBox* seed_ = nullptr;
  QSpinBox* threads_ = nullptr;
  QPushButton* start_button_ = nullptr;
  QPushButton* stop_button_ = nullptr;
  QPushButton* show_button_ = nullptr;
  QPushButton* validate_button_ = nullptr;
  QPushButton* export_button_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* status_ = nullptr;
  QLabel* closing_ = nullptr;  ///< what the planner closes (planner::graspSummary)
  QLabel* verdict_ = nullptr;
  QTableWidget* table_ = nullptr;

  std::thread worker_;
  std::atomic<bool> stop_flag_{false};
  bool busy_ = false;
  qint64 started_ms_ = 0;
  std::shared_ptr<const planner::PlannerModel> model_;  ///< of the last run
  planner::PlannerOptions options_;                     ///< of the last run
  sim::ObjectModel object_;                             ///< the planned object, its own frame
  std::vector<planner::GraspRecord> records_;
};

}  // namespace handsim::app
