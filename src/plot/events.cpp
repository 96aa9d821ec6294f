// SPDX-License-Identifier: GPL-3.0-or-later
#include "events.hpp"

#include <algorithm>
#include <cstdlib>

namespace handsim::plot {
namespace {

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string phaseName(double phase) {
  // The values of sim::GraspPhase.
  switch (static_cast<int>(phase + 0.5)) {
    case 0:
      return "closing";
    case 1:
      return "hybrid";
    case 2:
      return "retraction";
    case 3:
      return "done";
    default:
      return "phase " + std::to_string(static_cast<int>(phase + 0.5));
  }
}

}  // namespace

std::vector<Event> detectEvents(const sim::Recorder& recorder, const std::vector<Event>& extra,
                                double min_gap) {
  std::vector<Event> out;
  const std::size_t rows = recorder.rowCount();
  const std::vector<std::string>& columns = recorder.columns();
  const int time_column = recorder.columnIndex("time");
  if (rows > 0 && time_column >= 0) {
    const auto tc = static_cast<std::size_t>(time_column);
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const std::string& name = columns[c];
      if (endsWith(name, ".contact_force")) {
        const std::string link = name.substr(0, name.size() - std::string(".contact_force").size());
        bool touching = recorder.value(0, c) > 0.0;
        double last_touch = touching ? recorder.value(0, tc) : -1e300;
        for (std::size_t r = 1; r < rows; ++r) {
          const double t = recorder.value(r, tc);
          const bool now = recorder.value(r, c) > 0.0;
          if (now && !touching && t - last_touch >= min_gap)
            out.push_back({t, EventKind::ContactOnset, link + " contact", ""});
          if (now) last_touch = t;
          touching = now;
        }
      } else if (endsWith(name, ".clutch")) {
        const std::string finger = name.substr(0, name.size() - std::string(".clutch").size());
        bool broken = recorder.value(0, c) > 0.5;
        for (std::size_t r = 1; r < rows; ++r) {
          const bool now = recorder.value(r, c) > 0.5;
          if (now != broken)
            out.push_back({recorder.value(r, tc),
                           now ? EventKind::ClutchBreak : EventKind::ClutchEngage,
                           finger + (now ? " break-away" : " re-engaged"), ""});
          broken = now;
        }
      } else if (name == "controller.phase") {
        double phase = recorder.value(0, c);
        for (std::size_t r = 1; r < rows; ++r) {
          const double now = recorder.value(r, c);
          if (now != phase)
            out.push_back({recorder.value(r, tc), EventKind::PhaseChange, phaseName(now), ""});
          phase = now;
        }
      }
    }
  }
  out.insert(out.end(), extra.begin(), extra.end());
  std::stable_sort(out.begin(), out.end(),
                   [](const Event& a, const Event& b) { return a.time < b.time; });
  return out;
}

std::vector<Event> eventsFromWarnings(const std::vector<std::string>& warnings) {
  std::vector<Event> out;
  for (const std::string& w : warnings) {
    if (w.rfind("t = ", 0) != 0) continue;
    const std::size_t end = w.find(" s: ");
    if (end == std::string::npos) continue;
    const std::string number = w.substr(4, end - 4);
    char* stop = nullptr;
    const double t = std::strtod(number.c_str(), &stop);
    if (stop != number.c_str() + number.size()) continue;
    const std::string message = w.substr(end + 4);
    if (message.find("clutch") != std::string::npos) continue;
    out.push_back({t, EventKind::Warning, "warning", message});
  }
  return out;
}

}  // namespace handsim::plot
