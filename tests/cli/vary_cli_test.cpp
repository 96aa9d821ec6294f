// SPDX-License-Identifier: GPL-3.0-or-later
// handsim-cli vary: the per-cell metric against the energies of a `simulate` run of the same
// cell, integrated here; refused cells; grid and key errors naming the flag; the heat map's
// colour bar and log-axis ticks read back from the SVG.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "../support/cli_run.hpp"

using nlohmann::json;
using handsim::test::runCli;

#ifdef HANDSIM_CLI_HAS_PLOT
constexpr bool kCliHasPlot = true;
#else
constexpr bool kCliHasPlot = false;
#endif

namespace {

namespace fs = std::filesystem;

// A short shake: the shipped gripper3r_shake scenario cut to 1.2 s, one 1 Hz period of shaking
// from 0.2 s (the sphere sits on the ground while the fingers close: any motion will do here).
struct Workdir {
  fs::path dir;
  Workdir() {
    dir = fs::temp_directory_path() /
          ("handsim_vary_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
    std::ifstream in(std::string(HANDSIM_SOURCE_DIR) + "/assets/scenarios/gripper3r_shake.json");
    std::stringstream ss;
    ss << in.rdbuf();
    json doc = json::parse(ss.str(), nullptr, true, true);
    doc["duration_s"] = 1.2;
    doc["palm"]["motion"].erase("z");
    for (const char* a : {"x", "rz"}) {
      doc["palm"]["motion"][a]["sinusoids"][0]["start_s"] = 0.2;
      doc["palm"]["motion"][a]["sinusoids"][0]["cycles"] = 1;
    }
    doc["objects"][0]["mesh"] = std::string(HANDSIM_SOURCE_DIR) + "/assets/objects/sphere50.wrl";
    write("shake.json", doc.dump(2));
  }
  ~Workdir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string path(const std::string& name) const { return (dir / name).string(); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name)) << text;
  }
  std::string read(const std::string& name) const {
    std::ifstream in(path(name));
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
};

// CSV text -> header and rows of fields (no quoted commas in what is read here).
std::vector<std::vector<std::string>> csvRows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) {
    std::vector<std::string> f;
    std::stringstream ls(line);
    std::string item;
    while (std::getline(ls, item, ',')) f.push_back(item);
    if (!line.empty() && line.back() == ',') f.push_back("");
    rows.push_back(f);
  }
  return rows;
}

std::size_t column(const std::vector<std::string>& header, const std::string& name) {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  ADD_FAILURE() << "no column " << name;
  return 0;
}

// `vary SCENARIO PARAMS --csv cells.csv --quiet` in w, with `--plot map.svg` where the CLI has
// the plot library: the printed summary and the CSV's rows (empty when the command failed).
struct VaryResult {
  json summary;
  std::vector<std::vector<std::string>> cells;
};
VaryResult runVary(const Workdir& w, const std::string& scenario, const std::string& params) {
  const std::string plot = kCliHasPlot ? " --plot " + w.path("map.svg") : std::string();
  const auto r = runCli("vary " + w.path(scenario) + " " + params + " --csv " +
                        w.path("cells.csv") + plot + " --quiet");
  EXPECT_EQ(r.code, 0) << r.err;
  if (r.code != 0) return {};
  return {json::parse(r.out), csvRows(w.read("cells.csv"))};
}

}  // namespace

TEST(VaryCli, CellMetricEqualsTheIntegralsOfASimulateRun) {
  Workdir w;
  const auto r = runCli("vary " + w.path("shake.json") +
                        " --param contact.gi=25,250 --param contact.g1_n_per_m=74000 --csv " +
                        w.path("cells.csv") + " --quiet --threads 2");
  ASSERT_EQ(r.code, 0) << r.err;
  const json summary = json::parse(r.out);
  EXPECT_EQ(summary["cells"], 2);
  EXPECT_EQ(summary["ok"], 2);
  EXPECT_DOUBLE_EQ(summary["window_s"][0].get<double>(), 0.2);
  EXPECT_DOUBLE_EQ(summary["window_s"][1].get<double>(), 1.2);
  const auto cells = csvRows(w.read("cells.csv"));
  ASSERT_EQ(cells.size(), 3u);
  const auto& h = cells[0];
  EXPECT_EQ(h[0], "contact.gi");
  EXPECT_EQ(h[1], "contact.g1_n_per_m");
  // The cell gi = 25 on its own, through `simulate`, its energies integrated here.
  std::ifstream in(w.path("shake.json"));
  std::stringstream ss;
  ss << in.rdbuf();
  json doc = json::parse(ss.str());
  doc["contact"]["gi"] = 25;
  w.write("cell.json", doc.dump(2));
  const auto s = runCli("simulate " + w.path("cell.json") + " --quiet --csv " + w.path("run.csv"));
  ASSERT_EQ(s.code, 0) << s.err;
  const auto rows = csvRows(w.read("run.csv"));
  const std::size_t ct = column(rows[0], "time"), ce = column(rows[0], "sphere.kinetic_energy"),
                    cc = column(rows[0], "sphere.carried_kinetic_energy");
  double e = 0.0, c = 0.0, t_prev = 0.0, e_prev = 0.0, c_prev = 0.0;
  bool inside = false;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const double t = std::stod(rows[i][ct]), ei = std::stod(rows[i][ce]),
                 ci = std::stod(rows[i][cc]);
    if (t >= 0.2 - 1e-9 && t <= 1.2 + 1e-9) {
      if (inside) {
        e += 0.5 * (t - t_prev) * (ei + e_prev);
        c += 0.5 * (t - t_prev) * (ci + c_prev);
      }
      inside = true;
    }
    t_prev = t;
    e_prev = ei;
    c_prev = ci;
  }
  ASSERT_GT(c, 1e-5);  // the palm moved
  const auto& cell = cells[1];
  EXPECT_EQ(std::stod(cell[0]), 25.0);
  EXPECT_EQ(cell[column(h, "status")], "ok");
  EXPECT_NEAR(std::stod(cell[column(h, "energy_integral_js")]), e, 1e-12 + 1e-9 * e);
  EXPECT_NEAR(std::stod(cell[column(h, "carried_energy_integral_js")]), c, 1e-9 * c);
  EXPECT_NEAR(std::stod(cell[column(h, "ratio")]), e / c, 1e-9 * e / c);
}

TEST(VaryCli, ValuesTheLoaderRefusesTogetherAreRefusedCellsNotFailures) {
  Workdir w;
  // eq. 8's slope at zero slip bounds the step (docs/free-objects.md): 1e5 s/m needs a step far
  // below 1 ms, so the loader refuses that cell's dt_s; each value alone is in range.
  // The heat map needs the plot library (built with the GUI); the CSV does not.
  const VaryResult v = runVary(
      w, "shake.json", "--param contact.tanh_slope_s_per_m=100,100000 --param contact.gi=250");
  ASSERT_EQ(v.cells.size(), 3u);
  const json& summary = v.summary;
  EXPECT_EQ(summary["ok"], 1);
  EXPECT_EQ(summary["refused"], 1);
  const auto& cells = v.cells;
  const auto& h = cells[0];
  EXPECT_EQ(cells[2][column(h, "status")], "refused");
  EXPECT_EQ(cells[2][column(h, "ratio")], "");
  EXPECT_NE(w.read("cells.csv").find("stable limit"), std::string::npos);
  if (!kCliHasPlot) return;
  const std::string svg = w.read("map.svg");
  EXPECT_NE(svg.find("data-refused=\"1\""), std::string::npos);
  EXPECT_NE(svg.find("data-refused=\"0\""), std::string::npos);
}

// A cell whose object the guards stop (here put 0.1 m inside the world box's wall, |x| <= 100 m
// of sim/rigid_body.hpp, moving out at 1 m/s) lost the object: status "lost" with the guard's
// warning, no colour of the scale (a crossed red cell), and the colour range is the other
// cells'.
TEST(VaryCli, ACellThatLosesTheObjectIsLostNotCalm) {
  Workdir w;
  std::ifstream in(w.path("shake.json"));
  std::stringstream ss;
  ss << in.rdbuf();
  json doc = json::parse(ss.str());
  doc["objects"][0]["linear_velocity_mps"] = json::array({1.0, 0.0, 0.0});
  w.write("moving.json", doc.dump(2));
  const VaryResult v = runVary(
      w, "moving.json", "--param objects.0.pose.translation_m.0=0,99.9 --param contact.gi=25,250");
  ASSERT_EQ(v.cells.size(), 5u);
  const json& summary = v.summary;
  EXPECT_EQ(summary["ok"], 2);
  EXPECT_EQ(summary["lost"], 2);
  const auto& cells = v.cells;
  const auto& h = cells[0];
  double lo = INFINITY, hi = -INFINITY;
  for (std::size_t i = 1; i < cells.size(); ++i) {
    const bool out = std::stod(cells[i][0]) > 1.0;
    EXPECT_EQ(cells[i][column(h, "status")], out ? "lost" : "ok") << i;
    if (out) {
      EXPECT_NE(cells[i][column(h, "note")].find("left the world box"), std::string::npos)
          << cells[i][column(h, "note")];
    } else {
      lo = std::min(lo, std::stod(cells[i][column(h, "ratio")]));
      hi = std::max(hi, std::stod(cells[i][column(h, "ratio")]));
    }
  }
  EXPECT_EQ(summary["range"][0].get<double>(), lo);
  EXPECT_EQ(summary["range"][1].get<double>(), hi);
  if (!kCliHasPlot) return;
  const std::string svg = w.read("map.svg");
  std::size_t lost_cells = 0;
  for (std::size_t at = svg.find("data-lost=\"1\""); at != std::string::npos;
       at = svg.find("data-lost=\"1\"", at + 1))
    ++lost_cells;
  EXPECT_EQ(lost_cells, 2u);
}

TEST(VaryCli, BadGridsAndKeysNameTheFlag) {
  Workdir w;
  const std::string base = "vary " + w.path("shake.json") + " --csv " + w.path("x.csv") + " ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--param contact.gi", "KEY=VALUES"},
      {"--param contact.gi=1:2", "LO:HI:N"},
      {"--param contact.gi=0:10:3log", "above 0"},
      {"--param contact.gi=1:10:2.5", "whole number"},
      {"--param contact.gi=1,x", "--param contact.gi=1,x"},
      {"--param contact.gi=1,1", "twice"},
      {"--param contact.g3=1,2", "unknown field 'g3'"},
      {"--param contact.gi=-1,2", "--param contact.gi=-1,2: contact.gi = -1"},
      {"--param objects.5.mass_kg=1", "not an index"},
      {"--param contact..gi=1", "empty part"},
      {"--param contact.gi=1 --param contact.gi=2", "given twice"},
      {"--param contact.gi=1 --plot " + w.path("m.svg"),
       kCliHasPlot ? "two parameters" : "built without the plot library"},
      {"--param contact.gi=1 --threads 0", "--threads"},
      {"--param contact.gi=1 --from 2 --to 1", "--to"},
      {"--param contact.gi=1 --metric peak", "--metric needs --plot"},
  };
  for (const auto& [args, expect] : cases) {
    const auto r = runCli(base + args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find(expect), std::string::npos) << args << ": " << r.err;
  }
  EXPECT_FALSE(fs::exists(w.path("x.csv")));
}

namespace {

// data- attributes of every <g class="CLS"> group in an SVG.
std::vector<std::map<std::string, std::string>> groups(const std::string& svg,
                                                        const std::string& cls) {
  std::vector<std::map<std::string, std::string>> out;
  const std::regex g("<g class=\"" + cls + "\"([^>]*)>");
  const std::regex attr("data-([a-z-]+)=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), g); it != std::sregex_iterator();
       ++it) {
    std::map<std::string, std::string> m;
    const std::string attrs = (*it)[1];
    for (auto a = std::sregex_iterator(attrs.begin(), attrs.end(), attr);
         a != std::sregex_iterator(); ++a)
      m[(*a)[1]] = (*a)[2];
    out.push_back(m);
  }
  return out;
}

}  // namespace

TEST(VaryCli, HeatMapColourBarSpansTheCellsAndLogTicksSitAtTheirDecades) {
  if (!kCliHasPlot) GTEST_SKIP() << "handsim-cli built without the plot library (no GUI)";
  Workdir w;
  const auto r = runCli("vary " + w.path("shake.json") +
                        " --param contact.g1_n_per_m=7.4e3:7.4e5:3log --param contact.gi=25,2500"
                        " --csv " + w.path("cells.csv") + " --plot " + w.path("map.svg") +
                        " --to 0.7 --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string svg = w.read("map.svg");
  // Six cells; the colour bar runs from the smallest to the largest ratio of the CSV.
  const auto cells = groups(svg, "cell");
  ASSERT_EQ(cells.size(), 6u);
  const auto rows = csvRows(w.read("cells.csv"));
  double lo = INFINITY, hi = -INFINITY;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const double v = std::stod(rows[i][column(rows[0], "ratio")]);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  auto bar = groups(svg, "colourbar");
  ASSERT_EQ(bar.size(), 1u);
  EXPECT_NEAR(std::stod(bar[0]["lo"]), lo, 1e-12 * lo);
  EXPECT_NEAR(std::stod(bar[0]["hi"]), hi, 1e-12 * hi);
  // The bar's rectangle, and its ticks inside it, higher values higher up (smaller y).
  std::stringstream rect(bar[0]["rect"]);
  double bx, by, bw, bh;
  rect >> bx >> by >> bw >> bh;
  std::vector<std::pair<double, double>> colour_ticks;  // value, y
  std::vector<std::pair<double, double>> x_ticks;       // value, x
  for (auto& t : groups(svg, "tick")) {
    if (t["axis"] == "colour") colour_ticks.push_back({std::stod(t["value"]), std::stod(t["pos"])});
    if (t["axis"] == "x") x_ticks.push_back({std::stod(t["value"]), std::stod(t["pos"])});
  }
  ASSERT_GE(colour_ticks.size(), 2u);
  for (std::size_t i = 0; i < colour_ticks.size(); ++i) {
    EXPECT_GE(colour_ticks[i].first, lo - 1e-12);
    EXPECT_LE(colour_ticks[i].first, hi + 1e-12);
    EXPECT_GE(colour_ticks[i].second, by - 1e-9);
    EXPECT_LE(colour_ticks[i].second, by + bh + 1e-9);
    // Log colour scale: y linear in log10(value) from the bar's bottom (lo) to its top (hi).
    const double f = std::log10(colour_ticks[i].first / lo) / std::log10(hi / lo);
    EXPECT_NEAR(colour_ticks[i].second, by + bh - f * bh, 1e-6);
  }
  // x ticks: the decades 1e4 and 1e5 inside the cells' span (7.4e3/10^0.5 .. 7.4e5*10^0.5)
  // with their 2 and 5 multiples, placed linearly in log10.
  std::vector<double> xv;
  for (const auto& [v, x] : x_ticks) xv.push_back(v);
  for (double d : {1e4, 1e5, 1e6}) EXPECT_NE(std::find(xv.begin(), xv.end(), d), xv.end()) << d;
  ASSERT_GE(x_ticks.size(), 3u);
  const double slope = (x_ticks.back().second - x_ticks.front().second) /
                       std::log10(x_ticks.back().first / x_ticks.front().first);
  EXPECT_GT(slope, 0.0);
  for (const auto& [v, x] : x_ticks)
    EXPECT_NEAR(x, x_ticks.front().second + slope * std::log10(v / x_ticks.front().first), 1e-6);
  // The green dot at the file's own values: g1 = 74000 (the middle column's centre) and
  // gi = 250, half-way in log10 between the two rows 25 and 2500.
  auto marker = groups(svg, "marker");
  ASSERT_EQ(marker.size(), 1u);
  EXPECT_EQ(std::stod(marker[0]["x"]), 74000.0);
  EXPECT_EQ(std::stod(marker[0]["y"]), 250.0);
  std::stringstream mp(marker[0]["pos"]);
  double mx, my;
  mp >> mx >> my;
  EXPECT_NEAR(mx, x_ticks.front().second + slope * std::log10(74000.0 / x_ticks.front().first),
              1e-6);
}

namespace {

// The rows of a vary CSV without the wall-time column run_s (the one field that differs
// between two runs of the same cell).
std::vector<std::vector<std::string>> withoutRunTime(std::vector<std::vector<std::string>> rows) {
  if (rows.empty()) return rows;
  const std::size_t t = column(rows[0], "run_s");
  for (auto& r : rows)
    if (t < r.size()) r.erase(r.begin() + static_cast<long>(t));
  return rows;
}

}  // namespace

// --shard and --resume (as `sweep`'s): two shards resumed into one file give the rows of one
// whole run, in cell order; resuming a complete file runs nothing and leaves it byte for byte;
// resuming a file with a row missing runs that cell alone and adds no duplicate; a file of
// another grid is refused with its line.
TEST(VaryCli, ShardsResumedIntoOneFileEqualOneRunAndResumingAddsNoDuplicate) {
  Workdir w;
  const std::string grid = "vary " + w.path("shake.json") + " --param contact.gi=25,250,2500 ";
  auto vary = [&](const std::string& csv, const std::string& flags) {
    const auto r = runCli(grid + "--csv " + w.path(csv) + " --quiet --threads 2 " + flags);
    EXPECT_EQ(r.code, 0) << flags << ": " << r.err;
    return r.code == 0 ? json::parse(r.out) : json();
  };
  vary("whole.csv", "");
  const auto whole = csvRows(w.read("whole.csv"));
  ASSERT_EQ(whole.size(), 4u);

  // A shard alone: its cells only (0 and 2 of 0, 1, 2).
  json s = vary("one.csv", "--shard 0/2");
  EXPECT_EQ(s["shard"], "0/2");
  EXPECT_EQ(s["ran"], 2);
  EXPECT_EQ(s["missing"], 1);
  const auto one = withoutRunTime(csvRows(w.read("one.csv")));
  ASSERT_EQ(one.size(), 3u);
  EXPECT_EQ(one[1], withoutRunTime(whole)[1]);
  EXPECT_EQ(one[2], withoutRunTime(whole)[3]);

  // Both shards into one file, the second after the first: one run's rows.
  s = vary("shared.csv", "--shard 1/2 --resume");
  EXPECT_EQ(s["ran"], 1);
  s = vary("shared.csv", "--shard 0/2 --resume");
  EXPECT_EQ(s["ran"], 2);
  EXPECT_EQ(s["kept"], 1);
  EXPECT_EQ(s["missing"], 0);
  EXPECT_EQ(s["cells"], 3);
  EXPECT_EQ(s["ok"], 3);
  EXPECT_EQ(withoutRunTime(csvRows(w.read("shared.csv"))), withoutRunTime(whole));

  // Resuming a complete file: nothing runs, the file is unchanged.
  const std::string complete = w.read("shared.csv");
  s = vary("shared.csv", "--resume");
  EXPECT_EQ(s["ran"], 0);
  EXPECT_EQ(s["kept"], 3);
  EXPECT_EQ(w.read("shared.csv"), complete);

  // A row lost: only that cell runs; the kept rows stay as they were, no row twice.
  std::string text = w.read("whole.csv");
  const auto second = text.find('\n', text.find('\n') + 1);  // end of the first row
  const auto third = text.find('\n', second + 1);
  w.write("gap.csv", text.substr(0, second + 1) + text.substr(third + 1));
  s = vary("gap.csv", "--resume");
  EXPECT_EQ(s["ran"], 1);
  EXPECT_EQ(s["kept"], 2);
  const auto gap = csvRows(w.read("gap.csv"));
  ASSERT_EQ(gap.size(), 4u);
  EXPECT_EQ(gap[1], whole[1]);  // kept verbatim, run time included
  EXPECT_EQ(gap[3], whole[3]);
  EXPECT_EQ(withoutRunTime(gap), withoutRunTime(whole));

  // Another grid's file.
  const auto r = runCli("vary " + w.path("shake.json") + " --param contact.gi=25,250 --csv " +
                        w.path("whole.csv") + " --quiet --resume");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("whole.csv:4: contact.gi = '2500' is not a value"), std::string::npos)
      << r.err;
  const auto bad = runCli(grid + "--csv " + w.path("x.csv") + " --shard 2/2");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--shard 2/2"), std::string::npos) << bad.err;
}
