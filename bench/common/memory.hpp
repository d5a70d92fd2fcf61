#pragma once
// Resident memory of this process as the operating system reports it (Linux /proc/self/status),
// for the benchmarks' memory-per-rank columns.
#include <malloc.h>

#include <fstream>
#include <string>

namespace kinema::bench {

// A field of /proc/self/status in KB ("VmRSS": now, "VmHWM": the peak), -1 if absent.
inline long statusKb(const std::string& field) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
  return -1;
}

// Hands freed heap back to the OS and resets the peak (VmHWM) to the current RSS (Linux >= 4.0:
// writing 5 to /proc/self/clear_refs). Returns false if the reset is not available.
inline bool resetPeakRss() {
  malloc_trim(0);
  std::ofstream f("/proc/self/clear_refs");
  f << "5";
  f.close();
  return static_cast<bool>(f);
}

}  // namespace kinema::bench
