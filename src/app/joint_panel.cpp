// SPDX-License-Identifier: GPL-3.0-or-later
#include "joint_panel.hpp"

#include <QFormLayout>
#include <QLabel>
#include <QHBoxLayout>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <cmath>

#include "display_unit.hpp"
#include "simulation_controller.hpp"

namespace handsim::app {
namespace {
constexpr double kDeg = 180.0 / 3.14159265358979323846;
}

JointPanel::JointPanel(SimulationController* controller, QWidget* parent)
    : QWidget(parent), controller_(controller) {
  auto* layout = new QVBoxLayout(this);
  auto* pose_row = new QHBoxLayout;
  poses_ = new QComboBox;
  poses_->setToolTip(tr("Named poses of the hand file"));
  auto* apply = new QPushButton(tr("Apply pose"));
  auto* zero = new QPushButton(tr("Zero"));
  zero->setToolTip(tr("All actuators to zero, clutches engaged"));
  pose_row->addWidget(poses_, 1);
  pose_row->addWidget(apply);
  pose_row->addWidget(zero);
  layout->addLayout(pose_row);
  record_ = new QPushButton(tr("Record pose..."));
  record_->setToolTip(tr("Append the current joint angles as a named pose to a pose file"));
  layout->addWidget(record_);
  // Sliders and the joint read-out scroll: a hand of 24 joints must not make the window taller
  // than the screen.
  scroll_ = new QScrollArea;
  scroll_->setObjectName(QStringLiteral("JointScroll"));
  scroll_->setWidgetResizable(true);
  scroll_->setFrameShape(QFrame::NoFrame);
  scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  auto* content = new QWidget;
  auto* content_layout = new QVBoxLayout(content);
  content_layout->setContentsMargins(0, 0, 0, 0);
  rows_widget_ = new QWidget;
  content_layout->addWidget(rows_widget_);
  joints_ = new QLabel;
  joints_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  joints_->setStyleSheet(QStringLiteral("font-family: monospace;"));
  joints_->setWordWrap(true);
  content_layout->addWidget(joints_);
  content_layout->addStretch(1);
  scroll_->setWidget(content);
  layout->addWidget(scroll_, 1);

  connect(apply, &QPushButton::clicked, this,
          [this] { controller_->applyPose(poses_->currentText().toStdString()); });
  connect(zero, &QPushButton::clicked, this, [this] { controller_->resetToZero(); });
  connect(record_, &QPushButton::clicked, this, &JointPanel::recordPoseRequested);
  connect(controller_, &SimulationController::handChanged, this, &JointPanel::rebuild);
  connect(controller_, &SimulationController::snapshotChanged, this, &JointPanel::refresh);
  rebuild();
}

void JointPanel::rebuild() {
  delete rows_widget_->layout();
  qDeleteAll(rows_widget_->findChildren<QWidget*>(QString(), Qt::FindDirectChildrenOnly));
  rows_.clear();
  auto* form = new QFormLayout(rows_widget_);
  const hand::HandModel& hand = controller_->hand();
  for (std::size_t a = 0; a < hand.actuators.size(); ++a) {
    const hand::Actuator& act = hand.actuators[a];
    const DisplayUnit unit = displayUnit(act);
    QString drives;
    for (const hand::JointDrive& d : act.drives)
      drives += QString::fromStdString(hand.jointName(d.joint)) + ' ';
    RowSpec spec;
    spec.label = QString::fromStdString(act.name);
    spec.lower = act.lower;
    spec.upper = act.upper;
    spec.scale = unit.scale;
    spec.slider_step = unit.slider_step;
    spec.decimals = unit.slider_step < 1.0 ? 1 : 0;
    spec.single_step = unit.slider_step < 1.0 ? 1.0 : 100.0;
    spec.suffix = QStringLiteral(" ") + unit.name;
    spec.tooltip = tr("%1 drives %2").arg(QString::fromStdString(act.name), drives.trimmed());
    const int index = static_cast<int>(a);
    rows_.push_back(addRow(form, spec, [this, index](double shown) { sendValue(index, shown); }));
  }
  addArmRows(form);
  {
    const QSignalBlocker block(poses_);
    poses_->clear();
    for (const hand::NamedPose& p : hand.poses) poses_->addItem(QString::fromStdString(p.name));
    poses_->setEnabled(poses_->count() > 0);
  }
  refresh();
}

void JointPanel::addArmRows(QFormLayout* form) {
  arm_rows_.clear();
  const hand::ArmModel& arm = controller_->hand().arm;
  if (arm.empty()) return;
  // The arm's joints drive the palm (docs/arm.md): a group of their own below the hand's
  // actuators, setting where the arm starts; the palm moves with them, the base stays.
  auto* title = new QLabel(tr("<b>Arm</b> (%1 → %2)")
                               .arg(QString::fromStdString(arm.base_link),
                                    QString::fromStdString(arm.palm_link)),
                           rows_widget_);
  title->setObjectName(QStringLiteral("ArmTitle"));
  form->addRow(title);
  for (int j = 0; j < arm.dof(); ++j) {
    const std::size_t r = static_cast<std::size_t>(arm.chain.rowOfJoint(j));
    const kinematics::DhRow& dh = arm.chain.rows[r];
    const bool slide = dh.type == kinematics::JointType::Prismatic;
    RowSpec spec;
    spec.label = QString::fromStdString(r < arm.chain.joint_names.size()
                                            ? arm.chain.joint_names[r]
                                            : "arm " + std::to_string(j + 1));
    spec.lower = dh.lower;
    spec.upper = dh.upper;
    spec.scale = slide ? 1000.0 : kDeg;
    spec.slider_step = 0.5;
    spec.decimals = 1;
    spec.suffix = slide ? QStringLiteral(" mm") : QStringLiteral(" °");
    spec.tooltip = tr("Arm joint %1: where the arm starts; the palm moves with it").arg(spec.label);
    const double scale = spec.scale;
    arm_rows_.push_back(addRow(form, spec, [this, j, scale](double shown) {
      controller_->setArmJoint(j, shown / scale);
    }));
  }
}

JointPanel::Row JointPanel::addRow(QFormLayout* form, const RowSpec& spec,
                                   const std::function<void(double)>& send) {
  Row row;
  row.scale = spec.scale;
  row.slider_step = spec.slider_step;
  const double lo = spec.lower * row.scale, hi = spec.upper * row.scale;
  row.slider = new QSlider(Qt::Horizontal, rows_widget_);
  row.slider->setRange(static_cast<int>(std::lround(lo / row.slider_step)),
                       static_cast<int>(std::lround(hi / row.slider_step)));
  row.spin = new QDoubleSpinBox(rows_widget_);
  row.spin->setRange(lo, hi);
  row.spin->setDecimals(spec.decimals);
  if (spec.single_step > 0.0) row.spin->setSingleStep(spec.single_step);
  row.spin->setSuffix(spec.suffix);
  row.spin->setKeyboardTracking(false);
  row.slider->setToolTip(spec.tooltip);
  row.spin->setToolTip(spec.tooltip);
  auto* box = new QWidget(rows_widget_);
  auto* h = new QHBoxLayout(box);
  h->setContentsMargins(0, 0, 0, 0);
  h->addWidget(row.slider, 1);
  h->addWidget(row.spin);
  form->addRow(spec.label, box);
  const double step = row.slider_step;
  connect(row.slider, &QSlider::valueChanged, this, [send, step](int v) { send(v * step); });
  // A drag is one undo step, however long it takes.
  connect(row.slider, &QSlider::sliderPressed, controller_, &SimulationController::beginDrag);
  connect(row.slider, &QSlider::sliderReleased, controller_, &SimulationController::endDrag);
  connect(row.spin, &QDoubleSpinBox::valueChanged, this, [send](double v) { send(v); });
  return row;
}

void JointPanel::sendValue(int a, double displayed) {
  controller_->setActuatorCommand(a, displayed / rows_[static_cast<std::size_t>(a)].scale);
}

void JointPanel::refresh() {
  const sim::SimState& s = controller_->state();
  const auto& trajectories = controller_->simulatorTrajectories();
  for (std::size_t a = 0; a < rows_.size() && a < s.actuator_command.size(); ++a) {
    const Row& row = rows_[a];
    // An actuator on a trajectory follows its reference, not the slider's set point.
    const bool follows = a < trajectories.size() && !trajectories[a].empty();
    const double shown = (follows ? s.actuator_reference[a] : s.actuator_command[a]) * row.scale;
    const QSignalBlocker b1(row.slider);
    const QSignalBlocker b2(row.spin);
    row.slider->setValue(static_cast<int>(std::lround(shown / row.slider_step)));
    row.spin->setValue(shown);
  }
  for (std::size_t j = 0; j < arm_rows_.size(); ++j) {
    if (static_cast<Eigen::Index>(j) >= s.arm_position.size()) break;
    const Row& row = arm_rows_[j];
    const double shown = s.arm_position[static_cast<Eigen::Index>(j)] * row.scale;
    const QSignalBlocker b1(row.slider);
    const QSignalBlocker b2(row.spin);
    row.slider->setValue(static_cast<int>(std::lround(shown / row.slider_step)));
    row.spin->setValue(shown);
  }
  const hand::HandModel& hand = controller_->hand();
  QString text;
  for (std::size_t f = 0; f < hand.fingers.size() && f < s.q.size(); ++f) {
    const kinematics::Chain& chain = hand.fingers[f];
    text += QString::fromStdString(chain.name) + ':';
    for (int j = 0; j < chain.dof(); ++j) {
      const auto& row = chain.rows[static_cast<std::size_t>(chain.rowOfJoint(j))];
      const double v = s.q[f](j);
      text += row.type == kinematics::JointType::Prismatic
                  ? QStringLiteral(" %1 mm").arg(v * 1000.0, 0, 'f', 1)
                  // No "-0.0°" for a joint a rounding error below zero.
                  : QStringLiteral(" %1°").arg(std::abs(v * kDeg) < 0.05 ? 0.0 : v * kDeg, 0, 'f', 1);
    }
    text += '\n';
  }
  joints_->setText(text.trimmed());
}

}  // namespace handsim::app
