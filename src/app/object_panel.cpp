// SPDX-License-Identifier: GPL-3.0-or-later
#include "object_panel.hpp"

#include <Eigen/Eigenvalues>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
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
  list_->setMinimumHeight(60);
  list_->setMaximumHeight(120);  // the fields below matter more than a long list
  layout->addWidget(list_, 1);
  // Position on the left, orientation on the right: the panel stays short.
  auto* form = new QGridLayout;
  const char* names[6] = {"x", "y", "z", "roll", "pitch", "yaw"};
  for (int i = 0; i < 6; ++i) {
    pose_[i] = new QDoubleSpinBox;
    pose_[i]->setRange(i < 3 ? -1000.0 : -180.0, i < 3 ? 1000.0 : 180.0);
    pose_[i]->setDecimals(1);
    pose_[i]->setSuffix(i < 3 ? QStringLiteral(" mm") : QStringLiteral(" deg"));
    pose_[i]->setKeyboardTracking(false);
    pose_[i]->setWrapping(i >= 3);
    form->addWidget(new QLabel(QString::fromLatin1(names[i])), i % 3, 2 * (i / 3));
    form->addWidget(pose_[i], i % 3, 2 * (i / 3) + 1);
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
  scale_ = new QDoubleSpinBox;
  scale_->setRange(1e-4, 1000.0);
  scale_->setDecimals(4);
  scale_->setSingleStep(0.1);
  scale_->setPrefix(QStringLiteral("x "));
  scale_->setKeyboardTracking(false);
  scale_->setToolTip(
      tr("The file's coordinates times this (0.001 reads millimetres as metres); "
         "the object is read again and keeps its pose"));
  material->addRow(tr("Scale"), scale_);
  density_ = new QDoubleSpinBox;
  density_->setRange(0.1, 1e5);
  density_->setDecimals(1);
  density_->setSuffix(QStringLiteral(" kg/m³"));
  density_->setKeyboardTracking(false);
  density_->setToolTip(tr("Uniform density of the solid the closed mesh bounds (water: 1000)"));
  material->addRow(tr("Density"), density_);
  mass_ = new QDoubleSpinBox;
  mass_->setRange(1e-6, 1e5);
  mass_->setDecimals(4);
  mass_->setSuffix(QStringLiteral(" kg"));
  mass_->setKeyboardTracking(false);
  mass_->setToolTip(tr("Mass of the object; typing it sets the density (mass / volume)"));
  material->addRow(tr("Mass"), mass_);
  properties_ = new QLabel;
  properties_->setObjectName(QStringLiteral("MassProperties"));
  properties_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  properties_->setWordWrap(true);
  layout->addLayout(material);
  layout->addWidget(properties_);
  connect(scale_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
    if (!updating_) Q_EMIT scaleRequested(list_->currentRow(), v);
  });
  connect(density_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
    if (!updating_) controller_->setObjectDensity(list_->currentRow(), v);
  });
  connect(mass_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
    if (!updating_) controller_->setObjectMass(list_->currentRow(), v);
  });
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
  scale_->setEnabled(valid);
  density_->setEnabled(valid);
  mass_->setEnabled(valid);
  if (!valid) {
    properties_->clear();
    return;
  }
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
  scale_->setValue(o.scale);
  scale_->setEnabled(!o.source.empty());  // read again from its file
  const bool solid = o.mass.mass_kg > 0.0;
  density_->setEnabled(solid);
  mass_->setEnabled(solid);
  density_->setValue(o.density);
  mass_->setValue(o.mass.mass_kg);
  if (solid) {
    const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> principal(o.mass.inertia_com);
    const Eigen::Vector3d c = o.mass.centre_of_mass * 1000.0;
    const Eigen::Vector3d I = principal.eigenvalues();
    properties_->setText(tr("Volume %1 cm³; centre of mass (%2, %3, %4) mm; principal inertia "
                            "%5, %6, %7 kg m²")
                             .arg(o.mass.volume_m3 * 1e6, 0, 'g', 4)
                             .arg(c.x(), 0, 'f', 1)
                             .arg(c.y(), 0, 'f', 1)
                             .arg(c.z(), 0, 'f', 1)
                             .arg(I(0), 0, 'g', 3)
                             .arg(I(1), 0, 'g', 3)
                             .arg(I(2), 0, 'g', 3));
  } else {
    properties_->setText(tr("No mass: the mesh is not closed (it can only be fixed)"));
  }
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
