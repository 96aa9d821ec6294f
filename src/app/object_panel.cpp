// SPDX-License-Identifier: GPL-3.0-or-later
#include "object_panel.hpp"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QPushButton>
#include <QVBoxLayout>
#include <cmath>

#include "simulation_controller.hpp"

namespace handsim::app {
namespace {
constexpr double kDeg = 180.0 / 3.14159265358979323846;
}

ObjectPanel::ObjectPanel(SimulationController* controller, QWidget* parent)
    : QWidget(parent), controller_(controller) {
  auto* layout = new QVBoxLayout(this);
  list_ = new QListWidget;
  layout->addWidget(list_, 1);
  auto* form = new QFormLayout;
  const char* names[6] = {"x", "y", "z", "roll", "pitch", "yaw"};
  for (int i = 0; i < 6; ++i) {
    pose_[i] = new QDoubleSpinBox;
    pose_[i]->setRange(i < 3 ? -1000.0 : -180.0, i < 3 ? 1000.0 : 180.0);
    pose_[i]->setDecimals(1);
    pose_[i]->setSuffix(i < 3 ? QStringLiteral(" mm") : QStringLiteral(" deg"));
    pose_[i]->setKeyboardTracking(false);
    pose_[i]->setWrapping(i >= 3);
    form->addRow(QString::fromLatin1(names[i]), pose_[i]);
    connect(pose_[i], &QDoubleSpinBox::valueChanged, this, [this] {
      if (!updating_) sendPose();
    });
  }
  layout->addLayout(form);
  free_ = new QCheckBox(tr("Free (gravity and contacts move it)"));
  free_->setToolTip(tr("A free object falls, rests on the ground plane (Simulation > Ground "
                       "Plane) and can be picked up; a fixed one stays where it is put"));
  layout->addWidget(free_);
  connect(free_, &QCheckBox::toggled, this, [this](bool on) {
    if (!updating_) controller_->setObjectFree(list_->currentRow(), on);
  });
  auto* material = new QFormLayout;
  friction_ = new QDoubleSpinBox;
  friction_->setRange(0.0, 5.0);
  friction_->setDecimals(2);
  friction_->setSingleStep(0.05);
  friction_->setKeyboardTracking(false);
  friction_->setToolTip(tr("Coulomb coefficient of the object's contacts (free objects) and of "
                           "the grasp analysis"));
  material->addRow(tr("Friction mu"), friction_);
  torsion_ = new QDoubleSpinBox;
  torsion_->setRange(-0.5, 100.0);
  torsion_->setDecimals(1);
  torsion_->setSingleStep(0.5);
  torsion_->setSuffix(QStringLiteral(" mm"));
  torsion_->setSpecialValueText(tr("scene's"));
  torsion_->setKeyboardTracking(false);
  torsion_->setToolTip(tr("Torsional friction length: each contact resists spinning about its "
                          "normal with up to this length times its normal force (soft-finger "
                          "contact; default model). \"scene's\": the scene's contact option"));
  material->addRow(tr("Torsion"), torsion_);
  layout->addLayout(material);
  for (QDoubleSpinBox* f : {friction_, torsion_})
    connect(f, &QDoubleSpinBox::valueChanged, this, [this] {
      if (updating_) return;
      const double t = torsion_->value();
      controller_->setObjectFriction(list_->currentRow(), friction_->value(),
                                     t <= torsion_->minimum() ? -1.0 : t / 1000.0);
    });
  auto* buttons = new QHBoxLayout;
  auto* import = new QPushButton(tr("Import..."));
  auto* remove = new QPushButton(tr("Remove"));
  buttons->addWidget(import);
  buttons->addWidget(remove);
  layout->addLayout(buttons);
  connect(import, &QPushButton::clicked, this, &ObjectPanel::importRequested);
  connect(remove, &QPushButton::clicked, this,
          [this] { controller_->removeObject(list_->currentRow()); });
  connect(list_, &QListWidget::currentRowChanged, this, &ObjectPanel::showSelected);
  connect(controller_, &SimulationController::objectsChanged, this, &ObjectPanel::rebuild);
  // Poses also change by palm jog and viewport drags; never overwrite a field being edited.
  connect(controller_, &SimulationController::snapshotChanged, this, [this] {
    for (QDoubleSpinBox* f : pose_)
      if (f->hasFocus()) return;
    showSelected();
  });
  rebuild();
}

void ObjectPanel::rebuild() {
  const int row = list_->currentRow();
  {
    const QSignalBlocker block(list_);
    list_->clear();
    for (const auto& o : controller_->objects())
      list_->addItem(QStringLiteral("%1 (%2 triangles)")
                         .arg(QString::fromStdString(o.name))
                         .arg(o.geometry->visual.triangleCount()));
    const int n = list_->count();
    list_->setCurrentRow(n == 0 ? -1 : std::clamp(row < 0 ? 0 : row, 0, n - 1));
  }
  showSelected();
}

void ObjectPanel::showSelected() {
  const int i = list_->currentRow();
  const bool valid = i >= 0 && i < static_cast<int>(controller_->objects().size());
  for (QDoubleSpinBox* f : pose_) f->setEnabled(valid);
  free_->setEnabled(valid);
  friction_->setEnabled(valid);
  torsion_->setEnabled(valid);
  if (!valid) return;
  const Eigen::Isometry3d& pose = controller_->objectPose(i);
  // Roll-pitch-yaw: R = Rz(yaw) Ry(pitch) Rx(roll), as the hand files' rpy_deg.
  const Eigen::Matrix3d R = pose.linear();
  const double pitch = std::asin(std::clamp(-R(2, 0), -1.0, 1.0));
  const double roll = std::atan2(R(2, 1), R(2, 2));
  const double yaw = std::atan2(R(1, 0), R(0, 0));
  updating_ = true;
  const sim::ObjectModel& o = controller_->objects()[static_cast<std::size_t>(i)];
  free_->setChecked(!o.fixed);
  friction_->setValue(o.friction);
  torsion_->setValue(o.torsional < 0.0 ? torsion_->minimum() : o.torsional * 1000.0);
  for (int k = 0; k < 3; ++k) pose_[k]->setValue(pose.translation()(k) * 1000.0);
  pose_[3]->setValue(roll * kDeg);
  pose_[4]->setValue(pitch * kDeg);
  pose_[5]->setValue(yaw * kDeg);
  updating_ = false;
}

void ObjectPanel::sendPose() {
  const int i = list_->currentRow();
  if (i < 0) return;
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  pose.translation() =
      Eigen::Vector3d(pose_[0]->value(), pose_[1]->value(), pose_[2]->value()) / 1000.0;
  pose.linear() = (Eigen::AngleAxisd(pose_[5]->value() / kDeg, Eigen::Vector3d::UnitZ()) *
                   Eigen::AngleAxisd(pose_[4]->value() / kDeg, Eigen::Vector3d::UnitY()) *
                   Eigen::AngleAxisd(pose_[3]->value() / kDeg, Eigen::Vector3d::UnitX()))
                      .toRotationMatrix();
  updating_ = true;
  controller_->setObjectPose(i, pose);
  updating_ = false;
}

}  // namespace handsim::app
