#pragma once
// The bound-constrained QP kernel shared by Generalized Reflections and the inelastic LCP
// (the paper's Algorithm 4 and Sec. 6.2; modules/impact/README.md, decision 4):
//     min_λ ½ λᵀAλ + λᵀc   s.t.  λ_i ≥ 0 (i in the active set),  λ_i = 0 (otherwise),
// with the Delassus operator A = NᵀM⁻¹N applied matrix-free (2 sparse products and a block-diagonal
// apply), solved by the framework's MPRGP over the la layer (one rank), then checked against the
// KKT conditions of the LCP 0 ≤ λ ⊥ Aλ + c ≥ 0 and polished by exact active-set solves on the
// free set (README decision 4: a relative KKT residual with exact complementarity).
#include <memory>
#include <vector>

#include "framework/la/backend.hpp"
#include "framework/la/operator.hpp"
#include "framework/solvers/mprgp.hpp"
#include "modules/impact/impact_operator.hpp"

namespace kinema::impact {

struct QpStats {
  int mprgpIterations = 0;
  int polishSteps = 0;
  double kktResidual = 0.0;  // ‖min(λ, Aλ+c)‖_∞ over the active set (absolute)
  bool converged = false;    // kktResidual ≤ tolerance · scale
  SolverOutcome mprgpReason = SolverOutcome::None;
};

class DelassusQp {
 public:
  explicit DelassusQp(const OperatorOptions& options = {});
  ~DelassusQp();
  // The matrix-free operator captures `this`: neither copyable nor movable.
  DelassusQp(const DelassusQp&) = delete;
  DelassusQp& operator=(const DelassusQp&) = delete;
  // Work space, the matrix-free operator and MPRGP's norm estimate for this system.
  void setup(const ImpactSystem& system);
  // Solves with the given linear term c (size m) and active mask (size m). `scale` makes the
  // tolerance relative: converged iff residual ≤ qpTolerance · scale (GR: scale = ‖q̇‖_M).
  // λ (size m) is zero outside the active set and ≥ 0 inside.
  QpStats solve(const ImpactSystem& system, const Eigen::VectorXd& c, const std::vector<char>& active,
                double scale, Eigen::VectorXd& lambda);
  // KKT residual of λ for (c, active): ‖min(λ_i, (Aλ + c)_i)‖_∞ over active i (λ ≥ 0 assumed).
  double kktResidual(const ImpactSystem& system, const Eigen::VectorXd& c, const std::vector<char>& active,
                     const Eigen::VectorXd& lambda);

 private:
  void applyA(const ImpactSystem& system, const Eigen::VectorXd& x, Eigen::VectorXd& y);
  bool polish(const ImpactSystem& system, const Eigen::VectorXd& c, const std::vector<char>& active,
              Eigen::VectorXd& lambda, double tol);

  OperatorOptions options_;
  const la::Backend* backend_ = nullptr;  // shared per name and thread (delassus_qp.cpp)
  std::shared_ptr<const la::IndexMap> map_;
  std::shared_ptr<la::FunctionOperator> A_;
  std::unique_ptr<solvers::Mprgp> mprgp_;
  la::VectorPtr b_, lower_, upper_, x_;
  const ImpactSystem* current_ = nullptr;  // the system the matrix-free operator reads
  Eigen::VectorXd xe_, ye_, w_, g_;       // work (m, m, d, m)
  int m_ = -1, d_ = -1;
};

}  // namespace kinema::impact
