// SPDX-License-Identifier: GPL-3.0-or-later
#include "plot_dock.hpp"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>

#include "signal_plot.hpp"
#include "simulation_controller.hpp"

namespace handsim::app {

PlotDock::PlotDock(SimulationController* controller, QWidget* parent)
    : QWidget(parent), controller_(controller) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  auto* splitter = new QSplitter(Qt::Horizontal);
  auto* left = new QWidget;
  auto* left_layout = new QVBoxLayout(left);
  left_layout->setContentsMargins(0, 0, 0, 0);
  filter_ = new QLineEdit;
  filter_->setPlaceholderText(tr("filter, e.g. F3 torque"));
  filter_->setClearButtonEnabled(true);
  list_ = new QListWidget;
  list_->setToolTip(tr("Tick the recorder signals to plot"));
  left_layout->addWidget(filter_);
  left_layout->addWidget(list_);
  auto* buttons = new QHBoxLayout;
  auto* export_button = new QPushButton(tr("Export..."));
  export_button->setToolTip(tr("Save the plot as PNG, SVG or PDF, or the plotted series as CSV"));
  auto* reset_zoom = new QPushButton(tr("Reset zoom"));
  buttons->addWidget(export_button);
  buttons->addWidget(reset_zoom);
  left_layout->addLayout(buttons);
  splitter->addWidget(left);

  auto* right = new QWidget;
  auto* right_layout = new QVBoxLayout(right);
  right_layout->setContentsMargins(0, 0, 0, 0);
  auto* chart = new QChart;
  chart->setAnimationOptions(QChart::NoAnimation);
  view_ = new QChartView(chart);
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setRubberBand(QChartView::RectangleRubberBand);
  view_->setMouseTracking(true);
  view_->viewport()->setMouseTracking(true);
  view_->installEventFilter(this);
  view_->viewport()->installEventFilter(this);
  view_->setMinimumHeight(180);
  cursor_ = new QLabel(tr("move the mouse over the plot to read values"));
  cursor_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  right_layout->addWidget(view_, 1);
  right_layout->addWidget(cursor_);
  splitter->addWidget(right);
  splitter->setStretchFactor(1, 4);
  layout->addWidget(splitter);

  connect(filter_, &QLineEdit::textChanged, this, [this](const QString& text) {
    const QStringList words = text.split(' ', Qt::SkipEmptyParts);
    for (int i = 0; i < list_->count(); ++i) {
      QListWidgetItem* item = list_->item(i);
      bool match = true;
      for (const QString& w : words) match = match && item->text().contains(w, Qt::CaseInsensitive);
      item->setHidden(!match);
    }
  });
  connect(list_, &QListWidget::itemChanged, this, [this] { refresh(); });
  connect(export_button, &QPushButton::clicked, this, &PlotDock::exportDialog);
  connect(reset_zoom, &QPushButton::clicked, this, [this] { refresh(); });
  connect(controller_, &SimulationController::handChanged, this, &PlotDock::rebuildList);
  // Live plots redraw a few times a second, not per simulation step.
  live_timer_.setInterval(250);
  connect(&live_timer_, &QTimer::timeout, this, [this] {
    if (controller_->recorder().rowCount() != drawn_rows_) refresh();
  });
  live_timer_.start();
  rebuildList();
}

void PlotDock::rebuildList() {
  const QSignalBlocker block(list_);
  list_->clear();
  const sim::Recorder& rec = controller_->recorder();
  listed_columns_ = rec.columns();
  for (std::size_t i = 0; i < rec.columns().size(); ++i) {
    const std::string& c = rec.columns()[i];
    if (c == "time") continue;
    auto* item = new QListWidgetItem(QString::fromStdString(c), list_);
    const QString unit = QString::fromStdString(rec.units()[i]);
    item->setToolTip(unit.isEmpty() ? tr("no unit") : tr("unit: %1").arg(unit));
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Unchecked);
  }
  // A useful first view: the first clutch finger's (or first finger's) inner joint.
  const hand::HandModel& hand = controller_->hand();
  std::vector<std::string> initial;
  if (!hand.clutches.empty()) {
    // The clutch whose motor has a trajectory is the experiment's subject (e.g. finger 3).
    const auto& trajectories = controller_->simulatorTrajectories();
    const hand::ClutchModel* chosen = &hand.clutches.front();
    for (const hand::ClutchModel& c : hand.clutches)
      if (c.actuator >= 0 && static_cast<std::size_t>(c.actuator) < trajectories.size() &&
          !trajectories[static_cast<std::size_t>(c.actuator)].empty()) {
        chosen = &c;
        break;
      }
    const std::string inner = hand.jointName(chosen->inner);
    const std::string outer = hand.jointName(chosen->outer);
    initial = {inner + ".angle", outer + ".angle"};
  } else if (!hand.fingers.empty() && hand.fingers.front().dof() > 0) {
    initial = {hand.jointName({0, 0}) + ".angle"};
  }
  setSignals(initial);
}

void PlotDock::setSignals(const std::vector<std::string>& columns) {
  {
    const QSignalBlocker block(list_);
    for (int i = 0; i < list_->count(); ++i) {
      QListWidgetItem* item = list_->item(i);
      const bool on =
          std::find(columns.begin(), columns.end(), item->text().toStdString()) != columns.end();
      item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
    }
  }
  refresh();
}

std::vector<std::string> PlotDock::selectedSignals() const {
  std::vector<std::string> out;
  for (int i = 0; i < list_->count(); ++i)
    if (list_->item(i)->checkState() == Qt::Checked)
      out.push_back(list_->item(i)->text().toStdString());
  return out;
}

void PlotDock::refresh() {
  const sim::Recorder& rec = controller_->recorder();
  if (rec.columns() != listed_columns_) {
    // New channels (or fewer): list them, keeping the selection that still exists.
    const std::vector<std::string> selected = selectedSignals();
    rebuildList();
    std::vector<std::string> kept;
    for (const std::string& c : selected)
      if (rec.columnIndex(c) >= 0) kept.push_back(c);
    setSignals(kept);
    return;
  }
  drawn_rows_ = rec.rowCount();
  plot::fillChart(*view_->chart(), plot::signalsFromRecorder(rec, selectedSignals()),
                  QString::fromStdString(controller_->hand().name));
}

void PlotDock::exportTo(const QString& path) {
  if (path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive)) {
    plot::exportSignalsCsv(plot::signalsFromRecorder(controller_->recorder(), selectedSignals()),
                           path);
  } else {
    plot::exportChart(*view_->chart(), path);
  }
}

void PlotDock::exportDialog() {
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Export plot"), QStringLiteral("plot.png"),
                                   tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document "
                                      "(*.pdf);;CSV of the series (*.csv)"));
  if (path.isEmpty()) return;
  try {
    exportTo(path);
  } catch (const std::exception& e) {
    QMessageBox::warning(this, tr("Cannot export"), QString::fromUtf8(e.what()));
  }
}

bool PlotDock::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::MouseMove) {
    const auto* me = static_cast<QMouseEvent*>(event);
    QChart* chart = view_->chart();
    const QPointF scene = view_->mapToScene(me->position().toPoint());
    const QPointF value = chart->mapToValue(chart->mapFromScene(scene));
    const sim::Recorder& rec = controller_->recorder();
    QString text = tr("t = %1 s").arg(value.x(), 0, 'f', 4);
    if (rec.rowCount() > 0) {
      const std::vector<double> t = rec.series("time");
      const auto it = std::lower_bound(t.begin(), t.end(), value.x());
      const std::size_t row =
          it == t.end() ? t.size() - 1 : static_cast<std::size_t>(it - t.begin());
      for (const std::string& c : selectedSignals())
        text += QStringLiteral("   %1 = %2")
                    .arg(QString::fromStdString(c))
                    .arg(rec.value(row, static_cast<std::size_t>(rec.columnIndex(c))), 0, 'g', 6);
    }
    cursor_->setText(text);
  } else if (event->type() == QEvent::KeyPress) {
    const auto* ke = static_cast<QKeyEvent*>(event);
    QChart* chart = view_->chart();
    const qreal step = 40.0;
    switch (ke->key()) {
      case Qt::Key_Left:
        chart->scroll(-step, 0);
        return true;
      case Qt::Key_Right:
        chart->scroll(step, 0);
        return true;
      case Qt::Key_Up:
        chart->scroll(0, step);
        return true;
      case Qt::Key_Down:
        chart->scroll(0, -step);
        return true;
      case Qt::Key_Home:
        refresh();
        return true;
      default:
        break;
    }
  }
  return QWidget::eventFilter(watched, event);
}

}  // namespace handsim::app
