#include "modules/impact/distributed_gr.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "framework/core/error.hpp"
#include "framework/solvers/mprgp.hpp"
#include "modules/impact/distributed_delassus.hpp"

namespace kinema::impact {

namespace {

// Rejects options outside their ranges and a velocity of the wrong size or with a non-finite entry.
void checkInputs(const ImpactSystem& system, const Eigen::VectorXd& qdot0, const DistributedGROptions& o) {
  if (!(o.epsilon >= 0.0) || !(o.epsilon < 1.0))
    throw InputError(str("distributed GR: epsilon must be in [0, 1), got ", o.epsilon));
  if (o.maxIterations < 0) throw InputError(str("distributed GR: max iterations must be >= 0, got ", o.maxIterations));
  if (!(o.mprgpTolerance > 0.0))
    throw InputError(str("distributed GR: MPRGP tolerance must be > 0, got ", o.mprgpTolerance));
  if (!(o.kktTolerance > 0.0)) throw InputError(str("distributed GR: KKT tolerance must be > 0, got ", o.kktTolerance));
  if (o.qpMaxIterations < 1)
    throw InputError(str("distributed GR: QP max iterations must be >= 1, got ", o.qpMaxIterations));
  if (qdot0.size() != system.dofs())
    throw InputError(str("distributed GR: the velocity has ", qdot0.size(), " entries, the system ", system.dofs(),
                         " DOFs"));
  if (!qdot0.allFinite()) throw InputError("distributed GR: the initial velocity has a NaN or infinite entry");
}

// The distributed constraint-space vectors of the outer loop (s = Nᵀq̇, the QP's b, bounds and x, λ, g, α).
struct GRVectors {
  la::VectorPtr s, b, lo, hi, x, lambda, g, alpha;
};

// Creates the constraint-space vectors: lo = 0 (λ ≥ 0) and α = 0.
GRVectors createVectors(const DistributedDelassus& D) {
  GRVectors w;
  for (la::VectorPtr* p : {&w.s, &w.b, &w.lo, &w.hi, &w.x, &w.lambda, &w.g, &w.alpha}) *p = D.createConstraintVector();
  w.lo->set(0.0);
  w.alpha->set(0.0);
  return w;
}

// MPRGP to the absolute projected-gradient tolerance of the scaled QP.
solvers::MprgpOptions mprgpOptions(const DistributedGROptions& o) {
  solvers::MprgpOptions mo;
  mo.rtol = 0.0;
  mo.atol = o.mprgpTolerance;
  mo.maxIterations = o.qpMaxIterations;
  return mo;
}

// Owned part of V: hi = ∞ on V (s_i < −τ), 0 off V; returns the owned size of V.
std::int64_t markViolated(const la::Vector& s, la::Vector& hi, la::LocalIndex mOwn, double tau) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::int64_t nViolated = 0;
  auto sv = s.constView();
  auto hv = hi.view();
  for (la::LocalIndex k = 0; k < mOwn; ++k) {
    const bool viol = sv[k] < -tau;
    hv[k] = viol ? kInf : 0.0;
    nViolated += viol;
  }
  return nViolated;
}

// Solves the GR-QP scaled by 1/scale: b = −2s/scale, x from 0, bounds [lo, hi].
solvers::MprgpStats solveScaledQp(solvers::Mprgp& mprgp, GRVectors& w, double scale) {
  w.b->copy(*w.s);
  w.b->scale(-2.0 / scale);
  w.x->set(0.0);
  return mprgp.solve(*w.b, *w.lo, *w.hi, *w.x);
}

// Owned λ from the scaled QP's x; returns the owned count of nonzero λ_i.
std::int64_t extractImpulses(GRVectors& w, la::LocalIndex mOwn, double scale) {
  std::int64_t nz = 0;
  auto xv = w.x->constView();
  auto hv = w.hi->constView();
  auto lv = w.lambda->view();
  for (la::LocalIndex k = 0; k < mOwn; ++k) {
    lv[k] = hv[k] > 0.0 ? scale * std::max(0.0, xv[k]) : 0.0;  // λ = 0 off V: (VIO)
    nz += lv[k] != 0.0;
  }
  return nz;
}

// Owned part of the (unscaled) KKT residual max_V |min(λ, g)|, g = Aλ + 2s from a fresh product.
double ownedKktResidual(const DistributedDelassus& D, GRVectors& w, la::LocalIndex mOwn) {
  D.delassus()->apply(*w.lambda, *w.g);
  w.g->axpy(2.0, *w.s);
  double kkt = 0.0;
  auto gv = w.g->constView();
  auto lv = w.lambda->constView();
  auto hv = w.hi->constView();
  for (la::LocalIndex k = 0; k < mOwn; ++k)
    if (hv[k] > 0.0) kkt = std::max(kkt, std::abs(std::min(lv[k], gv[k])));
  return kkt;
}

// Final energy, drift and relative feasibility min_i n_iᵀq̇/‖q̇‖_M (collective).
void measureFinalState(const ImpactSystem& system, const DistributedDelassus& D, const la::Vector& v, la::Vector& s,
                       DistributedGRStats& st) {
  const double nEnd = D.normM(v);
  st.energyAfter = 0.5 * nEnd * nEnd;
  st.relativeEnergyDrift =
      st.energyBefore > 0.0 ? (st.energyAfter - st.energyBefore) / st.energyBefore : st.energyAfter;
  if (system.numConstraints() == 0) st.minRelativeFeasibility = std::numeric_limits<double>::infinity();
  else {
    D.NT(v, s);
    st.minRelativeFeasibility = nEnd > 0.0 ? s.min() / nEnd : 0.0;
  }
}

// The one-paragraph report (identical on every rank).
std::string writeReport(const ImpactSystem& system, const la::Backend& backend, const DistributedGROptions& o,
                        bool relaxed, const DistributedGRStats& st) {
  std::string r = str("distributed GR on ", backend.name(), " at ", st.ranks, " rank(s), ", system.numConstraints(),
                      " constraints (", relaxed ? "relaxed, epsilon " + str(o.epsilon) : std::string("exact"), "): ");
  if (st.converged)
    r += str("feasible after ", st.iterations, " iterations (", st.qpIterations, " MPRGP iterations), ", st.impulses,
             " impulses, relative energy drift ", st.relativeEnergyDrift, ", max QP KKT residual ",
             st.maxKktResidual, " relative to |qdot|_M.");
  else
    r += str("NOT resolved: stopped at the cap of ", o.maxIterations, " iterations, min n_i^T qdot/|qdot|_M = ",
             st.minRelativeFeasibility, ".");
  if (!st.allQpConverged)
    r += str(" Some QP did not reach the KKT tolerance ", o.kktTolerance,
             " (raise qpMaxIterations or loosen mprgpTolerance/kktTolerance).");
  return r;
}

}  // namespace

DistributedGRResult resolveDistributedGR(const ImpactSystem& system, const Eigen::VectorXd& qdot0,
                                         const la::Backend& backend, const Comm& comm,
                                         const DistributedGROptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto& o = options;
  checkInputs(system, qdot0, o);

  DistributedDelassus D(system, backend, comm, o.bodyRank);  // checks the backend at this rank count
  DistributedGRResult res;
  DistributedGRStats& st = res.stats;
  st.ranks = comm.size();
  st.ownedConstraints = static_cast<long>(D.ownedConstraints().size());
  st.ghostBodies = D.ghostBodies();
  const la::LocalIndex mOwn = D.constraintMap()->ownedSize();
  const bool relaxed = o.arithmetic == Arithmetic::Relaxed;

  la::VectorPtr v = D.createVelocityVector();
  D.scatterVelocity(qdot0, *v);
  GRVectors w = createVectors(D);

  solvers::Mprgp mprgp(mprgpOptions(o));
  if (system.numConstraints() > 0) mprgp.setOperator(D.delassus());  // ‖A‖ estimate, once per island

  const double norm0 = D.normM(*v);
  st.energyBefore = 0.5 * norm0 * norm0;
  double curNorm = norm0;
  for (long it = 0;; ++it) {
    D.NT(*v, *w.s);
    const double tau = relaxed ? o.epsilon * curNorm : 0.0;
    // V (Algorithm 4 "ViolatedN"): owned part here, its global size by a reduction.
    const std::int64_t nViolated = comm.sum(markViolated(*w.s, *w.hi, mOwn, tau));
    if (nViolated == 0) {
      st.converged = true;
      break;
    }
    if (it >= o.maxIterations) {
      st.capReached = true;
      break;
    }
    // The QP scaled by 1/‖q̇‖_M (as the one-rank DelassusQp): c = 2Nᵀq̇, MPRGP minimises ½xᵀAx − bᵀx.
    const double scale = std::max(D.normM(*v), std::numeric_limits<double>::min());
    const solvers::MprgpStats ms = solveScaledQp(mprgp, w, scale);
    st.qpIterations += ms.iterations;
    st.maxQpIterations = std::max(st.maxQpIterations, ms.iterations);
    st.impulses += comm.sum(extractImpulses(w, mOwn, scale));
    // KKT residual of the GR-LCP 0 ≤ λ ⊥ Aλ + 2Nᵀq̇ ≥ 0 on V, from a fresh product.
    const double kkt = comm.max(ownedKktResidual(D, w, mOwn)) / scale;
    st.maxKktResidual = std::max(st.maxKktResidual, kkt);
    if (!(kkt <= o.kktTolerance)) st.allQpConverged = false;

    D.addMinvN(*w.lambda, *v);  // q̇⁺ = q̇ + M⁻¹N_Vλ
    w.alpha->axpy(1.0, *w.lambda);
    const double na = D.normM(*v);
    if (curNorm > 0.0)
      st.maxStepEnergyChange = std::max(st.maxStepEnergyChange, std::abs(na * na - curNorm * curNorm) / (curNorm * curNorm));
    const bool rescale = relaxed && o.renormalise && na > 0.0;
    if (rescale) v->scale(norm0 / na);  // Algorithm 4 (ϵDRIFT)
    curNorm = rescale ? norm0 : na;
    st.iterations = it + 1;
    if (v->hasNonFinite())
      throw Error(str("distributed GR: non-finite velocity at iteration ", it, " (MPRGP: ", ms.reason, ")"));
  }
  measureFinalState(system, D, *v, *w.s, st);
  res.qdot = D.gatherVelocity(*v);
  res.impulse = D.gatherConstraints(*w.alpha);
  st.seconds = comm.max(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  st.report = writeReport(system, backend, o, relaxed, st);
  return res;
}

}  // namespace kinema::impact
