// SPDX-License-Identifier: GPL-3.0-or-later
#include "planner_panel.hpp"

#include <QDateTime>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QSignalBlocker>
#include <QStringList>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>
#include <initializer_list>
#include <numeric>

#include "handsim/io/input_error.hpp"
#include "handsim/planner/grasp_defaults.hpp"
#include "simulation_controller.hpp"

namespace handsim::app {
namespace {

QComboBox* combo(const QStringList& items) {
  auto* c = new QComboBox;
  c->addItems(items);
  return c;
}

QSpinBox* spin(int lo, int hi, int value) {
  auto* s = new QSpinBox;
  s->setRange(lo, hi);
  s->setValue(value);
  return s;
}

}  // namespace

PlannerPanel::PlannerPanel(SimulationController* controller, QWidget* parent)
    : QWidget(parent), controller_(controller) {
  auto* layout = new QVBoxLayout(this);
  closing_ = new QLabel;
  closing_->setWordWrap(true);
  closing_->setToolTip(tr("The actuators the planner closes (docs/planner.md): the hand file's "
                          "grasp key, or, for a hand that names none, read from its kinematics"));
  layout->addWidget(closing_);
  auto* form = new QFormLayout;
  strategy_ = combo({QStringLiteral("surface-normals"), QStringLiteral("annealing")});
  strategy_->setToolTip(tr("surface-normals: handsim's; annealing: GraspIt!'s (docs/planner.md)"));
  energy_ = combo({QStringLiteral("contact"), QStringLiteral("potential")});
  energy_->setToolTip(tr("What the search descends: contact distance or potential quality"));
  grasps_ = spin(1, 10000, 10);
  candidates_ = spin(0, 1000000, 0);
  candidates_->setSpecialValueText(tr("100 per grasp"));
  seed_ = spin(0, 1 << 30, 1);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads_ = spin(1, 256, std::max(1, cores - 1));
  threads_->setToolTip(tr("Worker threads; the grasps do not depend on them"));
  form->addRow(tr("Strategy"), strategy_);
  form->addRow(tr("Energy"), energy_);
  form->addRow(tr("Grasps"), grasps_);
  form->addRow(tr("Candidates"), candidates_);
  form->addRow(tr("Seed"), seed_);
  form->addRow(tr("Threads"), threads_);
  layout->addLayout(form);

  auto* run_row = new QHBoxLayout;
  start_button_ = new QPushButton(tr("Plan"));
  start_button_->setToolTip(tr("Plan grasps of the first object with the scene's hand"));
  stop_button_ = new QPushButton(tr("Stop"));
  run_row->addWidget(start_button_);
  run_row->addWidget(stop_button_);
  layout->addLayout(run_row);
  progress_ = new QProgressBar;
  progress_->setRange(0, 1);
  progress_->setValue(0);
  layout->addWidget(progress_);
  status_ = new QLabel(tr("Not run"));
  status_->setWordWrap(true);
  layout->addWidget(status_);

  table_ = new QTableWidget(0, 4);
  table_->setHorizontalHeaderLabels({tr("Candidate"), tr("Epsilon"), tr("Volume"), tr("Test")});
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table_->setMinimumHeight(160);
  layout->addWidget(table_, 1);

  auto* test_form = new QFormLayout;
  preset_ = combo({});
  for (const auto& n : planner::validationPresetNames())
    preset_->addItem(QString::fromStdString(n));
  hold_ = combo({QStringLiteral("drives"), QStringLiteral("pd")});
  hold_->setToolTip(tr("Hold the grasp with the hand's own drives or a PD servo per joint"));
  test_form->addRow(tr("Preset"), preset_);
  test_form->addRow(tr("Hold"), hold_);
  layout->addLayout(test_form);
  auto* grasp_row = new QHBoxLayout;
  show_button_ = new QPushButton(tr("Show"));
  validate_button_ = new QPushButton(tr("Validate"));
  validate_button_->setToolTip(
      tr("Run the preset on the selected grasp and watch the hand close on the object"));
  export_button_ = new QPushButton(tr("Export..."));
  grasp_row->addWidget(show_button_);
  grasp_row->addWidget(validate_button_);
  grasp_row->addWidget(export_button_);
  layout->addLayout(grasp_row);
  verdict_ = new QLabel;
  verdict_->setWordWrap(true);
  // Room for the verdict's three lines: the list, not the verdict, gives way.
  verdict_->setMinimumHeight(3 * verdict_->fontMetrics().lineSpacing());
  verdict_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  layout->addWidget(verdict_);

  connect(controller_, &SimulationController::handChanged, this, &PlannerPanel::showClosing);
  showClosing();
  connect(start_button_, &QPushButton::clicked, this, &PlannerPanel::start);
  connect(stop_button_, &QPushButton::clicked, this, &PlannerPanel::stop);
  connect(table_, &QTableWidget::cellClicked, this,
          [this](int row, int) { showGrasp(recordOfRow(row)); });
  connect(table_, &QTableWidget::itemSelectionChanged, this, &PlannerPanel::updateButtons);
  connect(show_button_, &QPushButton::clicked, this,
          [this] { showGrasp(recordOfRow(table_->currentRow())); });
  connect(validate_button_, &QPushButton::clicked, this,
          [this] { validateGrasp(recordOfRow(table_->currentRow())); });
  connect(export_button_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export grasps"), QString(),
                                                      tr("Grasp files (*.jsonl)"));
    if (path.isEmpty()) return;
    QString error;
    if (!exportTo(path, &error)) verdict_->setText(error);
  });
  updateButtons();
}

PlannerPanel::~PlannerPanel() {
  stop_flag_ = true;
  joinWorker();
}

void PlannerPanel::joinWorker() {
  if (worker_.joinable()) worker_.join();
}

int PlannerPanel::recordOfRow(int row) const {
  if (row < 0 || row >= table_->rowCount()) return -1;
  const QTableWidgetItem* item = table_->item(row, 0);
  return item ? item->data(Qt::UserRole).toInt() : -1;
}

void PlannerPanel::updateButtons() {
  const bool selected = recordOfRow(table_->currentRow()) >= 0;
  start_button_->setEnabled(!busy_);
  stop_button_->setEnabled(busy_);
  show_button_->setEnabled(selected);
  validate_button_->setEnabled(selected && !busy_);
  export_button_->setEnabled(!records_.empty() && !busy_);
  for (QWidget* w :
       std::initializer_list<QWidget*>{strategy_, energy_, grasps_, candidates_, seed_, threads_})
    w->setEnabled(!busy_);
}

void PlannerPanel::showClosing() {
  const hand::HandModel& hand = *controller_->model().hand_ptr;
  QString text;
  try {
    const planner::GraspSummary g = planner::graspSummary(hand);
    QStringList names;
    for (std::size_t i = 0; i < g.closing_actuators.size(); ++i)
      names << QString::fromStdString(
                   hand.actuators[static_cast<std::size_t>(g.closing_actuators[i])].name) +
                   (g.closing_directions[i] < 0 ? tr(" (to its lower end)") : QString());
    for (int t : g.closing_tendons)
      names << tr("tendon %1").arg(
          QString::fromStdString(hand.tendons[static_cast<std::size_t>(t)].name));
    const QString list = names.isEmpty() ? tr("nothing") : names.join(QStringLiteral(", "));
    text = g.source == planner::GraspSummary::Source::File
               ? tr("Closes %1 (the hand file's grasp key)").arg(list)
               : tr("Closes %1 (inferred from the kinematics: the hand names no closing "
                    "actuators)")
                     .arg(list);
  } catch (const std::exception& e) {
    text = tr("Cannot tell what closes this hand: %1").arg(QString::fromUtf8(e.what()));
  }
  closing_->setText(text);
}

void PlannerPanel::start() {
  if (busy_) return;
  if (controller_->objects().empty()) {
    status_->setText(tr("No object in the scene to plan for"));
    return;
  }
  joinWorker();
  planner::PlannerOptions o;
  o.strategy = planner::parseStrategy(strategy_->currentText().toStdString());
  o.energy = planner::parseEnergy(energy_->currentText().toStdString());
  o.grasps = grasps_->value();
  o.candidates = candidates_->value();
  o.seed = static_cast<std::uint64_t>(seed_->value());
  o.threads = static_cast<unsigned>(threads_->value());
  options_ = o;
  object_ = controller_->objects().front();  // the planner's world is its frame
  const auto hand = controller_->model().hand_ptr;
  records_.clear();
  rebuildTable();
  verdict_->clear();
  stop_flag_ = false;
  busy_ = true;
  started_ms_ = QDateTime::currentMSecsSinceEpoch();
  progress_->setRange(0, static_cast<int>(planner::candidateBudget(o)));
  progress_->setValue(0);
  status_->setText(tr("Compiling the planner's model..."));
  updateButtons();
  const sim::ObjectModel object = object_;
  worker_ = std::thread([this, hand, object, o] {
    QString error;
    try {
      auto pm =
          std::make_shared<const planner::PlannerModel>(planner::compilePlannerModel(hand, object));
      QMetaObject::invokeMethod(
          this, [this, pm] { model_ = pm; }, Qt::QueuedConnection);
      planner::PlannerHooks hooks;
      hooks.stop = &stop_flag_;
      hooks.accepted = [this](const planner::PlannedGrasp& g) {
        QMetaObject::invokeMethod(
            this, [this, g] { addGrasp(g); }, Qt::QueuedConnection);
      };
      planner::planGrasps(
          *pm, o,
          [this](std::int64_t done, int accepted, std::int64_t budget) {
            QMetaObject::invokeMethod(
                this, [this, done, accepted, budget] { onProgress(done, accepted, budget); },
                Qt::QueuedConnection);
          },
          hooks);
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    }
    QMetaObject::invokeMethod(
        this, [this, error] { onFinished(error); }, Qt::QueuedConnection);
  });
}

void PlannerPanel::stop() {
  if (busy_) {
    stop_flag_ = true;
    status_->setText(tr("Stopping after the candidates in progress..."));
  }
}

void PlannerPanel::addGrasp(planner::PlannedGrasp grasp) {
  planner::GraspRecord r;
  const hand::HandModel& hand = controller_->hand();
  r.hand = hand.id;
  r.hand_source = hand.source_file;
  r.object = object_.name;
  r.object_source = object_.source;
  for (const auto& a : hand.actuators) r.actuators.push_back(a.name);
  if (model_) r.run = planner::runInfo(options_, *model_);
  r.grasp = std::move(grasp);
  records_.push_back(std::move(r));
  rebuildTable();
}

void PlannerPanel::rebuildTable() {
  const int selected = recordOfRow(table_->currentRow());
  std::vector<int> order(records_.size());
  std::iota(order.begin(), order.end(), 0);
  // The best list: highest epsilon first, ties in candidate order.
  std::stable_sort(order.begin(), order.end(), [this](int a, int b) {
    return records_[static_cast<std::size_t>(a)].grasp.closed.quality.epsilon >
           records_[static_cast<std::size_t>(b)].grasp.closed.quality.epsilon;
  });
  QSignalBlocker block(table_);
  table_->setRowCount(static_cast<int>(order.size()));
  int select_row = -1;
  for (int row = 0; row < static_cast<int>(order.size()); ++row) {
    const planner::GraspRecord& r = records_[static_cast<std::size_t>(order[row])];
    auto* c = new QTableWidgetItem(QString::number(r.grasp.candidate));
    c->setData(Qt::UserRole, order[row]);
    table_->setItem(row, 0, c);
    table_->setItem(row, 1,
                    new QTableWidgetItem(QString::number(r.grasp.closed.quality.epsilon, 'g', 3)));
    table_->setItem(row, 2,
                    new QTableWidgetItem(QString::number(r.grasp.closed.quality.volume, 'g', 3)));
    QString test = QStringLiteral("-");
    if (!r.validation.empty()) {
      const auto& v = r.validation.back();
      test = QStringLiteral("%1 %2").arg(QString::fromStdString(v.preset),
                                         v.passed ? tr("passed") : tr("failed"));
    }
    table_->setItem(row, 3, new QTableWidgetItem(test));
    if (order[row] == selected) select_row = row;
  }
  if (select_row >= 0) table_->selectRow(select_row);
  updateButtons();
}

void PlannerPanel::onProgress(qint64 done, int accepted, qint64 budget) {
  progress_->setRange(0, static_cast<int>(budget));
  progress_->setValue(static_cast<int>(done));
  const double seconds = double(QDateTime::currentMSecsSinceEpoch() - started_ms_) / 1000.0;
  status_->setText(tr("%1 grasps, %2 of %3 candidates, %4 s")
                       .arg(accepted)
                       .arg(done)
                       .arg(budget)
                       .arg(seconds, 0, 'f', 1));
}

void PlannerPanel::onFinished(const QString& error) {
  joinWorker();
  busy_ = false;
  const double seconds = double(QDateTime::currentMSecsSinceEpoch() - started_ms_) / 1000.0;
  if (!error.isEmpty())
    status_->setText(tr("Planning failed: %1").arg(error));
  else
    status_->setText(tr("%1 grasps in %2 s%3")
                         .arg(records_.size())
                         .arg(seconds, 0, 'f', 1)
                         .arg(stop_flag_ ? tr(" (stopped)") : QString()));
  updateButtons();
  Q_EMIT finished();
}

void PlannerPanel::showGrasp(int index) {
  if (index < 0 || index >= static_cast<int>(records_.size()) || controller_->objects().empty())
    return;
  const planner::PlannedGrasp& g = records_[static_cast<std::size_t>(index)].grasp;
  controller_->pause();
  controller_->resetRun();
  // The planner's object frame is the object's own: the palm goes where it was relative to it.
  controller_->setPalmPose(controller_->objectPose(0) * g.palm_object);
  const Eigen::VectorXd& p = g.closed.posture.size() ? g.closed.posture : g.pregrasp;
  controller_->setActuatorCommands(planner::handActuatorPositions(controller_->hand(), p));
}

void PlannerPanel::validateGrasp(int index) {
  if (busy_ || index < 0 || index >= static_cast<int>(records_.size()) ||
      controller_->objects().empty())
    return;
  joinWorker();
  planner::ValidationPreset preset;
  try {
    preset = planner::validationPreset(preset_->currentText().toStdString());
    preset.hold = planner::parseHold(hold_->currentText().toStdString());
    if (preset.hold == planner::ValidationPreset::Hold::Pd &&
        preset.load == planner::ValidationPreset::Load::LiftShake)
      throw std::invalid_argument("lift-shake holds with the hand's drives only");
  } catch (const std::exception& e) {
    verdict_->setText(QString::fromStdString(e.what()));
    return;
  }
  const planner::PlannedGrasp g = records_[static_cast<std::size_t>(index)].grasp;
  // Watch: the viewport plays the hand closing from the pre-grasp on the scene's object.
  controller_->pause();
  controller_->resetRun();
  controller_->setPalmPose(controller_->objectPose(0) * g.palm_object);
  controller_->setActuatorCommands(planner::handActuatorPositions(controller_->hand(), g.pregrasp));
  controller_->autoGrasp();

  busy_ = true;
  started_ms_ = QDateTime::currentMSecsSinceEpoch();
  progress_->setRange(0, 0);  // busy
  status_->setText(tr("Validating candidate %1 with %2...")
                       .arg(g.candidate)
                       .arg(QString::fromStdString(preset.name)));
  updateButtons();
  const auto hand = controller_->model().hand_ptr;
  const sim::ObjectModel object = object_;
  const planner::ClosingOptions closing = options_.closing;
  const auto plane = options_.constraints.support_plane;
  worker_ = std::thread([this, hand, object, preset, closing, plane, g, index] {
    planner::ValidationOutcome out;
    QString error;
    try {
      const planner::Validator v = planner::makeValidator(hand, object, preset, closing, plane);
      out = planner::validateGrasp(v, g.palm_object, g.pregrasp);
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    }
    QMetaObject::invokeMethod(
        this, [this, index, out, error] { onValidated(index, out, error); }, Qt::QueuedConnection);
  });
}

void PlannerPanel::onValidated(int index, const planner::ValidationOutcome& outcome,
                               const QString& error) {
  joinWorker();
  busy_ = false;
  progress_->setRange(0, 1);
  progress_->setValue(1);
  const double seconds = double(QDateTime::currentMSecsSinceEpoch() - started_ms_) / 1000.0;
  if (!error.isEmpty()) {
    verdict_->setText(tr("Validation failed: %1").arg(error));
  } else {
    auto& list = records_[static_cast<std::size_t>(index)].validation;
    list.erase(std::remove_if(list.begin(), list.end(),
                              [&](const auto& v) {
                                return v.preset == outcome.preset && v.hold == outcome.hold;
                              }),
               list.end());
    list.push_back(outcome);
    int passed = 0;
    QStringList worst;
    for (const auto& d : outcome.directions) {
      passed += d.passed ? 1 : 0;
      worst << QString::number(d.displacement * 1000.0, 'f', 1);
    }
    verdict_->setText(tr("%1 (%2): %3, %4 of %5 directions; displacement %6 mm; epsilon %7")
                          .arg(QString::fromStdString(outcome.preset),
                               QString::fromLatin1(planner::holdName(outcome.hold)),
                               outcome.passed ? tr("passed") : tr("failed"))
                          .arg(passed)
                          .arg(outcome.directions.size())
                          .arg(worst.join(QStringLiteral(", ")))
                          .arg(outcome.epsilon, 0, 'g', 3));
    rebuildTable();
  }
  status_->setText(tr("Validated in %1 s").arg(seconds, 0, 'f', 1));
  updateButtons();
  Q_EMIT validated(index);
}

bool PlannerPanel::exportTo(const QString& path, QString* error) {
  try {
    planner::saveGraspRecords(path.toStdString(), records_);
  } catch (const std::exception& e) {
    if (error) *error = tr("Cannot export: %1").arg(QString::fromStdString(e.what()));
    return false;
  }
  status_->setText(tr("Exported %1 grasps to %2").arg(records_.size()).arg(path));
  return true;
}

}  // namespace handsim::app
