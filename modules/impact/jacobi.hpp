#pragma once
// Jacobi-style simultaneous pairwise updates, not in the paper (modules/impact/README.md,
// decision 5).
#include "modules/impact/impact_operator.hpp"

namespace kinema::impact {

// Naive Jacobi: the reflection impulse λ_i = −2 n_iᵀq̇ of eq. (1) for EVERY violated constraint,
// all from the same q̇, added together. Violates (KIN) as soon as two violated constraints share a
// body (3 unit balls (1, 0, −1) -> (0, 0, 0): all energy lost), so the termination theorem does
// not cover it. Kept as the documented negative example.
class NaiveJacobi : public ImpactOperator {
 public:
  std::string name() const override { return "jacobi-naive"; }
  void setup(const ImpactSystem& system) override;
  void apply(const ImpactSystem& system, Eigen::VectorXd& qdot, const StepContext& context,
             Eigen::VectorXd& lambda) override;

 private:
  Eigen::VectorXd s_;
};

// Coloured (block) Jacobi: constraints are greedily coloured so that no two of one colour share a
// dynamic body. One application reflects, simultaneously, every violated constraint of the next
// colour (cyclically) that has any. Their updates touch disjoint DOFs and commute, so the step
// equals a sequence of pairwise GS steps: NORM..MOD and FIN hold. The parallel-friendly form.
class ColoredJacobi : public ImpactOperator {
 public:
  std::string name() const override { return "jacobi-colored"; }
  void setup(const ImpactSystem& system) override;
  void apply(const ImpactSystem& system, Eigen::VectorXd& qdot, const StepContext& context,
             Eigen::VectorXd& lambda) override;
  bool memoryless() const override { return false; }
  int numColors() const { return static_cast<int>(colorStart_.size()) - 1; }
  const std::vector<int>& colorOf() const { return color_; }

 private:
  std::vector<int> color_;       // colour of each constraint
  std::vector<int> byColor_;     // constraint ids sorted by colour
  std::vector<int> colorStart_;  // CSR offsets into byColor_
  Eigen::VectorXd s_;
  int next_ = 0;
  int m_ = -1;
};

}  // namespace kinema::impact
