#pragma once
// Progress of a long run, printed on rank 0 at most every `interval` seconds:
//   step 120/1000  t = 1.2e-01  8.3 steps/s  elapsed 0:00:14  ETA 0:01:46
// or, for a module whose step count is only a cap (ProgressHint):
//   step 3/306  t = 0  0.52 steps/s  elapsed 0:00:06  ETA at most 0:09:40  (120/1000 strands converged)
#include <string>

namespace kinema {

// What a module knows about the steps it has left (run::Module::progressHint): by default the
// runner counts totalSteps() - step; a module that stops early (an optimisation that ends when it
// converges) says how many steps are left at most, and a few words on where it stands.
struct ProgressHint {
  long stepsLeft = -1;      // steps still to run, or -1 for totalSteps() - step
  bool upperBound = false;  // stepsLeft is a cap: the ETA is printed as "at most"
  std::string note;         // e.g. "812/1000 strands converged"; empty for none
};

class Progress {
 public:
  Progress(long totalSteps, double intervalSeconds, std::string label = "step");
  // Call after each step; prints if the interval has passed (always for the last step).
  void update(long step, double simTime, const ProgressHint& hint = {});
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
