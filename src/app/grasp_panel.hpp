// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDoubleSpinBox>
#include <QLabel>
#include <QPushButton>
#include <QTimer>
#include <QWidget>

#include "handsim/grasp/grasp_quality.hpp"

namespace handsim::app {

class SimulationController;

/// Live grasp quality of the shown state's contacts with the first object (docs/grasp.md):
/// force closure, epsilon and wrench-space volume, with the friction coefficient from a spin
/// box; torques are taken about the object's bounding-box centre and divided by its bounding
/// radius. The hull takes milliseconds, so it is recomputed at most every 200 ms, and only
/// when the state or the friction changed, never inside a simulation step. The *Auto grasp*
/// button runs SimulationController::autoGrasp().
class GraspPanel : public QWidget {
  Q_OBJECT
 public:
  explicit GraspPanel(SimulationController* controller, QWidget* parent = nullptr);

  /// Options evaluate() uses for the shown state (torque radius and reference of object 0).
  grasp::GraspQualityOptions options() const;
  /// Recomputes the quality now (tests; the timer calls it when something changed).
  void evaluate();
  /// The last computed quality and the number of contacts it used.
  const grasp::GraspQuality& quality() const { return quality_; }
  int contactCount() const { return contact_count_; }
  QDoubleSpinBox* frictionBox() const { return friction_; }
  QPushButton* autoGraspButton() const { return auto_grasp_; }
  /// Texts of the read-outs (tests).
  QString closureText() const { return closure_->text(); }
  QString epsilonText() const { return epsilon_->text(); }
  QString volumeText() const { return volume_->text(); }
  QString contactsText() const { return contacts_->text(); }

 private:
  SimulationController* controller_;
  QDoubleSpinBox* friction_ = nullptr;
  QPushButton* auto_grasp_ = nullptr;
  QLabel* contacts_ = nullptr;
  QLabel* closure_ = nullptr;
  QLabel* epsilon_ = nullptr;
  QLabel* volume_ = nullptr;
  QLabel* note_ = nullptr;
  QTimer timer_;
  bool dirty_ = true;
  grasp::GraspQuality quality_;
  int contact_count_ = 0;
};

}  // namespace handsim::app
