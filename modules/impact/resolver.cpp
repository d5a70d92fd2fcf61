#include "modules/impact/resolver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <vector>

#include "framework/core/error.hpp"

namespace kinema::impact {

double minRelativeFeasibility(const ImpactSystem& system, const Eigen::VectorXd& qdot) {
  const double nrm = system.normM(qdot);
  double worst = std::numeric_limits<double>::infinity();
  for (int i = 0; i < system.numConstraints(); ++i) worst = std::min(worst, system.dot(i, qdot));
  if (system.numConstraints() == 0) return worst;
  return nrm > 0.0 ? worst / nrm : 0.0;
}

Resolver::Resolver(ResolverOptions options) : options_(std::move(options)) {
  const auto& o = options_;
  if (!(o.epsilon >= 0.0) || !(o.epsilon < 1.0))
    throw InputError(str("impact resolver: epsilon must be in [0, 1), got ", o.epsilon));
  if (o.maxIterations < 0) throw InputError(str("impact resolver: max iterations must be >= 0, got ", o.maxIterations));
  if (o.cycleWindow < 1) throw InputError(str("impact resolver: cycle window must be >= 1, got ", o.cycleWindow));
  if (o.stallWindow < 1) throw InputError(str("impact resolver: stall window must be >= 1, got ", o.stallWindow));
}

double Resolver::threshold(const ImpactSystem& system, const Eigen::VectorXd& qdot) const {
  return options_.arithmetic == Arithmetic::Relaxed ? options_.epsilon * system.normM(qdot) : 0.0;
}

ResolveResult Resolver::resolve(const ImpactSystem& system, ImpactOperator& op, const Eigen::VectorXd& qdot0) {
  const auto t0 = std::chrono::steady_clock::now();
  const int d = system.dofs(), m = system.numConstraints();
  if (qdot0.size() != d)
    throw InputError(str("impact resolver: the velocity has ", qdot0.size(), " entries, the system ", d, " DOFs"));
  if (!qdot0.allFinite()) throw InputError("impact resolver: the initial velocity has a NaN or infinite entry");
  const bool hasW = options_.certificate.size() > 0;
  if (hasW && options_.certificate.size() != d)
    throw InputError(str("impact resolver: the certificate has ", options_.certificate.size(), " entries, d = ", d));

  ResolveResult res;
  ResolverStats& st = res.stats;
  res.qdot = qdot0;
  res.impulse.setZero(m);
  Eigen::VectorXd& v = res.qdot;
  Eigen::VectorXd before(d), lambda(m);  // preallocated for the loop
  op.setup(system);
  CycleDetector cycles(options_.cycleWindow, options_.cycleTolerance);
  if (options_.detectCycles) cycles.reset(system, v);
  const bool relaxed = options_.arithmetic == Arithmetic::Relaxed;
  const double norm0 = system.normM(qdot0);  // ‖q̇_0‖_M, the renormalisation target
  st.energyBefore = 0.5 * norm0 * norm0;
  const double wNorm = hasW ? system.normM(options_.certificate) : 0.0;
  double kw = hasW ? system.dotM(options_.certificate, v) : 0.0;
  double kwMark = kw;
  long markIter = 0;

  // s = Nᵀq̇, kept up to date incrementally (specs 6.2 [I]): after a step only the constraints
  // sharing a body with an impulse change; renormalisation scales all of s. A full recompute every
  // kRefresh iterations bounds the round-off of the repeated scaling.
  constexpr long kRefresh = 256;
  Eigen::VectorXd s(m);
  std::vector<long> stamp(m, -1);
  system.NT(v, s);
  auto feasible = [&](double tau) {
    for (int i = 0; i < m; ++i)
      if (s[i] < -tau) return false;
    return true;
  };
  auto refresh = [&](long it) {
    for (int i = 0; i < m; ++i) {
      if (lambda[i] == 0.0) continue;
      for (int b : system.constraint(i).body) {
        if (b < 0) continue;
        for (int j : system.constraintsOfBody(b))
          if (stamp[j] != it) stamp[j] = it, s[j] = system.dot(j, v);
      }
    }
  };
  double curNorm = norm0;  // ‖q̇_i‖_M, tracked so that each iteration computes one norm
  StepContext ctx;
  ctx.s = &s;
  for (long it = 0;; ++it) {
    ctx.iteration = it;
    ctx.threshold = relaxed ? options_.epsilon * curNorm : 0.0;
    if (feasible(ctx.threshold)) {  // Algorithm 1/3 exit test
      st.converged = true;
      break;
    }
    if (it >= options_.maxIterations) {
      st.capReached = true;
      break;
    }
    before = v;
    const double nb = curNorm;
    op.apply(system, v, ctx, lambda);
    const double na = system.normM(v);
    if (nb > 0.0) st.maxStepEnergyChange = std::max(st.maxStepEnergyChange, std::abs(na * na - nb * nb) / (nb * nb));
    for (int i = 0; i < m; ++i)
      if (lambda[i] != 0.0) ++st.impulses, res.impulse[i] += lambda[i];
    const bool rescale = relaxed && options_.renormalise && na > 0.0;
    curNorm = rescale ? norm0 : na;
    if ((it + 1) % kRefresh == 0) {
      if (rescale) v *= norm0 / na;  // Algorithms 3/4 (ϵDRIFT)
      system.NT(v, s);
    } else {
      refresh(it);
      if (rescale) {  // Algorithms 3/4 (ϵDRIFT)
        const double f = norm0 / na;
        v *= f;
        s *= f;
      }
    }
    st.iterations = it + 1;
    if (observer_) observer_(it, before, v, lambda);
    if (!v.allFinite())
      throw Error(str("impact resolver: operator ", op.name(), " produced a non-finite velocity at iteration ", it));
    if (options_.detectCycles && !st.cycleDetected) {
      const int period = cycles.push(system, v);
      if (period > 0) {
        st.cycleDetected = true;
        st.cyclePeriod = period;
        st.cycleFirstSeen = it + 1;
        if (options_.stopOnCycle && op.memoryless()) break;
      }
    }
    if (hasW) {
      const double k = system.dotM(options_.certificate, v);
      const double tol = options_.certificateTolerance * wNorm * norm0;
      if (k < kw - tol) st.certificateDecreased = true;
      kw = k;
      if (kw > kwMark + tol) kwMark = kw, markIter = it + 1;
      else if (it + 1 - markIter >= options_.stallWindow) st.certificateStalled = true;
    }
  }
  st.energyAfter = system.kineticEnergy(v);
  st.relativeEnergyDrift = st.energyBefore > 0.0 ? (st.energyAfter - st.energyBefore) / st.energyBefore
                                                  : st.energyAfter;
  st.minRelativeFeasibility = minRelativeFeasibility(system, v);
  st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::string r = str("impact resolution with ", op.name(), " (", relaxed ? "relaxed, epsilon " : "exact",
                      relaxed ? str(options_.epsilon) : std::string(), "): ");
  if (st.converged) {
    r += str("feasible after ", st.iterations, " iterations, ", st.impulses, " impulses, relative energy drift ",
             st.relativeEnergyDrift);
  } else {
    r += str("NOT resolved: stopped after ", st.iterations, " iterations",
             st.capReached ? str(" (the cap ", options_.maxIterations, ")") : std::string(" (cycle)"),
             ", min n_i^T qdot/|qdot|_M = ", st.minRelativeFeasibility, ".");
  }
  if (st.cycleDetected) {
    if (st.cyclePeriod == 1)
      r += str(" The operator left an infeasible velocity unchanged (to round-off) at iteration ", st.cycleFirstSeen,
               ": either it violates (MOD), or the remaining violation is too small for any impulse to change ",
               "q̇ in floating point (use the epsilon-relaxed test, specs/impact.md 2.12).");
    else
      r += str(" The velocity revisited an earlier iterate (period ", st.cyclePeriod, ", first seen at iteration ",
               st.cycleFirstSeen, "): the constraints most likely contain an implicit equality (lineality, ",
               "specs/impact.md 2.5), under which no (NORM)..(MOD) operator terminates; detect and project ",
               "it out (anti-locking, Algorithm 2).");
  }
  if (st.certificateStalled && !st.converged)
    r += " The certificate k_w made no progress: lineality is the likely cause.";
  if (st.maxStepEnergyChange > 1e-8)
    r += str(" The operator changed the kinetic energy by up to ", st.maxStepEnergyChange,
             " (relative) in one step: it breaks (KIN)",
             relaxed && options_.renormalise ? "; renormalisation, meant for round-off drift, is not valid for it." : ".");
  if (st.certificateDecreased) r += " The certificate k_w decreased: the operator breaks (NORM) or (ONE).";
  st.report = r;
  return res;
}

}  // namespace kinema::impact
