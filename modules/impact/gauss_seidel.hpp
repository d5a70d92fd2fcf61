#pragma once
// Pairwise Gauss-Seidel (the paper's Sec. 2, Eq. (1), and Sec. 3): pick one violated constraint i
// and reflect, R(q̇) = q̇ − 2(n_iᵀq̇) M⁻¹n_i, λ_i = −2 n_iᵀq̇ > 0. Satisfies NORM..MOD for every
// selection rule, hence FIN without implicit equalities (paper Thm 5.4).
#include <random>

#include "modules/impact/impact_operator.hpp"

namespace kinema::impact {

enum class Selection {
  Lexicographic,  // smallest violated index (d'Alembert / MacLaurin; paper section 2)
  Random,         // uniform among the violated ones, seeded
  MostViolated,   // argmin_i n_iᵀq̇ (a heuristic rule)
  CyclicSweep     // next violated index after the last one resolved, wrapping (scisim-style sweeps)
};

class PairwiseGaussSeidel : public ImpactOperator {
 public:
  // `restitution` c_r < 1 gives the naive dissipative model R(q̇) = q̇ − (1+c_r)(n_iᵀq̇)M⁻¹n_i of
  // (not the paper's operator), which breaks (KIN) and shows inelastic collapse (paper section 6.1,
  // Fig. 8); it is here as the negative example the restitution blend (restitution.hpp) replaces.
  explicit PairwiseGaussSeidel(Selection rule = Selection::Lexicographic, std::uint64_t seed = 1,
                               double restitution = 1.0);
  std::string name() const override;
  void setup(const ImpactSystem& system) override;
  void apply(const ImpactSystem& system, Eigen::VectorXd& qdot, const StepContext& context,
             Eigen::VectorXd& lambda) override;
  bool memoryless() const override { return rule_ == Selection::Lexicographic || rule_ == Selection::MostViolated; }
  Selection rule() const { return rule_; }

 private:
  Selection rule_;
  double restitution_;
  std::uint64_t seed_;
  std::mt19937_64 rng_;
  std::vector<int> violated_;  // preallocated to m
  int cursor_ = 0;
  int m_ = -1;
};

// Eq. (1) as a free function: reflects q̇ in constraint i and returns λ_i.
double reflect(const ImpactSystem& system, int i, Eigen::VectorXd& qdot);

}  // namespace kinema::impact
