#pragma once
// Module: one paper's method (or the Poisson example) behind the interface the runner drives.
// A module declares its parameters once, builds its state on whatever backend it is given,
// advances step by step, writes frames, and saves / restores checkpoints. See docs/writing-a-module.md.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "framework/core/comm.hpp"
#include "framework/core/config.hpp"
#include "framework/core/progress.hpp"
#include "framework/core/registry.hpp"
#include "framework/io/checkpoint.hpp"
#include "framework/io/diagnostics.hpp"
#include "framework/io/frame_writer.hpp"
#include "framework/la/backend.hpp"

namespace kinema::run {

// What a module sees of the run.
struct RunContext {
  const Config& config;
  la::Backend& backend;
  Comm comm;
  std::string outputDir;
};

// Named arrays of a module's current state, for library users who look at a run between steps
// (the Python bindings' Simulation.state()). Each array holds this rank's rows (the same rows the
// rank writes to a frame), `components` values per row, row-major; integer fields (ids, flags)
// stay integers. Usual names: positions (rows x 3), velocities, and the module's frame fields.
struct StateArray {
  int components = 1;
  bool integer = false;
  std::vector<double> real;          // when !integer
  std::vector<std::int64_t> ints;    // when integer
};

class StateArrays {
 public:
  void add(const std::string& name, std::span<const double> values, int components = 1) {
    StateArray& a = arrays_[name];
    a = StateArray{components, false, {values.begin(), values.end()}, {}};
  }
  void add(const std::string& name, std::span<const std::int64_t> values, int components = 1) {
    StateArray& a = arrays_[name];
    a = StateArray{components, true, {}, {values.begin(), values.end()}};
  }
  void addScalar(const std::string& name, double value) { add(name, std::span<const double>(&value, 1)); }
  const std::map<std::string, StateArray>& arrays() const { return arrays_; }

 private:
  std::map<std::string, StateArray> arrays_;
};

class Module {
 public:
  virtual ~Module() = default;
  // Reads the validated parameters and builds the initial state. Throws InputError for a scene
  // the module cannot use (e.g. more ranks than it can split over).
  virtual void setup(RunContext& ctx) = 0;
  // Steps in the whole run; the runner calls step() for steps 1..totalSteps().
  virtual long totalSteps() const = 0;
  // True when the module has nothing left to do before totalSteps() (an optimisation that has
  // converged); the runner then writes the last frame and checkpoint and stops.
  virtual bool finished() const { return false; }
  // For the progress line: the steps left when they are not totalSteps() - step (a module that
  // usually finishes() early gives its cap as an upper bound) and a note on where it stands.
  // Called on every rank after each step; must not communicate.
  virtual ProgressHint progressHint() const { return {}; }
  // Simulated time after the last step (static problems may return the step index).
  virtual double time() const = 0;
  // Advances one step and appends its diagnostics (same columns every step; the runner adds
  // `step` and `time` in front and `wall_seconds` last).
  virtual void step(RunContext& ctx, io::Diagnostics::Row& row) = 0;
  // Writes the current state as a frame.
  virtual void writeFrame(RunContext& ctx, io::FrameWriter& frames) = 0;
  // Called on every rank right before each checkpoint is saved (by step count, by wall time, at
  // the last step, or because a signal stops the run: docs/user-guide.md). A module whose step
  // depends on when checkpoints happen (e.g. rebuilding rank-local caches as a restart would) does
  // that here, so a restarted run continues bitwise like the run that wrote the checkpoint.
  virtual void prepareCheckpoint(RunContext& /*ctx*/) {}
  // Everything needed to continue after the last completed step.
  virtual void saveCheckpoint(RunContext& ctx, io::CheckpointWriter& out) const = 0;
  virtual void loadCheckpoint(RunContext& ctx, const io::CheckpointReader& in) = 0;
  // The current state as named arrays (StateArrays above): each rank gives its
  // own rows. Collective (every rank calls it, so a module may gather). The default gives nothing;
  // every built-in module overrides it.
  virtual void exportState(StateArrays& /*out*/) const {}
  // A few lines for the end of the run (results a user wants to see without opening files).
  virtual std::string summary() const { return ""; }
};

struct ModuleEntry {
  std::string name;
  std::string help;
  std::function<void(ParamSchema&)> declare;  // the module's parameters, under `<name>.`
  std::function<std::unique_ptr<Module>()> make;
};
NamedRegistry<ModuleEntry>& modules();

// Throws an Error naming `what` and the step if `v` holds a NaN or infinity (collective).
void requireFinite(const la::Vector& v, const std::string& what, long step);

}  // namespace kinema::run
