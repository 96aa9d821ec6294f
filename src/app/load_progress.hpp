// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QString>
#include <QWidget>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

namespace handsim::app {

/// Long work off the interface thread (issue #23): a status-bar strip with what is being
/// loaded, a busy progress bar and Cancel. run() hands the work to a pool thread and keeps the
/// event loop turning until the work ends or Cancel is clicked, so the viewport keeps drawing
/// and the window answers; callers then go on in order as after a plain call. The work must
/// touch nothing the interface thread uses (it gets copies). Cancel abandons the work at once:
/// its result, when the thread finishes, is thrown away and the scene stays as it was.
/// One run at a time: another run() while one is waiting fails with a message.
class LoadProgress : public QWidget {
  Q_OBJECT
 public:
  explicit LoadProgress(QWidget* parent = nullptr);

  /// Runs `work` on a pool thread, showing `what`. Returns its result, or nothing when it threw
  /// (`error` gets the message) or was cancelled (`error` stays empty, cancelled() is true).
  template <class T>
  std::optional<T> run(const QString& what, std::function<T()> work, QString* error) {
    auto out = std::make_shared<std::optional<T>>();
    if (!runJob(
            what, [out, work = std::move(work)] { *out = work(); }, error))
      return {};
    return std::move(*out);
  }
  bool busy() const { return busy_; }
  /// The last run() was cancelled.
  bool cancelled() const { return cancelled_; }
  /// Ends the wait of the run() in progress as Cancel does (e.g. the window closes).
  void cancel();
  QPushButton* cancelButton() const { return cancel_; }
  QProgressBar* bar() const { return bar_; }

 Q_SIGNALS:
  void busyChanged(bool busy);

 private:
  bool runJob(const QString& what, std::function<void()> work, QString* error);

  QLabel* label_ = nullptr;
  QProgressBar* bar_ = nullptr;
  QPushButton* cancel_ = nullptr;
  std::function<void()> quit_;  ///< ends the wait of the run in progress
  bool busy_ = false;
  bool cancelled_ = false;
};

}  // namespace handsim::app
