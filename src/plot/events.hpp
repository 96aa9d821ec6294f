// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Events of a run that figures mark as labelled vertical lines. Plain C++ over the recorder's
// public read API (no Qt): the rules are tested against the recorded columns directly.

#include <string>
#include <vector>

#include "handsim/sim/recorder.hpp"

namespace handsim::plot {

enum class EventKind { ContactOnset, ClutchBreak, ClutchEngage, PhaseChange, Warning };

/// Something that happened at one instant of a run.
struct Event {
  double time = 0.0;  ///< [s], the first recorded row showing the new state
  EventKind kind = EventKind::Warning;
  std::string label;   ///< short text for the figure, e.g. "F3 break-away"
  std::string detail;  ///< longer text (a warning's message); may be empty
};

/// Events found in the recorder's columns, sorted by time, with `extra` (e.g.
/// eventsFromWarnings) merged in:
///  - contact onset per link: a `<finger>.<joint>.contact_force` column becoming > 0 after
///    being exactly 0 ("F3.J2 contact"); a link that was free for less than `min_gap` [s]
///    before touching again does not make a new onset (chattering contacts);
///  - clutch break-away and re-engagement: `<finger>.clutch` crossing 0.5 upwards
///    ("F3 break-away") and downwards ("F3 re-engaged");
///  - grasp-controller phase changes: `controller.phase` changing value ("hybrid",
///    "retraction", "done", "closing"; sim::GraspPhase).
std::vector<Event> detectEvents(const sim::Recorder& recorder, const std::vector<Event>& extra = {},
                                double min_gap = 0.02);

/// Events from a run's warnings (sim::SimState::warnings, each "t = <time> s: <message>").
/// Strings without that prefix are skipped, and so are clutch messages, which the clutch
/// columns already give (detectEvents). Label "warning", detail the message.
std::vector<Event> eventsFromWarnings(const std::vector<std::string>& warnings);

}  // namespace handsim::plot
