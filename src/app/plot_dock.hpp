// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QCheckBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QTimer>
#include <QWidget>
#include <optional>
#include <string>
#include <vector>

#include "figure.hpp"
#include "render.hpp"

namespace handsim::app {

class SimulationController;

/// Paints a plot::Figure with the same drawing code as the exported files; a horizontal drag
/// picks a time range to zoom into.
class FigureView : public QWidget {
  Q_OBJECT
 public:
  explicit FigureView(QWidget* parent = nullptr);
  void setFigure(plot::Figure figure);
  const plot::Figure& figure() const { return figure_; }
  /// Time [s] under a widget x coordinate [px].
  double timeAt(double x_px) const;
  /// Widget x coordinate [px] of time `t` [s] (after the first paint).
  double xAt(double t) const;
  /// The time marker: a vertical line at `t` [s] over every panel (the shown state's time);
  /// dragging it sends markerDragged. Nothing: no marker.
  /// `redraw` false: only remembered, drawn with the next repaint (a live run's plot redraws a
  /// few times a second, not per frame).
  void setMarker(std::optional<double> t, bool redraw = true);
  std::optional<double> marker() const { return marker_; }

 Q_SIGNALS:
  void zoomRequested(double t_min, double t_max);
  void zoomOutRequested();
  void hovered(double t);
  /// The marker was dragged to time `t` [s].
  void markerDragged(double t);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;

 private:
  double scale() const;  ///< pixels per point
  plot::Figure figure_;
  plot::FigureLayout layout_;
  int drag_from_ = -1, drag_to_ = -1;  ///< [px]; -1: no drag
  std::optional<double> marker_;
  bool dragging_marker_ = false;
};

/// A plot of recorder signals (joint angle, velocity, acceleration, torque, motor counts,
/// contact force, clutch state...) that follows a run live: one panel per unit on a shared
/// time axis (or overlaid), the run's events as labelled vertical lines, a cursor read-out,
/// zoom (drag over a time range; right click zooms out, arrow keys pan, Home resets) and
/// export to PNG, SVG, PDF and CSV through the shared plot library (src/plot).
class PlotDock : public QWidget {
  Q_OBJECT
 public:
  explicit PlotDock(SimulationController* controller, QWidget* parent = nullptr);

  /// Plots exactly these recorder columns (unknown names are ignored).
  void setSignals(const std::vector<std::string>& columns);
  std::vector<std::string> selectedSignals() const;
  /// Redraws from the recorder now.
  void refresh();
  /// The figure shown.
  const plot::Figure& figure() const { return view_->figure(); }
  void setOverlay(bool on) { overlay_->setChecked(on); }
  void setEventsShown(bool on) { events_->setChecked(on); }
  /// Shows [t_min, t_max] [s]; resetZoom() the whole run.
  void zoomTo(double t_min, double t_max);
  void resetZoom();
  /// Export by file suffix (.png, .svg, .pdf, .csv) at `size` (inches) and `dpi` (PNG); the
  /// figure shows what the dock shows (or `columns` when given, e.g. a preset's, leaving the
  /// dock's selection as it is), with plot::kExportPoints per signal. Throws
  /// std::runtime_error.
  void exportTo(const QString& path, const plot::FigureSize& size = {}, int dpi = 300,
                const std::vector<std::string>& columns = {});
  /// Selects a preset's signals (plot::presetFor); throws std::invalid_argument.
  plot::FigureSize applyPreset(const std::string& name);
  QString cursorText() const { return cursor_->text(); }
  FigureView* view() const { return view_; }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void rebuildList();
  /// Hides the listed signals that do not contain every word of `text`.
  void applyFilter(const QString& text);
  void exportDialog();
  plot::Figure buildFigure(std::size_t max_points, const std::vector<std::string>& columns) const;
  void showCursor(double t);
  /// Where the time marker stands: the shown state's time (none at t = 0 before a run).
  std::optional<double> markerTime() const;

  SimulationController* controller_;
  QLineEdit* filter_ = nullptr;
  QListWidget* list_ = nullptr;
  QCheckBox* overlay_ = nullptr;
  QCheckBox* events_ = nullptr;
  FigureView* view_ = nullptr;
  QLabel* cursor_ = nullptr;
  QTimer live_timer_;
  std::size_t drawn_rows_ = 0;
  bool zoomed_ = false;
  double zoom_min_ = 0.0, zoom_max_ = 0.0;
  /// The recorder columns the list shows; a run whose plan adds or drops channels (a grasp
  /// controller) changes them, and the list follows.
  std::vector<std::string> listed_columns_;
  /// The export dialog's last choices (combo box indices, inches, dpi), kept for the next one.
  struct ExportChoice {
    int preset_index = 0;
    int width_index = 1;  ///< double column
    double custom_width_in = 5.0;
    double height_in = 0.0;  ///< by panel count
    int dpi = 300;
  } export_choice_;
};

}  // namespace handsim::app
