// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QListWidget>
#include <QWidget>

namespace handsim::app {

class SimulationController;

/// The scene's objects: a list, numeric pose fields (position in millimetres, roll-pitch-yaw
/// in degrees, palm frame), free or fixed, friction and torsional friction, and removal.
class ObjectPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ObjectPanel(SimulationController* controller, QWidget* parent = nullptr);
  QListWidget* list() const { return list_; }
  /// Pose field: 0-2 x, y, z [mm]; 3-5 roll, pitch, yaw [deg].
  QDoubleSpinBox* poseField(int i) const { return pose_[i]; }
  /// "Free": the selected object moves under gravity and contacts.
  QCheckBox* freeBox() const { return free_; }
  /// The selected object's Coulomb coefficient [-] and torsional friction length [mm] (its
  /// minimum, shown as "scene's", leaves it to the scene's contact option).
  QDoubleSpinBox* frictionField() const { return friction_; }
  QDoubleSpinBox* torsionField() const { return torsion_; }
  /// Shows the selected object's current pose (after it moved elsewhere, e.g. a drag).
  void refreshPose() { showSelected(); }

 Q_SIGNALS:
  /// The user asked to import an object (the window shows the file dialog).
  void importRequested();

 private:
  void rebuild();
  void showSelected();
  void sendPose();

  SimulationController* controller_;
  QListWidget* list_ = nullptr;
  QDoubleSpinBox* pose_[6] = {};
  QCheckBox* free_ = nullptr;
  QDoubleSpinBox* friction_ = nullptr;
  QDoubleSpinBox* torsion_ = nullptr;
  bool updating_ = false;
};

}  // namespace handsim::app
