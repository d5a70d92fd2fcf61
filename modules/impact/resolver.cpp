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
  if (o.lazyIterations < 0)
    throw InputError(str("impact resolver: lazy anti-locking iterations must be >= 0, got ", o.lazyIterations));
  if (!(o.projectionDropTolerance >= 0.0) || !(o.projectionDropTolerance < 1.0))
    throw InputError(str("impact resolver: projection drop tolerance must be in [0, 1), got ",
                         o.projectionDropTolerance));
}

double Resolver::threshold(const ImpactSystem& system, const Eigen::VectorXd& qdot) const {
  return options_.arithmetic == Arithmetic::Relaxed ? options_.epsilon * system.normM(qdot) : 0.0;
}

ResolveResult Resolver::resolve(const ImpactSystem& system, ImpactOperator& op, const Eigen::VectorXd& qdot0) {
  const int d = system.dofs();
  if (qdot0.size() != d)
    throw InputError(str("impact resolver: the velocity has ", qdot0.size(), " entries, the system ", d, " DOFs"));
  if (!qdot0.allFinite()) throw InputError("impact resolver: the initial velocity has a NaN or infinite entry");
  if (options_.certificate.size() > 0 && options_.certificate.size() != d)
    throw InputError(str("impact resolver: the certificate has ", options_.certificate.size(), " entries, d = ", d));
  if (options_.antiLocking != AntiLockingMode::Off) return resolveAntiLocked(system, op, qdot0);
  const auto t0 = std::chrono::steady_clock::now();
  ResolveResult res =
      run(system, op, qdot0, {options_.maxIterations, nullptr, -1, &observer_, &options_.certificate}).result;
  res.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  finish(system, res.stats, res.qdot, op.name());
  return res;
}

Resolver::LoopResult Resolver::run(const ImpactSystem& system, ImpactOperator& op, const Eigen::VectorXd& qdot0,
                                   const LoopSpec& spec) const {
  const int d = system.dofs(), m = system.numConstraints();
  const long cap = spec.cap, checkAt = spec.checkAt;
  const LazyCheck* lazyCheck = spec.lazyCheck && *spec.lazyCheck ? spec.lazyCheck : nullptr;
  const Observer* observer = spec.observer && *spec.observer ? spec.observer : nullptr;
  static const Eigen::VectorXd kNoCertificate;
  const Eigen::VectorXd& certificate = spec.certificate ? *spec.certificate : kNoCertificate;
  const bool hasW = certificate.size() > 0;
  LoopResult out;
  ResolveResult& res = out.result;
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
  const double wNorm = hasW ? system.normM(certificate) : 0.0;
  double kw = hasW ? system.dotM(certificate, v) : 0.0;
  double kwMark = kw;
  long markIter = 0;

  // s = Nᵀq̇, kept up to date incrementally (README decision 3): after a step only the constraints
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
  bool asked = false, pendingCycle = false;
  ctx.s = &s;
  for (long it = 0;; ++it) {
    ctx.iteration = it;
    ctx.threshold = relaxed ? options_.epsilon * curNorm : 0.0;
    if (feasible(ctx.threshold)) {  // Algorithm 1/3 exit test
      st.converged = true;
      break;
    }
    if (lazyCheck && !asked && (it == checkAt || pendingCycle)) {  // lazy anti-locking (README decision 13)
      asked = true;
      if ((*lazyCheck)(it)) {
        out.interrupted = true;
        break;
      }
      if (pendingCycle && options_.stopOnCycle && op.memoryless()) break;
    }
    if (it >= cap) {
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
    if (observer) (*observer)(it, before, v, lambda);
    if (!v.allFinite())
      throw Error(str("impact resolver: operator ", op.name(), " produced a non-finite velocity at iteration ", it));
    if (options_.detectCycles && !st.cycleDetected) {
      const int period = cycles.push(system, v);
      if (period > 0) {
        st.cycleDetected = true;
        st.cyclePeriod = period;
        st.cycleFirstSeen = it + 1;
        // Lazy: a revisit with period >= 2 is the signature of lineality (paper §4): detect now,
        // before stopping. (Period 1 is a round-off stall, not lineality.)
        if (lazyCheck && !asked && period > 1) pendingCycle = true;
        else if (options_.stopOnCycle && op.memoryless()) break;
      }
    }
    if (hasW) {
      const double k = system.dotM(certificate, v);
      const double tol = options_.certificateTolerance * wNorm * norm0;
      if (k < kw - tol) st.certificateDecreased = true;
      kw = k;
      if (kw > kwMark + tol) kwMark = kw, markIter = it + 1;
      else if (it + 1 - markIter >= options_.stallWindow) st.certificateStalled = true;
    }
  }
  return out;
}

void Resolver::finish(const ImpactSystem& system, ResolverStats& st, const Eigen::VectorXd& v,
                      const std::string& opName) const {
  const bool relaxed = options_.arithmetic == Arithmetic::Relaxed;
  st.energyAfter = system.kineticEnergy(v);
  // Drift of the loop itself: relative to the energy left after the anti-locking projection
  // (energyRemoved = 0 without it, which is the plain (E_after − E_before)/E_before).
  const double ref = st.energyBefore - st.energyRemoved;
  if (ref > 1e-12 * st.energyBefore) st.relativeEnergyDrift = (st.energyAfter - ref) / ref;
  else if (st.energyBefore > 0.0) st.relativeEnergyDrift = (st.energyAfter - ref) / st.energyBefore;
  else st.relativeEnergyDrift = st.energyAfter;
  st.minRelativeFeasibility = minRelativeFeasibility(system, v);

  std::string r = str("impact resolution with ", opName, " (", relaxed ? "relaxed, epsilon " : "exact",
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
               "q̇ in floating point (use the epsilon-relaxed test of the paper's Sec. 7).");
    else
      r += str(" The velocity revisited an earlier iterate (period ", st.cyclePeriod, ", first seen at iteration ",
               st.cycleFirstSeen, "): the constraints most likely contain an implicit equality (lineality, ",
               "the paper's Sec. 4), under which no (NORM)..(MOD) operator terminates; detect and project ",
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
}

// ---- Algorithm 2: anti-locking (paper §4-4.1; anti_locking.hpp) ---------------------------------

LinealityOptions Resolver::linealityOptions() const {
  LinealityOptions lo = options_.lineality;
  // ϵ of the detection = the loop's ϵ (relaxed), 0 (exact); LP-2 is exact-only.
  lo.epsilon = options_.arithmetic == Arithmetic::Relaxed && lo.method != LinealityMethod::lp2 ? options_.epsilon : 0.0;
  return lo;
}

ResolveResult Resolver::runProjected(const ImpactSystem& system, const ProjectedProblem& pp, ImpactOperator& op,
                                     const Eigen::VectorXd& v, long cap, long iterationOffset) const {
  const int m = system.numConstraints();
  const auto kept = static_cast<Eigen::Index>(pp.kept.size());
  ResolveResult res;
  if (pp.representable) {
    // An impulse λ on the projected constraint c (normalised n̂_c = n̄_i/(scale_c‖n̄_i‖), i = kept[c])
    // is λ/(scale_c‖n̄_i‖) times n̄_i = n_i − E(EᵀM⁻¹n_i): that factor maps it to constraint i.
    Eigen::VectorXd factor(kept);
    for (Eigen::Index c = 0; c < kept; ++c)
      factor[c] = 1.0 / (pp.scale[static_cast<std::size_t>(c)] * pp.relNorm[static_cast<std::size_t>(pp.kept[c])]);
    Eigen::VectorXd full = Eigen::VectorXd::Zero(m);  // observer λ in original indices (no allocation per step)
    Observer obs;
    if (observer_)
      obs = [&](long it, const Eigen::VectorXd& b, const Eigen::VectorXd& a, const Eigen::VectorXd& lp) {
        for (Eigen::Index c = 0; c < kept; ++c) full[pp.kept[static_cast<std::size_t>(c)]] = lp[c] * factor[c];
        observer_(iterationOffset + it, b, a, full);
      };
    ResolveResult r = run(pp.system, op, v, {cap, nullptr, -1, &obs, &options_.certificate}).result;
    res.qdot = std::move(r.qdot);
    res.stats = r.stats;
    res.impulse.setZero(m);
    for (Eigen::Index c = 0; c < kept; ++c) res.impulse[pp.kept[static_cast<std::size_t>(c)]] = r.impulse[c] * factor[c];
  } else {
    ResolverStats& st = res.stats;
    res.qdot = v;
    res.impulse.setZero(m);
    const Eigen::MatrixXd MinvN = pp.Minv * pp.N;
    Eigen::VectorXd imp = Eigen::VectorXd::Zero(kept);
    const bool relaxed = options_.arithmetic == Arithmetic::Relaxed;
    const DenseGsResult g =
        denseGaussSeidel(system, pp.N, MinvN, relaxed, options_.epsilon, cap, res.qdot, imp);
    st.iterations = st.impulses = g.iterations;
    st.converged = g.converged;
    st.capReached = !g.converged;
    st.denseFallback = true;
    for (Eigen::Index c = 0; c < kept; ++c)
      res.impulse[pp.kept[static_cast<std::size_t>(c)]] = imp[c] / pp.relNorm[static_cast<std::size_t>(pp.kept[c])];
  }
  return res;
}

ResolveResult Resolver::resolveAntiLocked(const ImpactSystem& system, ImpactOperator& op, const Eigen::VectorXd& qdot0) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  auto since = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
  const bool relaxed = options_.arithmetic == Arithmetic::Relaxed;
  const LinealityOptions lo = linealityOptions();
  LinealityResult lin;
  bool detected = false;
  double alSeconds = 0.0;
  std::string failure;
  auto detect = [&] {  // Algorithm 2 line 2
    const auto t = clock::now();
    try {
      lin = detectSystemLineality(system, lo);
      detected = true;
    } catch (const InputError&) {
      throw;  // bad options or input: the caller's to fix
    } catch (const Error& e) {
      // An LP that ends non-optimal with both simplex algorithms must not fail the resolution: go on
      // as Algorithm 1/3/4 (the cap and the cycle report still apply) and say so.
      failure = e.what();
      lin = LinealityResult{};
    }
    alSeconds += since(t);
  };

  ResolveResult res;
  Eigen::VectorXd v;  // the velocity to project (I ≠ ∅)
  std::string note;
  if (options_.antiLocking == AntiLockingMode::Eager) {
    detect();
    v = qdot0;
    if (!lin.hasLineality()) {  // Algorithm 2 = Algorithm 1 on the unchanged input: identical results
      Eigen::VectorXd w = options_.certificate;
      if (w.size() == 0 && options_.certificateFromLineality && lin.certificate.size() == system.dofs() &&
          lin.certificateMargin >= (relaxed ? options_.epsilon : 0.0))
        w = lin.certificate;  // LP-1's strictly feasible w (Lemma 5.1 / 7.1) for the k_w check
      res = run(system, op, qdot0, {options_.maxIterations, nullptr, -1, &observer_, &w}).result;
    }
  } else {  // lazy (README decision 13)
    const long K = std::min(options_.lazyIterations, options_.maxIterations);
    long detectedAt = -1;
    const LazyCheck check = [&](long it) {
      detectedAt = it;
      detect();
      return lin.hasLineality();
    };
    LoopResult loop = run(system, op, qdot0, {options_.maxIterations, &check, K, &observer_, &options_.certificate});
    res = std::move(loop.result);
    if (loop.interrupted) {
      v = res.qdot;  // project the current iterate
      note = str(" Lazy: detection after ", res.stats.iterations, " plain iterations",
                 res.stats.cycleDetected ? str(" (a cycle of period ", res.stats.cyclePeriod, " was seen)") : std::string(),
                 ".");
    } else if (detected) {
      note = str(" Lazy: detection after ", detectedAt, " plain iterations",
                 detectedAt < K ? " (a cycle was seen)" : "", " found no implicit equality; the loop went on.");
    } else if (detectedAt < 0) {
      note = str(" Lazy: terminated within ", K, " plain iterations; no detection needed.");
    }
  }

  int removed = 0, lpSolves = 0, nI = 0, rank = 0;
  double lpSeconds = 0.0, energyRemoved = 0.0;
  bool fallback = false;
  long plainIterations = 0;
  if (detected) {
    lpSolves = lin.lpSolves;
    lpSeconds = lin.seconds;
    nI = static_cast<int>(lin.implicitEqualities.size());
    rank = lin.rank();
  }
  if (detected && lin.hasLineality()) {
    const ResolverStats plain = res.stats;  // lazy: the plain part (empty for eager)
    const Eigen::VectorXd plainImpulse = res.impulse;
    plainIterations = plain.iterations;
    const auto tp = clock::now();
    const ProjectedProblem pp = projectSystem(system, std::move(lin), lo, options_.projectionDropTolerance);
    energyRemoved = projectIterate(pp, v);  // line 3 (lazy: the current iterate)
    alSeconds += since(tp);
    removed = static_cast<int>(pp.removed.size());
    fallback = !pp.representable;
    res = runProjected(system, pp, op, v, options_.maxIterations - plainIterations, plainIterations);
    ResolverStats& st = res.stats;
    st.iterations += plainIterations;
    st.impulses += plain.impulses;
    st.maxStepEnergyChange = std::max(st.maxStepEnergyChange, plain.maxStepEnergyChange);
    st.certificateDecreased = st.certificateDecreased || plain.certificateDecreased;
    if (plainImpulse.size() == res.impulse.size()) res.impulse += plainImpulse;
    if (fallback)
      note += str(" The projected constraints spread over more than two bodies (constraint ", pp.firstSpread,
                  "): the projected problem was resolved by the dense pairwise Gauss-Seidel fallback, not by ",
                  op.name(), ".");
  }
  ResolverStats& st = res.stats;
  st.energyBefore = system.kineticEnergy(qdot0);
  st.antiLocking = options_.antiLocking;
  st.linealityDetections = detected ? 1 : 0;
  st.implicitEqualities = nI;
  st.linealityRank = rank;
  st.constraintsRemoved = removed;
  st.energyRemoved = energyRemoved;
  st.iterationsBeforeProjection = plainIterations;
  st.denseFallback = fallback;
  st.lpSolves = lpSolves;
  st.lpSeconds = lpSeconds;
  st.antiLockingSeconds = alSeconds;
  st.seconds = since(t0);
  st.lpFraction = st.seconds > 0.0 ? lpSeconds / st.seconds : 0.0;
  finish(system, st, res.qdot, fallback ? std::string("dense pairwise GS (anti-locking fallback)") : op.name());
  if (detected)
    st.report += str(" Anti-locking (", toString(options_.antiLocking), ", Algorithm 2): ",
                     nI > 0 ? str(nI, " implicit equalities (rank ", rank, "), ", removed,
                                  " constraints removed, kinetic energy ", energyRemoved, " removed by the projection (",
                                  st.energyBefore > 0.0 ? 100.0 * energyRemoved / st.energyBefore : 0.0, "%)")
                            : std::string("no implicit equalities"),
                     "; ", lpSolves, " LP", lpSolves == 1 ? "" : "s", ", ", lpSeconds, " s (",
                     100.0 * st.lpFraction, "% of the resolution).");
  st.linealityFailed = !failure.empty();
  if (!failure.empty())
    st.report += str(" Anti-locking: lineality detection FAILED, resolved without it (Algorithm 1/3/4): ", failure);
  st.report += note;
  return res;
}

}  // namespace kinema::impact
