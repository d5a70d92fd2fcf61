#include "modules/impact/cycle_detector.hpp"

#include <cmath>
#include <cstdint>

#include "framework/core/error.hpp"

namespace kinema::impact {

CycleDetector::CycleDetector(int window, double relTolerance) : window_(window), relTol_(relTolerance) {
  if (window < 1) throw InputError(str("cycle detector: window must be >= 1, got ", window));
  if (!(relTolerance >= 0.0)) throw InputError(str("cycle detector: tolerance must be >= 0, got ", relTolerance));
}

void CycleDetector::reset(const ImpactSystem& system, const Eigen::VectorXd& qdot0) {
  const int d = system.dofs();
  ring_.setZero(d, window_);
  sig_.setZero(window_);
  diff_.setZero(d);
  g_.resize(d);
  std::uint64_t x = 0x9E3779B97F4A7C15ull;  // fixed splitmix64 stream: reproducible signatures
  for (int i = 0; i < d; ++i) {
    x += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    g_[i] = static_cast<double>(z >> 11) * 0x1.0p-53 - 0.5;
  }
  gNorm_ = system.normM(g_);
  scale_ = system.normM(qdot0);
  ring_.col(0) = qdot0;
  sig_[0] = system.dotM(g_, qdot0);
  count_ = 1;
}

int CycleDetector::push(const ImpactSystem& system, const Eigen::VectorXd& v) {
  int period = 0;
  const double tau = relTol_ * scale_;
  const double sv = system.dotM(g_, v);
  // Slack for the rounding of the two signatures themselves.
  const double sigTol = gNorm_ * tau + 1e-14 * gNorm_ * (scale_ + system.normM(v));
  const long stored = std::min<long>(count_, window_);
  for (long back = 1; back <= stored && period == 0; ++back) {
    const long slot = (count_ - back) % window_;
    if (std::abs(sv - sig_[slot]) > sigTol) continue;
    diff_ = v - ring_.col(slot);
    if (system.normM(diff_) <= tau) period = static_cast<int>(back);
  }
  const long slot = count_ % window_;
  ring_.col(slot) = v;
  sig_[slot] = sv;
  ++count_;
  return period;
}

}  // namespace kinema::impact
