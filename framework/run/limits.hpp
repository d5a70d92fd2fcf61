#pragma once
// Limits checked before any work (docs/reliability.md, "Limits"): a module estimates what a scene
// needs from its parameters alone (memory, steps, a lower bound of the wall time), and the session
// refuses a scene whose estimate exceeds run.max_memory or run.max_wall before the module's set-up
// allocates anything and before any file is written.
//
// A module gives its estimate by registering an estimator under its own name (the module's
// registration function calls estimators().add). A module without one is "unknown": its scenes
// are not checked.
#include <functional>
#include <string>

#include "framework/core/comm.hpp"
#include "framework/core/config.hpp"
#include "framework/core/registry.hpp"

namespace kinema::run {

// What a scene needs. Every figure < 0 is unknown and not checked.
struct ResourceEstimate {
  double bytes = -1;    // peak memory of the whole run, summed over its ranks
  double steps = -1;    // the work in steps: time steps, events or solves (what `detail` says)
  double seconds = -1;  // a lower bound of the wall time at `ranks` ranks (the run cannot be faster)
  std::string detail;   // what was counted, for the messages, e.g. "2.05e+06 unknowns at n = 128"
};

using Estimator = std::function<ResourceEstimate(const Config& config, int ranks)>;

struct EstimatorEntry {
  std::string name;  // the module's name
  std::string help;  // what the estimate counts (one line)
  Estimator estimate;
};
NamedRegistry<EstimatorEntry>& estimators();

// The estimate of `module` for `config` at `ranks` ranks; all unknown if it has no estimator.
ResourceEstimate estimateFor(const std::string& module, const Config& config, int ranks);

// "1.5GiB", "800 MB", "2e9" (bytes; k/M/G/T are powers of 1000, Ki/Mi/Gi/Ti of 1024; a trailing B
// is optional). Returns < 0 when `text` is not such a value.
double parseBytes(const std::string& text);
std::string formatBytes(double bytes);  // "1.5 GiB"

// MemAvailable of /proc/meminfo on this machine, in bytes (< 0 if it cannot be read).
double availableMemory();

struct RunLimits {
  double memory = -1;  // bytes, whole run (< 0: no limit)
  double wall = -1;    // seconds (< 0: no limit)
  std::string memoryOrigin;  // "run.max_memory" or what auto found
};

// run.max_memory and run.max_wall of `config` (collective: `auto` sums MemAvailable over the
// machines the ranks run on, each counted once). Throws InputError naming the key if malformed.
RunLimits readLimits(const Config& config, const Comm& comm);

// Throws InputError (the same on every rank) when `e` exceeds a limit, stating the estimate and
// the limit and what to change.
void checkLimits(const std::string& module, const ResourceEstimate& e, const RunLimits& limits, const Config& config,
                 int ranks);

}  // namespace kinema::run
