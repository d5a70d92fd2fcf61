#include "modules/impact/gauss_seidel.hpp"

#include "framework/core/error.hpp"

namespace kinema::impact {

double reflect(const ImpactSystem& system, int i, Eigen::VectorXd& qdot) {
  const double lambda = -2.0 * system.dot(i, qdot);  // eq. (1), with (norm)
  system.applyImpulse(i, lambda, qdot);
  return lambda;
}

PairwiseGaussSeidel::PairwiseGaussSeidel(Selection rule, std::uint64_t seed, double restitution)
    : rule_(rule), restitution_(restitution), seed_(seed), rng_(seed) {
  if (!(restitution >= 0.0 && restitution <= 1.0))
    throw InputError(str("pairwise Gauss-Seidel: restitution must be in [0, 1], got ", restitution));
}

std::string PairwiseGaussSeidel::name() const {
  switch (rule_) {
    case Selection::Lexicographic: return "gs-lexicographic";
    case Selection::Random: return "gs-random";
    case Selection::MostViolated: return "gs-most-violated";
    case Selection::CyclicSweep: return "gs-cyclic";
  }
  return "gs";
}

void PairwiseGaussSeidel::setup(const ImpactSystem& system) {
  m_ = system.numConstraints();
  violated_.assign(m_, 0);
  violated_.clear();
  violated_.reserve(m_);
  cursor_ = 0;
  rng_.seed(seed_);
}

void PairwiseGaussSeidel::apply(const ImpactSystem& system, Eigen::VectorXd& qdot,
                                const StepContext& context, Eigen::VectorXd& lambda) {
  const int m = system.numConstraints();
  if (m != m_) setup(system);
  if (context.iteration == 0) cursor_ = 0;  // a new resolution starts its sweep at constraint 0
  lambda.setZero(m);
  const double tau = context.threshold;
  int pick = -1;
  switch (rule_) {
    case Selection::Lexicographic:
      for (int i = 0; i < m && pick < 0; ++i)
        if (normalVelocity(system, context, qdot, i) < -tau) pick = i;
      break;
    case Selection::MostViolated: {
      double worst = -tau;
      for (int i = 0; i < m; ++i) {
        const double s = normalVelocity(system, context, qdot, i);
        if (s < worst) worst = s, pick = i;
      }
      break;
    }
    case Selection::Random: {
      violated_.clear();
      for (int i = 0; i < m; ++i)
        if (normalVelocity(system, context, qdot, i) < -tau) violated_.push_back(i);  // capacity m: no allocation
      if (!violated_.empty()) {
        std::uniform_int_distribution<std::size_t> u(0, violated_.size() - 1);
        pick = violated_[u(rng_)];
      }
      break;
    }
    case Selection::CyclicSweep:
      for (int k = 0; k < m && pick < 0; ++k) {
        const int i = (cursor_ + k) % m;
        if (normalVelocity(system, context, qdot, i) < -tau) pick = i;
      }
      if (pick >= 0) cursor_ = (pick + 1) % m;
      break;
  }
  if (pick < 0) return;
  if (restitution_ == 1.0) {
    lambda[pick] = reflect(system, pick, qdot);
  } else {
    lambda[pick] = -(1.0 + restitution_) * system.dot(pick, qdot);
    system.applyImpulse(pick, lambda[pick], qdot);
  }
}

}  // namespace kinema::impact
