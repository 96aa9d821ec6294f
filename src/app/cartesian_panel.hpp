// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QWidget>

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

 private:
  void rebuild();
  void fromCurrent();
  void solve();

  SimulationController* controller_;
  QComboBox* finger_ = nullptr;
  QDoubleSpinBox* xyz_[3] = {nullptr, nullptr, nullptr};
  QDoubleSpinBox* phi_ = nullptr;
  QLabel* message_ = nullptr;
  bool updating_ = false;
};

}  // namespace handsim::app
