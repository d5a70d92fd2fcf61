#pragma once
// Primal-dual interior-point method for the banded box QP
//   min 1/2 x^T A x - b^T x  subject to  l <= x <= u   (any bound may be infinite; l_i == u_i fixes x_i),
// the IPM baseline [52] of the paper's Table I (§VI-E2). Mehrotra predictor-corrector
// on the barrier of the finite bounds; each iteration forms K = A + diag(Sigma),
// Sigma = z_l/s_l + z_u/s_u, and factors it anew with BandedLdlt (the paper's point: a new full
// factorisation per iteration, because Sigma changes the diagonal). One factorisation serves the
// predictor and the corrector solve. Fraction to the boundary 0.995, one step length for primal and
// dual variables (the dual residual of a QP depends on x).
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "framework/core/solver_outcome.hpp"
#include "modules/der/banded.hpp"

namespace kinema::der {

struct BoxQpIpmOptions {
  // Stop when max(||A x - b - z_l + z_u||_inf, max_i s_i z_i / (1 + ||x||_inf)) <= tol (1 + ||b||_inf).
  double tol = 1e-12;
  int maxIterations = 200;
  double fractionToBoundary = 0.995;
  bool mehrotra = true;  // false: plain path following with sigma = 0.1
  // LDL^T pivot floor relative to max_k K_kk. Tiny on purpose: Sigma grows without bound on active
  // indices, so a floor relative to the largest diagonal would clamp the pivots of free ones.
  double pivotFloor = 1e-30;
};

struct BoxQpIpmResult {
  int iterations = 0;       // Newton (predictor-corrector) iterations
  long factorizations = 0;  // banded LDL^T factorisations (one per iteration, plus the start)
  double seconds = 0.0;
  double kktResidual = 0.0;  // the scaled residual of the stopping test, at exit
  bool converged = false;
  SolverOutcome reason = SolverOutcome::None;  // Tol, MaxIterations, Stalled
};

class BoxQpIpm {
 public:
  explicit BoxQpIpm(BoxQpIpmOptions options = {});
  // x: output (the initial point is computed: the unconstrained minimiser pushed into the box
  // interior). lower/upper use -inf/+inf for absent bounds; lower <= upper (an InputError otherwise).
  BoxQpIpmResult solve(const BandedSymmetric& A, std::span<const double> b, std::span<const double> lower,
                       std::span<const double> upper, std::span<double> x);
  const BoxQpIpmOptions& options() const { return options_; }

 private:
  // The box: which bounds of variable i are finite barrier terms, and whether it is fixed.
  struct Box {
    std::span<const double> lower, upper;
    bool hasL(std::size_t i) const;
    bool hasU(std::size_t i) const;
    bool fixed(std::size_t i) const;
  };
  // K = A with the rows and columns of fixed variables replaced by the identity, plus Sigma on the
  // diagonal when withSigma.
  void formK(const BandedSymmetric& A, const Box& box, bool withSigma);
  // x, the slacks and multipliers of the start; returns the number m of barrier terms.
  int startingPoint(const BandedSymmetric& A, std::span<const double> b, const Box& box, std::span<double> x);
  // The dual residual r_d (kept) and mu at x; returns the scaled KKT residual of the stopping test.
  double residuals(const BandedSymmetric& A, std::span<const double> b, const Box& box, std::span<const double> x,
                   int m, double bmax, double& mu);
  // Largest step in (0, inf] keeping s_l, s_u, z_l, z_u nonnegative along (dx, dzl, dzu).
  double maxStep(const Box& box, const std::vector<double>& dx, const std::vector<double>& dzl,
                 const std::vector<double>& dzu) const;
  // Solves for dx, dzl, dzu given the complementarity targets r_l, r_u (held in dzl, dzu on entry).
  void newtonStep(const Box& box, std::vector<double>& dx, std::vector<double>& dzl, std::vector<double>& dzu);
  // Mehrotra's predictor: the affine step and sigma = (mu_aff / mu)^3.
  double predictorSigma(const Box& box, int m, double mu);
  // The corrector step to sigma mu, taken with the fraction to the boundary; returns its length.
  double correctorStep(const Box& box, double sigma, double mu, std::span<double> x);

  BoxQpIpmOptions options_;
  BandedSymmetric K_;
  BandedLdlt ldlt_;
  std::vector<double> g_, rd_, sl_, su_, zl_, zu_, dx_, dzl_, dzu_, rhs_, dxa_, dzla_, dzua_;
};

}  // namespace kinema::der
