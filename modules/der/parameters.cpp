// The parameter vector of the optimisation: ordering, scaling, weights and box (see parameters.hpp).
#include "modules/der/parameters.hpp"

#include <cmath>

#include "framework/core/error.hpp"

namespace kinema::der {

namespace {

int vertexCountOf(const RestState& rest) { return static_cast<int>(rest.restLength.size()) + 1; }

void checkSizes(const RestState& rest, const char* where) {
  const int N = vertexCountOf(rest);
  if (N < 3 || static_cast<int>(rest.restKappa.size()) != N || static_cast<int>(rest.restTwist.size()) != N ||
      static_cast<int>(rest.cStretch.size()) != N - 1 || static_cast<int>(rest.cBend.size()) != N ||
      static_cast<int>(rest.cTwist.size()) != N)
    throw Error(str(where, ": inconsistent RestState sizes (", rest.restLength.size(), " edges, ",
                    rest.restKappa.size(), " kbar, ", rest.restTwist.size(), " mbar, ", rest.cStretch.size(),
                    " c_st, ", rest.cBend.size(), " c_be, ", rest.cTwist.size(), " c_tw)"));
}

}  // namespace

Scheme schemeFromName(const std::string& name) {
  if (name == "alm") return Scheme::Alm;
  if (name == "penalty") return Scheme::Penalty;
  if (name == "rest_only") return Scheme::RestOnly;
  throw InputError(str("der optimizer: unknown scheme '", name, "' (alm, penalty, rest_only)"));
}

std::string schemeName(Scheme scheme) {
  switch (scheme) {
    case Scheme::Alm: return "alm";
    case Scheme::Penalty: return "penalty";
    case Scheme::RestOnly: return "rest_only";
  }
  return "?";
}

double stiffnessScale(const RestState& rest) {
  checkSizes(rest, "stiffnessScale");
  const int N = vertexCountOf(rest);
  double sum = 0.0;
  for (int i = 1; i <= N - 2; ++i) sum += rest.cStretch[i] + rest.cBend[i] + rest.cTwist[i];
  const double s = sum / (3.0 * (N - 2));
  if (!(s > 0.0) || !std::isfinite(s))
    throw InputError(str("der optimizer: the stiffness scale s = ", s, " must be positive and finite"));
  return s;
}

std::vector<double> toParameters(const RestState& rest, double s) {
  checkSizes(rest, "toParameters");
  const int N = vertexCountOf(rest);
  std::vector<double> p(static_cast<std::size_t>(parameterCount(N)));
  for (int i = 1; i <= N - 2; ++i) {
    p[paramIndex(i, kKbar0)] = rest.restKappa[i][0];
    p[paramIndex(i, kKbar1)] = rest.restKappa[i][1];
    p[paramIndex(i, kBeta)] = rest.cBend[i] / s;
    p[paramIndex(i, kMbar)] = rest.restTwist[i];
    p[paramIndex(i, kGamma)] = rest.cTwist[i] / s;
    p[paramIndex(i, kLbar)] = rest.restLength[i];
    p[paramIndex(i, kAlpha)] = rest.cStretch[i] / s;
  }
  return p;
}

void fromParameters(std::span<const double> p, double s, RestState& rest) {
  checkSizes(rest, "fromParameters");
  const int N = vertexCountOf(rest);
  KINEMA_CHECK(static_cast<int>(p.size()) == parameterCount(N), "fromParameters: p has ", p.size(),
               " entries, expected ", parameterCount(N));
  for (int i = 1; i <= N - 2; ++i) {
    const double k0 = p[paramIndex(i, kKbar0)], k1 = p[paramIndex(i, kKbar1)];
    rest.restKappa[i] = Vec4(k0, k1, k0, k1);  // synchronised (paper §IV)
    rest.cBend[i] = s * p[paramIndex(i, kBeta)];
    rest.restTwist[i] = p[paramIndex(i, kMbar)];
    rest.cTwist[i] = s * p[paramIndex(i, kGamma)];
    rest.restLength[i] = p[paramIndex(i, kLbar)];
    rest.cStretch[i] = s * p[paramIndex(i, kAlpha)];
  }
}

void synchronizeRestKappa(RestState& rest) {
  const int n = static_cast<int>(rest.restKappa.size());
  for (int i = 1; i + 1 < n; ++i) {
    rest.restKappa[i][2] = rest.restKappa[i][0];
    rest.restKappa[i][3] = rest.restKappa[i][1];
  }
}

std::vector<double> parameterWeights(int N, double weightStiffness, double weightRest) {
  std::vector<double> w(static_cast<std::size_t>(parameterCount(N)));
  for (int a = 0; a < parameterCount(N); ++a) w[a] = isStiffnessSlot(paramSlot(a)) ? weightStiffness : weightRest;
  return w;
}

ParameterBox parameterBounds(std::span<const double> p0, const BoundsOptions& o, Scheme scheme) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (!(o.mu >= 0.0) || !(o.eta >= 0.0) || !(o.lbarMin > 0.0) || !(o.stiffnessMin > 0.0) ||
      !(o.stiffnessMax >= o.stiffnessMin) || !(o.lbarMax >= o.lbarMin))
    throw InputError(str("der optimizer: invalid bounds (mu ", o.mu, ", eta ", o.eta, ", lbar_min ", o.lbarMin,
                         ", stiffness_min ", o.stiffnessMin, ", stiffness_max ", o.stiffnessMax, ")"));
  const std::size_t n = p0.size();
  ParameterBox box{std::vector<double>(n), std::vector<double>(n)};
  for (std::size_t a = 0; a < n; ++a) {
    const int slot = paramSlot(static_cast<int>(a));
    const double v = p0[a];
    double lo = -inf, hi = inf;
    switch (slot) {
      case kKbar0:
      case kKbar1: lo = v - o.mu; hi = v + o.mu; break;        // Eq. 18 (e_be = 1)
      case kMbar: lo = v - o.eta; hi = v + o.eta; break;       // Eq. 19
      case kLbar: lo = o.lbarMin; hi = o.lbarMax; break;       // Eq. 16
      default: lo = o.stiffnessMin; hi = o.stiffnessMax; break;  // Eq. 17
    }
    if (scheme == Scheme::RestOnly && isStiffnessSlot(slot)) lo = hi = v;  // frozen exactly
    if (!(lo <= v && v <= hi))
      throw InputError(str("der optimizer: the initial parameter ", a, " (vertex ", paramVertex(static_cast<int>(a)),
                           ", slot ", slot, ") = ", v, " lies outside its box [", lo, ", ", hi, "]"));
    box.lower[a] = lo;
    box.upper[a] = hi;
  }
  return box;
}

}  // namespace kinema::der
