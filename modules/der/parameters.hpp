#pragma once
// The parameter vector p of the static-equilibrium optimisation (paper §IV,
// §IV-C): per interior vertex i = 1..N-2, in the paper's interleaved order
//   (kbar_{i,0}, kbar_{i,1}, beta_i, mbar_i, gamma_i, lbar_i, alpha_i)      (7N - 14 entries),
// where lbar_i and alpha_i belong to edge i (between x_i and x_{i+1}). Stiffnesses are
// dimensionless multipliers of one global scale s: c_st = s alpha, c_be = s beta, c_tw = s gamma.
// Only the first two rest-curvature components are parameters; kbar_{i,2} = kbar_{i,0} and
// kbar_{i,3} = kbar_{i,1} ("synchronisation", applied whenever p is turned into a RestState).
// Also: the weights W of R(p) = 1/2 ||p - p0||_W^2 and the box bounds Eq. 16-19 per scheme.
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "modules/der/strand.hpp"

namespace kinema::der {

// Slots of one vertex block of p (paper's ordering).
enum ParamSlot : int { kKbar0 = 0, kKbar1 = 1, kBeta = 2, kMbar = 3, kGamma = 4, kLbar = 5, kAlpha = 6 };
inline constexpr int kParamsPerVertex = 7;

inline int parameterCount(int N) { return 7 * N - 14; }     // dim p
inline int constraintCount(int N) { return 4 * N - 8; }     // dim c = free DOFs
// Index in p of `slot` of interior vertex (or edge) i, 1 <= i <= N-2.
inline int paramIndex(int i, int slot) { return kParamsPerVertex * (i - 1) + slot; }
inline int paramSlot(int a) { return a % kParamsPerVertex; }
inline int paramVertex(int a) { return a / kParamsPerVertex + 1; }
inline bool isStiffnessSlot(int slot) { return slot == kBeta || slot == kGamma || slot == kAlpha; }

// The optimisation schemes of the paper's §VI-D: rest shape only ([5], lambda = 0, stiffness
// frozen), rest shape + stiffness with the quadratic penalty (lambda = 0), and the ALM (ours).
enum class Scheme { Alm, Penalty, RestOnly };
Scheme schemeFromName(const std::string& name);  // "alm" | "penalty" | "rest_only"
std::string schemeName(Scheme scheme);

// The global stiffness scale s = sum_i (c_st,i + c_be,i + c_tw,i) / (3(N-2)) over i = 1..N-2
// (paper §IV). c_st of edge 0 is not a parameter and does not enter.
double stiffnessScale(const RestState& rest);

// RestState -> p with scale s (alpha = c_st / s etc.; kbar_{i,2}, kbar_{i,3} are ignored).
std::vector<double> toParameters(const RestState& rest, double s);
// p -> RestState: overwrites the entries of `rest` that p holds (lbar_1..N-2, kbar_1..N-2
// synchronised 4D, mbar, c's = s * multipliers); lbar_0, c_st,0 and the end entries are kept.
// `rest` must already be sized for N vertices.
void fromParameters(std::span<const double> p, double s, RestState& rest);
// kbar_{i,2} = kbar_{i,0}, kbar_{i,3} = kbar_{i,1} for every interior vertex (bitwise copies).
void synchronizeRestKappa(RestState& rest);

// Diagonal of W: weightStiffness on alpha, beta, gamma; weightRest on kbar, mbar, lbar.
std::vector<double> parameterWeights(int N, double weightStiffness = 1e3, double weightRest = 1.0);

struct BoundsOptions {
  double mu = 1.0;            // |kbar - kbar0| <= mu (Eq. 18)
  double eta = 0.25;          // |mbar - mbar0| <= eta (Eq. 19); the paper's eta = mu / 4
  double lbarMin = 1e-10;     // Eq. 16 (epsilon; overridden for the vertical strand)
  double stiffnessMin = 1e-10;  // Eq. 17 alpha, beta, gamma >= epsilon
  double stiffnessMax = std::numeric_limits<double>::infinity();  // optional finite maxima
  double lbarMax = std::numeric_limits<double>::infinity();
};

struct ParameterBox {
  std::vector<double> lower, upper;
};

// Eq. 16-19 around p0. For Scheme::RestOnly the stiffness entries are frozen by lower = upper =
// p0 (exactly), so the system keeps its size and ordering and MPRGP treats them as fixed.
ParameterBox parameterBounds(std::span<const double> p0, const BoundsOptions& options, Scheme scheme);

}  // namespace kinema::der
