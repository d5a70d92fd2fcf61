#pragma once
// Scoped timers accumulated by name, and a summary table (min / mean / max over ranks) printed at
// the end of a run: `{ ScopedTimer t("assemble"); ... }`.
#include <chrono>
#include <string>

#include "framework/core/comm.hpp"

namespace kinema {

class ScopedTimer {
 public:
  explicit ScopedTimer(std::string name);
  ~ScopedTimer();
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  std::string name_;
  std::chrono::steady_clock::time_point start_;
};

namespace timers {
void add(const std::string& name, double seconds);
double total(const std::string& name);
long count(const std::string& name);
void reset();
// Collective: a table of every timer seen on rank 0 with calls, total, and min/mean/max over ranks.
std::string summary(const Comm& comm);
}  // namespace timers

// Wall-clock seconds since an arbitrary origin.
double wallTime();

}  // namespace kinema
