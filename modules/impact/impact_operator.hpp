#pragma once
// The impact operator R = R_N^i : TQ -> TQ of the paper's Algorithm 1 (Secs. 1-2): one application
// maps q̇_i to q̇_{i+1} = q̇_i + M⁻¹Nλ and reports the impulses λ it applied, so that the
// desiderata (NORM, KIN, ONE, VIO, MOD; desiderata.hpp) can be checked on any operator, built-in
// or a user's own. Operators are registered by name (impactOperators()).
#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "framework/core/registry.hpp"
#include "modules/impact/impact_system.hpp"

namespace kinema::impact {

// What the caller tells one application of R.
struct StepContext {
  long iteration = 0;     // i in q̇_{i+1} = R(q̇_i); 0 starts a new resolution
  // Constraint i counts as violated iff n_iᵀq̇ < −threshold. Exact mode: 0. Relaxed mode
  // (Algorithms 3/4): ϵ‖q̇_i‖_M (paper §7).
  double threshold = 0.0;
  // Optional: Nᵀq̇ for the q̇ handed to apply() (the resolver keeps it up to date incrementally,
  // README decision 4). Null: the operator computes what it needs itself.
  const Eigen::VectorXd* s = nullptr;
};

// n_iᵀq̇ from the context's cache if there is one.
inline double normalVelocity(const ImpactSystem& system, const StepContext& ctx, const Eigen::VectorXd& qdot, int i) {
  return ctx.s ? (*ctx.s)[i] : system.dot(i, qdot);
}

class ImpactOperator {
 public:
  virtual ~ImpactOperator() = default;
  virtual std::string name() const = 0;
  // Prepares work space for `system` (allocation happens here, not in apply). Called by the
  // resolver once per resolution; apply() calls it itself when the system changed size.
  virtual void setup(const ImpactSystem& system) = 0;
  // One application of R: updates qdot in place and writes λ (size m, zero where no impulse).
  virtual void apply(const ImpactSystem& system, Eigen::VectorXd& qdot, const StepContext& context,
                     Eigen::VectorXd& lambda) = 0;
  // True if R(q̇) depends on q̇ only (not on the iteration count or hidden state). A revisited
  // velocity then proves a cycle (resolver.hpp).
  virtual bool memoryless() const { return true; }
};

using ImpactOperatorPtr = std::unique_ptr<ImpactOperator>;

// Convenience form apply(system, qdot, iteration) -> λ (allocates; for tests and scripts).
Eigen::VectorXd applyOnce(ImpactOperator& op, const ImpactSystem& system, Eigen::VectorXd& qdot,
                          long iteration = 0, double threshold = 0.0);

// Options every built-in operator reads (unused ones are ignored).
struct OperatorOptions {
  std::uint64_t seed = 1;        // random selection
  double qpTolerance = 1e-13;    // GR / inelastic QP: KKT residual relative to ‖q̇‖_M (README decision 4)
  // MPRGP stops at this projected gradient (relative); an exact active-set polish then brings the
  // KKT residual to qpTolerance (MPRGP alone stalls near round-off on singular A).
  double mprgpTolerance = 1e-10;
  int qpMaxIterations = 10000;   // MPRGP iteration cap per QP
  // Largest free set the dense active-set polish factorises (O(|F|³)); above it the MPRGP result
  // stands and QpStats::converged reports whether it met qpTolerance.
  int polishMaxSize = 600;
  std::string backend = "eigen"; // la backend for the QP vectors (one rank)
};

struct ImpactOperatorEntry {
  std::string name;
  std::string help;
  std::function<ImpactOperatorPtr(const OperatorOptions&)> make;
};

// The registry of impact operators, with the built-ins (gs-lexicographic, gs-random,
// gs-most-violated, gs-cyclic, jacobi-naive, jacobi-colored, gr) already added. Users add theirs.
NamedRegistry<ImpactOperatorEntry>& impactOperators();
ImpactOperatorPtr makeImpactOperator(const std::string& name, const OperatorOptions& options = {});

}  // namespace kinema::impact
