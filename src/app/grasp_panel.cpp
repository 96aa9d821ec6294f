// SPDX-License-Identifier: GPL-3.0-or-later
#include "grasp_panel.hpp"

#include <QFormLayout>
#include <QVBoxLayout>
#include <algorithm>
#include <stdexcept>

#include "handsim/geometry/triangle_mesh.hpp"
#include "handsim/grasp/grasp_contact.hpp"
#include "simulation_controller.hpp"

namespace handsim::app {
namespace {
constexpr int kEvaluatePeriodMs = 200;  // at most 5 hulls a second
}  // namespace

GraspPanel::GraspPanel(SimulationController* controller, QWidget* parent)
    : QWidget(parent), controller_(controller) {
  auto* layout = new QVBoxLayout(this);
  auto* form = new QFormLayout;
  friction_ = new QDoubleSpinBox;
  friction_->setRange(0.0, 2.0);
  friction_->setDecimals(2);
  friction_->setSingleStep(0.05);
  friction_->setValue(0.5);
  friction_->setToolTip(tr("Coulomb friction coefficient of every contact"));
  contacts_ = new QLabel;
  closure_ = new QLabel;
  epsilon_ = new QLabel;
  volume_ = new QLabel;
  form->addRow(tr("Friction"), friction_);
  form->addRow(tr("Contacts"), contacts_);
  form->addRow(tr("Force closure"), closure_);
  form->addRow(tr("Epsilon"), epsilon_);
  form->addRow(tr("Volume"), volume_);
  layout->addLayout(form);
  note_ = new QLabel;
  note_->setWordWrap(true);
  layout->addWidget(note_);
  auto_grasp_ = new QPushButton(tr("Auto grasp"));
  auto_grasp_->setToolTip(
      tr("Close every finger to its limit along a trapezoidal trajectory and play (G)"));
  layout->addWidget(auto_grasp_);
  layout->addStretch();
  connect(auto_grasp_, &QPushButton::clicked, controller_, &SimulationController::autoGrasp);

  const auto mark = [this] { dirty_ = true; };
  connect(friction_, &QDoubleSpinBox::valueChanged, this, mark);
  connect(controller_, &SimulationController::snapshotChanged, this, mark);
  connect(controller_, &SimulationController::objectsChanged, this, mark);
  connect(controller_, &SimulationController::handChanged, this, mark);
  timer_.setInterval(kEvaluatePeriodMs);
  connect(&timer_, &QTimer::timeout, this, [this] {
    if (dirty_) evaluate();
  });
  timer_.start();
  evaluate();
}

grasp::GraspQualityOptions GraspPanel::options() const {
  grasp::GraspQualityOptions o;
  const auto& objects = controller_->objects();
  if (objects.empty()) return o;
  const geometry::TriangleMesh& mesh = objects.front().geometry->collision.mesh;
  const geometry::Aabb box = geometry::boundingBox(mesh);
  if (box.empty()) return o;
  const Eigen::Vector3d centre = 0.5 * (box.min + box.max);
  const double radius = grasp::torqueRadius(mesh, centre);
  if (radius > 0.0) o.torque_radius = radius;
  o.torque_reference = controller_->objectPose(0) * centre;
  return o;
}

void GraspPanel::evaluate() {
  dirty_ = false;
  if (controller_->objects().empty()) {
    quality_ = {};
    contact_count_ = 0;
    contacts_->setText(tr("no object"));
    closure_->setText(QStringLiteral("-"));
    epsilon_->setText(QStringLiteral("-"));
    volume_->setText(QStringLiteral("-"));
    note_->clear();
    return;
  }
  const std::vector<grasp::GraspContact> contacts =
      grasp::graspContactsOn(controller_->state().contacts, 0, friction_->value());
  contact_count_ = static_cast<int>(contacts.size());
  try {
    quality_ = grasp::evaluateGrasp(contacts, options());
  } catch (const std::invalid_argument& e) {
    quality_ = {};
    quality_.note = e.what();
  }
  contacts_->setText(QString::number(contact_count_));
  closure_->setText(quality_.force_closure ? tr("yes") : tr("no"));
  closure_->setStyleSheet(quality_.force_closure ? QStringLiteral("color: darkgreen") : QString());
  epsilon_->setText(QString::number(quality_.epsilon, 'g', 4));
  volume_->setText(QString::number(quality_.volume, 'g', 4));
  note_->setText(QString::fromStdString(quality_.note));
}

}  // namespace handsim::app
