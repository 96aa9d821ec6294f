// SPDX-License-Identifier: GPL-3.0-or-later
#include "plot_dock.hpp"

#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>

#include "signal_plot.hpp"
#include "simulation_controller.hpp"

namespace handsim::app {

// --- FigureView -------------------------------------------------------------------------

FigureView::FigureView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setMinimumHeight(180);
  setAttribute(Qt::WA_OpaquePaintEvent);
}

// On screen a point is 1/72 of a 96 dpi logical inch, whatever the device pixel ratio.
double FigureView::scale() const {
  return 96.0 / 72.0;
}

void FigureView::setFigure(plot::Figure figure) {
  figure_ = std::move(figure);
  update();
}

double FigureView::timeAt(double x_px) const {
  return layout_.timeAt(x_px / scale());
}

double FigureView::xAt(double t) const {
  if (layout_.plots.empty() || !(layout_.t_hi > layout_.t_lo)) return -1.0;
  const QRectF& r = layout_.plots.front();
  return (r.left() + (t - layout_.t_lo) / (layout_.t_hi - layout_.t_lo) * r.width()) * scale();
}

void FigureView::setMarker(std::optional<double> t, bool redraw) {
  if (t == marker_) return;
  marker_ = t;
  if (redraw) update();
}

void FigureView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing);
  painter.scale(scale(), scale());
  plot::PainterCanvas canvas(painter);
  plot::Style style;
  style.font = 9.0;
  style.small = 8.0;
  style.title = 9.0;
  layout_ = plot::drawFigure(figure_, canvas, QSizeF(width(), height()) / scale(), style);
  if (marker_ && !layout_.plots.empty() && *marker_ >= layout_.t_lo && *marker_ <= layout_.t_hi) {
    // The shown state's time across every panel (drawn over the curves, under a zoom drag).
    const double x = xAt(*marker_) / scale();
    painter.setPen(QPen(QColor(213, 94, 0), dragging_marker_ ? 1.6 : 1.0));
    for (const QRectF& r : layout_.plots)
      painter.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()));
    const QRectF& top = layout_.plots.front();
    painter.setBrush(QColor(213, 94, 0));
    const QPointF handle[3] = {
        {x - 4.0, top.top() - 5.0}, {x + 4.0, top.top() - 5.0}, {x, top.top()}};
    painter.drawPolygon(handle, 3);
  }
  if (drag_from_ >= 0 && drag_to_ >= 0) {
    painter.resetTransform();
    const int x0 = std::min(drag_from_, drag_to_), x1 = std::max(drag_from_, drag_to_);
    painter.fillRect(QRect(x0, 0, x1 - x0, height()), QColor(0, 114, 178, 40));
  }
}

void FigureView::mousePressEvent(QMouseEvent* event) {
  // Near the time marker a left drag moves it (and the shown state) instead of zooming.
  constexpr double kGrabPx = 5.0;
  if (event->button() == Qt::LeftButton && marker_ &&
      std::abs(event->position().x() - xAt(*marker_)) <= kGrabPx) {
    dragging_marker_ = true;
    update();
    return;
  }
  if (event->button() == Qt::LeftButton) {
    drag_from_ = drag_to_ = static_cast<int>(event->position().x());
  } else if (event->button() == Qt::RightButton) {
    Q_EMIT zoomOutRequested();
  }
}

void FigureView::mouseMoveEvent(QMouseEvent* event) {
  Q_EMIT hovered(timeAt(event->position().x()));
  if (dragging_marker_) {
    Q_EMIT markerDragged(std::clamp(timeAt(event->position().x()), layout_.t_lo, layout_.t_hi));
    return;
  }
  if (drag_from_ >= 0) {
    drag_to_ = static_cast<int>(event->position().x());
    update();
  }
}

void FigureView::mouseReleaseEvent(QMouseEvent* event) {
  if (dragging_marker_ && event->button() == Qt::LeftButton) {
    dragging_marker_ = false;
    Q_EMIT markerDragged(std::clamp(timeAt(event->position().x()), layout_.t_lo, layout_.t_hi));
    update();
    return;
  }
  if (event->button() != Qt::LeftButton || drag_from_ < 0) return;
  const int from = drag_from_, to = static_cast<int>(event->position().x());
  drag_from_ = drag_to_ = -1;
  update();
  if (std::abs(to - from) >= 6) {
    const double a = timeAt(from), b = timeAt(to);
    Q_EMIT zoomRequested(std::min(a, b), std::max(a, b));
  }
}

// --- PlotDock ---------------------------------------------------------------------------

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
  list_->setToolTip(tr("Tick the recorder signals to plot; signals of one unit share a panel"));
  left_layout->addWidget(filter_);
  left_layout->addWidget(list_);
  auto* options = new QHBoxLayout;
  overlay_ = new QCheckBox(tr("Overlay"));
  overlay_->setToolTip(tr("All signals on one panel, one y axis per unit"));
  events_ = new QCheckBox(tr("Events"));
  events_->setChecked(true);
  events_->setToolTip(
      tr("Contact onsets, clutch break-away and re-engagement, controller phases "
         "and warnings as vertical lines"));
  options->addWidget(overlay_);
  options->addWidget(events_);
  left_layout->addLayout(options);
  auto* buttons = new QHBoxLayout;
  auto* export_button = new QPushButton(tr("Export..."));
  export_button->setToolTip(
      tr("Save the figure as PNG, SVG or PDF at a journal size, or the "
         "plotted series as CSV"));
  auto* reset_zoom = new QPushButton(tr("Reset zoom"));
  buttons->addWidget(export_button);
  buttons->addWidget(reset_zoom);
  left_layout->addLayout(buttons);
  splitter->addWidget(left);

  auto* right = new QWidget;
  auto* right_layout = new QVBoxLayout(right);
  right_layout->setContentsMargins(0, 0, 0, 0);
  view_ = new FigureView;
  view_->installEventFilter(this);
  cursor_ = new QLabel(tr("move the mouse over the plot to read values"));
  cursor_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  right_layout->addWidget(view_, 1);
  right_layout->addWidget(cursor_);
  splitter->addWidget(right);
  splitter->setStretchFactor(1, 4);
  layout->addWidget(splitter);

  connect(filter_, &QLineEdit::textChanged, this, &PlotDock::applyFilter);
  connect(list_, &QListWidget::itemChanged, this, [this] { refresh(); });
  connect(overlay_, &QCheckBox::toggled, this, [this] { refresh(); });
  connect(events_, &QCheckBox::toggled, this, [this] { refresh(); });
  connect(export_button, &QPushButton::clicked, this, &PlotDock::exportDialog);
  connect(reset_zoom, &QPushButton::clicked, this, &PlotDock::resetZoom);
  connect(view_, &FigureView::zoomRequested, this, &PlotDock::zoomTo);
  connect(view_, &FigureView::zoomOutRequested, this, [this] {
    if (!zoomed_) return;
    const double mid = (zoom_min_ + zoom_max_) / 2, half = zoom_max_ - zoom_min_;
    zoomTo(mid - half, mid + half);
  });
  connect(view_, &FigureView::hovered, this, &PlotDock::showCursor);
  // The time marker follows the shown state (the scrubber, a live run) and moves it when
  // dragged: the recorded state nearest that time is shown.
  connect(view_, &FigureView::markerDragged, this,
          [this](double t) { controller_->scrubTo(controller_->historyIndexAt(t)); });
  connect(controller_, &SimulationController::snapshotChanged, this,
          [this] { view_->setMarker(markerTime(), !controller_->running()); });
  view_->setMarker(markerTime());
  connect(controller_, &SimulationController::handChanged, this, &PlotDock::rebuildList);
  // A free object, the ground plane, a scenario or new trajectories bring or drop recorder
  // columns: the list follows at once, not at the next recorded row.
  const auto follow = [this] {
    if (controller_->recorder().columns() != listed_columns_) refresh();
  };
  connect(controller_, &SimulationController::objectsChanged, this, follow);
  connect(controller_, &SimulationController::trajectoriesChanged, this, follow);
  connect(controller_, &SimulationController::runningChanged, this, follow);
  // Live plots redraw twice a second, not per simulation step: under a software rasteriser a
  // redraw of the figure and its share of the window's composition cost tens of milliseconds
  // (bench_viewport's grasp case, docs/performance.md).
  live_timer_.setInterval(500);
  connect(&live_timer_, &QTimer::timeout, this, [this] {
    if (controller_->recorder().rowCount() != drawn_rows_) refresh();
  });
  live_timer_.start();
  rebuildList();
}

std::optional<double> PlotDock::markerTime() const {
  // Before a run has recorded anything (t = 0, one row) there is no time to mark.
  const double t = controller_->state().time;
  if (t > 0.0 || controller_->scrubbing()) return t;
  return std::nullopt;
}

void PlotDock::rebuildList() {
  const QSignalBlocker block(list_);
  list_->clear();
  zoomed_ = false;
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
  applyFilter(filter_->text());  // the words typed stay in force over the new list
  setSignals(initial);
}

void PlotDock::applyFilter(const QString& text) {
  const QStringList words = text.split(' ', Qt::SkipEmptyParts);
  for (int i = 0; i < list_->count(); ++i) {
    QListWidgetItem* item = list_->item(i);
    bool match = true;
    for (const QString& w : words) match = match && item->text().contains(w, Qt::CaseInsensitive);
    item->setHidden(!match);
  }
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

plot::Figure PlotDock::buildFigure(std::size_t max_points,
                                   const std::vector<std::string>& columns) const {
  plot::FigureOptions options;
  options.overlay = overlay_->isChecked();
  options.events = events_->isChecked();
  options.zoom = zoomed_;
  options.t_min = zoom_min_;
  options.t_max = zoom_max_;
  options.max_points = max_points;
  return plot::buildFigure(controller_->recorder(), columns, options,
                           plot::eventsFromWarnings(controller_->liveState().warnings));
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
  // Two points (a bucket's minimum and maximum) per pixel of the plot's width keep live redraws
  // cheap (painting the figure is what a live plot costs, docs/performance.md); exports keep
  // more (kExportPoints).
  const auto points = static_cast<std::size_t>(std::clamp(2 * view_->width(), 400, 4000));
  view_->setFigure(buildFigure(points, selectedSignals()));
}

void PlotDock::zoomTo(double t_min, double t_max) {
  const sim::Recorder& rec = controller_->recorder();
  if (!(t_max > t_min)) return;
  if (rec.rowCount() > 0) {
    const std::vector<double> t = rec.series("time");
    if (t_min <= t.front() && t_max >= t.back()) {
      resetZoom();
      return;
    }
  }
  zoomed_ = true;
  zoom_min_ = t_min;
  zoom_max_ = t_max;
  refresh();
}

void PlotDock::resetZoom() {
  zoomed_ = false;
  refresh();
}

void PlotDock::exportTo(const QString& path, const plot::FigureSize& size, int dpi,
                        const std::vector<std::string>& columns) {
  const std::vector<std::string> shown = columns.empty() ? selectedSignals() : columns;
  if (path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive)) {
    plot::exportSignalsCsv(plot::signalsFromRecorder(controller_->recorder(), shown), path);
  } else {
    plot::exportFigure(buildFigure(plot::kExportPoints, shown), path, size, dpi);
  }
}

plot::FigureSize PlotDock::applyPreset(const std::string& name) {
  const plot::Preset preset = plot::presetFor(name, controller_->recorder());
  zoomed_ = false;
  setSignals(preset.columns);
  return preset.size;
}

void PlotDock::exportDialog() {
  QDialog dialog(this);
  dialog.setWindowTitle(tr("Export plot"));
  auto* form = new QFormLayout(&dialog);
  auto* preset = new QComboBox;
  preset->addItem(tr("Signals as selected"), QString());
  preset->addItem(tr("Seed 000 figure (breakaway: angle, velocity, acceleration, torque, "
                     "contact force)"),
                  QStringLiteral("seed000"));
  auto* width = new QComboBox;
  width->addItem(tr("Single column (3.5 in)"), plot::kSingleColumnIn);
  width->addItem(tr("Double column (7 in)"), plot::kDoubleColumnIn);
  width->addItem(tr("Custom"), 0.0);
  width->setCurrentIndex(export_choice_.width_index);
  auto* custom_width = new QDoubleSpinBox;
  custom_width->setRange(1.0, 20.0);
  custom_width->setSuffix(tr(" in"));
  custom_width->setValue(export_choice_.custom_width_in);
  custom_width->setEnabled(width->currentData().toDouble() == 0.0);
  auto* height = new QDoubleSpinBox;
  height->setRange(0.0, 30.0);
  height->setSingleStep(0.25);
  height->setSuffix(tr(" in"));
  height->setSpecialValueText(tr("by panel count"));
  height->setValue(export_choice_.height_in);
  auto* dpi = new QSpinBox;
  dpi->setRange(50, 2400);
  dpi->setValue(export_choice_.dpi);
  dpi->setToolTip(tr("Resolution of PNG files; SVG and PDF are vector drawings"));
  preset->setCurrentIndex(export_choice_.preset_index);
  form->addRow(tr("Figure:"), preset);
  form->addRow(tr("Width:"), width);
  form->addRow(tr("Custom width:"), custom_width);
  form->addRow(tr("Height:"), height);
  form->addRow(tr("PNG resolution [dpi]:"), dpi);
  auto* box = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel);
  form->addRow(box);
  connect(width, &QComboBox::currentIndexChanged, &dialog, [width, custom_width] {
    custom_width->setEnabled(width->currentData().toDouble() == 0.0);
  });
  connect(preset, &QComboBox::currentIndexChanged, &dialog, [preset, width] {
    if (!preset->currentData().toString().isEmpty()) width->setCurrentIndex(0);  // a column figure
  });
  connect(box, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(box, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  if (dialog.exec() != QDialog::Accepted) return;
  // The next export starts from these choices.
  export_choice_ = {preset->currentIndex(), width->currentIndex(), custom_width->value(),
                    height->value(), dpi->value()};
  try {
    plot::FigureSize size;
    // A preset is exported as its own figure; the dock keeps showing the signals ticked.
    std::vector<std::string> columns;
    if (!preset->currentData().toString().isEmpty())
      columns =
          plot::presetFor(preset->currentData().toString().toStdString(), controller_->recorder())
              .columns;
    size.width_in = width->currentData().toDouble() > 0.0 ? width->currentData().toDouble()
                                                          : custom_width->value();
    size.height_in = height->value();
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export plot"), QStringLiteral("plot.png"),
        tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf);;CSV of the series "
           "(*.csv)"));
    if (path.isEmpty()) return;
    exportTo(path, size, dpi->value(), columns);
  } catch (const std::exception& e) {
    QMessageBox::warning(this, tr("Cannot export"), QString::fromUtf8(e.what()));
  }
}

void PlotDock::showCursor(double t) {
  const sim::Recorder& rec = controller_->recorder();
  QString text = tr("t = %1 s").arg(t, 0, 'f', 4);
  if (rec.rowCount() > 0) {
    const std::vector<double> times = rec.series("time");
    const auto it = std::lower_bound(times.begin(), times.end(), t);
    const std::size_t row =
        it == times.end() ? times.size() - 1 : static_cast<std::size_t>(it - times.begin());
    for (const std::string& c : selectedSignals()) {
      const std::string unit = rec.unit(c);
      text += QStringLiteral("   %1 = %2 %3")
                  .arg(QString::fromStdString(c))
                  .arg(rec.value(row, static_cast<std::size_t>(rec.columnIndex(c))), 0, 'g', 6)
                  .arg(QString::fromStdString(unit));
    }
  }
  cursor_->setText(text.trimmed());
}

bool PlotDock::eventFilter(QObject* watched, QEvent* event) {
  if (watched == view_ && event->type() == QEvent::KeyPress) {
    const auto* ke = static_cast<QKeyEvent*>(event);
    const sim::Recorder& rec = controller_->recorder();
    if (ke->key() == Qt::Key_Home) {
      resetZoom();
      return true;
    }
    if ((ke->key() == Qt::Key_Left || ke->key() == Qt::Key_Right) && rec.rowCount() > 0) {
      const std::vector<double> t = rec.series("time");
      const double lo = zoomed_ ? zoom_min_ : t.front(), hi = zoomed_ ? zoom_max_ : t.back();
      const double step = 0.1 * (hi - lo) * (ke->key() == Qt::Key_Left ? -1.0 : 1.0);
      zoomed_ = true;
      zoom_min_ = lo + step;
      zoom_max_ = hi + step;
      refresh();
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

}  // namespace handsim::app
