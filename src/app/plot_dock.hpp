// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QChartView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QTimer>
#include <QWidget>
#include <string>
#include <vector>

namespace handsim::app {

class SimulationController;

/// A plot of recorder signals (joint angle, velocity, acceleration, torque, motor counts,
/// contact force, clutch state...) that follows a run live, with a cursor read-out, rubber-band
/// zoom (right click zooms out, arrow keys pan, Home resets) and export to PNG, SVG, PDF and
/// CSV through the shared plot library (src/plot).
class PlotDock : public QWidget {
  Q_OBJECT
 public:
  explicit PlotDock(SimulationController* controller, QWidget* parent = nullptr);

  /// Plots exactly these recorder columns (unknown names are ignored).
  void setSignals(const std::vector<std::string>& columns);
  std::vector<std::string> selectedSignals() const;
  /// Redraws from the recorder now.
  void refresh();
  QChart* chart() const { return view_->chart(); }
  /// Export by file suffix (.png, .svg, .pdf, .csv); throws std::runtime_error.
  void exportTo(const QString& path);
  QString cursorText() const { return cursor_->text(); }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void rebuildList();
  void exportDialog();

  SimulationController* controller_;
  QLineEdit* filter_ = nullptr;
  QListWidget* list_ = nullptr;
  QChartView* view_ = nullptr;
  QLabel* cursor_ = nullptr;
  QTimer live_timer_;
  std::size_t drawn_rows_ = 0;
  /// The recorder columns the list shows; a run whose plan adds or drops channels (a grasp
  /// controller) changes them, and the list follows.
  std::vector<std::string> listed_columns_;
};

}  // namespace handsim::app
