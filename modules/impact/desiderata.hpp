#pragma once
// The desiderata of paper section 2 (and their ϵ-forms of section 7) as executable checks of one
// application q̇ → q̇⁺ = R(q̇) with reported impulses λ. Usable on any operator, a user's included.
//   NORM  q̇⁺ − q̇ = M⁻¹Nλ           (residual ‖q̇⁺ − q̇ − M⁻¹Nλ‖_M / ‖q̇‖_M)
//   KIN   ‖q̇⁺‖_M = ‖q̇‖_M          (relative change of ‖·‖²_M)
//   ONE   λ ≥ 0
//   VIO   λ_i = 0 whenever n_iᵀq̇ ≥ −ϵ‖q̇‖_M (ϵ = 0: exact form)
//   MOD   q̇⁺ = q̇ only if q̇ is (ϵ-)feasible
// FIN over a sequence: CycleDetector (cycle_detector.hpp).
#include <string>

#include "modules/impact/impact_system.hpp"

namespace kinema::impact {

struct DesiderataTolerances {
  double norm = 1e-12;    // relative NORM residual
  double kin = 1e-13;     // relative |‖q̇⁺‖² − ‖q̇‖²| / ‖q̇‖²
  double one = 1e-14;     // λ_i ≥ −one·‖q̇‖_M
  double vio = 0.0;       // |λ_i| ≤ vio·‖q̇‖_M for feasible i
  double epsilon = 0.0;   // feasibility tolerance ϵ of VIO and MOD
  double mod = 0.0;       // "unchanged" means ‖q̇⁺ − q̇‖_M ≤ mod·‖q̇‖_M
};

struct DesiderataReport {
  double normResidual = 0.0;
  double kinRelative = 0.0;         // signed (‖q̇⁺‖² − ‖q̇‖²)/‖q̇‖²
  double minLambda = 0.0;           // min_i λ_i (relative to ‖q̇‖_M)
  double maxFeasibleImpulse = 0.0;  // max |λ_i| over ϵ-feasible i (relative)
  bool unchanged = false;
  bool wasFeasible = false;
  int firstFeasiblePushed = -1;     // a constraint that breaks VIO
  bool norm = true, kin = true, one = true, vio = true, mod = true;
  bool all() const { return norm && kin && one && vio && mod; }
  std::string describe() const;     // which ones fail, with the numbers
};

DesiderataReport checkDesiderata(const ImpactSystem& system, const Eigen::VectorXd& before,
                                 const Eigen::VectorXd& after, const Eigen::VectorXd& lambda,
                                 const DesiderataTolerances& tol = {});

// NORM without a reported λ: the least-squares residual min_λ ‖q̇⁺ − q̇ − M⁻¹Nλ‖_M / ‖q̇‖_M
// (dense; tests, T-NORM).
double leastSquaresNormResidual(const ImpactSystem& system, const Eigen::VectorXd& before,
                                const Eigen::VectorXd& after);

}  // namespace kinema::impact
