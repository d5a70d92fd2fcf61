#include "framework/run/limits.hpp"

#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "framework/core/error.hpp"
#include "framework/run/scene.hpp"

namespace kinema::run {

NamedRegistry<EstimatorEntry>& estimators() {
  static NamedRegistry<EstimatorEntry> r("estimator");
  return r;
}

ResourceEstimate estimateFor(const std::string& module, const Config& config, int ranks) {
  if (!estimators().has(module)) return {};
  return estimators().get(module).estimate(config, ranks);
}

double parseBytes(const std::string& text) {
  std::string s;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  if (s.empty()) return -1;
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(s, &used);
  } catch (...) {
    return -1;
  }
  std::string unit = s.substr(used);
  if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b')) unit.pop_back();
  double scale = 1;
  if (!unit.empty()) {
    const bool binary = unit.size() == 2 && (unit[1] == 'i' || unit[1] == 'I');
    if (unit.size() > 2 || (unit.size() == 2 && !binary)) return -1;
    const auto at = std::string("kmgt").find(static_cast<char>(std::tolower(static_cast<unsigned char>(unit[0]))));
    if (at == std::string::npos) return -1;
    scale = std::pow(binary ? 1024.0 : 1000.0, static_cast<double>(at + 1));
  }
  const double bytes = value * scale;
  return std::isfinite(bytes) && bytes > 0 ? bytes : -1;
}

std::string formatBytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) bytes /= 1024, ++u;
  char buf[64];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.3g %s", bytes, units[u]);
  return buf;
}

double availableMemory() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kb = 0;
  std::string unit;
  while (in >> key >> kb) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return kb * 1024.0;
  }
  return -1;
}

RunLimits readLimits(const Config& config, const Comm& comm) {
  RunLimits limits;
  const RunParams run = runBindings().read(config, "run");
  const std::string& mem = run.maxMemory;
  // Every rank reads its machine; each machine (hostname) counts once.
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  const auto id = static_cast<std::int64_t>(std::hash<std::string>{}(host) >> 1);
  const double here = availableMemory();
  const std::vector<std::int64_t> hosts = comm.allgather(id);
  const std::vector<std::int64_t> avail = comm.allgather(static_cast<std::int64_t>(here));
  if (mem == "auto") {
    std::set<std::int64_t> seen;
    double total = 0;
    bool known = true;
    for (std::size_t r = 0; r < hosts.size(); ++r) {
      if (!seen.insert(hosts[r]).second) continue;
      if (avail[r] < 0) known = false;
      total += static_cast<double>(avail[r]);
    }
    if (known) {
      limits.memory = total;
      limits.memoryOrigin = str("the available memory (MemAvailable) of the ", seen.size(),
                                seen.size() == 1 ? " machine" : " machines", " the ranks run on");
    }
  } else if (mem != "none") {
    limits.memory = parseBytes(mem);
    if (limits.memory < 0)
      throw InputError(str(config.where("run.max_memory"), ": run.max_memory: '", mem,
                           "' is not a memory size; give bytes with a unit (e.g. 64GiB, 500MB, 2e9), auto or none"));
    limits.memoryOrigin = "run.max_memory";
  }
  if (run.maxWall > 0) limits.wall = run.maxWall;
  return limits;
}

namespace {
std::string seconds(double s) {
  char buf[64];
  if (s < 120) std::snprintf(buf, sizeof buf, "%.3g s", s);
  else if (s < 7200) std::snprintf(buf, sizeof buf, "%.3g s (%.3g min)", s, s / 60);
  else if (s < 3 * 86400) std::snprintf(buf, sizeof buf, "%.3g s (%.3g h)", s, s / 3600);
  else std::snprintf(buf, sizeof buf, "%.3g s (%.3g days)", s, s / 86400);
  return buf;
}
}  // namespace

void checkLimits(const std::string& module, const ResourceEstimate& e, const RunLimits& limits, const Config& config,
                 int ranks) {
  std::vector<std::string> problems;
  const std::string what = e.detail.empty() ? "" : " (" + e.detail + ")";
  const std::string on = str(ranks, ranks == 1 ? " rank" : " ranks");
  if (limits.memory > 0 && e.bytes > limits.memory) {
    const std::string where = limits.memoryOrigin == "run.max_memory" ? config.where("run.max_memory") : "";
    problems.push_back(str(where.empty() ? "" : where + ": ", module, ": this scene needs about ", formatBytes(e.bytes),
                           " of memory on ", on, what, ", more than the limit of ", formatBytes(limits.memory), " (",
                           limits.memoryOrigin,
                           "); make the scene smaller, run on more machines, or raise run.max_memory "
                           "(none: no limit) if the estimate is wrong"));
  }
  if (limits.wall > 0 && e.seconds > limits.wall)
    problems.push_back(str(config.where("run.max_wall"), ": ", module, ": this scene needs at least ", seconds(e.seconds),
                           " of wall time on ", on, what, ", more than run.max_wall = ", seconds(limits.wall),
                           "; make it shorter (fewer steps or substeps, a larger time step, a coarser resolution) "
                           "or raise run.max_wall (0: no limit)"));
  if (problems.empty()) return;
  std::string msg;
  for (const auto& p : problems) msg += (msg.empty() ? "" : "\n") + p;
  throw InputError(msg);
}

}  // namespace kinema::run
