// SPDX-License-Identifier: GPL-3.0-or-later
#include "app_options.hpp"

#include <QRegularExpression>
#include <cmath>

namespace handsim::app {

namespace {

// A plain decimal number (sign, digits, point, exponent), finite: QString::toDouble would also
// take "inf", "nan" and surrounding spaces. Returns false for anything else.
bool parseDecimal(const QString& text, double& out) {
  static const QRegularExpression decimal(
      QStringLiteral("^[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?$"));
  if (!decimal.match(text).hasMatch()) return false;
  bool ok = false;
  out = text.toDouble(&ok);
  return ok && std::isfinite(out);
}

}  // namespace

AppOptions parseAppOptions(const QStringList& arguments) {
  AppOptions o;
  for (int i = 0; i < arguments.size(); ++i) {
    const QString& a = arguments[i];
    auto value = [&](QString& out) {
      if (i + 1 >= arguments.size()) {
        o.error = QStringLiteral("%1 needs a value").arg(a);
        return false;
      }
      out = arguments[++i];
      return true;
    };
    QString v;
    if (a == QLatin1String("--scene")) {
      if (!value(o.scene)) return o;
    } else if (a == QLatin1String("--hand")) {
      if (!value(o.hand)) return o;
    } else if (a == QLatin1String("--palm")) {
      if (!value(o.palm)) return o;
    } else if (a == QLatin1String("--object")) {
      if (!value(v)) return o;
      o.objects << v;
    } else if (a == QLatin1String("--play")) {
      o.play = true;
    } else if (a == QLatin1String("--show-collision")) {
      o.show_collision = true;
    } else if (a == QLatin1String("--screenshot")) {
      if (!value(o.screenshot)) return o;
    } else if (a == QLatin1String("--window-screenshot")) {
      if (!value(o.window_screenshot)) return o;
    } else if (a == QLatin1String("--panel")) {
      if (!value(o.panel)) return o;
    } else if (a == QLatin1String("--panel-screenshot")) {
      if (!value(o.panel_screenshot)) return o;
    } else if (a == QLatin1String("--samples")) {
      if (!value(v)) return o;
      double n = 0.0;
      const bool ok = parseDecimal(v, n) && n == std::floor(n) && n >= 0.0 && n <= 16.0;
      if (ok) o.samples = static_cast<int>(n);
      if (!ok) {
        o.error = QStringLiteral("--samples needs a whole number from 0 to 16, not '%1'").arg(v);
        return o;
      }
    } else if (a == QLatin1String("--quit-after")) {
      if (!value(v)) return o;
      double seconds = 0.0;
      if (!parseDecimal(v, seconds) || !(seconds > 0.0) || seconds > kMaxQuitAfterSeconds) {
        o.error = QStringLiteral(
                      "--quit-after needs a number of seconds above 0 and at most %1, "
                      "not '%2'")
                      .arg(kMaxQuitAfterSeconds)
                      .arg(v);
        return o;
      }
      o.quit_after = seconds;
    } else {
      o.error = QStringLiteral("unknown argument '%1'").arg(a);
      return o;
    }
  }
  if (!o.panel_screenshot.isEmpty() && o.panel.isEmpty())
    o.error = QStringLiteral("--panel-screenshot needs --panel NAME");
  else if (!o.palm.isEmpty() && o.hand.isEmpty())
    o.error = QStringLiteral("--palm LINK needs --hand FILE (a URDF)");
  return o;
}

}  // namespace handsim::app
