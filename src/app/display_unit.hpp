// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include "handsim/hand/hand_model.hpp"

namespace handsim::app {

/// How the panels show an actuator's values: degrees for revolute (rad) actuators, millimetres
/// for slides (m), the actuator's own unit otherwise (the BarrettHand's encoder counts). The
/// Joints panel's sliders and the Trajectory panel's cells use the same one.
struct DisplayUnit {
  double scale = 1.0;        ///< displayed value per actuator unit
  double slider_step = 1.0;  ///< displayed units per slider tick
  QString name;              ///< "deg", "mm", "counts"
};

inline DisplayUnit displayUnit(const hand::Actuator& actuator) {
  constexpr double kDeg = 180.0 / 3.14159265358979323846;
  if (actuator.unit == "rad") return {kDeg, 0.1, QStringLiteral("deg")};
  if (actuator.unit == "m") return {1000.0, 0.1, QStringLiteral("mm")};
  return {1.0, 1.0, QString::fromStdString(actuator.unit)};
}

}  // namespace handsim::app
