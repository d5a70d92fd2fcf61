// Nested discrete penalty layers (the paper's §5, penalty_layer.hpp).
//
// "Active" means g_{eta/l}(d) = d - 2 eta / l < 0 everywhere in this file (at g = 0 the layer's
// energy and force vanish anyway), so activeLayerCount agrees bit-for-bit with the layers whose
// layerEnergy is non-zero, including at the boundaries d = 2 eta / N themselves.
#include "modules/avi/penalty_layer.hpp"

#include <cmath>
#include <limits>

#include "framework/core/error.hpp"

namespace kinema::avi {

double layerOnset(double eta, int l) { return 2.0 * eta / l; }

double layerGap(double d, double eta, int l) { return d - layerOnset(eta, l); }

// V_l = l^3 k g^2 for g <= 0 (section 2.2; no 1/2).
double layerEnergy(double d, double eta, double k, int l) {
  const double g = layerGap(d, eta, l);
  if (g >= 0.0) return 0.0;
  const double l3 = static_cast<double>(l) * l * l;
  return l3 * k * g * g;
}

// dV_l/dd = 2 l^3 k g (<= 0).
double layerForce(double d, double eta, double k, int l) {
  const double g = layerGap(d, eta, l);
  if (g >= 0.0) return 0.0;
  const double l3 = static_cast<double>(l) * l * l;
  return 2.0 * l3 * k * g;
}

// N_act(d) = ceil(2 eta / d) - 1, corrected so that exactly the layers with layerGap < 0 count.
int activeLayerCount(double d, double eta) {
  if (!(eta > 0.0)) return 0;
  if (d <= 0.0) return std::numeric_limits<int>::max();
  const double ratio = 2.0 * eta / d;
  if (ratio >= static_cast<double>(std::numeric_limits<int>::max() - 1)) return std::numeric_limits<int>::max();
  int n = static_cast<int>(std::ceil(ratio)) - 1;
  if (n < 0) n = 0;
  while (n >= 1 && layerGap(d, eta, n) >= 0.0) --n;
  while (layerGap(d, eta, n + 1) < 0.0) ++n;
  return n;
}

// B(d) = sum_{l <= N_act} l^3 k (d - 2 eta / l)^2 = k sum_l l (l d - 2 eta)^2. Direct sum for
// moderate depths; beyond that the power sums S1 = N(N+1)/2, S2 = N(N+1)(2N+1)/6, S3 = S1^2 in
// B = k (d^2 S3 - 4 eta d S2 + 4 eta^2 S1) (mild cancellation, relative error ~1e-15 N-independent).
double barrierEnergy(double d, double eta, double k) {
  const int n = activeLayerCount(d, eta);
  if (n == std::numeric_limits<int>::max()) return std::numeric_limits<double>::infinity();
  if (n <= 100000) {
    double sum = 0.0;
    for (int l = 1; l <= n; ++l) sum += layerEnergy(d, eta, k, l);
    return sum;
  }
  const double N = n;
  const double s1 = N * (N + 1) / 2, s2 = N * (N + 1) * (2 * N + 1) / 6, s3 = s1 * s1;
  return k * (d * d * s3 - 4 * eta * d * s2 + 4 * eta * eta * s1);
}

// h_l = C_safe sqrt(mMin / (4 k)) l^(-3/2) (section 2.2 [CHOICE]: omega_l = sqrt(2 l^3 k / m_eff)
// with the conservative pair bound m_eff >= mMin / 2).
double layerStep(double cSafe, double mMin, double k, int l) {
  if (!(k > 0.0) || !(mMin > 0.0) || l < 1)
    throw InputError(str("avi penalty layer step: need k > 0, mMin > 0 and l >= 1 (k = ", k, ", mMin = ", mMin,
                         ", l = ", l, ")"));
  const double dl = l;
  return cSafe * std::sqrt(mMin / (4.0 * k)) / (dl * std::sqrt(dl));
}

// base 2^-m with m >= 0 the smallest integer such that base 2^-m <= h (README decision 57, step 1).
double dyadicStep(double h, double base) {
  if (!(h > 0.0) || !(base > 0.0) || !std::isfinite(h) || !std::isfinite(base))
    throw InputError(str("avi dyadic step: need finite h > 0 and base > 0 (h = ", h, ", base = ", base, ")"));
  if (base <= h) return base;
  int m = static_cast<int>(std::ceil(std::log2(base / h)));
  if (m < 0) m = 0;
  while (std::ldexp(base, -m) > h) ++m;                    // round-off of log2
  while (m > 0 && std::ldexp(base, -(m - 1)) <= h) --m;
  return std::ldexp(base, -m);
}

}  // namespace kinema::avi
