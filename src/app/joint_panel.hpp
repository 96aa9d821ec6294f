// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QWidget>
#include <functional>
#include <vector>

class QFormLayout;

namespace handsim::app {

class SimulationController;

/// Per actuator a slider and a typed spin box kept in sync (degrees for joint actuators,
/// encoder counts for BarrettHand motors, millimetres for slides), limited to the actuator's
/// range; below them every joint's current angle, so coupled joints are seen moving (both in a
/// scroll area, so many-joint hands fit on the screen); named poses and reset to zero.
class JointPanel : public QWidget {
  Q_OBJECT
 public:
  explicit JointPanel(SimulationController* controller, QWidget* parent = nullptr);

  /// Widgets of actuator `a` (for tests and shortcuts).
  QSlider* slider(int a) const { return rows_.at(static_cast<std::size_t>(a)).slider; }
  QDoubleSpinBox* spinBox(int a) const { return rows_.at(static_cast<std::size_t>(a)).spin; }
  QComboBox* poseBox() const { return poses_; }
  /// Text of the joint read-out.
  QString jointReadout() const { return joints_->text(); }
  QPushButton* recordButton() const { return record_; }
  /// Arm joint `j`'s widgets (hands on an arm, docs/arm.md; degrees or millimetres).
  QSlider* armSlider(int j) const { return arm_rows_.at(static_cast<std::size_t>(j)).slider; }
  QDoubleSpinBox* armSpinBox(int j) const { return arm_rows_.at(static_cast<std::size_t>(j)).spin; }
  /// Number of arm joint rows (0 without an arm).
  int armRowCount() const { return static_cast<int>(arm_rows_.size()); }
  /// The scroll area around the sliders and the joint read-out.
  QScrollArea* scrollArea() const { return scroll_; }

 Q_SIGNALS:
  /// *Record pose...* was pressed: the main window asks for a name and a file.
  void recordPoseRequested();

 private:
  struct Row {
    QSlider* slider = nullptr;
    QDoubleSpinBox* spin = nullptr;
    double scale = 1.0;        ///< displayed unit per actuator unit
    double slider_step = 1.0;  ///< displayed units per slider tick
  };
  void rebuild();
  void refresh();
  void sendValue(int a, double displayed);
  void addArmRows(QFormLayout* form);
  /// What one slider + spin box row shows: SI range, displayed unit per SI unit, ticks.
  struct RowSpec {
    QString label, suffix, tooltip;
    double lower = 0.0, upper = 0.0;  ///< [SI]
    double scale = 1.0;               ///< displayed unit per SI unit
    double slider_step = 1.0;         ///< displayed units per slider tick
    int decimals = 1;
    double single_step = 0.0;  ///< the spin box's arrow step (0: Qt's default)
  };
  /// One row (the actuators' and the arm's alike): added to `form`; `send` gets the displayed
  /// value whenever the slider or the spin box changes it.
  Row addRow(QFormLayout* form, const RowSpec& spec, const std::function<void(double)>& send);

  SimulationController* controller_;
  QScrollArea* scroll_ = nullptr;
  QWidget* rows_widget_ = nullptr;
  std::vector<Row> rows_;
  std::vector<Row> arm_rows_;  ///< the arm's joints, a group of their own
  QComboBox* poses_ = nullptr;
  QLabel* joints_ = nullptr;
  QPushButton* record_ = nullptr;
};

}  // namespace handsim::app
