// SPDX-License-Identifier: GPL-3.0-or-later
#include "cartesian_panel.hpp"

#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>

#include "simulation_controller.hpp"

namespace handsim::app {

CartesianPanel::CartesianPanel(SimulationController* controller, QWidget* parent)
    : QWidget(parent), controller_(controller) {
  auto* layout = new QVBoxLayout(this);
  auto* form = new QFormLayout;
  finger_ = new QComboBox;
  form->addRow(tr("Finger"), finger_);
  const char* names[3] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    xyz_[i] = new QDoubleSpinBox;
    xyz_[i]->setRange(-500.0, 500.0);
    xyz_[i]->setDecimals(1);
    xyz_[i]->setSingleStep(1.0);
    xyz_[i]->setSuffix(QStringLiteral(" mm"));
    xyz_[i]->setKeyboardTracking(false);
    xyz_[i]->setToolTip(tr("Fingertip target in the palm frame; the hand follows as you edit"));
    form->addRow(QString::fromLatin1(names[i]), xyz_[i]);
    connect(xyz_[i], &QDoubleSpinBox::valueChanged, this, [this] {
      if (!updating_) solve();
    });
  }
  phi_ = new QDoubleSpinBox;
  phi_->setRange(-360.0, 360.0);
  phi_->setDecimals(1);
  phi_->setSuffix(QStringLiteral(" deg"));
  phi_->setKeyboardTracking(false);
  phi_->setToolTip(tr("Angle of the last link in the finger's plane (planar three-link fingers)"));
  form->addRow(tr("phi"), phi_);
  connect(phi_, &QDoubleSpinBox::valueChanged, this, [this] {
    if (!updating_) solve();
  });
  layout->addLayout(form);
  auto* current = new QPushButton(tr("From current fingertip"));
  layout->addWidget(current);
  message_ = new QLabel;
  message_->setWordWrap(true);
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(message_);

  // Palm jog: steps in the palm's own frame; objects stay where they are in the world.
  auto* jog = new QGroupBox(tr("Palm jog (palm frame: 5 mm, 5 deg)"));
  auto* grid = new QGridLayout(jog);
  const char* axes[3] = {"x", "y", "z"};
  for (int axis = 0; axis < 3; ++axis) {
    for (int kind = 0; kind < 2; ++kind) {
      for (int sign = -1; sign <= 1; sign += 2) {
        auto* b = new QToolButton;
        b->setText(QStringLiteral("%1%2%3")
                       .arg(kind == 0 ? QString() : QStringLiteral("R"))
                       .arg(QString::fromLatin1(axes[axis]))
                       .arg(sign < 0 ? QStringLiteral("−") : QStringLiteral("+")));
        b->setAutoRepeat(true);
        b->setToolTip(
            kind == 0 ? tr("Move the palm along its %1 axis").arg(QString::fromLatin1(axes[axis]))
                      : tr("Turn the palm about its %1 axis").arg(QString::fromLatin1(axes[axis])));
        grid->addWidget(b, axis, kind * 2 + (sign > 0 ? 1 : 0));
        connect(b, &QToolButton::clicked, this, [this, axis, kind, sign] {
          Eigen::Isometry3d delta = Eigen::Isometry3d::Identity();
          const Eigen::Vector3d unit = Eigen::Vector3d::Unit(axis);
          if (kind == 0)
            delta.translation() = 0.005 * sign * unit;
          else
            delta.linear() = Eigen::AngleAxisd(sign * 5.0 * 3.14159265358979323846 / 180.0, unit)
                                 .toRotationMatrix();
          controller_->jogPalm(delta);
        });
      }
    }
  }
  auto* home = new QPushButton(tr("Palm home"));
  grid->addWidget(home, 3, 0, 1, 4);
  connect(home, &QPushButton::clicked, this,
          [this] { controller_->setPalmPose(Eigen::Isometry3d::Identity()); });
  layout->addWidget(jog);
  layout->addStretch(1);
  connect(current, &QPushButton::clicked, this, &CartesianPanel::fromCurrent);
  connect(finger_, &QComboBox::currentIndexChanged, this, &CartesianPanel::fromCurrent);
  connect(controller_, &SimulationController::handChanged, this, &CartesianPanel::rebuild);
  rebuild();
}

void CartesianPanel::rebuild() {
  const QSignalBlocker block(finger_);
  finger_->clear();
  for (const auto& f : controller_->hand().fingers)
    finger_->addItem(QString::fromStdString(f.name));
  fromCurrent();
}

void CartesianPanel::fromCurrent() {
  if (finger_->currentIndex() < 0) return;
  const Eigen::Vector3d p = controller_->fingertip(finger_->currentIndex());
  const std::optional<double> phi = controller_->fingertipPhi(finger_->currentIndex());
  updating_ = true;
  for (int i = 0; i < 3; ++i) xyz_[i]->setValue(p(i) * 1000.0);
  phi_->setEnabled(phi.has_value());
  phi_->setValue(phi ? *phi * 180.0 / 3.14159265358979323846 : 0.0);
  updating_ = false;
  message_->clear();
}

void CartesianPanel::setTarget(double x, double y, double z) {
  updating_ = true;
  xyz_[0]->setValue(x * 1000.0);
  xyz_[1]->setValue(y * 1000.0);
  xyz_[2]->setValue(z * 1000.0);
  updating_ = false;
  solve();
}

void CartesianPanel::solve() {
  const Eigen::Vector3d target(xyz_[0]->value() / 1000.0, xyz_[1]->value() / 1000.0,
                               xyz_[2]->value() / 1000.0);
  std::optional<double> phi;
  if (phi_->isEnabled()) phi = phi_->value() * 3.14159265358979323846 / 180.0;
  const QString why = controller_->moveFingertip(finger_->currentIndex(), target, phi);
  if (why.isEmpty()) {
    message_->setStyleSheet(QString());
    message_->setText(tr("Reached."));
  } else {
    message_->setStyleSheet(QStringLiteral("color: #c33;"));
    message_->setText(why);
  }
}

}  // namespace handsim::app
