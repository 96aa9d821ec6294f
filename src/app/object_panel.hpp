// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QListWidget>
#include <QWidget>

namespace handsim::app {

class SimulationController;

/// The scene's objects: a list, numeric pose fields (position in millimetres, roll-pitch-yaw
/// in degrees, world frame), free or fixed, friction and torsional friction, scale (of the
/// file's coordinates), density or mass, the mass properties (volume, centre of mass,
/// principal moments of inertia), and removal.
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
  /// Scale of the file's coordinates [-] (the object is read again at the new scale).
  QDoubleSpinBox* scaleField() const { return scale_; }
  /// Uniform density [kg/m^3] and the mass it gives [kg]; typing either sets the other.
  QDoubleSpinBox* densityField() const { return density_; }
  QDoubleSpinBox* massField() const { return mass_; }
  /// Volume [cm^3], centre of mass [mm, object frame] and principal moments of inertia about
  /// it [kg m^2] of the selected object.
  QLabel* massPropertiesLabel() const { return properties_; }
  /// Shows the selected object's current pose (after it moved elsewhere, e.g. a drag).
  void refreshPose() { showSelected(); }

 Q_SIGNALS:
  /// The user asked to import an object (the window shows the file dialog).
  void importRequested();
  /// The user typed a new scale for object `index` (the window reads the file again in the
  /// background and replaces the object).
  void scaleRequested(int index, double scale);

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
  QDoubleSpinBox* scale_ = nullptr;
  QDoubleSpinBox* density_ = nullptr;
  QDoubleSpinBox* mass_ = nullptr;
  QLabel* properties_ = nullptr;
  bool updating_ = false;
};

}  // namespace handsim::app
