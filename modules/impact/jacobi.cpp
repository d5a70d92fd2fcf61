#include "modules/impact/jacobi.hpp"

#include <algorithm>

#include "modules/impact/gauss_seidel.hpp"

namespace kinema::impact {

void NaiveJacobi::setup(const ImpactSystem& system) { s_.setZero(system.numConstraints()); }

void NaiveJacobi::apply(const ImpactSystem& system, Eigen::VectorXd& qdot, const StepContext& context,
                        Eigen::VectorXd& lambda) {
  const int m = system.numConstraints();
  if (s_.size() != m) setup(system);
  lambda.setZero(m);
  if (context.s) s_ = *context.s;  // every impulse from the same q̇
  else system.NT(qdot, s_);
  for (int i = 0; i < m; ++i)
    if (s_[i] < -context.threshold) lambda[i] = -2.0 * s_[i];
  for (int i = 0; i < m; ++i)
    if (lambda[i] != 0.0) system.applyImpulse(i, lambda[i], qdot);
}

void ColoredJacobi::setup(const ImpactSystem& system) {
  const int m = system.numConstraints();
  m_ = m;
  s_.setZero(m);
  color_.assign(m, -1);
  // Greedy colouring of the contact graph's line graph: constraints sharing a dynamic body differ.
  std::vector<char> used;
  int numColors = 0;
  for (int i = 0; i < m; ++i) {
    used.assign(numColors + 1, 0);
    const Constraint& c = system.constraint(i);
    for (int k = 0; k < 2; ++k)
      if (c.body[k] >= 0)
        for (int j : system.constraintsOfBody(c.body[k]))
          if (color_[j] >= 0) used[color_[j]] = 1;
    int col = 0;
    while (used[col]) ++col;
    color_[i] = col;
    numColors = std::max(numColors, col + 1);
  }
  colorStart_.assign(numColors + 1, 0);
  for (int i = 0; i < m; ++i) ++colorStart_[color_[i] + 1];
  for (int c = 0; c < numColors; ++c) colorStart_[c + 1] += colorStart_[c];
  byColor_.assign(m, 0);
  std::vector<int> fill(colorStart_.begin(), colorStart_.end() - 1);
  for (int i = 0; i < m; ++i) byColor_[fill[color_[i]]++] = i;
  next_ = 0;
}

void ColoredJacobi::apply(const ImpactSystem& system, Eigen::VectorXd& qdot, const StepContext& context,
                          Eigen::VectorXd& lambda) {
  const int m = system.numConstraints();
  if (m != m_) setup(system);
  if (context.iteration == 0) next_ = 0;
  lambda.setZero(m);
  const int nc = numColors();
  for (int k = 0; k < nc; ++k) {
    const int col = (next_ + k) % nc;
    bool any = false;
    // All impulses of one colour are computed from the same q̇; they touch disjoint DOFs, so this
    // equals reflecting them one after another (a GS sequence).
    for (int p = colorStart_[col]; p < colorStart_[col + 1]; ++p) {
      const int i = byColor_[p];
      const double s = normalVelocity(system, context, qdot, i);
      if (s < -context.threshold) lambda[i] = -2.0 * s, any = true;
    }
    if (!any) continue;
    for (int p = colorStart_[col]; p < colorStart_[col + 1]; ++p) {
      const int i = byColor_[p];
      if (lambda[i] != 0.0) system.applyImpulse(i, lambda[i], qdot);
    }
    next_ = (col + 1) % nc;
    return;
  }
}

}  // namespace kinema::impact
