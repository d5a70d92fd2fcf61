#pragma once
// How an iterative or direct solve ended: one enum shared by the linear solvers (framework/la and
// the backends), MPRGP, Newton and the module solvers built on them, with a name table. The names
// are the strings diagnostics, summaries and messages print (`name(outcome)`, or `<<`).
#include <cstdint>
#include <ostream>

namespace kinema {

enum class SolverOutcome : std::uint8_t {
  None,                        // "": not solved (yet)
  ZeroRhs,                     // b = 0: the solution is zero
  Rtol,                        // met the relative tolerance
  Atol,                        // met the absolute tolerance
  Gtol,                        // Newton: met the gradient tolerance
  Tol,                         // the interior-point method met its tolerance
  Direct,                      // a direct solve
  Explicit,                    // an explicit step: nothing to solve
  MaxIterations,               // the iteration cap was reached
  Breakdown,                   // the method broke down (or a non-finite input)
  Indefinite,                  // the operator showed negative curvature
  NonFinite,                   // a non-finite value appeared
  LineSearchFailed,            // Newton: no step decreased the merit function
  Stalled,                     // no progress
  ConstraintNotMet,            // a constrained formulation converged short of its constraint
  TrueResidualAboveTolerance,  // the native method converged, the true residual did not
  BelosTolerance,              // Belos met the native "Convergence Tolerance" the user gave
  Native,                      // a native reason with no name here (see the stats' native text)
};

inline const char* name(SolverOutcome o) {
  switch (o) {
    case SolverOutcome::None: return "";
    case SolverOutcome::ZeroRhs: return "zero_rhs";
    case SolverOutcome::Rtol: return "rtol";
    case SolverOutcome::Atol: return "atol";
    case SolverOutcome::Gtol: return "gtol";
    case SolverOutcome::Tol: return "tol";
    case SolverOutcome::Direct: return "direct";
    case SolverOutcome::Explicit: return "explicit";
    case SolverOutcome::MaxIterations: return "max_iterations";
    case SolverOutcome::Breakdown: return "breakdown";
    case SolverOutcome::Indefinite: return "indefinite";
    case SolverOutcome::NonFinite: return "non_finite";
    case SolverOutcome::LineSearchFailed: return "line_search_failed";
    case SolverOutcome::Stalled: return "stalled";
    case SolverOutcome::ConstraintNotMet: return "constraint_not_met";
    case SolverOutcome::TrueResidualAboveTolerance: return "true_residual_above_tolerance";
    case SolverOutcome::BelosTolerance: return "belos_tolerance";
    case SolverOutcome::Native: return "native";
  }
  return "unknown";
}

inline std::ostream& operator<<(std::ostream& os, SolverOutcome o) { return os << name(o); }

}  // namespace kinema
