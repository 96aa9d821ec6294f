// SPDX-License-Identifier: GPL-3.0-or-later
#include "load_progress.hpp"

#include <QApplication>
#include <QEventLoop>
#include <QHBoxLayout>
#include <QThreadPool>
#include <exception>
#include <string>

namespace handsim::app {

namespace {
/// What a pool thread hands back; written by the thread before it posts its end, read by the
/// interface thread after (the event queue orders the two).
struct Job {
  std::function<void()> work;
  std::string error;
  bool failed = false;
  std::function<void()> done;  ///< interface thread only; empty once nobody waits
};
}  // namespace

LoadProgress::LoadProgress(QWidget* parent) : QWidget(parent) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  label_ = new QLabel;
  bar_ = new QProgressBar;
  bar_->setRange(0, 0);  // the readers report no fraction: a busy bar
  bar_->setMaximumWidth(160);
  bar_->setMaximumHeight(16);
  cancel_ = new QPushButton(tr("Cancel"));
  cancel_->setToolTip(tr("Stop waiting for this load; the open scene stays as it is"));
  layout->addWidget(label_);
  layout->addWidget(bar_);
  layout->addWidget(cancel_);
  connect(cancel_, &QPushButton::clicked, this, &LoadProgress::cancel);
  hide();
}

void LoadProgress::cancel() {
  if (!quit_) return;
  cancelled_ = true;
  quit_();
}

bool LoadProgress::runJob(const QString& what, std::function<void()> work, QString* error) {
  if (error) error->clear();
  if (busy_) {
    if (error)
      *error = tr("%1 is still loading; wait for it or cancel it first").arg(label_->text());
    return false;
  }
  busy_ = true;
  cancelled_ = false;
  auto job = std::make_shared<Job>();
  job->work = std::move(work);
  QEventLoop loop;
  bool finished = false;
  job->done = [&loop, &finished] {
    finished = true;
    loop.quit();
  };
  quit_ = [&loop] { loop.quit(); };
  QThreadPool::globalInstance()->start([job] {
    try {
      job->work();
    } catch (const std::exception& e) {
      job->failed = true;
      job->error = e.what();
    } catch (...) {
      job->failed = true;
      job->error = "unknown error";
    }
    job->work = nullptr;  // what it captured goes with the thread
    QMetaObject::invokeMethod(
        qApp,
        [job] {
          if (job->done) job->done();
        },
        Qt::QueuedConnection);
  });
  label_->setText(what);
  show();
  QApplication::setOverrideCursor(Qt::BusyCursor);
  Q_EMIT busyChanged(true);
  loop.exec();
  job->done = nullptr;
  quit_ = nullptr;
  QApplication::restoreOverrideCursor();
  hide();
  busy_ = false;
  Q_EMIT busyChanged(false);
  // Cancelled (even when the result came in the same turn of the loop): thrown away.
  if (cancelled_ || !finished) return false;
  if (job->failed) {
    if (error) *error = QString::fromStdString(job->error);
    return false;
  }
  return true;
}

}  // namespace handsim::app
