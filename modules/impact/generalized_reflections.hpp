#pragma once
// Generalized Reflections (Smith et al. 2012; the paper's Sec. 2 and Algorithm 4, line 9):
// every currently violated constraint V at once,
//     λ = argmin_{λ ≥ 0} ½ λᵀ(N_VᵀM⁻¹N_V)λ + λᵀ(2N_Vᵀq̇)        (GR-LCP)
//     q̇⁺ = q̇ + M⁻¹N_V λ  = 2v* − q̇,   v* the inelastic M-projection onto {N_Vᵀv ≥ 0}.
// NORM, KIN (by complementarity), ONE, VIO (only V gets impulses) and MOD hold; with |V| = 1 it is
// exactly the pairwise reflection (1). The QP goes to MPRGP with a KKT polish (delassus_qp.hpp).
#include "modules/impact/delassus_qp.hpp"

namespace kinema::impact {

class GeneralizedReflections : public ImpactOperator {
 public:
  explicit GeneralizedReflections(const OperatorOptions& options = {});
  std::string name() const override { return "gr"; }
  void setup(const ImpactSystem& system) override;
  void apply(const ImpactSystem& system, Eigen::VectorXd& qdot, const StepContext& context,
             Eigen::VectorXd& lambda) override;
  // Statistics of the last QP (KKT residual, MPRGP iterations): test F2.
  const QpStats& lastQp() const { return last_; }
  int violatedCount() const { return violatedCount_; }

 private:
  DelassusQp qp_;
  std::vector<char> violated_;
  Eigen::VectorXd c_;
  QpStats last_;
  int violatedCount_ = 0;
  int m_ = -1;
};

}  // namespace kinema::impact
