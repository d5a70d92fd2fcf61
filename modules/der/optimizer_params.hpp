#pragma once
// Options of the static-equilibrium parameter optimisation (paper §IV, Eq. 9-31, Algorithm 1, §IV-F)
// and their declaration in the parameter schema (`kinema help der`).
#include <string>

#include "framework/core/config.hpp"
#include "framework/core/param_binding.hpp"
#include "framework/core/params.hpp"
#include "framework/solvers/mprgp.hpp"
#include "modules/der/parameters.hpp"
#include "modules/der/qp_preconditioner.hpp"

namespace kinema::der {

struct OptimizerOptions {
  Scheme scheme = Scheme::Alm;     // alm | penalty | rest_only (paper §VI-D)
  double rho = 1e6;                // ALM / penalty weight, constant (no schedule, paper §IV-F)
  BoundsOptions bounds;            // Eq. 16-19: mu, lbar_min, stiffness_min/max (bounds.eta is
                                   // ignored: the optimiser sets eta = etaRatio * mu)
  double etaRatio = 0.25;          // eta = etaRatio * mu (paper: eta = mu / 4)
  double weightStiffness = 1e3;    // W on alpha, beta, gamma
  double weightRest = 1.0;         // W on kbar, mbar, lbar
  double epsP = 1e-8;              // stop when ||dp||_2 <= epsP (dp: the BCQP solution)
  int kMax = 100;                  // ALM iteration limit
  int lineSearchMaxHalvings = 40;  // backtracking: t = 1, 1/2, ...; fail after this many halvings
  double lineSearchMinStep = 1e-10;  // ... or when t drops below this
  solvers::MprgpOptions mprgp = defaultMprgpOptions();
  std::string preconditioner = "asc";  // qpPreconditionerNames()
  QpPreconditionerOptions qp;          // pivot floor etc.
  bool warmStart = false;
  // BCQP solver of each Newton step: "mprgp" (the paper's, with `preconditioner`) or "ipm" (the
  // interior-point baseline of Table I, box_qp_ipm.hpp: one banded LDL^T per IPM iteration).
  std::string bcqpSolver = "mprgp";          // MPRGP starts from the previous dp projected onto the new box
  // Symmetric diagonal scaling of the BCQP before MPRGP (x = D^-1/2 y, D = diag A): the diagonal
  // of A spans ~17 orders of magnitude (rho, M^-1 of the twist DOFs), so a pivot floor relative to
  // max A_kk would clamp most pivots; scaled, every diagonal entry is 1.
  bool scaleBcqp = true;
  // Keep AlmStats::history (one entry per BCQP). The der module turns it off: a strand's state
  // should not grow with its iteration count (docs/modules/der.md, "Memory").
  bool recordHistory = true;

  static solvers::MprgpOptions defaultMprgpOptions() {
    solvers::MprgpOptions o;
    o.rtol = 1e-10;  // "absolute or relative residual of 1e-10" (paper §VI)
    o.atol = 1e-10;
    // Paper: production runs "occasionally terminating at 100" (hair, §VI-F), but the vertical
    // strand averages 66 per solve and Table I reaches 122; 1000 leaves room for the hard
    // single-strand scenes while bounding the cost. Any MPRGP iterate from x0 = 0 has a negative
    // model value, hence is a descent direction, so a capped solve still lets the line search work.
    o.maxIterations = 1000;
    return o;
  }
};

// The parameters under a prefix (scheme, rho, mu, eta_ratio, lbar_min, stiffness_min,
// stiffness_max, weight_stiffness, weight_rest, eps_p, k_max, line_search.max_halvings,
// line_search.min_step, preconditioner, pivot_floor, bcqp_solver, warm_start, scale_bcqp, and
// MPRGP's under `mprgp`), each bound once with default, range, help and the field it fills.
const ParamBindings<OptimizerOptions>& optimizerBindings();

}  // namespace kinema::der
