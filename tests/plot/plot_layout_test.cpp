// SPDX-License-Identifier: GPL-3.0-or-later
// The figure layout without Qt: round ticks (checked on their printed labels), SI prefixes,
// panels per unit, figure sizes, presets, and events found again from the recorded columns.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <stdexcept>

#include "events.hpp"
#include "figure.hpp"
#include "handsim/formats/scenario.hpp"
#include "ticks.hpp"

using namespace handsim;

namespace {

// The step of a tick list must be m * 10^n with m in {1, 2, 2.5, 5}; checked on the decimal
// labels, read back as numbers.
void expectRound(const plot::Ticks& t, double min, double max, bool extend) {
  SCOPED_TRACE("range [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  const std::vector<std::string> labels = t.labels();
  ASSERT_GE(labels.size(), extend ? 4u : 2u);
  ASSERT_LE(labels.size(), 8u);
  std::vector<double> v;
  for (const std::string& l : labels) {
    char* end = nullptr;
    v.push_back(std::strtod(l.c_str(), &end));
    ASSERT_EQ(*end, '\0') << l;
    // Every label has the same number of decimals.
    const auto dot = l.find('.');
    const auto dot0 = labels.front().find('.');
    EXPECT_EQ(dot == std::string::npos ? 0 : l.size() - dot - 1,
              dot0 == std::string::npos ? 0 : labels.front().size() - dot0 - 1)
        << l << " vs " << labels.front();
  }
  const double step = v[1] - v[0];
  ASSERT_GT(step, 0.0);
  const double decade = std::pow(10.0, std::floor(std::log10(step) + 1e-9));
  const double m = step / decade;
  EXPECT_TRUE(std::fabs(m - 1) < 1e-9 || std::fabs(m - 2) < 1e-9 || std::fabs(m - 2.5) < 1e-9 ||
              std::fabs(m - 5) < 1e-9)
      << "step " << step;
  for (std::size_t i = 0; i < v.size(); ++i) {
    EXPECT_NEAR(v[i] - v[0], static_cast<double>(i) * step, 1e-9 * step * 8) << labels[i];
    const double k = v[i] / step;
    EXPECT_NEAR(k, std::round(k), 1e-6) << labels[i] << " is not a multiple of " << step;
    // The value the layout uses is the double the label reads as.
    EXPECT_EQ(t.value(i), v[i]) << labels[i];
  }
  if (extend) {
    EXPECT_EQ(t.lo, v.front());
    EXPECT_EQ(t.hi, v.back());
    EXPECT_LE(t.lo, min + 1e-12 * std::fabs(min));
    EXPECT_GE(t.hi, max - 1e-12 * std::fabs(max));
    // Extended by less than a step on each side.
    EXPECT_GT(t.lo, min - step);
    EXPECT_LT(t.hi, max + step);
  } else {
    EXPECT_GE(v.front(), min - 1e-9 * step);
    EXPECT_LE(v.back(), max + 1e-9 * step);
  }
}

std::vector<double> risingFromZero(const std::vector<double>& time, const std::vector<double>& f) {
  std::vector<double> out;
  for (std::size_t r = 1; r < f.size(); ++r)
    if (f[r - 1] == 0.0 && f[r] > 0.0) out.push_back(time[r]);
  return out;
}

}  // namespace

TEST(PlotTicks, WorkedExamples) {
  // The torque and force axis: -1.6 .. 12.2 N m in steps of 2.5, 0 .. 25 N in 5.
  plot::Ticks t = plot::niceTicks(-1.6, 12.2);
  EXPECT_EQ(t.labels(),
            (std::vector<std::string>{"-2.5", "0.0", "2.5", "5.0", "7.5", "10.0", "12.5"}));
  t = plot::niceTicks(0.0, 24.69);
  EXPECT_EQ(t.labels(), (std::vector<std::string>{"0", "5", "10", "15", "20", "25"}));
  t = plot::niceTicks(0.0, 3.0);
  EXPECT_EQ(t.labels(),
            (std::vector<std::string>{"0.0", "0.5", "1.0", "1.5", "2.0", "2.5", "3.0"}));
  t = plot::niceTicks(-3140.0, 320.0);
  EXPECT_EQ(t.labels(),
            (std::vector<std::string>{"-4000", "-3000", "-2000", "-1000", "0", "1000"}));
  t = plot::niceTicks(0.1, 0.3);
  EXPECT_EQ(t.labels(), (std::vector<std::string>{"0.10", "0.15", "0.20", "0.25", "0.30"}));
  // A constant signal still gets an axis around it.
  t = plot::niceTicks(0.0, 0.0);
  EXPECT_EQ(t.labels(), (std::vector<std::string>{"-1.0", "-0.5", "0.0", "0.5", "1.0"}));
}

TEST(PlotTicks, RandomRangesAreRoundAndCoverTheData) {
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> mag(-7.0, 7.0), u(-1.0, 1.0);
  for (int i = 0; i < 3000; ++i) {
    const double scale = std::pow(10.0, mag(rng));
    double a = u(rng) * scale, b = u(rng) * scale;
    if (i % 5 == 0) a = 0.0;  // data starting at zero, as most runs do
    if (a > b) std::swap(a, b);
    expectRound(plot::niceTicks(a, b, true), a, b, true);
    if (b - a > 1e-9 * scale) expectRound(plot::niceTicks(a, b, false), a, b, false);
  }
}

TEST(PlotTicks, ExtendedRangeIsTheTightestRoundOne) {
  // Brute force over every step m * 10^n: none with 4 to 8 ticks covers [a, b] more tightly.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-50.0, 50.0);
  for (int i = 0; i < 500; ++i) {
    double a = u(rng), b = u(rng);
    if (a > b) std::swap(a, b);
    if (b - a < 1e-3) continue;
    const plot::Ticks t = plot::niceTicks(a, b);
    for (int n = -4; n <= 3; ++n)
      for (double m : {1.0, 2.0, 2.5, 5.0}) {
        const double step = m * std::pow(10.0, n);
        const double lo = std::floor(a / step + 1e-9) * step,
                     hi = std::ceil(b / step - 1e-9) * step;
        const double count = std::round((hi - lo) / step) + 1;
        if (count < 4 || count > 8) continue;
        EXPECT_GE(hi - lo, t.hi - t.lo - 1e-9) << a << " " << b << " step " << step;
      }
  }
}

TEST(PlotUnits, PrefixesWhereTheyHelp) {
  plot::UnitScale s = plot::chooseUnitScale("N m", 0.012);
  EXPECT_EQ(s.display, "mN m");
  EXPECT_DOUBLE_EQ(s.factor, 1e-3);
  EXPECT_EQ(plot::chooseUnitScale("N", 25.0).display, "N");
  EXPECT_EQ(plot::chooseUnitScale("N m", 1.26).display, "N m");
  EXPECT_EQ(plot::chooseUnitScale("N m", 0.35).display, "N m");
  EXPECT_EQ(plot::chooseUnitScale("N", 2.0e4).display, "kN");
  EXPECT_EQ(plot::chooseUnitScale("m", 5e-6).display, "\u00b5m");
  EXPECT_EQ(plot::chooseUnitScale("m", 5e-7).display, "nm");  // 500 nm
  EXPECT_EQ(plot::chooseUnitScale("s", 0.05).display, "ms");
  // No prefix for angles, counts, pure numbers.
  EXPECT_EQ(plot::chooseUnitScale("rad", 0.012).display, "rad");
  EXPECT_EQ(plot::chooseUnitScale("rad/s^2", 3000.0).display, "rad/s\u00b2");
  EXPECT_EQ(plot::chooseUnitScale("counts", 17500.0).display, "counts");
  EXPECT_EQ(plot::chooseUnitScale("", 1e-5).display, "");
  EXPECT_EQ(plot::chooseUnitScale("N", 0.0).display, "N");
}

TEST(PlotFigure, SizesAndTheirErrors) {
  EXPECT_DOUBLE_EQ(plot::parseFigureSize("single").width_in, 3.5);
  EXPECT_DOUBLE_EQ(plot::parseFigureSize("double").width_in, 7.0);
  const plot::FigureSize s = plot::parseFigureSize("3.5x2.25");
  EXPECT_DOUBLE_EQ(s.width_in, 3.5);
  EXPECT_DOUBLE_EQ(s.height_in, 2.25);
  EXPECT_DOUBLE_EQ(plot::parseFigureSize("7xauto").height_in, 0.0);
  for (const char* bad :
       {"", "x", "3.5", "0x2", "abcx2", "3.5x2.5x1", "nanx2", "3.5x0.1", "25x3", "Single"}) {
    try {
      plot::parseFigureSize(bad);
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("single (3.5 in wide), double (7 in) or WxH"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_DOUBLE_EQ(plot::panelHeight(3.5, false), 0.8);
  EXPECT_DOUBLE_EQ(plot::panelHeight(7.0, true), 2.0);
}

TEST(PlotFigure, OnePanelPerUnitAndOverlay) {
  const sim::Scenario sc =
      sim::loadScenario(HANDSIM_SOURCE_DIR "/assets/scenarios/barrett_breakaway_cube.json");
  const auto run = sim::runScenario(sc);
  const sim::Recorder& rec = run->recorder();
  const std::vector<std::string> cols{"F3.J2.torque", "F3.J2.contact_force", "F3.J3.torque"};
  plot::Figure fig = plot::buildFigure(rec, cols, {});
  ASSERT_EQ(fig.panels.size(), 2u);
  EXPECT_EQ(fig.panels[0].axes.front().title, "torque [N m]");
  EXPECT_EQ(fig.panels[0].traces.size(), 2u);
  EXPECT_EQ(fig.panels[0].traces[1].label, "F3.J3");
  EXPECT_EQ(fig.panels[1].axes.front().title, "contact force [N]");
  EXPECT_EQ(fig.time.title, "time [s]");
  // The shared time axis covers the run with round ticks.
  EXPECT_LE(fig.time.ticks.lo, rec.value(0, 0));
  EXPECT_GE(fig.time.ticks.hi, rec.value(rec.rowCount() - 1, 0));

  plot::FigureOptions overlay;
  overlay.overlay = true;
  fig = plot::buildFigure(rec, cols, overlay);
  ASSERT_EQ(fig.panels.size(), 1u);
  ASSERT_EQ(fig.panels[0].axes.size(), 2u);
  // Grouped by unit: the torques on the first (left) axis, the force on the second (right).
  ASSERT_EQ(fig.panels[0].traces.size(), 3u);
  for (const plot::Trace& t : fig.panels[0].traces)
    EXPECT_EQ(t.axis, t.column == "F3.J2.contact_force" ? 1u : 0u) << t.column;
  EXPECT_EQ(fig.panels[0].traces[2].label, "F3.J2.contact_force [N]");

  // Before contact the torques are a few mN m: drawn in mN m, values scaled.
  plot::FigureOptions early;
  early.zoom = true;
  early.t_min = 0.2;
  early.t_max = 1.0;
  fig = plot::buildFigure(rec, {"F3.J2.torque"}, early);
  ASSERT_EQ(fig.panels.size(), 1u);
  const plot::Trace& tr = fig.panels[0].traces[0];
  EXPECT_EQ(fig.panels[0].axes[0].scale.display, "mN m");
  const std::vector<double> raw = rec.series("F3.J2.torque");
  const std::vector<double> time = rec.series("time");
  for (std::size_t i = 0; i < tr.t.size(); i += 50) {
    const auto row = static_cast<std::size_t>(std::lower_bound(time.begin(), time.end(), tr.t[i]) -
                                              time.begin());
    EXPECT_NEAR(tr.y[i], raw[row] * 1000.0, 1e-9);
  }
  EXPECT_EQ(fig.time.ticks.lo, 0.2);  // a zoom shows exactly its range
  EXPECT_EQ(fig.time.ticks.hi, 1.0);

  EXPECT_TRUE(plot::buildFigure(rec, {}, {}).panels.empty());
  EXPECT_THROW(plot::buildFigure(rec, {"F9.J9.angle"}, {}), std::invalid_argument);
}

TEST(PlotEvents, BreakawayContactsAndClutchFromTheColumns) {
  const sim::Scenario sc =
      sim::loadScenario(HANDSIM_SOURCE_DIR "/assets/scenarios/barrett_breakaway_cube.json");
  const auto run = sim::runScenario(sc);
  const sim::Recorder& rec = run->recorder();
  const std::vector<plot::Event> events = plot::detectEvents(rec);
  const std::vector<double> time = rec.series("time");
  // Contact onsets: every link whose force rises from zero (these contacts do not chatter).
  std::size_t expected = 0;
  for (const std::string& c : rec.columns()) {
    if (c.find(".contact_force") == std::string::npos) continue;
    const std::string link = c.substr(0, c.size() - 14);
    for (double t : risingFromZero(time, rec.series(c))) {
      ++expected;
      bool found = false;
      for (const plot::Event& e : events)
        found = found || (e.kind == plot::EventKind::ContactOnset && e.time == t &&
                          e.label == link + " contact");
      EXPECT_TRUE(found) << link << " at " << t;
    }
  }
  // The clutch breaks once, within a step of the time the run's warning gives.
  const std::vector<double> clutch = rec.series("F3.clutch");
  double break_time = -1;
  for (std::size_t r = 1; r < clutch.size(); ++r)
    if (clutch[r - 1] == 0.0 && clutch[r] == 1.0) break_time = time[r];
  ASSERT_GT(break_time, 0.0);
  std::size_t breaks = 0;
  for (const plot::Event& e : events)
    if (e.kind == plot::EventKind::ClutchBreak) {
      ++breaks;
      EXPECT_EQ(e.time, break_time);
      EXPECT_EQ(e.label, "F3 break-away");
    }
  EXPECT_EQ(breaks, 1u);
  double warned = -1;
  for (const std::string& w : run->state().warnings)
    if (w.find("broke away") != std::string::npos) warned = std::strtod(w.c_str() + 4, nullptr);
  EXPECT_NEAR(break_time, warned, sc.options.dt * 1.01);
  EXPECT_GE(expected, 2u);  // F3.J2 touches the cube, F3.J3 after the break-away
  EXPECT_EQ(events.size(), expected + breaks);
  for (std::size_t i = 1; i < events.size(); ++i) EXPECT_LE(events[i - 1].time, events[i].time);
}

TEST(PlotEvents, ControllerPhasesAndWarnings) {
  const sim::Scenario sc =
      sim::loadScenario(HANDSIM_SOURCE_DIR "/assets/scenarios/kthand_bottle_grasp.json");
  const auto run = sim::runScenario(sc);
  const sim::Recorder& rec = run->recorder();
  const std::vector<double> phase = rec.series("controller.phase");
  const std::vector<double> time = rec.series("time");
  std::vector<double> changes;
  for (std::size_t r = 1; r < phase.size(); ++r)
    if (phase[r] != phase[r - 1]) changes.push_back(time[r]);
  ASSERT_FALSE(changes.empty());  // closing -> hybrid at least
  std::vector<double> found;
  for (const plot::Event& e : plot::detectEvents(rec))
    if (e.kind == plot::EventKind::PhaseChange) found.push_back(e.time);
  EXPECT_EQ(found, changes);

  const std::vector<plot::Event> w = plot::eventsFromWarnings(
      {"t = 0.250000 s: joint F1.J2 faster than 100 rad/s",
       "t = 1.816000 s: clutch of M3 broke away", "no time here", "t = abc s: bad"});
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].time, 0.25);
  EXPECT_EQ(w[0].label, "warning");
  // Extra events are merged in time order.
  const auto merged = plot::detectEvents(rec, {{-1.0, plot::EventKind::Warning, "warning", ""}});
  EXPECT_EQ(merged.front().time, -1.0);
}

TEST(PlotPreset, Seed000FigureOfTheBreakawayFinger) {
  const sim::Scenario sc =
      sim::loadScenario(HANDSIM_SOURCE_DIR "/assets/scenarios/barrett_breakaway_cube.json");
  const auto run = sim::runScenario(sc);
  const plot::Preset p = plot::presetFor("seed000", run->recorder());
  EXPECT_EQ(p.columns,
            (std::vector<std::string>{"F3.J2.angle", "F3.J3.angle", "F3.J2.velocity",
                                      "F3.J3.velocity", "F3.J2.acceleration", "F3.J3.acceleration",
                                      "F3.J2.torque", "F3.J3.torque", "F3.J2.contact_force"}));
  EXPECT_DOUBLE_EQ(p.size.width_in, 3.5);
  const plot::Figure fig = plot::buildFigure(run->recorder(), p.columns, {});
  ASSERT_EQ(fig.panels.size(), 5u);  // rad, rad/s, rad/s^2, N m, N
  EXPECT_THROW(plot::presetFor("seed999", run->recorder()), std::invalid_argument);
  const sim::Scenario kt =
      sim::loadScenario(HANDSIM_SOURCE_DIR "/assets/scenarios/kthand_close.json");
  const sim::Recorder no_clutch(*kt.hand);
  EXPECT_THROW(plot::presetFor("seed000", no_clutch), std::invalid_argument);
}

TEST(PlotFigure, ThinnedSignalsKeepTheirPeaks) {
  const sim::Scenario sc =
      sim::loadScenario(HANDSIM_SOURCE_DIR "/assets/scenarios/barrett_breakaway_cube.json");
  const auto run = sim::runScenario(sc);
  const sim::Recorder& rec = run->recorder();
  plot::FigureOptions opt;
  opt.max_points = 100;
  for (const char* c : {"F3.J2.contact_force", "F3.J3.acceleration", "F3.J2.angle"}) {
    const plot::Figure fig = plot::buildFigure(rec, {c}, opt);
    const plot::Trace& tr = fig.panels.at(0).traces.at(0);
    const double f = fig.panels[0].axes[0].scale.factor;
    EXPECT_LE(tr.t.size(), 100u) << c;
    const std::vector<double> raw = rec.series(c);
    EXPECT_DOUBLE_EQ(*std::max_element(tr.y.begin(), tr.y.end()) * f,
                     *std::max_element(raw.begin(), raw.end()))
        << c;
    EXPECT_DOUBLE_EQ(*std::min_element(tr.y.begin(), tr.y.end()) * f,
                     *std::min_element(raw.begin(), raw.end()))
        << c;
    for (std::size_t i = 1; i < tr.t.size(); ++i) EXPECT_LT(tr.t[i - 1], tr.t[i]) << c;
  }
}

// --- heat maps (heatmap.hpp) ------------------------------------------------------------------

#include "heatmap.hpp"

TEST(HeatMapLayout, LogTicksAreDecadesAndTheirMultiplesWithExactLabels) {
  // 7.4e3 .. 7.4e5: two decades, so 1, 2 and 5 times each power of ten inside.
  const auto t = plot::heatTicks(7.4e3, 7.4e5, true);
  std::vector<double> v;
  for (const auto& k : t) v.push_back(k.value);
  EXPECT_EQ(v, (std::vector<double>{1e4, 2e4, 5e4, 1e5, 2e5, 5e5}));
  EXPECT_EQ(t[0].label, "10\u2074");
  EXPECT_EQ(t[1].label, "2\u00d710\u2074");
  // Five decades: powers of ten only.
  EXPECT_EQ(plot::heatTicks(2e-5, 2e-1, true).size(), 4u);
  EXPECT_EQ(plot::heatTicks(2e-5, 2e-1, true)[0].label, "10\u207b\u2074");
  // Within a factor 1.5: no power or multiple inside twice, so round linear ticks.
  const auto narrow = plot::heatTicks(1.04, 1.06, true);
  ASSERT_GE(narrow.size(), 2u);
  for (const auto& k : narrow) {
    EXPECT_GE(k.value, 1.04 - 1e-12);
    EXPECT_LE(k.value, 1.06 + 1e-12);
  }
  EXPECT_EQ(plot::heatLabel(250.0), "250");
  EXPECT_EQ(plot::heatLabel(0.002), "0.002");
}

TEST(HeatMapLayout, CellEdgesAreGeometricMeansOnALogAxisAndTheColourRangeIsTheData) {
  plot::HeatAxis x, y;
  x.log = true;
  x.values = {1000.0, 10.0, 100.0};  // given unsorted
  y.values = {0.0, 2.0};
  std::vector<plot::HeatCell> cells;
  // x index 0 is 1000 as given; after sorting it is column 2.
  cells.push_back({0, 0, 4.0, false});
  cells.push_back({1, 1, 0.5, false});
  cells.push_back({2, 0, std::nan(""), true});
  const plot::HeatMap m = plot::buildHeatMap(x, y, cells, "ratio", true);
  ASSERT_EQ(m.x.edges.size(), 4u);
  // log10 edges: 0.5, 1.5, 2.5, 3.5 (half-way in log10 = geometric means).
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(m.x.edges[i], 0.5 + static_cast<double>(i), 1e-12);
  EXPECT_NEAR(m.x.fraction(100.0), 0.5, 1e-12);
  EXPECT_EQ(m.cells[0].ix, 2u);
  EXPECT_EQ(m.cells[1].ix, 0u);
  // Linear axis: edges -1, 1, 3.
  EXPECT_NEAR(m.y.edges.front(), -1.0, 1e-12);
  EXPECT_NEAR(m.y.edges.back(), 3.0, 1e-12);
  // Colour range from the finite values, logarithmic: 0.5 at 0, 4 at 1, 1 a third of the way.
  EXPECT_EQ(m.colour_lo, 0.5);
  EXPECT_EQ(m.colour_hi, 4.0);
  EXPECT_NEAR(m.colourFraction(1.0), 1.0 / 3.0, 1e-12);
  EXPECT_TRUE(std::isnan(m.colourFraction(std::nan(""))));
  // The colour map gets lighter (sum of channels) from 0 to 1.
  int previous = -1;
  for (double f = 0.0; f <= 1.0; f += 0.125) {
    const auto c = plot::heatColour(f);
    EXPECT_GT(c[0] + c[1] + c[2], previous);
    previous = c[0] + c[1] + c[2];
  }
  // Bad grids.
  plot::HeatAxis bad = x;
  bad.values = {10.0, -1.0};
  EXPECT_THROW(plot::buildHeatMap(bad, y, {}, "r", true), std::invalid_argument);
  bad.values = {10.0, 10.0};
  EXPECT_THROW(plot::buildHeatMap(bad, y, {}, "r", true), std::invalid_argument);
  EXPECT_THROW(plot::buildHeatMap(x, y, {{5, 0, 1.0, false}}, "r", true), std::invalid_argument);
}
