#include "modules/impact/distributed_gr.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "framework/core/error.hpp"
#include "framework/solvers/mprgp.hpp"
#include "modules/impact/distributed_delassus.hpp"

namespace kinema::impact {

DistributedGRResult resolveDistributedGR(const ImpactSystem& system, const Eigen::VectorXd& qdot0,
                                         const la::Backend& backend, const Comm& comm,
                                         const DistributedGROptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto& o = options;
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
  la::VectorPtr s = D.createConstraintVector(), b = D.createConstraintVector(), lo = D.createConstraintVector(),
                hi = D.createConstraintVector(), x = D.createConstraintVector(), lambda = D.createConstraintVector(),
                g = D.createConstraintVector(), alpha = D.createConstraintVector();
  lo->set(0.0);
  alpha->set(0.0);

  solvers::MprgpOptions mo;
  mo.rtol = 0.0;
  mo.atol = o.mprgpTolerance;
  mo.maxIterations = o.qpMaxIterations;
  solvers::Mprgp mprgp(mo);
  if (system.numConstraints() > 0) mprgp.setOperator(D.delassus());  // ‖A‖ estimate, once per island

  const double norm0 = D.normM(*v);
  st.energyBefore = 0.5 * norm0 * norm0;
  double curNorm = norm0;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (long it = 0;; ++it) {
    D.NT(*v, *s);
    const double tau = relaxed ? o.epsilon * curNorm : 0.0;
    // V (Algorithm 4 "ViolatedN"): owned part here, its global size by a reduction.
    std::int64_t nViolated = 0;
    {
      auto sv = s->constView();
      auto hv = hi->view();
      for (la::LocalIndex k = 0; k < mOwn; ++k) {
        const bool viol = sv[k] < -tau;
        hv[k] = viol ? kInf : 0.0;
        nViolated += viol;
      }
    }
    nViolated = comm.sum(nViolated);
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
    b->copy(*s);
    b->scale(-2.0 / scale);
    x->set(0.0);
    const solvers::MprgpStats ms = mprgp.solve(*b, *lo, *hi, *x);
    st.qpIterations += ms.iterations;
    st.maxQpIterations = std::max(st.maxQpIterations, ms.iterations);
    std::int64_t nz = 0;
    {
      auto xv = x->constView();
      auto hv = hi->constView();
      auto lv = lambda->view();
      for (la::LocalIndex k = 0; k < mOwn; ++k) {
        lv[k] = hv[k] > 0.0 ? scale * std::max(0.0, xv[k]) : 0.0;  // λ = 0 off V: (VIO)
        nz += lv[k] != 0.0;
      }
    }
    st.impulses += comm.sum(nz);
    // KKT residual of the GR-LCP 0 ≤ λ ⊥ Aλ + 2Nᵀq̇ ≥ 0 on V, from a fresh product.
    D.delassus()->apply(*lambda, *g);
    g->axpy(2.0, *s);
    double kkt = 0.0;
    {
      auto gv = g->constView();
      auto lv = lambda->constView();
      auto hv = hi->constView();
      for (la::LocalIndex k = 0; k < mOwn; ++k)
        if (hv[k] > 0.0) kkt = std::max(kkt, std::abs(std::min(lv[k], gv[k])));
    }
    kkt = comm.max(kkt) / scale;
    st.maxKktResidual = std::max(st.maxKktResidual, kkt);
    if (!(kkt <= o.kktTolerance)) st.allQpConverged = false;

    D.addMinvN(*lambda, *v);  // q̇⁺ = q̇ + M⁻¹N_Vλ
    alpha->axpy(1.0, *lambda);
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
  const double nEnd = D.normM(*v);
  st.energyAfter = 0.5 * nEnd * nEnd;
  st.relativeEnergyDrift =
      st.energyBefore > 0.0 ? (st.energyAfter - st.energyBefore) / st.energyBefore : st.energyAfter;
  if (system.numConstraints() == 0) st.minRelativeFeasibility = kInf;
  else {
    D.NT(*v, *s);
    st.minRelativeFeasibility = nEnd > 0.0 ? s->min() / nEnd : 0.0;
  }
  res.qdot = D.gatherVelocity(*v);
  res.impulse = D.gatherConstraints(*alpha);
  st.seconds = comm.max(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());

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
  st.report = r;
  return res;
}

}  // namespace kinema::impact
