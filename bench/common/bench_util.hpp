#pragma once
// Small helpers every benchmark uses: a wall clock and printf-style number formatting for the
// markdown tables.
#include <chrono>
#include <cstdio>
#include <string>

namespace kinema::bench {

// Seconds on a monotonic clock.
inline double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// One number formatted with a printf format, e.g. fmt("%.3f", x).
inline std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace kinema::bench
