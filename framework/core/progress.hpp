#pragma once
// Progress of a long run, printed on rank 0 at most every `interval` seconds:
//   step 120/1000  t = 1.2e-01  8.3 steps/s  elapsed 0:00:14  ETA 0:01:46
#include <string>

namespace kinema {

class Progress {
 public:
  Progress(long totalSteps, double intervalSeconds, std::string label = "step");
  // Call after each step; prints if the interval has passed (always for the last step).
  void update(long step, double simTime);
  // A run continued after `step` (a restart): the rate and the ETA count only this segment's steps.
  void startAt(long step) { first_ = step; }
  static std::string formatDuration(double seconds);

 private:
  long total_;
  double interval_;
  std::string label_;
  double start_;
  double lastPrint_;
  long first_ = 0;
};

}  // namespace kinema
