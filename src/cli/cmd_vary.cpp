// SPDX-License-Identifier: GPL-3.0-or-later
// handsim-cli vary: runs one scenario over a grid of values of its own keys (dotted paths into
// the scenario file) and measures seed 004's shaking metric in every cell: the kinetic-energy
// ratio of a free object against the same object carried rigidly by the palm
// (sim/carried_energy.hpp; docs/free-objects.md, "Shaking a grasp"). Output: one CSV row per
// cell and, with two parameters, a heat map like seed 004's Fig. 5-6.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <thread>

#include "cli_util.hpp"
#include "command.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/io/atomic_file.hpp"
#include "handsim/io/input_error.hpp"
#include "handsim/io/input_file.hpp"
#include "handsim/sim/carried_energy.hpp"
#include "handsim/tools/run_grid.hpp"
#include "outputs.hpp"
#ifdef HANDSIM_HAVE_PLOT
#include "signal_plot.hpp"
#endif

namespace handsim::cli {
namespace {

using json = nlohmann::json;

// One --param: a dotted scenario key and its values.
struct Param {
  std::string flag_text;  // "--param contact.gi=..." for messages
  std::string key;        // "contact.gi"
  std::vector<std::string> path;  // {"contact", "gi"}
  std::vector<double> values;
  bool log = false;  // the values were given as a log-spaced range
};

std::string shortNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

// "V1,V2,...", "LO:HI:N" (N evenly spaced values, ends included) or "LO:HI:Nlog" (N values
// evenly spaced in log10).
Param parseParam(const std::string& text) {
  Param p;
  p.flag_text = "--param " + text;
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UsageError(p.flag_text + ": expected KEY=VALUES (e.g. contact.gi=25,250,2500 or "
                                   "contact.g1_n_per_m=7.4e3:7.4e5:5log)");
  p.key = text.substr(0, eq);
  const std::string spec = text.substr(eq + 1);
  std::string::size_type begin = 0;
  while (true) {
    const auto dot = p.key.find('.', begin);
    const std::string part = p.key.substr(begin, dot == std::string::npos ? dot : dot - begin);
    if (part.empty()) throw UsageError(p.flag_text + ": empty part in the key '" + p.key + "'");
    p.path.push_back(part);
    if (dot == std::string::npos) break;
    begin = dot + 1;
  }
  if (spec.find(':') != std::string::npos) {
    std::vector<std::string> parts;
    std::string::size_type b = 0;
    while (true) {
      const auto c = spec.find(':', b);
      parts.push_back(spec.substr(b, c == std::string::npos ? c : c - b));
      if (c == std::string::npos) break;
      b = c + 1;
    }
    if (parts.size() != 3)
      throw UsageError(p.flag_text + ": a range is LO:HI:N or LO:HI:Nlog");
    const double lo = parseNumber(parts[0], p.flag_text + " (LO)");
    const double hi = parseNumber(parts[1], p.flag_text + " (HI)");
    std::string count = parts[2];
    if (count.size() > 3 && count.compare(count.size() - 3, 3, "log") == 0) {
      p.log = true;
      count.resize(count.size() - 3);
    }
    const double n = parseNumber(count, p.flag_text + " (N)");
    if (n != std::floor(n) || n < 1 || n > 1000)
      throw UsageError(p.flag_text + ": the count N must be a whole number from 1 to 1000");
    if (p.log && !(lo > 0.0 && hi > 0.0))
      throw UsageError(p.flag_text + ": a log range needs LO and HI above 0");
    if (n == 1 && lo != hi) throw UsageError(p.flag_text + ": one value needs LO equal to HI");
    const int k = static_cast<int>(n);
    for (int i = 0; i < k; ++i) {
      const double f = k == 1 ? 0.0 : static_cast<double>(i) / (k - 1);
      p.values.push_back(i == k - 1 ? hi
                         : p.log    ? lo * std::pow(hi / lo, f)
                                    : lo + f * (hi - lo));
    }
  } else {
    p.values = parseNumbers(spec, p.flag_text);
  }
  auto sorted = p.values;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw UsageError(p.flag_text + ": a value appears twice");
  return p;
}

// The JSON pointer of a key path ("/contact/gi").
std::string pointerOf(const std::vector<std::string>& path) {
  std::string out;
  for (const auto& part : path) out += "/" + part;
  return out;
}

// Sets doc[path] = value, creating objects on the way; numeric parts index arrays.
void setKey(json& doc, const Param& p, double value) {
  json* node = &doc;
  for (std::size_t i = 0; i < p.path.size(); ++i) {
    const std::string& part = p.path[i];
    const bool last = i + 1 == p.path.size();
    if (node->is_array()) {
      const bool digits =
          !part.empty() && std::all_of(part.begin(), part.end(), [](char c) {
            return c >= '0' && c <= '9';
          });
      if (!digits || part.size() > 6 || std::stoul(part) >= node->size())
        throw UsageError(p.flag_text + ": '" + part + "' in " + p.key + " is not an index of " +
                         pointerOf({p.path.begin(), p.path.begin() + static_cast<long>(i)}) +
                         " (" + std::to_string(node->size()) + " entries)");
      node = &(*node)[std::stoul(part)];
    } else if (node->is_object() || node->is_null()) {
      node = &(*node)[part];
    } else {
      throw UsageError(p.flag_text + ": " +
                       pointerOf({p.path.begin(), p.path.begin() + static_cast<long>(i)}) +
                       " is a value, not an object");
    }
    if (last) *node = value;
  }
}

// The value at a key path in the file, if it is a number there.
[[maybe_unused]] std::optional<double> numberAt(const json& doc, const Param& p) {
  const json* node = &doc;
  for (const auto& part : p.path) {
    if (node->is_object() && node->contains(part)) {
      node = &(*node)[part];
    } else if (node->is_array() && !part.empty() &&
               std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
               part.size() <= 6 && std::stoul(part) < node->size()) {
      node = &(*node)[std::stoul(part)];
    } else {
      return std::nullopt;
    }
  }
  if (!node->is_number()) return std::nullopt;
  return node->get<double>();
}

struct Cell {
  std::vector<double> values;  // one per parameter
  sim::CellOutcome status = sim::CellOutcome::Ok;
  std::string note;
  sim::EnergyRatio ratio;
  double max_shift = std::nan("");  // [m] largest displacement in the palm frame in the window
  double end_shift = std::nan("");  // [m] at the window's end
  double seconds = 0.0;             // wall time of the run
  int warnings = 0;
  bool done = false;  // has a row: run now, or read from the file being resumed
  std::string kept;   // the row as the resumed file has it ("" for a cell run now)
};

// The object's COM in the palm frame at recorded row r.
Eigen::Vector3d inPalm(const std::vector<std::vector<double>>& c, std::size_t r) {
  const Eigen::Quaterniond q(c[3][r], c[4][r], c[5][r], c[6][r]);
  const Eigen::Vector3d p(c[0][r], c[1][r], c[2][r]), o(c[7][r], c[8][r], c[9][r]);
  return q.normalized().conjugate() * (o - p);
}

void runCell(const json& base, const std::string& file, const std::vector<Param>& params,
             const std::string& object, double from, double to, double window, Cell& cell) {
  const auto start = std::chrono::steady_clock::now();
  json doc = base;
  for (std::size_t i = 0; i < params.size(); ++i) setKey(doc, params[i], cell.values[i]);
  sim::Scenario sc;
  try {
    sc = sim::parseScenario(doc.dump(), file);
  } catch (const io::InputError& e) {
    // Values each valid on their own (checked before any run) that the loader refuses
    // together, e.g. a step above seed004's stable limit.
    cell.status = sim::CellOutcome::Refused;
    cell.note = e.problem();
    return;
  }
  try {
    auto run = sim::runScenario(sc);
    const sim::Recorder& rec = run->recorder();
    const auto t = rec.series("time");
    const auto e = rec.series(object + ".kinetic_energy");
    const auto ec = rec.series(object + ".carried_kinetic_energy");
    cell.warnings = run->state().warning_count;
    bool finite = true;
    for (std::size_t i = 0; i < e.size(); ++i)
      finite = finite && std::isfinite(e[i]) && std::isfinite(ec[i]);
    if (!finite) {
      cell.status = sim::CellOutcome::NonFinite;
      cell.note = "the object's energy became non-finite";
    } else {
      cell.ratio = sim::kineticEnergyRatio(t, e, ec, from, to, window);
      std::vector<std::vector<double>> c;
      for (const char* n : {"palm.x", "palm.y", "palm.z", "palm.qw", "palm.qx", "palm.qy",
                            "palm.qz"})
        c.push_back(rec.series(n));
      for (const char* a : {".x", ".y", ".z"}) c.push_back(rec.series(object + a));
      const double eps = 1e-9 * (to - from);
      const auto first = static_cast<std::size_t>(
          std::lower_bound(t.begin(), t.end(), from - eps) - t.begin());
      const auto last = static_cast<std::size_t>(
          std::upper_bound(t.begin(), t.end(), to + eps) - t.begin());
      if (first < last) {
        const Eigen::Vector3d ref = inPalm(c, first);
        cell.max_shift = 0.0;
        for (std::size_t r = first; r < last; ++r)
          cell.max_shift = std::max(cell.max_shift, (inPalm(c, r) - ref).norm());
        cell.end_shift = (inPalm(c, last - 1) - ref).norm();
      }
      if (!run->state().warnings.empty()) cell.note = run->state().warnings.front();
      // Stopped by the numerical guards (a runaway, a non-finite state, out of the world box):
      // the grasp lost the object, and its "ratio" (of a resting object) means nothing.
      const auto& objects = run->model().objects;
      for (std::size_t o = 0; o < objects.size(); ++o)
        if (objects[o].name == object && o < run->state().object_stopped.size() &&
            run->state().object_stopped[o]) {
          cell.status = sim::CellOutcome::Lost;
          for (const std::string& w : run->state().warnings)
            if (w.find("'" + object + "'") != std::string::npos) {
              cell.note = w;
              break;
            }
        }
    }
  } catch (const std::exception& e) {
    cell.status = sim::CellOutcome::Failed;
    cell.note = e.what();
  }
  cell.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c == '\n' ? ' ' : c;
  }
  return out + "\"";
}

std::string csvNumber(double v) {
  if (std::isnan(v)) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// The CSV's header: the keys, then the measured columns.
std::string csvHeader(const std::vector<Param>& params) {
  std::string h;
  for (const Param& p : params) h += csvField(p.key) + ",";
  return h +
         "status,ratio,peak_ratio,energy_integral_js,carried_energy_integral_js,max_shift_m,"
         "end_shift_m,warnings,run_s,note\n";
}

// One cell's row (a resumed file's row as it was).
std::string csvRow(const Cell& c) {
  if (!c.kept.empty()) return c.kept + "\n";
  std::string row;
  for (double v : c.values) row += csvNumber(v) + ",";
  return row + std::string(sim::cellOutcomeName(c.status)) + "," +
         csvNumber(c.ratio.integral_ratio) + "," + csvNumber(c.ratio.peak_window_ratio) + "," +
         csvNumber(c.ratio.energy_integral) + "," + csvNumber(c.ratio.carried_energy_integral) +
         "," + csvNumber(c.max_shift) + "," + csvNumber(c.end_shift) + "," +
         std::to_string(c.warnings) + "," + csvNumber(c.seconds) + "," + csvField(c.note) + "\n";
}

// The header and the rows of the cells done, in cell order.
std::string csvText(const std::vector<Param>& params, const std::vector<Cell>& cells) {
  std::string csv = csvHeader(params);
  for (const Cell& c : cells)
    if (c.done) csv += csvRow(c);
  return csv;
}

// The cell number of a row's values (first parameter slowest); throws UsageError naming the
// file and line when a value is not one of its parameter's.
std::size_t cellOfRow(const std::vector<Param>& params, const std::vector<std::string>& fields,
                      const std::string& where) {
  std::size_t cell = 0;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::string& text = fields[i];
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    const auto it = std::find(params[i].values.begin(), params[i].values.end(), v);
    if (text.empty() || end != text.c_str() + text.size() || it == params[i].values.end())
      throw UsageError(where + ": " + params[i].key + " = '" + text +
                       "' is not a value of its --param (another grid's file?)");
    cell = cell * params[i].values.size() + static_cast<std::size_t>(it - params[i].values.begin());
  }
  return cell;
}

// Reads the rows of a CSV this grid wrote before (--resume) into `cells`: each row's cell is
// done, its text kept as it was, its status and ratios read for the summary and the map.
// Another header, a value off the grid, an unknown status or a cell given twice is an error
// naming the file and line. Returns the number of rows read.
std::size_t readResumeCsv(const std::string& path, const std::vector<Param>& params,
                          std::vector<Cell>& cells) {
  constexpr std::size_t kMaxBytes = std::size_t{1} << 30;
  const std::string text = io::readInputFile(path, kMaxBytes);
  const std::string header = csvHeader(params);
  if (text.compare(0, header.size(), header) != 0)
    throw UsageError(path + ":1: the header is not this grid's (expected " +
                     header.substr(0, header.size() - 1) + "); --resume continues a file " +
                     "written by the same --param list");
  std::size_t rows = 0, line_no = 1;
  std::string::size_type begin = header.size();
  while (begin < text.size()) {
    auto end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::string where = path + ":" + std::to_string(line_no);
    // The values, the status and the two ratios never hold a comma or a quote.
    std::vector<std::string> fields;
    std::string::size_type b = 0;
    while (fields.size() < params.size() + 3) {
      const auto c = line.find(',', b);
      if (c == std::string::npos)
        throw UsageError(where + ": a row needs the values, status, ratio and peak_ratio");
      fields.push_back(line.substr(b, c - b));
      b = c + 1;
    }
    Cell& cell = cells[cellOfRow(params, fields, where)];
    if (cell.done) throw UsageError(where + ": a second row of the same cell");
    bool known = false;
    for (std::size_t o = 0; o < sim::kCellOutcomes && !known; ++o)
      if (fields[params.size()] == sim::cellOutcomeName(static_cast<sim::CellOutcome>(o))) {
        cell.status = static_cast<sim::CellOutcome>(o);
        known = true;
      }
    if (!known) throw UsageError(where + ": unknown status '" + fields[params.size()] + "'");
    auto number = [&](const std::string& f) {
      if (f.empty()) return std::nan("");
      char* e = nullptr;
      const double v = std::strtod(f.c_str(), &e);
      if (e != f.c_str() + f.size()) throw UsageError(where + ": '" + f + "' is not a number");
      return v;
    };
    cell.ratio.integral_ratio = number(fields[params.size() + 1]);
    cell.ratio.peak_window_ratio = number(fields[params.size() + 2]);
    cell.kept = std::move(line);
    cell.done = true;
    ++rows;
  }
  return rows;
}

const char* kHelp =
    "usage: handsim-cli vary SCENARIO.json --param KEY=VALUES [--param KEY=VALUES ...]\n"
    "                        --csv OUT.csv [--plot OUT.(png|svg|pdf)] [--object NAME]\n"
    "                        [--from S] [--to S] [--window S] [--threads N] [--metric M]\n"
    "                        [--mark X,Y] [--plot-size WxH] [--dpi N] [--title T]\n"
    "                        [--shard i/N] [--resume] [--quiet]\n\n"
    "Runs the scenario once per cell of a grid of values of its own keys and measures seed\n"
    "004's shaking metric (docs/free-objects.md, \"Shaking a grasp\"): the ratio of the free\n"
    "object's kinetic energy to the kinetic energy it would have if carried rigidly by the\n"
    "palm, over the shaking window.\n"
    "  --param KEY=VALUES  a dotted key of the scenario file (contact.gi, dt_s,\n"
    "                 objects.0.mass_kg; created when the file lacks it) and its values:\n"
    "                 V1,V2,... or LO:HI:N (N evenly spaced) or LO:HI:Nlog (log-spaced)\n"
    "  --csv OUT.csv  one row per cell: the values, status (ok, lost, refused, failed,\n"
    "                 non-finite), ratio, peak_ratio, the two energy integrals, the object's\n"
    "                 largest and final displacement in the palm frame, warnings, run time\n"
    "  --plot OUT     heat map of the metric over the first two parameters (x, y), log axes\n"
    "                 for log ranges; refused cells drawn as crossed grey cells, cells\n"
    "                 that lost the object (stopped by the guards) as crossed red cells\n"
    "  --object NAME  the free object (default: the first free object)\n"
    "  --from S, --to S  the window [s] (default: from the start of the palm's first\n"
    "                 sinusoid to the end of its last)\n"
    "  --window S     sub-window of peak_ratio [s] (default 0.5)\n"
    "  --threads N    parallel runs (default: the hardware's threads)\n"
    "  --metric ratio|peak  what the heat map shows (default ratio)\n"
    "  --mark X,Y     the marked point (default: the file's own values of the two keys)\n"
    "  --plot-size WxH  inches (default 5x4); --dpi N for PNG (default 300)\n"
    "  --title T      the heat map's title (default: none)\n"
    "  --shard i/N    run only the cells whose number (first parameter slowest) % N == i\n"
    "                 (0 <= i < N), for cluster job arrays\n"
    "  --resume       keep the rows already in OUT.csv (written by this --param list) and\n"
    "                 run only the missing cells; OUT.csv is rewritten atomically as cells\n"
    "                 finish, rows in cell order, so an interrupted run resumes and shards\n"
    "                 with --resume may share one OUT.csv\n"
    "  --quiet        no progress on stderr\n";

// The --param flags: their grid, checked (keys not twice, two for a map, at most 100000 cells
// in all). `cell_count` gets the number of cells.
std::vector<Param> readParams(const Args& args, std::size_t& cell_count) {
  std::vector<Param> params;
  for (const std::string& p : args.values("--param")) params.push_back(parseParam(p));
  if (params.empty()) throw UsageError("--param KEY=VALUES is required (see --help)");
  for (std::size_t i = 0; i < params.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (params[i].key == params[j].key)
        throw UsageError(params[i].flag_text + ": the key is given twice");
  if (args.has("--plot") && params.size() != 2)
    throw UsageError("--plot draws a map of two parameters; got " +
                     std::to_string(params.size()) + " --param");
  // The product is checked factor by factor: eight --param of 512 values would overflow it.
  constexpr std::size_t kMaxCells = 100000;
  cell_count = 1;
  for (const Param& p : params) {
    if (p.values.empty()) throw UsageError(p.flag_text + ": no values");
    if (cell_count > kMaxCells / p.values.size())
      throw UsageError("--param: more than " + std::to_string(kMaxCells) +
                       " cells (the product of the parameters' value counts)");
    cell_count *= p.values.size();
  }
  return params;
}

// --shard i/N (as sweep's): the whole grid without it.
sim::GridShard readShard(const Args& args) {
  sim::GridShard shard;
  if (const auto s = args.value("--shard")) {
    const auto slash = s->find('/');
    if (slash == std::string::npos) throw UsageError("--shard: write i/N, e.g. 0/4");
    const double i = parseNumber(s->substr(0, slash), "--shard");
    const double n = parseNumber(s->substr(slash + 1), "--shard");
    if (n < 1 || n > 1e6 || i < 0 || i >= n || i != std::floor(i) || n != std::floor(n))
      throw UsageError("--shard " + *s + ": need whole numbers with 0 <= i < N");
    shard = {static_cast<int>(i), static_cast<int>(n)};
  }
  return shard;
}

// Every value of every key on its own: an unknown key, or a value the loader refuses at
// that key, is the command line's fault (exit 2), not a refused cell.
void checkEachValue(const json& base, const std::string& file, const std::vector<Param>& params) {
  for (const Param& p : params)
    for (double v : p.values) {
      json doc = base;
      setKey(doc, p, v);
      try {
        (void)sim::parseScenario(doc.dump(), file);
      } catch (const io::InputError& e) {
        const std::string& field = e.location().field;
        const std::string ptr = pointerOf(p.path);
        if (field.rfind(ptr, 0) == 0 || (!field.empty() && ptr.rfind(field, 0) == 0))
          throw UsageError(p.flag_text + ": " + p.key + " = " + shortNumber(v) + ": " +
                           e.problem());
      }
    }
}

// The free object whose energy is measured: --object, else the scenario's first free one.
std::string freeObject(const Args& args, const sim::Scenario& base_sc, const std::string& file) {
  std::string object;
  if (const auto o = args.value("--object")) {
    object = *o;
    const auto it = std::find_if(base_sc.objects.begin(), base_sc.objects.end(),
                                 [&](const sim::ObjectModel& m) { return m.name == object; });
    if (it == base_sc.objects.end() || it->fixed)
      throw UsageError("--object " + object + ": the scenario has no free object of that name");
  } else {
    for (const auto& m : base_sc.objects)
      if (!m.fixed) {
        object = m.name;
        break;
      }
    if (object.empty()) throw UsageError(file + ": the scenario has no free object");
  }
  return object;
}

// The shaking window [from, to] [s]: --from/--to, else the palm's sinusoids.
std::array<double, 2> shakingWindow(const Args& args, const sim::Scenario& base_sc) {
  double from = INFINITY, to = -INFINITY;
  for (int a = 0; a < 6; ++a)
    for (const sim::Sinusoid& s : base_sc.plan.palm_motion.axis(a).sinusoids) {
      from = std::min(from, s.start);
      to = std::max(to, s.start + s.cycles / s.frequency_hz);
    }
  if (const auto f = args.value("--from")) from = parseNumber(*f, "--from");
  if (const auto t = args.value("--to")) to = parseNumber(*t, "--to");
  if (!std::isfinite(from) || !std::isfinite(to))
    throw UsageError("--from/--to: the palm has no sinusoid to take the window from; give both");
  if (!(to > from)) throw UsageError("--to must be after --from");
  if (to > base_sc.plan.duration + 1e-9)
    throw UsageError("--to " + shortNumber(to) + ": after the end of the run (" +
                     shortNumber(base_sc.plan.duration) + " s)");
  return {from, to};
}

// The grid's cells and their values, first parameter slowest.
std::vector<Cell> makeCells(const std::vector<Param>& params, std::size_t cell_count) {
  std::vector<Cell> cells(cell_count);
  for (std::size_t c = 0; c < cell_count; ++c) {
    std::size_t rest = c;
    cells[c].values.assign(params.size(), 0.0);
    for (std::size_t i = params.size(); i-- > 0;) {
      cells[c].values[i] = params[i].values[rest % params[i].values.size()];
      rest /= params[i].values.size();
    }
  }
  return cells;
}

// What runCells did: the grid's progress, the rows kept from the file, the cells run now.
struct GridRun {
  sim::GridProgress progress;
  std::size_t kept = 0;
  std::size_t ran = 0;
};

// Runs `evaluate` on every cell of `shard` without a row (with `resume`, the rows already in
// `csv_path` are kept: those cells are done) on `jobs` threads, and writes the CSV: at the end,
// and with `resume` also about once a second while the cells run.
GridRun runCells(std::vector<Cell>& cells, const std::vector<Param>& params,
                 const std::string& csv_path, const sim::GridShard& shard, bool resume,
                 unsigned jobs, bool quiet, const std::function<void(Cell&)>& evaluate) {
  // Rows of an earlier run of this grid (--resume): those cells are done. Shards sharing the
  // file read, merge and rewrite it under a lock, so no one's rows are lost.
  std::vector<char> mine(cells.size(), 0);  // cells this process runs (never merged over)
  auto mergeFile = [&]() {
    std::error_code ec;
    if (!std::filesystem::exists(csv_path, ec)) return std::size_t{0};
    std::vector<Cell> read(cells.size());
    for (std::size_t c = 0; c < cells.size(); ++c) read[c].values = cells[c].values;
    const std::size_t n = readResumeCsv(csv_path, params, read);
    for (std::size_t c = 0; c < cells.size(); ++c)
      if (read[c].done && !cells[c].done && !mine[c]) cells[c] = std::move(read[c]);
    return n;
  };
  std::size_t kept = 0;
  if (resume) {
    const io::OutputLock lock(csv_path);
    kept = mergeFile();
  }
  const std::vector<std::size_t> todo =
      sim::pendingCells(cells.size(), shard, [&](std::size_t c) { return cells[c].done; });
  for (std::size_t c : todo) mine[c] = 1;
  // While the cells run, the file is rewritten about once a second (--resume only).
  auto save = [&]() {
    const io::OutputLock lock(csv_path);
    mergeFile();  // what other processes wrote meanwhile
    io::writeFileAtomically(csv_path, csvText(params, cells));
  };
  auto last_save = std::chrono::steady_clock::now();
  sim::GridOptions grid;
  grid.threads = jobs;
  grid.finished = [&](std::size_t position, sim::CellOutcome, const sim::GridProgress& p) {
    cells[todo[position]].done = true;
    if (!quiet) std::fprintf(stderr, "\r%s   ", sim::progressLine("vary", p).c_str());
    if (resume && std::chrono::steady_clock::now() - last_save > std::chrono::seconds(1)) {
      save();
      last_save = std::chrono::steady_clock::now();
    }
  };
  const sim::GridProgress progress = sim::runGrid(
      todo,
      [&](std::size_t c) {
        evaluate(cells[c]);
        return cells[c].status;
      },
      grid);
  if (!quiet) std::fprintf(stderr, "\rvary: done             \n");
  if (resume)
    save();
  else
    io::writeFileAtomically(csv_path, csvText(params, cells));
  return {progress, kept, todo.size()};
}

#ifdef HANDSIM_HAVE_PLOT
// --plot-size (default 5x4 inches) and --dpi (default 300), a PNG's pixels checked before any
// run.
void readMapFormat(const Args& args, plot::FigureSize& size, int& dpi) {
  if (const auto s = args.value("--plot-size")) {
    try {
      size = plot::parseFigureSize(*s);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--plot-size: ") + e.what());
    }
  }
  if (const auto d = args.value("--dpi")) {
    const double v = parseNumber(*d, "--dpi");
    if (v != std::floor(v) || v < 50 || v > 2400)
      throw UsageError("--dpi " + *d + ": use a whole number from 50 to 2400");
    dpi = static_cast<int>(v);
  }
  // A PNG's pixels are known now: refused before the runs, not after them.
  if (const auto plot = args.value("--plot")) {
    constexpr double kMaxPixels = 20000.0;  // plot::exportHeatMap's limit per side
    std::string suffix = std::filesystem::path(*plot).extension().string();
    for (char& c : suffix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const double width = size.width_in * dpi;
    const double height = (size.height_in > 0.0 ? size.height_in : 0.8 * size.width_in) * dpi;
    if (suffix == ".png" && (width > kMaxPixels || height > kMaxPixels))
      throw UsageError("--plot-size / --dpi: a PNG of " + shortNumber(width) + " x " +
                       shortNumber(height) + " pixels; at most 20000 per side");
  }
}
#endif

#ifdef HANDSIM_HAVE_PLOT
// --plot: the heat map of the metric over the first two parameters, cells without a row blank.
void drawMap(const Args& args, const std::vector<Param>& params, const std::vector<Cell>& cells,
             const std::string& metric, double window, const json& base,
             std::optional<std::array<double, 2>> mark, const plot::FigureSize& size, int dpi) {
  if (const auto plot_path = args.value("--plot")) {
    auto axis = [](const Param& p) {
      plot::HeatAxis a;
      a.title = p.key;
      a.values = p.values;
      const auto [mn, mx] = std::minmax_element(p.values.begin(), p.values.end());
      a.log = p.log || (*mn > 0.0 && *mx / *mn >= 10.0);
      return a;
    };
    std::vector<plot::HeatCell> hc;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      plot::HeatCell h;
      h.ix = c / params[1].values.size();
      h.iy = c % params[1].values.size();
      h.refused = cells[c].done && cells[c].status == sim::CellOutcome::Refused;
      h.lost = cells[c].done && cells[c].status == sim::CellOutcome::Lost;
      h.value = !cells[c].done || cells[c].status != sim::CellOutcome::Ok ? std::nan("")
                : metric == "ratio" ? cells[c].ratio.integral_ratio
                                    : cells[c].ratio.peak_window_ratio;
      hc.push_back(h);
    }
    try {
      plot::HeatMap map = plot::buildHeatMap(
          axis(params[0]), axis(params[1]), hc,
          metric == "ratio" ? "kinetic energy ratio" : "peak kinetic energy ratio (" +
                                                           shortNumber(window) + " s)",
          true);
      map.title = args.value("--title").value_or("");
      if (!mark) {
        const auto x = numberAt(base, params[0]), y = numberAt(base, params[1]);
        if (x && y) mark = std::array<double, 2>{*x, *y};
      }
      if (mark && ((map.x.log && !((*mark)[0] > 0)) || (map.y.log && !((*mark)[1] > 0))))
        throw UsageError("--mark: a log axis needs a positive value");
      map.marker = mark;
      plot::renderHeatMapFile(map, *plot_path, size, dpi);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--plot: ") + e.what());
    }
  }
}
#endif

// --threads N (1 to 256; default: the hardware's threads).
unsigned readThreads(const Args& args) {
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  if (const auto j = args.value("--threads")) {
    const double v = parseNumber(*j, "--threads");
    if (v < 1 || v > 256 || v != std::floor(v))
      throw UsageError("--threads " + *j + ": a whole number from 1 to 256");
    jobs = static_cast<unsigned>(v);
  }
  return jobs;
}

// --mark X,Y, the map's marked point (none: the file's own values, chosen by drawMap).
std::optional<std::array<double, 2>> readMark(const Args& args) {
  std::optional<std::array<double, 2>> mark;
  if (const auto m = args.value("--mark")) {
    const auto v = parseNumbers(*m, "--mark");
    if (v.size() != 2) throw UsageError("--mark: expected X,Y");
    mark = std::array<double, 2>{v[0], v[1]};
  }
  return mark;
}

int run(const std::vector<std::string>& argv) {
  const Args args(argv,
                  {"--param", "--csv", "--plot", "--object", "--from", "--to", "--window",
                   "--threads", "--metric", "--mark", "--plot-size", "--dpi", "--title", "--shard"},
                  {"--quiet", "--resume"});
  if (args.help()) {
    std::cout << kHelp;
    return kOk;
  }
  args.requirePositional(1, "one scenario file");
  const std::string file = args.positional()[0];
  std::vector<OutputFile> outputs{{"--csv", args.required("--csv")}};
  addPlotOutput(args, outputs);
  for (const char* flag : {"--metric", "--mark", "--plot-size", "--dpi", "--title"})
    if (!args.has("--plot") && args.has(flag))
      throw UsageError(std::string(flag) + " needs --plot OUT.(png|svg|pdf)");
  std::size_t cell_count = 1;
  const std::vector<Param> params = readParams(args, cell_count);
  const std::string metric = args.value("--metric").value_or("ratio");
  if (metric != "ratio" && metric != "peak")
    throw UsageError("--metric " + metric + ": use ratio or peak");
  const unsigned jobs = readThreads(args);
  const sim::GridShard shard = readShard(args);
  const bool resume = args.has("--resume");
  const double window =
      args.value("--window") ? parseNumber(*args.value("--window"), "--window") : 0.5;
  if (!(window > 0.0)) throw UsageError("--window: must be positive");
#ifdef HANDSIM_HAVE_PLOT
  plot::FigureSize size{5.0, 4.0};
  int dpi = 300;
  readMapFormat(args, size, dpi);
#endif
  [[maybe_unused]] const std::optional<std::array<double, 2>> mark = readMark(args);
  for (const auto& out : outputs) requireWritable(out);
  requireDistinct(outputs, {file});

  // The scenario as JSON (comments allowed, as the loader), and as loaded.
  const sim::Scenario base_sc = sim::loadScenario(file);
  json base;
  try {
    base = json::parse(io::readFile(file), nullptr, true, true);
  } catch (const json::exception& e) {
    throw UsageError(file + ": " + e.what());
  }
  {
    std::vector<std::string> inputs{base_sc.hand->source_file};
    for (const auto& o : base_sc.objects) inputs.push_back(o.source);
    requireDistinct(outputs, inputs);
  }
  checkEachValue(base, file, params);
  // The object and the window.
  const std::string object = freeObject(args, base_sc, file);
  const std::array<double, 2> span = shakingWindow(args, base_sc);
  const double from = span[0], to = span[1];

  std::vector<Cell> cells = makeCells(params, cell_count);
  const std::string& csv_path = outputs[0].path;
  const bool quiet = args.has("--quiet");
  const GridRun grid_run =
      runCells(cells, params, csv_path, shard, resume, jobs, quiet,
               [&](Cell& cell) { runCell(base, file, params, object, from, to, window, cell); });
  const sim::GridProgress& progress = grid_run.progress;
  const double seconds = progress.elapsed_s;
  std::size_t ok = 0, refused = 0, lost = 0, done = 0;
  for (const Cell& c : cells) {
    if (!c.done) continue;
    ++done;
    ok += c.status == sim::CellOutcome::Ok;
    refused += c.status == sim::CellOutcome::Refused;
    lost += c.status == sim::CellOutcome::Lost;
  }

  // The CSV.
  double lo = INFINITY, hi = -INFINITY;
  for (const Cell& c : cells) {
    const double m = metric == "ratio" ? c.ratio.integral_ratio : c.ratio.peak_window_ratio;
    if (c.done && c.status == sim::CellOutcome::Ok && std::isfinite(m)) {
      lo = std::min(lo, m);
      hi = std::max(hi, m);
    }
  }

#ifdef HANDSIM_HAVE_PLOT
  drawMap(args, params, cells, metric, window, base, mark, size, dpi);
#endif
  nlohmann::ordered_json keys = nlohmann::ordered_json::array();
  for (const Param& p : params) keys.push_back({{"key", p.key}, {"values", p.values}});
  nlohmann::ordered_json summary = {
      {"scenario", file},
      {"object", object},
      {"window_s", {from, to}},
      {"params", keys},
      {"cells", cells.size()},
      {"ok", ok},
      {"refused", refused},
      {"lost", lost},
      {"other", done - ok - refused - lost},
      {"metric", metric},
      {"range", ok ? nlohmann::ordered_json({lo, hi}) : nlohmann::ordered_json()},
      {"threads", jobs},
      {"seconds", seconds},
      {"csv", outputs[0].path},
      {"plot", args.value("--plot") ? nlohmann::ordered_json(*args.value("--plot"))
                                    : nlohmann::ordered_json()}};
  if (args.has("--shard"))
    summary["shard"] = std::to_string(shard.index) + "/" + std::to_string(shard.count);
  if (args.has("--shard") || resume) {
    summary["ran"] = grid_run.ran;
    summary["kept"] = grid_run.kept;
    summary["missing"] = cells.size() - done;  // cells of other shards not in the file yet
  }
  printJson(summary);
  return kOk;
}

const CommandRegistration reg({"vary", "run a scenario over a grid of its own keys (seed 004 "
                                       "energy-ratio maps)",
                               run});

}  // namespace
}  // namespace handsim::cli
