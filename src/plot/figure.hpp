// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a figure of recorder signals shows, decided without Qt: panels (one per unit, or one
// overlaid panel with an axis per unit), the signals scaled to each axis' unit prefix, round
// ticks, axis titles with units, and the run's events. render.hpp draws it.

#include <cstddef>
#include <string>
#include <vector>

#include "events.hpp"
#include "handsim/sim/recorder.hpp"
#include "ticks.hpp"

namespace handsim::plot {

struct FigureOptions {
  std::string title;     ///< drawn above the panels; empty: none (as in a paper)
  bool overlay = false;  ///< all signals on one panel, one y axis per unit (left, right...)
  bool events = true;    ///< mark detectEvents() (and the extra events) as vertical lines
  /// Show exactly [t_min, t_max] [s] (a zoomed view); otherwise the recorded span extended to
  /// round ticks.
  bool zoom = false;
  double t_min = 0.0, t_max = 0.0;
  /// At most this many points per signal (min/max per bucket, so peaks stay); 0: all.
  std::size_t max_points = 0;
};

/// Points per signal in exported figures: the smallest and largest of each of 10000 buckets,
/// more than one per device pixel of a 7 in figure at 1200 dpi, so every peak is drawn while
/// a long run's SVG stays a few megabytes.
constexpr std::size_t kExportPoints = 20000;

/// One y axis: its unit (with the chosen SI prefix), title and ticks in the prefixed unit.
struct Axis {
  UnitScale scale;
  std::string title;  ///< quantity and unit, e.g. "torque [mN m]"
  Ticks ticks;
};

/// One signal as drawn: time [s] and values in its axis' prefixed unit.
struct Trace {
  std::string column;     ///< recorder column
  std::string label;      ///< legend text
  std::size_t axis = 0;   ///< index into Panel::axes
  std::size_t color = 0;  ///< index into the palette
  std::vector<double> t;
  std::vector<double> y;
};

struct Panel {
  std::vector<Axis> axes;  ///< one, or one per unit when overlaid
  std::vector<Trace> traces;
};

struct Figure {
  std::string title;
  Axis time;                  ///< shared by all panels; only the bottom one labels it
  std::vector<Panel> panels;  ///< top to bottom; empty: "no data"
  std::vector<Event> events;  ///< inside the time range
};

/// Throws std::invalid_argument naming every column the recorder lacks and the known ones.
void requireColumns(const sim::Recorder& recorder, const std::vector<std::string>& columns);

/// Builds the figure of recorder `columns` (unknown ones: std::invalid_argument naming them
/// and the known columns). Panels follow the order in which each unit first appears.
Figure buildFigure(const sim::Recorder& recorder, const std::vector<std::string>& columns,
                   const FigureOptions& options, const std::vector<Event>& extra_events = {});

/// Readable name of a column's quantity: its last dotted part, '_' as ' ' ("contact force").
std::string quantityName(const std::string& column);

/// Figure size in inches; height 0: each panel's plot area panelHeight() tall, plus what the
/// legends, event labels and axes need (render.hpp, figureHeight).
struct FigureSize {
  double width_in = 7.0;
  double height_in = 0.0;
};
constexpr double kSingleColumnIn = 3.5;  ///< journal single-column width [in]
constexpr double kDoubleColumnIn = 7.0;  ///< journal double-column width [in]

/// "single" (3.5 in), "double" (7 in) or "WxH" in inches (e.g. "3.5x2.5"; H may be "auto").
/// Throws std::invalid_argument saying what is accepted.
FigureSize parseFigureSize(const std::string& text);
/// Height of one panel's plot area [in] in a figure `width_in` wide whose height is chosen:
/// 0.8 in in a single column, 1 in wider; twice that for an overlaid figure's one panel.
double panelHeight(double width_in, bool overlay);

/// A ready-made figure: columns, size and title.
struct Preset {
  std::string name;
  std::vector<std::string> columns;
  FigureSize size;
};
/// Names presetFor() accepts.
std::vector<std::string> presetNames();
/// "seed000": seed 000's Fig. 7-8 for the finger whose clutch breaks away (else the first
/// finger with a clutch): angle, velocity, acceleration and torque of its inner and outer
/// joints and the inner link's contact force, single column. Throws std::invalid_argument for
/// an unknown name or a recorder without the columns.
Preset presetFor(const std::string& name, const sim::Recorder& recorder);

}  // namespace handsim::plot
