#pragma once
// Small helpers every benchmark uses: a wall clock, printf-style number formatting for the
// markdown tables, comma-separated option lists, and the checks that make a benchmark fail
// (exit non-zero) instead of rotting.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

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

// "a,b,c" -> {"a", "b", "c"} (comma-separated command-line lists; empty items are dropped).
inline std::vector<std::string> splitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// Failed checks of this run; a benchmark exits non-zero when any rank has one.
inline int failures = 0;

// Counts and prints a failed check.
inline void check(bool ok, const std::string& what) {
  if (!ok) {
    ++failures;
    std::cout << "CHECK FAILED: " << what << "\n" << std::flush;
  }
}

// A progress line with the wall clock in seconds.
inline void progress(const std::string& s) { std::cout << "[" << fmt("%.0f", now()) << "] " << s << "\n" << std::flush; }

}  // namespace kinema::bench
