#pragma once
// One strand's checkpoint blob (docs/modules/der.md, "Checkpoints"): a list of doubles holding the
// strand's optimiser state while the optimisation runs, or its rest state, optimisation results
// and simulator state after it. Each part of a strand's state is described once, by a `describe`
// function below that names its fields in order with their checks; BlobWriter (save) and
// BlobReader (load) both walk the same description, so the format's write and read cannot drift
// apart. A value's kind says how it is written and checked on reading:
//   real    a finite double;
//   whole   a whole number in [0, max] (counts, steps, codes);
//   flag    0 or 1;
//   reals   an array: its length, then its values, all finite; the length must be the one the
//           strand needs (vec3s / vec4s: arrays of 3- or 4-vectors, flattened);
//   section a flag, then the section's values if it is 1 (a part a strand may lack).
// A problem is an InputError naming the checkpoint and the strand (BlobReader::where).
#include <cmath>
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "framework/core/error.hpp"
#include "modules/der/alm_optimizer.hpp"
#include "modules/der/rod_kinematics.hpp"
#include "modules/der/strand.hpp"
#include "modules/der/strand_set_file.hpp"

namespace kinema::der {

// Stop reasons as numbers (0 = not optimised / still running), for the checkpoint and the HDF5
// output: a reason's code is its index in this one table, which serves both directions.
inline constexpr const char* kStopReasons[] = {"", "step_small", "k_max", "line_search"};
double stopReasonCode(const std::string& reason);  // 0 for a reason not in the table

// The simulator state a checkpoint keeps (StrandSimulator::restoreState takes it back).
struct SimulatorState {
  std::vector<double> q, qdot;
  ReferenceFrames frames;
  double time = 0.0;
  long steps = 0;
};

// A strand after its optimisation: rest state, results when it was optimised, simulator state
// once the forward simulation has started.
struct FinishedStrand {
  RestState rest;
  std::optional<StrandResult> result;
  std::optional<SimulatorState> sim;
};

// Section flags, named for BlobReader::onSection.
inline constexpr const char* kResultsFlag = "the results flag";
inline constexpr const char* kSimulationFlag = "the simulation flag";

namespace blob {

constexpr double kMaxCount = 9007199254740992.0;  // 2^53: every whole double below is exact

// Strand sizes a blob's arrays must have: N vertices, optimisation parameters and constraints,
// and the ALM iterations a scene allows.
struct Sizes {
  std::size_t vertices = 0, parameters = 0, constraints = 0;
  double maxIteration = 0.0;
};

// The optimiser's state (while optimising). `State` is AlmState or const AlmState.
template <class Io, class State>
void describe(Io& io, State& st, const Sizes& n) {
  io.whole("the ALM iteration k", st.k, n.maxIteration);
  io.flag("the done flag", st.done);
  io.reals("the parameters p", st.p, n.parameters);
  io.reals("the multipliers lambda", st.lambda, n.constraints);
  io.reals("the previous step", st.previousStep, n.parameters);
  auto& s = st.stats;
  io.whole("the Newton iterations", s.newtonIterations, 2147483647.0);
  io.whole("the MPRGP iterations", s.mprgpIterations, kMaxCount);
  io.whole("the factorisations", s.factorizations, kMaxCount);
  io.whole("the line-search halvings", s.lineSearchHalvings, kMaxCount);
  io.real("the assembly time", s.assemblySeconds);
  io.real("the factorisation time", s.factorSeconds);
  io.real("the MPRGP time", s.mprgpSeconds);
  io.real("the line-search time", s.lineSearchSeconds);
  io.real("the initial residual", s.initialResidual);
  io.real("the residual", s.residual);
  io.reason("the stop reason", s.stopReason);
}

template <class Io, class Rest>
void describeRest(Io& io, Rest& r, std::size_t N) {
  io.reals("the rest lengths", r.restLength, N - 1);
  if constexpr (Io::kReads)
    for (std::size_t j = 0; j + 1 < N; ++j)
      if (!(r.restLength[j] > 0.0))
        io.fail(str("rest length ", j, " is ", r.restLength[j], " (must be positive)"));
  io.vec4s("the rest curvatures", r.restKappa, N);
  io.reals("the rest twists", r.restTwist, N);
  io.reals("the stretching stiffnesses", r.cStretch, N - 1);
  io.reals("the bending stiffnesses", r.cBend, N);
  io.reals("the twisting stiffnesses", r.cTwist, N);
}

template <class Io, class Result>
void describeResult(Io& io, Result& r) {
  io.real("the relative residual", r.relativeResidual);
  io.whole("the Newton iterations", r.newtonIterations, kMaxCount);
  io.real("the MPRGP iterations per solve", r.mprgpIterationsPerSolve);
  io.whole("the stop reason", r.stopReason, 3.0);
  io.whole("the MPRGP iterations", r.mprgpIterations, kMaxCount);
  io.real("the optimisation time", r.seconds);
}

template <class Io, class Sim>
void describeSimulator(Io& io, Sim& s, std::size_t N) {
  io.reals("the configuration q", s.q, 4 * N - 1);
  io.reals("the velocity", s.qdot, 4 * N - 1);
  io.vec3s("the reference directors a1", s.frames.a1, N - 1);
  io.vec3s("the reference tangents", s.frames.tangent, N - 1);
  io.reals("the reference twists", s.frames.refTwist, N);
  io.real("the simulated time", s.time);
  io.whole("the simulated steps", s.steps, kMaxCount);
}

// A strand after the optimisation. `Strand` is FinishedStrand or const FinishedStrand.
template <class Io, class Strand>
void describeFinished(Io& io, Strand& s, std::size_t N) {
  describeRest(io, s.rest, N);
  io.section(kResultsFlag, s.result, [&](auto& r) { describeResult(io, r); });
  io.section(kSimulationFlag, s.sim, [&](auto& sim) { describeSimulator(io, sim, N); });
}

}  // namespace blob

// Appends the described values to a blob.
class BlobWriter {
 public:
  static constexpr bool kReads = false;
  explicit BlobWriter(std::vector<double>& b) : b_(b) {}
  void real(const char*, double v) { b_.push_back(v); }
  template <class T>
  void whole(const char*, T v, double) { b_.push_back(static_cast<double>(v)); }
  void flag(const char*, bool v) { b_.push_back(v ? 1.0 : 0.0); }
  void reason(const char*, const std::string& r) { b_.push_back(stopReasonCode(r)); }
  void reals(const char*, const std::vector<double>& v, std::size_t);
  void vec3s(const char*, const std::vector<Vec3>& v, std::size_t);
  void vec4s(const char*, const std::vector<Vec4>& v, std::size_t);
  template <class T, class F>
  void section(const char*, const std::optional<T>& v, F&& fields) {
    flag("", v.has_value());
    if (v) fields(*v);
  }

 private:
  std::vector<double>& b_;
};

// Reads the described values back, checking each one (see the top of this file).
class BlobReader {
 public:
  static constexpr bool kReads = true;
  BlobReader(std::span<const double> b, std::string where) : b_(b), where_(std::move(where)) {}
  const std::string& where() const { return where_; }
  // Called with a section's flag as soon as it is read (the module checks that all strands agree).
  std::function<void(const char* flagName, bool present)> onSection;

  void real(const char* what, double& v) { v = finite(what); }
  template <class T>
  void whole(const char* what, T& v, double max) { v = static_cast<T>(count(what, max)); }
  void flag(const char* what, bool& v) { v = count(what, 1.0) != 0.0; }
  void reason(const char* what, std::string& r) { r = kStopReasons[static_cast<int>(count(what, 3.0))]; }
  void reals(const char* what, std::vector<double>& v, std::size_t n) { v = array(what, n); }
  void vec3s(const char* what, std::vector<Vec3>& v, std::size_t n);
  void vec4s(const char* what, std::vector<Vec4>& v, std::size_t n);
  template <class T, class F>
  void section(const char* what, std::optional<T>& v, F&& fields) {
    bool present = false;
    flag(what, present);
    if (onSection) onSection(what, present);
    if (present) fields(v.emplace());
  }
  // The blob holds nothing after the described values.
  void end() const;
  [[noreturn]] void fail(const std::string& problem) const;

 private:
  double get(const char* what);
  double finite(const char* what);
  double count(const char* what, double max);  // a whole number in [0, max]
  std::vector<double> array(const char* what, std::size_t n);

  std::span<const double> b_;
  std::string where_;
  std::size_t at_ = 0;
};

}  // namespace kinema::der
