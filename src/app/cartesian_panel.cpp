// SPDX-License-Identifier: GPL-3.0-or-later
#include "cartesian_panel.hpp"

#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

#include "handsim/hand/hand_ik.hpp"
#include "handsim/kinematics/manipulability.hpp"

#include "simulation_controller.hpp"

namespace handsim::app {
namespace {
// Condition number above which the panel warns of a singularity.
constexpr double kNearSingular = 100.0;
// Point budget of the workspace cloud.
constexpr double kWorkspacePoints = 20000.0;
}  // namespace

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
  condition_ = new QLabel;
  condition_->setToolTip(
      tr("Condition number of the fingertip position Jacobian (sigma max / sigma min); "
         "above %1 the finger is near a singularity")
          .arg(kNearSingular));
  layout->addWidget(condition_);
  show_workspace_ = new QCheckBox(tr("Show workspace"));
  show_workspace_->setToolTip(
      tr("Draw the fingertip positions over a grid of the finger's joint ranges"));
  layout->addWidget(show_workspace_);
  connect(show_workspace_, &QCheckBox::toggled, this, &CartesianPanel::refreshWorkspace);

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
  connect(finger_, &QComboBox::currentIndexChanged, this, &CartesianPanel::refreshCondition);
  connect(finger_, &QComboBox::currentIndexChanged, this, &CartesianPanel::refreshWorkspace);
  connect(controller_, &SimulationController::handChanged, this, &CartesianPanel::rebuild);
  connect(controller_, &SimulationController::snapshotChanged, this,
          &CartesianPanel::refreshCondition);
  rebuild();
}

void CartesianPanel::rebuild() {
  const QSignalBlocker block(finger_);
  finger_->clear();
  for (const auto& f : controller_->hand().fingers)
    finger_->addItem(QString::fromStdString(f.name));
  fromCurrent();
  refreshCondition();
  refreshWorkspace();
}

void CartesianPanel::refreshCondition() {
  const int f = finger_->currentIndex();
  const auto& q = controller_->state().q;
  if (f < 0 || f >= static_cast<int>(q.size())) {
    condition_->clear();
    return;
  }
  // Of the fingertip the other APIs mean (hand::FingerPoint::Tip).
  const kinematics::Chain chain =
      hand::fingerPointChain(controller_->hand(), f, hand::FingerPoint::Tip);
  const Eigen::MatrixXd j = kinematics::taskJacobian(chain, q[static_cast<std::size_t>(f)],
                                                     kinematics::TaskSpace::Position);
  const double c = kinematics::conditionNumber(j);
  singular_ = kinematics::nearSingular(j, kNearSingular);
  const QString value = std::isfinite(c) ? QString::number(c, 'f', 1) : QStringLiteral("inf");
  if (singular_) {
    condition_->setStyleSheet(QStringLiteral("color: #c33; font-weight: bold;"));
    condition_->setText(tr("cond(J) = %1: near a singularity").arg(value));
  } else {
    condition_->setStyleSheet(QString());
    condition_->setText(tr("cond(J) = %1").arg(value));
  }
}

kinematics::WorkspaceOptions CartesianPanel::workspaceOptions(const kinematics::Chain& chain) {
  kinematics::WorkspaceOptions o;
  const int dof = std::max(chain.dof(), 1);
  o.samples_per_joint =
      std::max(2, static_cast<int>(std::floor(std::pow(kWorkspacePoints, 1.0 / dof))));
  return o;
}

void CartesianPanel::refreshWorkspace() {
  const int f = finger_->currentIndex();
  std::vector<Eigen::Vector3d> points;
  if (show_workspace_->isChecked() && f >= 0) {
    const kinematics::Chain chain =
        hand::fingerPointChain(controller_->hand(), f, hand::FingerPoint::Tip);
    points = kinematics::sampleWorkspace(chain, workspaceOptions(chain));
    for (Eigen::Vector3d& p : points) p = chain.base * p;
  }
  Q_EMIT workspaceChanged(points);
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
