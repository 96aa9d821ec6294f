// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QWidget>
#include <vector>

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

  SimulationController* controller_;
  QScrollArea* scroll_ = nullptr;
  QWidget* rows_widget_ = nullptr;
  std::vector<Row> rows_;
  QComboBox* poses_ = nullptr;
  QLabel* joints_ = nullptr;
  QPushButton* record_ = nullptr;
};

}  // namespace handsim::app
