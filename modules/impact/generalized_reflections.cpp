#include "modules/impact/generalized_reflections.hpp"

namespace kinema::impact {

GeneralizedReflections::GeneralizedReflections(const OperatorOptions& options) : qp_(options) {}

void GeneralizedReflections::setup(const ImpactSystem& system) {
  m_ = system.numConstraints();
  violated_.assign(m_, 0);
  c_.setZero(m_);
  qp_.setup(system);
}

void GeneralizedReflections::apply(const ImpactSystem& system, Eigen::VectorXd& qdot,
                                   const StepContext& context, Eigen::VectorXd& lambda) {
  const int m = system.numConstraints();
  if (m != m_) setup(system);
  lambda.setZero(m);
  if (context.s) c_ = *context.s;
  else system.NT(qdot, c_);
  violatedCount_ = 0;
  for (int i = 0; i < m; ++i) {
    violated_[i] = c_[i] < -context.threshold;  // V (Algorithm 4 "ViolatedN")
    violatedCount_ += violated_[i];
    c_[i] *= 2.0;  // linear term 2N_Vᵀq̇
  }
  if (violatedCount_ == 0) return;
  last_ = qp_.solve(system, c_, violated_, system.normM(qdot), lambda);
  system.addMinvN(lambda, qdot);
}

}  // namespace kinema::impact
