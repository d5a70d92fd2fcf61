#include "modules/impact/resolver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <vector>

#include "framework/core/error.hpp"

namespace kinema::impact {

namespace {

using Clock = std::chrono::steady_clock;

// Wall seconds since t.
double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// s = Nᵀq̇, kept up to date incrementally (README decision 3): after a step only the constraints
// sharing a body with an impulse change; renormalisation scales all of s. A full recompute every
// kRefresh iterations bounds the round-off of the repeated scaling.
class IncrementalSlacks {
 public:
  IncrementalSlacks(const ImpactSystem& system, const Eigen::VectorXd& v)
      : system_(system), m_(system.numConstraints()), s_(m_), stamp_(m_, -1) {
    system_.NT(v, s_);
  }
  const Eigen::VectorXd& s() const { return s_; }

  // Algorithm 1/3 exit test: s_i ≥ −τ for every constraint.
  bool feasible(double tau) const {
    for (int i = 0; i < m_; ++i)
      if (s_[i] < -tau) return false;
    return true;
  }

  // After step `it` with impulses λ: s brought up to date, and v (and s) renormalised to ‖q̇_0‖_M = norm0
  // from na = ‖q̇‖_M if `rescale`.
  void update(long it, const Eigen::VectorXd& lambda, bool rescale, double norm0, double na, Eigen::VectorXd& v) {
    if ((it + 1) % kRefresh == 0) {
      if (rescale) v *= norm0 / na;  // Algorithms 3/4 (ϵDRIFT)
      system_.NT(v, s_);
    } else {
      refresh(it, lambda, v);
      if (rescale) {  // Algorithms 3/4 (ϵDRIFT)
        const double f = norm0 / na;
        v *= f;
        s_ *= f;
      }
    }
  }

 private:
  static constexpr long kRefresh = 256;

  // Recomputes s_j once for every constraint j sharing a body with a nonzero λ_i.
  void refresh(long it, const Eigen::VectorXd& lambda, const Eigen::VectorXd& v) {
    for (int i = 0; i < m_; ++i) {
      if (lambda[i] == 0.0) continue;
      for (int b : system_.constraint(i).body) {
        if (b < 0) continue;
        for (int j : system_.constraintsOfBody(b))
          if (stamp_[j] != it) stamp_[j] = it, s_[j] = system_.dot(j, v);
      }
    }
  }

  const ImpactSystem& system_;
  int m_;
  Eigen::VectorXd s_;
  std::vector<long> stamp_;
};

// The k_w check of Lemma 5.1 with a certificate w: k_w = ⟨w, q̇⟩_M must not decrease, and no
// progress over `stallWindow` iterations is a stall. Inactive without a certificate.
struct CertificateWatch {
  CertificateWatch(const ImpactSystem& system, const Eigen::VectorXd& w, const Eigen::VectorXd& v)
      : w(w), active(w.size() > 0), wNorm(active ? system.normM(w) : 0.0), kw(active ? system.dotM(w, v) : 0.0),
        kwMark(kw) {}

  // Records step `it` (v after it) in st.
  void update(const ImpactSystem& system, const Eigen::VectorXd& v, long it, const ResolverOptions& o, double norm0,
              ResolverStats& st) {
    const double k = system.dotM(w, v);
    const double tol = o.certificateTolerance * wNorm * norm0;
    if (k < kw - tol) st.certificateDecreased = true;
    kw = k;
    if (kw > kwMark + tol) kwMark = kw, markIter = it + 1;
    else if (it + 1 - markIter >= o.stallWindow) st.certificateStalled = true;
  }

  const Eigen::VectorXd& w;
  const bool active;
  const double wNorm;
  double kw, kwMark;
  long markIter = 0;
};

// Pushes v into the cycle detector; on a revisit records it in st (period, first iteration) and returns true.
bool recordCycle(CycleDetector& cycles, const ImpactSystem& system, const Eigen::VectorXd& v, long it,
                 ResolverStats& st) {
  const int period = cycles.push(system, v);
  if (period <= 0) return false;
  st.cycleDetected = true;
  st.cyclePeriod = period;
  st.cycleFirstSeen = it + 1;
  return true;
}

// Algorithm 2 line 2 (lineality detection) and what it cost; a failed LP is recorded, not thrown.
struct Detection {
  LinealityResult lin;
  bool detected = false;
  double seconds = 0.0;  // detection + projection + building the projected system
  std::string failure;
};

// Runs the detection into det, adding its wall time to det.seconds.
void detectInto(const ImpactSystem& system, const LinealityOptions& lo, Detection& det) {
  const auto t = Clock::now();
  try {
    det.lin = detectSystemLineality(system, lo);
    det.detected = true;
  } catch (const InputError&) {
    throw;  // bad options or input: the caller's to fix
  } catch (const Error& e) {
    // An LP that ends non-optimal with both simplex algorithms must not fail the resolution: go on
    // as Algorithm 1/3/4 (the cap and the cycle report still apply) and say so.
    det.failure = e.what();
    det.lin = LinealityResult{};
  }
  det.seconds += secondsSince(t);
}

// The report's note on the lazy variant's plain part (empty if it says nothing).
std::string lazyNote(const ResolverStats& plain, bool interrupted, bool detected, long detectedAt, long K) {
  if (interrupted)
    return str(" Lazy: detection after ", plain.iterations, " plain iterations",
               plain.cycleDetected ? str(" (a cycle of period ", plain.cyclePeriod, " was seen)") : std::string(), ".");
  if (detected)
    return str(" Lazy: detection after ", detectedAt, " plain iterations", detectedAt < K ? " (a cycle was seen)" : "",
               " found no implicit equality; the loop went on.");
  if (detectedAt < 0) return str(" Lazy: terminated within ", K, " plain iterations; no detection needed.");
  return std::string();
}

// What Algorithm 2 did, for the stats and the report.
struct AntiLockingSummary {
  int removed = 0, lpSolves = 0, nI = 0, rank = 0;
  double lpSeconds = 0.0, energyRemoved = 0.0;
  bool fallback = false;
  long plainIterations = 0;
};

// The detection's counts (zero without a successful detection); read before lin is moved.
AntiLockingSummary summariseDetection(const Detection& det) {
  AntiLockingSummary a;
  if (det.detected) {
    a.lpSolves = det.lin.lpSolves;
    a.lpSeconds = det.lin.seconds;
    a.nI = static_cast<int>(det.lin.implicitEqualities.size());
    a.rank = det.lin.rank();
  }
  return a;
}

// Adds the lazy variant's plain part (stats and impulses) to the projected run's result.
void addPlainPart(const ResolverStats& plain, const Eigen::VectorXd& plainImpulse, ResolveResult& res) {
  ResolverStats& st = res.stats;
  st.iterations += plain.iterations;
  st.impulses += plain.impulses;
  st.maxStepEnergyChange = std::max(st.maxStepEnergyChange, plain.maxStepEnergyChange);
  st.certificateDecreased = st.certificateDecreased || plain.certificateDecreased;
  if (plainImpulse.size() == res.impulse.size()) res.impulse += plainImpulse;
}

// The anti-locking fields of the stats (all but seconds and lpFraction).
void recordAntiLocking(AntiLockingMode mode, const Detection& det, const AntiLockingSummary& a, ResolverStats& st) {
  st.antiLocking = mode;
  st.linealityDetections = det.detected ? 1 : 0;
  st.implicitEqualities = a.nI;
  st.linealityRank = a.rank;
  st.constraintsRemoved = a.removed;
  st.energyRemoved = a.energyRemoved;
  st.iterationsBeforeProjection = a.plainIterations;
  st.denseFallback = a.fallback;
  st.lpSolves = a.lpSolves;
  st.lpSeconds = a.lpSeconds;
  st.antiLockingSeconds = det.seconds;
}

// The report's sentence on a successful detection.
std::string antiLockingReport(AntiLockingMode mode, const AntiLockingSummary& a, const ResolverStats& st) {
  return str(" Anti-locking (", toString(mode), ", Algorithm 2): ",
             a.nI > 0 ? str(a.nI, " implicit equalities (rank ", a.rank, "), ", a.removed,
                            " constraints removed, kinetic energy ", a.energyRemoved, " removed by the projection (",
                            st.energyBefore > 0.0 ? 100.0 * a.energyRemoved / st.energyBefore : 0.0, "%)")
                      : std::string("no implicit equalities"),
             "; ", a.lpSolves, " LP", a.lpSolves == 1 ? "" : "s", ", ", a.lpSeconds, " s (", 100.0 * st.lpFraction,
             "% of the resolution).");
}

}  // namespace

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
  CertificateWatch cert(system, certificate, v);
  IncrementalSlacks slacks(system, v);
  double curNorm = norm0;  // ‖q̇_i‖_M, tracked so that each iteration computes one norm
  StepContext ctx;
  bool asked = false, pendingCycle = false;
  ctx.s = &slacks.s();
  for (long it = 0;; ++it) {
    ctx.iteration = it;
    ctx.threshold = relaxed ? options_.epsilon * curNorm : 0.0;
    if (slacks.feasible(ctx.threshold)) {  // Algorithm 1/3 exit test
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
    slacks.update(it, lambda, rescale, norm0, na, v);
    st.iterations = it + 1;
    if (observer) (*observer)(it, before, v, lambda);
    if (!v.allFinite())
      throw Error(str("impact resolver: operator ", op.name(), " produced a non-finite velocity at iteration ", it));
    if (options_.detectCycles && !st.cycleDetected && recordCycle(cycles, system, v, it, st)) {
      // Lazy: a revisit with period >= 2 is the signature of lineality (paper §4): detect now,
      // before stopping. (Period 1 is a round-off stall, not lineality.)
      if (lazyCheck && !asked && st.cyclePeriod > 1) pendingCycle = true;
      else if (options_.stopOnCycle && op.memoryless()) break;
    }
    if (cert.active) cert.update(system, v, it, options_, norm0, st);
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
  const auto t0 = Clock::now();
  const bool relaxed = options_.arithmetic == Arithmetic::Relaxed;
  const LinealityOptions lo = linealityOptions();
  Detection det;
  auto detect = [&] { detectInto(system, lo, det); };  // Algorithm 2 line 2

  ResolveResult res;
  Eigen::VectorXd v;  // the velocity to project (I ≠ ∅)
  std::string note;
  if (options_.antiLocking == AntiLockingMode::Eager) {
    detect();
    v = qdot0;
    if (!det.lin.hasLineality()) {  // Algorithm 2 = Algorithm 1 on the unchanged input: identical results
      Eigen::VectorXd w = options_.certificate;
      if (w.size() == 0 && options_.certificateFromLineality && det.lin.certificate.size() == system.dofs() &&
          det.lin.certificateMargin >= (relaxed ? options_.epsilon : 0.0))
        w = det.lin.certificate;  // LP-1's strictly feasible w (Lemma 5.1 / 7.1) for the k_w check
      res = run(system, op, qdot0, {options_.maxIterations, nullptr, -1, &observer_, &w}).result;
    }
  } else {  // lazy (README decision 13)
    const long K = std::min(options_.lazyIterations, options_.maxIterations);
    long detectedAt = -1;
    const LazyCheck check = [&](long it) {
      detectedAt = it;
      detect();
      return det.lin.hasLineality();
    };
    LoopResult loop = run(system, op, qdot0, {options_.maxIterations, &check, K, &observer_, &options_.certificate});
    res = std::move(loop.result);
    if (loop.interrupted) v = res.qdot;  // project the current iterate
    note = lazyNote(res.stats, loop.interrupted, det.detected, detectedAt, K);
  }

  AntiLockingSummary a = summariseDetection(det);
  if (det.detected && det.lin.hasLineality()) {
    const ResolverStats plain = res.stats;  // lazy: the plain part (empty for eager)
    const Eigen::VectorXd plainImpulse = res.impulse;
    a.plainIterations = plain.iterations;
    const auto tp = Clock::now();
    const ProjectedProblem pp = projectSystem(system, std::move(det.lin), lo, options_.projectionDropTolerance);
    a.energyRemoved = projectIterate(pp, v);  // line 3 (lazy: the current iterate)
    det.seconds += secondsSince(tp);
    a.removed = static_cast<int>(pp.removed.size());
    a.fallback = !pp.representable;
    res = runProjected(system, pp, op, v, options_.maxIterations - a.plainIterations, a.plainIterations);
    addPlainPart(plain, plainImpulse, res);
    if (a.fallback)
      note += str(" The projected constraints spread over more than two bodies (constraint ", pp.firstSpread,
                  "): the projected problem was resolved by the dense pairwise Gauss-Seidel fallback, not by ",
                  op.name(), ".");
  }
  ResolverStats& st = res.stats;
  st.energyBefore = system.kineticEnergy(qdot0);
  recordAntiLocking(options_.antiLocking, det, a, st);
  st.seconds = secondsSince(t0);
  st.lpFraction = st.seconds > 0.0 ? a.lpSeconds / st.seconds : 0.0;
  finish(system, st, res.qdot, a.fallback ? std::string("dense pairwise GS (anti-locking fallback)") : op.name());
  if (det.detected) st.report += antiLockingReport(options_.antiLocking, a, st);
  st.linealityFailed = !det.failure.empty();
  if (!det.failure.empty())
    st.report += str(" Anti-locking: lineality detection FAILED, resolved without it (Algorithm 1/3/4): ", det.failure);
  st.report += note;
  return res;
}

}  // namespace kinema::impact
