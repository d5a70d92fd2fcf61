// avi::Engine's steps and clocks (the paper's §6; modules/avi/README.md, decision 4, TICK): the
// step a force or a penalty layer runs on, and the first tick of its lattice after a time.
#include <algorithm>
#include <cmath>
#include <limits>

#include "framework/core/error.hpp"
#include "modules/avi/engine_impl.hpp"
#include "modules/avi/force_element.hpp"
#include "modules/avi/penalty_layer.hpp"

namespace kinema::avi {

double Engine::Impl::forceH(double h) const {
  if (opt.uniformStep > 0.0) return opt.uniformStep;
  if (opt.dyadicBase > 0.0) return dyadicStep(h, opt.dyadicBase);
  return h;
}

double Engine::Impl::layerH(const ContactPair& p, int l) const {
  // h_l = C_safe sqrt(m_min / (4 k)) l^(-3/2) (README decision 5); fixed for the pair's lifetime
  // since m_min and l are.
  if (opt.uniformStep > 0.0) return opt.uniformStep;
  const double h = layerStep(opt.cSafe, p.mMin, scene.k, l);
  return opt.dyadicBase > 0.0 ? dyadicStep(h, opt.dyadicBase) : h;
}

std::int64_t Engine::Impl::firstTickAtOrAfter(double t, double h) {
  // ACTIVATE (README decision 4): j = ceil(t / h), plus one if j h < t by round-off; never j = 0
  // (potentials are not sampled at 0, the paper's §4).
  auto j = static_cast<std::int64_t>(std::ceil(t / h));
  while (static_cast<double>(j) * h < t) ++j;
  while (j > 1 && static_cast<double>(j - 1) * h >= t) --j;
  return std::max<std::int64_t>(j, 1);
}

std::int64_t Engine::Impl::firstTickAfter(double t, double h) {
  auto j = static_cast<std::int64_t>(std::floor(t / h)) + 1;
  while (static_cast<double>(j) * h <= t) ++j;
  while (j > 1 && static_cast<double>(j - 1) * h > t) --j;
  return std::max<std::int64_t>(j, 1);
}

}  // namespace kinema::avi
