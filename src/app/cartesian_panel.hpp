// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QWidget>
#include <vector>

#include "handsim/kinematics/workspace.hpp"

namespace handsim::app {

class SimulationController;

/// Fingertip target (x, y, z in the palm frame, millimetres) per finger, solved by inverse
/// kinematics as the fields change; an unreachable target shows why here and leaves the hand
/// where it was.
class CartesianPanel : public QWidget {
  Q_OBJECT
 public:
  explicit CartesianPanel(SimulationController* controller, QWidget* parent = nullptr);

  QComboBox* fingerBox() const { return finger_; }
  QDoubleSpinBox* coordinate(int axis) const { return xyz_[axis]; }
  /// Tip angle field (degrees), enabled for planar three-link fingers.
  QDoubleSpinBox* phiBox() const { return phi_; }
  /// Last solver message (empty after a success).
  QString message() const { return message_->text(); }
  /// Sets the target fields (metres) and solves.
  void setTarget(double x, double y, double z);
  /// Condition number of the chosen finger's fingertip position Jacobian in the shown state,
  /// as displayed ("inf" when singular).
  QString conditionText() const { return condition_->text(); }
  /// True while the read-out warns that the finger is near a singularity.
  bool singularityWarning() const { return singular_; }
  /// The *Show workspace* toggle.
  QCheckBox* workspaceBox() const { return show_workspace_; }
  /// How the workspace cloud of `chain` is sampled: a grid of at most about 20000 points.
  static kinematics::WorkspaceOptions workspaceOptions(const kinematics::Chain& chain);

 Q_SIGNALS:
  /// The workspace cloud to draw, in the palm frame [m]; empty hides it.
  void workspaceChanged(const std::vector<Eigen::Vector3d>& points);

 private:
  void rebuild();
  void fromCurrent();
  void solve();
  void refreshCondition();
  void refreshWorkspace();

  SimulationController* controller_;
  QComboBox* finger_ = nullptr;
  QDoubleSpinBox* xyz_[3] = {nullptr, nullptr, nullptr};
  QDoubleSpinBox* phi_ = nullptr;
  QLabel* message_ = nullptr;
  QLabel* condition_ = nullptr;
  QCheckBox* show_workspace_ = nullptr;
  bool singular_ = false;
  bool updating_ = false;
};

}  // namespace handsim::app
