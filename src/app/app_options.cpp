// SPDX-License-Identifier: GPL-3.0-or-later
#include "app_options.hpp"

namespace handsim::app {

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
    } else if (a == QLatin1String("--object")) {
      if (!value(v)) return o;
      o.objects << v;
    } else if (a == QLatin1String("--play")) {
      o.play = true;
    } else if (a == QLatin1String("--screenshot")) {
      if (!value(o.screenshot)) return o;
    } else if (a == QLatin1String("--window-screenshot")) {
      if (!value(o.window_screenshot)) return o;
    } else if (a == QLatin1String("--samples")) {
      if (!value(v)) return o;
      bool ok = false;
      o.samples = v.toInt(&ok);
      if (!ok || o.samples < 0 || o.samples > 16) {
        o.error = QStringLiteral("--samples needs a whole number from 0 to 16, not '%1'").arg(v);
        return o;
      }
    } else if (a == QLatin1String("--quit-after")) {
      if (!value(v)) return o;
      bool ok = false;
      o.quit_after = v.toDouble(&ok);
      if (!ok || o.quit_after < 0.0) {
        o.error = QStringLiteral("--quit-after needs a number of seconds >= 0, not '%1'").arg(v);
        return o;
      }
    } else {
      o.error = QStringLiteral("unknown argument '%1'").arg(a);
      return o;
    }
  }
  return o;
}

}  // namespace handsim::app
