#pragma once
// The solvers the paper compares the manifold Newton against (paper §4.1 and
// §6.2, Fig. 7; test T-OPT, README decision 43), all minimising the same incremental potential Phi (Eq. 6) of an
// IncrementalPotential whose step has begun (predictor, candidates, prescribed DOFs set):
//   first_order           Alg. 1: Riemannian gradient descent on (R^3 x S^3)^n with the geodesic
//                         Armijo line search; the direction is the gradient in the kinetic metric,
//                         y = -diag(dt^2/m, dt^2/((8/5) m r^2)) g_red (plain -g_red mixes units)
//   penalty               Eq. 36: Phi(x) + sum_a 1/2 kappa_a C(q_a)^2, C = (q.q - 1)/2, Euclidean
//                         7 DOFs per particle, Newton over EuclideanManifold(7) with PSD-projected
//                         element Hessians; q normalised for output only
//   augmented_lagrangian  Eq. 38: Phi + sum_a lambda_a C_a + 1/2 kappa_a C_a^2, outer updates
//                         lambda_a += kappa_a C_a until max |C| <= constraintTolerance
//   lagrange              Eq. 37: the KKT system of Phi + sum_a lambda_a C_a, 8 unknowns per
//                         particle (p, q, lambda), Newton on grad L = 0 with backtracking on
//                         |grad L|, the saddle system solved by the backend's direct solver (or
//                         GMRES / MINRES, unpreconditioned, rtol kKktRtol); one rank only (an
//                         Error otherwise)
// with kappa_a = penaltyKappa (8/5) m_a r_a^2 / dt^2. Convergence uses the relative force residual
// of IncrementalPotential::convergenceMeasure on the (Euclidean) gradient, plus |C| for the
// constrained forms.
#include <functional>

#include "framework/la/backend.hpp"
#include "framework/solvers/manifold_rigid.hpp"
#include "framework/solvers/newton.hpp"
#include "modules/bdem/incremental_potential.hpp"

namespace kinema::bdem {

struct VariantResult {
  int iterations = 0;        // inner iterations (gradient steps, Newton steps), summed
  int outerIterations = 1;
  int linearIterations = 0;
  int lineSearchTrials = 0;
  bool converged = false;
  SolverOutcome reason = SolverOutcome::None;
  double measure = 0;
  double constraintViolation = 0;  // max |C(q)| at exit, before normalisation
};
using IterationObserver = std::function<void(int k, double energy)>;

// lagrange: relative tolerance of each KKT solve, which is unpreconditioned (an indefinite saddle
// point); the user's bdem.newton.linear.type, preconditioner and rtol are not used (reported at
// set-up by ImplicitStepper).
inline constexpr double kKktRtol = 1e-10;

// x: point vector (block 7), initial guess on entry, result on exit (q normalised).
VariantResult solveFirstOrder(IncrementalPotential& phi, const solvers::RigidManifold& manifold,
                              const la::Backend& backend, const IntegratorOptions& opt, la::Vector& x,
                              const IterationObserver& observer = {});
// penalty (augmented = false) or augmented Lagrangian (augmented = true).
VariantResult solvePenalty(IncrementalPotential& phi, const la::Backend& backend, const IntegratorOptions& opt,
                           bool augmented, la::Vector& x, const IterationObserver& observer = {});
VariantResult solveLagrange(IncrementalPotential& phi, const la::Backend& backend, const IntegratorOptions& opt,
                            la::Vector& x, const IterationObserver& observer = {});

}  // namespace kinema::bdem
