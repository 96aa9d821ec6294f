// SPDX-License-Identifier: GPL-3.0-or-later
#include "trajectory_panel.hpp"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QSignalBlocker>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "handsim/io/atomic_file.hpp"

namespace handsim::app {
namespace {

enum Column { kActuator, kTo, kVelocity, kAcceleration, kStart, kColumns };

double cellValue(const QTableWidget* t, int row, int col, bool* ok) {
  const QTableWidgetItem* item = t->item(row, col);
  return item ? item->text().toDouble(ok) : (*ok = false, 0.0);
}

}  // namespace

std::string trajectoriesToJson(const hand::HandModel& hand,
                               const std::vector<TrajectorySegment>& segments) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const TrajectorySegment& s : segments)
    list.push_back({{"actuator", hand.actuators.at(static_cast<std::size_t>(s.actuator)).name},
                    {"to", s.to},
                    {"max_velocity", s.max_velocity},
                    {"max_acceleration", s.max_acceleration},
                    {"start_s", s.start}});
  const nlohmann::ordered_json doc = {
      {"format", "handsim-trajectories"}, {"version", 1}, {"hand", hand.id}, {"segments", list}};
  return doc.dump(2) + "\n";
}

std::vector<TrajectorySegment> trajectoriesFromJson(const hand::HandModel& hand,
                                                    const std::string& text) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text, nullptr, true, true);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(std::string("not valid JSON: ") + e.what());
  }
  if (!doc.is_object() || doc.value("format", "") != "handsim-trajectories")
    throw std::runtime_error("expected \"format\": \"handsim-trajectories\"");
  if (!doc.contains("segments") || !doc["segments"].is_array())
    throw std::runtime_error("expected a \"segments\" array");
  std::vector<TrajectorySegment> out;
  for (std::size_t i = 0; i < doc["segments"].size(); ++i) {
    const auto& j = doc["segments"][i];
    const std::string where = "/segments/" + std::to_string(i);
    try {
      TrajectorySegment s;
      const std::string name = j.at("actuator").get<std::string>();
      s.actuator = hand.actuatorIndex(name);
      if (s.actuator < 0) throw std::runtime_error("unknown actuator '" + name + "'");
      s.to = j.at("to").get<double>();
      s.max_velocity = j.at("max_velocity").get<double>();
      s.max_acceleration = j.at("max_acceleration").get<double>();
      s.start = j.value("start_s", 0.0);
      if (!std::isfinite(s.to) || !(s.max_velocity > 0.0) || !(s.max_acceleration > 0.0) ||
          !std::isfinite(s.max_velocity) || !std::isfinite(s.max_acceleration) || !(s.start >= 0.0))
        throw std::runtime_error(
            "needs a finite target, positive velocity and acceleration, start >= 0");
      out.push_back(s);
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error(where + ": " + e.what());
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(where + ": " + e.what());
    }
  }
  return out;
}

TrajectoryPanel::TrajectoryPanel(SimulationController* controller, QWidget* parent)
    : QWidget(parent), controller_(controller) {
  auto* layout = new QVBoxLayout(this);
  table_ = new QTableWidget(0, kColumns);
  table_->setHorizontalHeaderLabels(
      {tr("Actuator"), tr("To"), tr("Max vel /s"), tr("Max acc /s²"), tr("Start s")});
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  // The actuator column shows its unit ("M3 [counts]") in full; the numbers share the rest.
  table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  table_->setToolTip(
      tr("Trapezoidal segments in the actuator's unit (counts, rad or m); each "
         "starts where the previous one of its actuator ended"));
  layout->addWidget(table_, 1);
  auto* edit = new QHBoxLayout;
  auto* add = new QPushButton(tr("Add"));
  auto* remove = new QPushButton(tr("Remove"));
  auto* apply_button = new QPushButton(tr("Apply"));
  apply_button->setToolTip(tr("Use these trajectories for the next run"));
  auto* load = new QPushButton(tr("Load..."));
  auto* save = new QPushButton(tr("Save..."));
  for (QPushButton* b : {add, remove, apply_button, load, save}) edit->addWidget(b);
  layout->addLayout(edit);
  message_ = new QLabel;
  message_->setWordWrap(true);
  layout->addWidget(message_);

  auto* transport = new QHBoxLayout;
  auto* play = new QToolButton;
  play->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
  play->setToolTip(tr("Play (Space)"));
  auto* pause = new QToolButton;
  pause->setIcon(style()->standardIcon(QStyle::SP_MediaPause));
  pause->setToolTip(tr("Pause (Space)"));
  auto* step = new QToolButton;
  step->setIcon(style()->standardIcon(QStyle::SP_MediaSeekForward));
  step->setToolTip(tr("Single step (.)"));
  auto* reset = new QToolButton;
  reset->setIcon(style()->standardIcon(QStyle::SP_MediaSkipBackward));
  reset->setToolTip(tr("Reset the run (Ctrl+R)"));
  speed_ = new QDoubleSpinBox;
  speed_->setRange(0.01, 100.0);
  speed_->setValue(1.0);
  speed_->setDecimals(2);
  speed_->setPrefix(tr("speed x"));
  speed_->setToolTip(tr("Real-time factor the run aims at"));
  loop_ = new QCheckBox(tr("Loop"));
  for (QWidget* w : std::initializer_list<QWidget*>{play, pause, step, reset, speed_, loop_})
    transport->addWidget(w);
  layout->addLayout(transport);
  auto* scrub_row = new QHBoxLayout;
  scrubber_ = new QSlider(Qt::Horizontal);
  scrubber_->setToolTip(tr("Replay the recorded history"));
  time_ = new QLabel;
  scrub_row->addWidget(scrubber_, 1);
  scrub_row->addWidget(time_);
  layout->addLayout(scrub_row);

  connect(add, &QPushButton::clicked, this, [this] {
    TrajectorySegment s;
    s.actuator = 0;
    const hand::Actuator& a = controller_->hand().actuators.front();
    s.to = a.upper;
    s.max_velocity = std::max((a.upper - a.lower) / 2.0, 1e-6);
    s.max_acceleration = 4.0 * s.max_velocity;
    addRow(s);
  });
  connect(remove, &QPushButton::clicked, this, [this] { table_->removeRow(table_->currentRow()); });
  connect(apply_button, &QPushButton::clicked, this, &TrajectoryPanel::apply);
  connect(load, &QPushButton::clicked, this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Load trajectories"), QString(), tr("JSON (*.json)"));
    if (path.isEmpty()) return;
    try {
      loadFile(path);
    } catch (const std::exception& e) {
      QMessageBox::warning(this, tr("Cannot load trajectories"), QString::fromUtf8(e.what()));
    }
  });
  connect(save, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save trajectories"), QStringLiteral("trajectories.json"), tr("JSON (*.json)"));
    if (path.isEmpty()) return;
    try {
      saveFile(path);
    } catch (const std::exception& e) {
      QMessageBox::warning(this, tr("Cannot save trajectories"), QString::fromUtf8(e.what()));
    }
  });
  connect(play, &QToolButton::clicked, this, [this] {
    if (apply()) controller_->play();
  });
  connect(pause, &QToolButton::clicked, controller_, &SimulationController::pause);
  connect(step, &QToolButton::clicked, controller_, &SimulationController::singleStep);
  connect(reset, &QToolButton::clicked, controller_, &SimulationController::resetRun);
  connect(speed_, &QDoubleSpinBox::valueChanged, controller_, &SimulationController::setSpeed);
  connect(loop_, &QCheckBox::toggled, controller_, &SimulationController::setLoop);
  connect(scrubber_, &QSlider::valueChanged, this,
          [this](int v) { controller_->scrubTo(v >= scrubber_->maximum() ? -1 : v); });
  connect(controller_, &SimulationController::trajectoriesChanged, this,
          &TrajectoryPanel::fillFromController);
  connect(controller_, &SimulationController::handChanged, this,
          &TrajectoryPanel::fillFromController);
  connect(controller_, &SimulationController::snapshotChanged, this,
          &TrajectoryPanel::updateTransport);
  fillFromController();
}

void TrajectoryPanel::addRow(const TrajectorySegment& s) {
  const int row = table_->rowCount();
  table_->insertRow(row);
  auto* box = new QComboBox;
  for (const hand::Actuator& a : controller_->hand().actuators)
    box->addItem(QString::fromStdString(a.name + " [" + a.unit + "]"));
  box->setCurrentIndex(s.actuator);
  table_->setCellWidget(row, kActuator, box);
  table_->setItem(row, kTo, new QTableWidgetItem(QString::number(s.to, 'g', 10)));
  table_->setItem(row, kVelocity, new QTableWidgetItem(QString::number(s.max_velocity, 'g', 10)));
  table_->setItem(row, kAcceleration,
                  new QTableWidgetItem(QString::number(s.max_acceleration, 'g', 10)));
  table_->setItem(row, kStart, new QTableWidgetItem(QString::number(s.start, 'g', 10)));
}

void TrajectoryPanel::fillFromController() {
  table_->setRowCount(0);
  for (const TrajectorySegment& s : controller_->trajectories()) addRow(s);
  message_->clear();
  updateTransport();
}

std::vector<TrajectorySegment> TrajectoryPanel::rows(QString* error) const {
  std::vector<TrajectorySegment> out;
  for (int r = 0; r < table_->rowCount(); ++r) {
    TrajectorySegment s;
    s.actuator = static_cast<QComboBox*>(table_->cellWidget(r, kActuator))->currentIndex();
    bool ok[4] = {false, false, false, false};
    s.to = cellValue(table_, r, kTo, &ok[0]);
    s.max_velocity = cellValue(table_, r, kVelocity, &ok[1]);
    s.max_acceleration = cellValue(table_, r, kAcceleration, &ok[2]);
    s.start = cellValue(table_, r, kStart, &ok[3]);
    if (!(ok[0] && ok[1] && ok[2] && ok[3]) || !(s.max_velocity > 0.0) ||
        !(s.max_acceleration > 0.0) || !(s.start >= 0.0)) {
      *error =
          tr("row %1: needs numbers, positive velocity and acceleration, start >= 0").arg(r + 1);
      return {};
    }
    out.push_back(s);
  }
  return out;
}

bool TrajectoryPanel::apply() {
  QString error;
  std::vector<TrajectorySegment> segments = rows(&error);
  if (!error.isEmpty()) {
    message_->setText(
        QStringLiteral("<span style='color:#c33'>%1</span>").arg(error.toHtmlEscaped()));
    return false;
  }
  controller_->setTrajectories(std::move(segments));
  message_->setText(tr("%n segment(s); run length %1 s", nullptr, table_->rowCount())
                        .arg(controller_->duration(), 0, 'f', 2));
  return true;
}

void TrajectoryPanel::loadFile(const QString& path) {
  std::vector<TrajectorySegment> segments;
  try {
    segments = trajectoriesFromJson(controller_->hand(), io::readFile(path.toStdString()));
  } catch (const std::exception& e) {
    throw std::runtime_error(path.toStdString() + ": " + e.what());
  }
  controller_->setTrajectories(std::move(segments));
}

void TrajectoryPanel::saveFile(const QString& path) const {
  QString error;
  const std::vector<TrajectorySegment> segments = rows(&error);
  if (!error.isEmpty()) throw std::runtime_error(error.toStdString());
  io::writeFileAtomically(path.toStdString(), trajectoriesToJson(controller_->hand(), segments));
}

void TrajectoryPanel::updateTransport() {
  const QSignalBlocker block(scrubber_);
  const int n = controller_->historySize();
  scrubber_->setRange(0, std::max(0, n - 1));
  if (!controller_->scrubbing()) scrubber_->setValue(std::max(0, n - 1));
  time_->setText(tr("%1 s").arg(controller_->state().time, 0, 'f', 3));
}

}  // namespace handsim::app
