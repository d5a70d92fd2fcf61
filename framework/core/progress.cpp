#include "framework/core/progress.hpp"

#include <cmath>
#include <cstdio>

#include "framework/core/log.hpp"
#include "framework/core/timer.hpp"

namespace kinema {

Progress::Progress(long totalSteps, double intervalSeconds, std::string label)
    : total_(totalSteps), interval_(intervalSeconds), label_(std::move(label)),
      start_(wallTime()), lastPrint_(start_) {}

std::string Progress::formatDuration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  long t = static_cast<long>(std::lround(s));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
  return buf;
}

void Progress::update(long step, double simTime, const ProgressHint& hint) {
  double now = wallTime();
  bool last = total_ > 0 && step >= total_;
  if (!last && now - lastPrint_ < interval_) return;
  lastPrint_ = now;
  double elapsed = now - start_;
  double rate = elapsed > 0 ? static_cast<double>(step - first_) / elapsed : 0.0;
  char buf[512];
  if (total_ > 0) {
    const long left = hint.stepsLeft >= 0 ? hint.stepsLeft : total_ - step;
    double eta = rate > 0 ? static_cast<double>(left) / rate : NAN;
    std::snprintf(buf, sizeof buf, "%s %ld/%ld  t = %.4g  %.3g %ss/s  elapsed %s  ETA %s%s%s%s%s",
                  label_.c_str(), step, total_, simTime, rate, label_.c_str(),
                  formatDuration(elapsed).c_str(), hint.upperBound ? "at most " : "",
                  formatDuration(eta).c_str(), hint.note.empty() ? "" : "  (", hint.note.c_str(),
                  hint.note.empty() ? "" : ")");
  } else {
    std::snprintf(buf, sizeof buf, "%s %ld  t = %.4g  %.3g %ss/s  elapsed %s", label_.c_str(), step,
                  simTime, rate, label_.c_str(), formatDuration(elapsed).c_str());
  }
  log::info(buf);
}

}  // namespace kinema
