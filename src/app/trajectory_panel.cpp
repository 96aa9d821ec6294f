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
#include <algorithm>
#include <array>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "display_unit.hpp"
#include "handsim/io/atomic_file.hpp"
#include "handsim/sim/trapezoidal_profile.hpp"

namespace handsim::app {
namespace {

enum Column { kActuator, kTo, kVelocity, kAcceleration, kStart, kColumns };

double cellValue(const QTableWidget* t, int row, int col, bool* ok) {
  const QTableWidgetItem* item = t->item(row, col);
  return item ? item->text().toDouble(ok) : (*ok = false, 0.0);
}

enum PalmColumn { kPalmAxis, kPalmKind, kPalmA, kPalmB, kPalmC, kPalmStart, kPalmColumns };
constexpr double kPi = 3.141592653589793;

std::string palmRowProblem(const PalmRow& r) {
  const bool turn = r.axis >= sim::PalmMotion::RX;
  const double a = r.to_or_amplitude, b = r.velocity_or_frequency, c = r.acceleration_or_cycles;
  if (!std::isfinite(a) || !std::isfinite(b) || !std::isfinite(c) || !std::isfinite(r.start))
    return "needs finite numbers";
  if (!(r.start >= 0.0)) return "start must not be negative";
  if (r.sinusoid) {
    if (std::abs(a) > (turn ? kPi : 10.0))
      return turn ? "amplitude more than pi rad" : "amplitude more than 10 m";
    if (!(b > 0.0) || b > 1e4) return "frequency must be above 0 and at most 10 kHz";
    if (!(c > 0.0)) return "cycles must be positive";
  } else {
    if (std::abs(a) > (turn ? 100.0 * kPi : 100.0))
      return turn ? "target more than 50 turns" : "target more than 100 m from the start";
    if (!(b > 0.0)) return "max velocity must be positive";
    if (!(c > 0.0)) return "max acceleration must be positive";
  }
  return {};
}

}  // namespace

sim::PalmMotion palmMotionFromRows(const std::vector<PalmRow>& rows) {
  sim::PalmMotion motion;
  std::array<double, 6> from{}, free_at{};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const PalmRow& r = rows[i];
    if (r.axis < 0 || r.axis >= 6)
      throw std::runtime_error("palm row " + std::to_string(i + 1) + ": no such axis");
    const std::string problem = palmRowProblem(r);
    if (!problem.empty())
      throw std::runtime_error("palm row " + std::to_string(i + 1) + ": " + problem);
    sim::AxisMotion& axis = motion.axis(r.axis);
    const auto a = static_cast<std::size_t>(r.axis);
    if (r.sinusoid) {
      sim::Sinusoid sine;
      sine.amplitude = r.to_or_amplitude;
      sine.frequency_hz = r.velocity_or_frequency;
      sine.cycles = r.acceleration_or_cycles;
      sine.start = r.start;
      axis.sinusoids.push_back(sine);
    } else {
      const sim::TrapezoidalProfile move(from[a], r.to_or_amplitude, r.velocity_or_frequency,
                                         r.acceleration_or_cycles, std::max(r.start, free_at[a]));
      axis.segments.append(move);
      from[a] = r.to_or_amplitude;
      free_at[a] = move.end();
    }
  }
  return motion;
}

std::vector<PalmRow> palmRowsFromMotion(const sim::PalmMotion& motion) {
  std::vector<PalmRow> rows;
  for (int a = 0; a < 6; ++a) {
    const sim::AxisMotion& axis = motion.axis(a);
    for (const sim::TrapezoidalProfile& p : axis.segments.segments())
      rows.push_back({a, false, p.to(), p.maxVelocity(), p.maxAcceleration(), p.start()});
    for (const sim::Sinusoid& sine : axis.sinusoids)
      rows.push_back({a, true, sine.amplitude, sine.frequency_hz, sine.cycles, sine.start});
  }
  return rows;
}

std::string trajectoriesToJson(const hand::HandModel& hand,
                               const std::vector<TrajectorySegment>& segments,
                               const std::vector<PalmRow>& palm) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const TrajectorySegment& s : segments)
    list.push_back({{"actuator", hand.actuators.at(static_cast<std::size_t>(s.actuator)).name},
                    {"to", s.to},
                    {"max_velocity", s.max_velocity},
                    {"max_acceleration", s.max_acceleration},
                    {"start_s", s.start}});
  nlohmann::ordered_json doc = {
      {"format", "handsim-trajectories"}, {"version", 1}, {"hand", hand.id}, {"segments", list}};
  if (!palm.empty()) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const PalmRow& r : palm) {
      if (r.sinusoid)
        rows.push_back({{"axis", sim::PalmMotion::axisName(r.axis)},
                        {"amplitude", r.to_or_amplitude},
                        {"frequency_hz", r.velocity_or_frequency},
                        {"cycles", r.acceleration_or_cycles},
                        {"start_s", r.start}});
      else
        rows.push_back({{"axis", sim::PalmMotion::axisName(r.axis)},
                        {"to", r.to_or_amplitude},
                        {"max_velocity", r.velocity_or_frequency},
                        {"max_acceleration", r.acceleration_or_cycles},
                        {"start_s", r.start}});
    }
    doc["palm"] = rows;
  }
  return doc.dump(2) + "\n";
}

std::vector<TrajectorySegment> trajectoriesFromJson(const hand::HandModel& hand,
                                                    const std::string& text,
                                                    std::vector<PalmRow>* palm, bool* has_palm) {
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
  if (has_palm) *has_palm = doc.contains("palm");
  if (doc.contains("palm")) {
    if (!doc["palm"].is_array()) throw std::runtime_error("/palm: expected an array");
    std::vector<PalmRow> rows;
    for (std::size_t i = 0; i < doc["palm"].size(); ++i) {
      const auto& j = doc["palm"][i];
      const std::string where = "/palm/" + std::to_string(i);
      try {
        PalmRow r;
        const std::string axis = j.at("axis").get<std::string>();
        r.axis = sim::PalmMotion::axisIndex(axis);
        if (r.axis < 0)
          throw std::runtime_error("unknown axis '" + axis + "' (x, y, z, rx, ry, rz)");
        r.sinusoid = j.contains("amplitude");
        r.to_or_amplitude = j.at(r.sinusoid ? "amplitude" : "to").get<double>();
        r.velocity_or_frequency = j.at(r.sinusoid ? "frequency_hz" : "max_velocity").get<double>();
        r.acceleration_or_cycles =
            r.sinusoid ? j.value("cycles", 1.0) : j.at("max_acceleration").get<double>();
        r.start = j.value("start_s", 0.0);
        const std::string problem = palmRowProblem(r);
        if (!problem.empty()) throw std::runtime_error(problem);
        rows.push_back(r);
      } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(where + ": " + e.what());
      } catch (const std::runtime_error& e) {
        throw std::runtime_error(where + ": " + e.what());
      }
    }
    if (palm) *palm = std::move(rows);
  }
  return out;
}

TrajectoryPanel::TrajectoryPanel(SimulationController* controller, QWidget* parent)
    : QWidget(parent), controller_(controller) {
  auto* layout = new QVBoxLayout(this);
  buildSegmentTable(layout);
  buildPalmTable(layout);
  buildTransport(layout);
  connect(controller_, &SimulationController::trajectoriesChanged, this,
          &TrajectoryPanel::fillFromController);
  connect(controller_, &SimulationController::handChanged, this,
          &TrajectoryPanel::fillFromController);
  connect(controller_, &SimulationController::snapshotChanged, this,
          &TrajectoryPanel::updateTransport);
  fillFromController();
}

void TrajectoryPanel::buildSegmentTable(QVBoxLayout* layout) {
  table_ = new QTableWidget(0, kColumns);
  table_->setHorizontalHeaderLabels(
      {tr("Actuator"), tr("To"), tr("Max vel /s"), tr("Max acc /s²"), tr("Start s")});
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  // The actuator column shows its unit ("M3 [counts]") in full; the numbers share the rest.
  table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  table_->setToolTip(
      tr("Trapezoidal segments in the unit the Joints panel shows (counts, degrees for "
         "revolute actuators, mm for slides); each starts where the previous one of its "
         "actuator ended"));
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

  connect(add, &QPushButton::clicked, this, [this] {
    TrajectorySegment s;
    s.actuator = nextActuator();
    const hand::Actuator& a =
        controller_->hand().actuators.at(static_cast<std::size_t>(s.actuator));
    s.to = a.upper;
    s.max_velocity = std::max((a.upper - a.lower) / 2.0, 1e-6);
    s.max_acceleration = 4.0 * s.max_velocity;
    addRow(s);
  });
  connect(remove, &QPushButton::clicked, this, [this] { table_->removeRow(table_->currentRow()); });
  connect(apply_button, &QPushButton::clicked, this, [this] { apply(); });
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
}

void TrajectoryPanel::buildPalmTable(QVBoxLayout* layout) {
  // The palm's prescribed motion, as an arm's flange would carry it: moves and sinusoids per
  // world axis, offsets from the scene's palm pose (scenario files' "palm" block).
  auto* palm_title = new QLabel(tr("Palm motion (world axes, offsets from the palm pose; m, rad)"));
  layout->addWidget(palm_title);
  palm_table_ = new QTableWidget(0, kPalmColumns);
  palm_table_->setObjectName(QStringLiteral("PalmTable"));
  // Two-line headers: the move's meaning above, the sinusoid's below.
  palm_table_->setHorizontalHeaderLabels({tr("Axis"), tr("Kind"), tr("To\nampl."),
                                          tr("Max vel /s\nfreq Hz"), tr("Max acc /s²\ncycles"),
                                          tr("Start s")});
  palm_table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  palm_table_->horizontalHeader()->setSectionResizeMode(kPalmAxis, QHeaderView::ResizeToContents);
  palm_table_->horizontalHeader()->setSectionResizeMode(kPalmKind, QHeaderView::ResizeToContents);
  palm_table_->setToolTip(
      tr("Move: a trapezoidal move to the target offset with the maximum velocity and "
         "acceleration, starting where the previous move of its axis ended. Sine: offset "
         "amplitude sin(2 pi f (t - start)) for whole cycles, zero outside. Rows of one axis "
         "add up."));
  layout->addWidget(palm_table_, 1);
  auto* palm_edit = new QHBoxLayout;
  auto* add_move = new QPushButton(tr("Add move"));
  add_move->setToolTip(tr("A trapezoidal palm move (lift 10 cm along z by default)"));
  auto* add_sine = new QPushButton(tr("Add sine"));
  add_sine->setToolTip(tr("A sinusoidal palm motion (shaking along x by default)"));
  auto* remove_palm = new QPushButton(tr("Remove"));
  for (QPushButton* b : {add_move, add_sine, remove_palm}) palm_edit->addWidget(b);
  palm_edit->addStretch(1);
  layout->addLayout(palm_edit);
  connect(add_move, &QPushButton::clicked, this, [this] { addPalmRow(PalmRow{}); });
  connect(add_sine, &QPushButton::clicked, this, [this] {
    PalmRow r;
    r.axis = sim::PalmMotion::X;
    r.sinusoid = true;
    r.to_or_amplitude = 0.01;
    r.velocity_or_frequency = 2.0;
    r.acceleration_or_cycles = 4.0;
    addPalmRow(r);
  });
  connect(remove_palm, &QPushButton::clicked, this,
          [this] { palm_table_->removeRow(palm_table_->currentRow()); });
}

void TrajectoryPanel::buildTransport(QVBoxLayout* layout) {
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
}

int TrajectoryPanel::nextActuator() const {
  // The first actuator without a row, so that Add, Add, Add gives M1, M2, M3; once every one
  // has a row, the last row's actuator again (its next segment).
  const int count = static_cast<int>(controller_->hand().actuators.size());
  std::vector<bool> has_row(static_cast<std::size_t>(count), false);
  int last = 0;
  for (int r = 0; r < table_->rowCount(); ++r) {
    last = static_cast<QComboBox*>(table_->cellWidget(r, kActuator))->currentIndex();
    if (last >= 0 && last < count) has_row[static_cast<std::size_t>(last)] = true;
  }
  for (int a = 0; a < count; ++a)
    if (!has_row[static_cast<std::size_t>(a)]) return a;
  return std::clamp(last, 0, count - 1);
}

void TrajectoryPanel::addRow(const TrajectorySegment& s) {
  const int row = table_->rowCount();
  table_->insertRow(row);
  const hand::HandModel& hand = controller_->hand();
  auto* box = new QComboBox;
  for (const hand::Actuator& a : hand.actuators)
    box->addItem(
        QStringLiteral("%1 [%2]").arg(QString::fromStdString(a.name), displayUnit(a).name));
  box->setCurrentIndex(s.actuator);
  table_->setCellWidget(row, kActuator, box);
  // In the unit the Joints panel shows (degrees for revolute actuators, mm for slides).
  const double scale = displayUnit(hand.actuators.at(static_cast<std::size_t>(s.actuator))).scale;
  const auto cell = [](double v) { return new QTableWidgetItem(QString::number(v, 'g', 10)); };
  table_->setItem(row, kTo, cell(s.to * scale));
  table_->setItem(row, kVelocity, cell(s.max_velocity * scale));
  table_->setItem(row, kAcceleration, cell(s.max_acceleration * scale));
  table_->setItem(row, kStart, cell(s.start));
}

void TrajectoryPanel::addPalmRow(const PalmRow& r) {
  const int row = palm_table_->rowCount();
  palm_table_->insertRow(row);
  auto* axis = new QComboBox;
  for (int a = 0; a < 6; ++a)
    axis->addItem(QStringLiteral("%1 [%2]").arg(QString::fromLatin1(sim::PalmMotion::axisName(a)),
                                               a < 3 ? QStringLiteral("m") : QStringLiteral("rad")));
  axis->setCurrentIndex(r.axis);
  palm_table_->setCellWidget(row, kPalmAxis, axis);
  auto* kind = new QComboBox;
  kind->addItems({tr("move"), tr("sine")});
  kind->setCurrentIndex(r.sinusoid ? 1 : 0);
  palm_table_->setCellWidget(row, kPalmKind, kind);
  const double values[] = {r.to_or_amplitude, r.velocity_or_frequency, r.acceleration_or_cycles,
                           r.start};
  for (int c = 0; c < 4; ++c)
    palm_table_->setItem(row, kPalmA + c, new QTableWidgetItem(QString::number(values[c], 'g', 10)));
  // Switching the kind gives the row that kind's defaults: a move's numbers mean nothing as a
  // sinusoid's.
  connect(kind, &QComboBox::currentIndexChanged, this, [this, kind](int index) {
    for (int i = 0; i < palm_table_->rowCount(); ++i)
      if (palm_table_->cellWidget(i, kPalmKind) == kind) setPalmRowKind(i, index == 1);
  });
}

void TrajectoryPanel::setPalmRowKind(int row, bool sinusoid) {
  const PalmRow defaults = sinusoid ? PalmRow{0, true, 0.01, 2.0, 4.0, 0.0} : PalmRow{};
  const double values[] = {defaults.to_or_amplitude, defaults.velocity_or_frequency,
                           defaults.acceleration_or_cycles};
  for (int c = 0; c < 3; ++c)
    palm_table_->item(row, kPalmA + c)->setText(QString::number(values[c], 'g', 10));
}

std::vector<PalmRow> TrajectoryPanel::palmRows(QString* error) const {
  std::vector<PalmRow> out;
  for (int r = 0; r < palm_table_->rowCount(); ++r) {
    PalmRow p;
    p.axis = static_cast<QComboBox*>(palm_table_->cellWidget(r, kPalmAxis))->currentIndex();
    p.sinusoid = static_cast<QComboBox*>(palm_table_->cellWidget(r, kPalmKind))->currentIndex() == 1;
    bool ok[4] = {false, false, false, false};
    p.to_or_amplitude = cellValue(palm_table_, r, kPalmA, &ok[0]);
    p.velocity_or_frequency = cellValue(palm_table_, r, kPalmB, &ok[1]);
    p.acceleration_or_cycles = cellValue(palm_table_, r, kPalmC, &ok[2]);
    p.start = cellValue(palm_table_, r, kPalmStart, &ok[3]);
    if (!(ok[0] && ok[1] && ok[2] && ok[3])) {
      *error = tr("palm row %1: needs numbers").arg(r + 1);
      return {};
    }
    out.push_back(p);
  }
  try {
    palmMotionFromRows(out);
  } catch (const std::exception& e) {
    *error = QString::fromUtf8(e.what());
    return {};
  }
  return out;
}

void TrajectoryPanel::fillFromController() {
  table_->setRowCount(0);
  for (const TrajectorySegment& s : controller_->trajectories()) addRow(s);
  palm_table_->setRowCount(0);
  for (const PalmRow& r : palmRowsFromMotion(controller_->palmMotion())) addPalmRow(r);
  message_->clear();
  updateTransport();
}

std::vector<TrajectorySegment> TrajectoryPanel::rows(QString* error) const {
  std::vector<TrajectorySegment> out;
  for (int r = 0; r < table_->rowCount(); ++r) {
    TrajectorySegment s;
    s.actuator = static_cast<QComboBox*>(table_->cellWidget(r, kActuator))->currentIndex();
    const double scale =
        displayUnit(controller_->hand().actuators.at(static_cast<std::size_t>(s.actuator))).scale;
    bool ok[4] = {false, false, false, false};
    s.to = cellValue(table_, r, kTo, &ok[0]) / scale;
    s.max_velocity = cellValue(table_, r, kVelocity, &ok[1]) / scale;
    s.max_acceleration = cellValue(table_, r, kAcceleration, &ok[2]) / scale;
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

bool TrajectoryPanel::hasUnappliedRows() const {
  QString error;
  const std::vector<TrajectorySegment> segments = rows(&error);
  std::vector<PalmRow> palm;
  if (error.isEmpty()) palm = palmRows(&error);
  if (!error.isEmpty()) return true;
  const auto same = [](double a, double b) {
    return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
  };
  const std::vector<TrajectorySegment>& applied = controller_->trajectories();
  if (segments.size() != applied.size()) return true;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const TrajectorySegment &a = segments[i], &b = applied[i];
    if (a.actuator != b.actuator || !same(a.to, b.to) || !same(a.max_velocity, b.max_velocity) ||
        !same(a.max_acceleration, b.max_acceleration) || !same(a.start, b.start))
      return true;
  }
  const std::vector<PalmRow> running = palmRowsFromMotion(controller_->palmMotion());
  if (palm.size() != running.size()) return true;
  for (std::size_t i = 0; i < palm.size(); ++i) {
    const PalmRow &a = palm[i], &b = running[i];
    if (a.axis != b.axis || a.sinusoid != b.sinusoid ||
        !same(a.to_or_amplitude, b.to_or_amplitude) ||
        !same(a.velocity_or_frequency, b.velocity_or_frequency) ||
        !same(a.acceleration_or_cycles, b.acceleration_or_cycles) || !same(a.start, b.start))
      return true;
  }
  return false;
}

bool TrajectoryPanel::apply(QString* error_out) {
  QString error;
  std::vector<TrajectorySegment> segments = rows(&error);
  std::vector<PalmRow> palm;
  if (error.isEmpty()) palm = palmRows(&error);
  if (!error.isEmpty()) {
    message_->setText(
        QStringLiteral("<span style='color:#c33'>%1</span>").arg(error.toHtmlEscaped()));
    if (error_out) *error_out = error;
    return false;
  }
  const int n = static_cast<int>(segments.size() + palm.size());
  // Both tables were read before either call refills them from the controller; one undo step
  // for both, none when nothing changed (Play applies too).
  controller_->setTables(std::move(segments), palmMotionFromRows(palm), hasUnappliedRows());
  message_->setText(
      tr("%n segment(s); run length %1 s", nullptr, n).arg(controller_->duration(), 0, 'f', 2));
  return true;
}

void TrajectoryPanel::loadFile(const QString& path) {
  std::vector<TrajectorySegment> segments;
  std::vector<PalmRow> palm;
  bool has_palm = false;
  try {
    segments = trajectoriesFromJson(controller_->hand(), io::readFile(path.toStdString()), &palm,
                                    &has_palm);
  } catch (const std::exception& e) {
    throw std::runtime_error(path.toStdString() + ": " + e.what());
  }
  // A file without a "palm" array (older files) leaves the palm's motion as it is.
  if (has_palm) controller_->setPalmMotion(palmMotionFromRows(palm));
  controller_->setTrajectories(std::move(segments));
}

void TrajectoryPanel::saveFile(const QString& path) const {
  QString error;
  const std::vector<TrajectorySegment> segments = rows(&error);
  std::vector<PalmRow> palm;
  if (error.isEmpty()) palm = palmRows(&error);
  if (!error.isEmpty()) throw std::runtime_error(error.toStdString());
  io::writeFileAtomically(path.toStdString(),
                          trajectoriesToJson(controller_->hand(), segments, palm));
}

void TrajectoryPanel::updateTransport() {
  const QSignalBlocker block(scrubber_);
  const int n = controller_->historySize();
  scrubber_->setRange(0, std::max(0, n - 1));
  // The scrubber shows the state shown, wherever it was chosen (here or on the plot's marker).
  scrubber_->setValue(controller_->scrubbing() ? controller_->scrubIndex() : std::max(0, n - 1));
  time_->setText(tr("%1 s").arg(controller_->state().time, 0, 'f', 3));
}

}  // namespace handsim::app
