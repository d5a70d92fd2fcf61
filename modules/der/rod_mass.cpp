// Mass, gravity and the naive rest state of a DER strand (README decisions 11, 12).
#include "modules/der/rod_mass.hpp"

#include <numbers>

#include "framework/core/error.hpp"

namespace kinema::der {

std::vector<double> massDiagonal(const std::vector<double>& restLength, const Material& material) {
  const int N = static_cast<int>(restLength.size()) + 1;
  if (N < 3) throw InputError(str("a strand needs at least 3 vertices, got ", N));
  const double r = material.radius, rho = material.density;
  if (!(r > 0.0) || !(rho > 0.0))
    throw InputError(str("strand radius and density must be positive, got r = ", r, ", rho = ", rho));
  const double area = std::numbers::pi * r * r;
  const double polar = std::numbers::pi * r * r * r * r / 2.0;  // J = pi r^4 / 2 per unit length
  std::vector<double> M(dofCount(N), 0.0);
  for (int v = 0; v < N; ++v) {
    const double lPrev = v > 0 ? restLength[v - 1] : 0.0;
    const double lNext = v < N - 1 ? restLength[v] : 0.0;
    const double m = rho * area * 0.5 * (lPrev + lNext);
    for (int c = 0; c < 3; ++c) M[xIndex(v, c)] = m;
  }
  for (int j = 0; j < N - 1; ++j) {
    if (!(restLength[j] > 0.0))
      throw InputError(str("rest length of edge ", j, " is ", restLength[j], " (must be > 0)"));
    M[thetaIndex(j)] = rho * polar * restLength[j];
  }
  return M;
}

void gravityForce(std::span<const double> mass, const Vec3& gravity, std::span<double> fext) {
  KINEMA_CHECK(mass.size() == fext.size() && (mass.size() + 1) % 4 == 0, "gravityForce: sizes ", mass.size(),
               " and ", fext.size());
  const int N = static_cast<int>(mass.size() + 1) / 4;
  for (int v = 0; v < N; ++v)
    for (int c = 0; c < 3; ++c) fext[xIndex(v, c)] = mass[xIndex(v, c)] * gravity[c];
  for (int j = 0; j < N - 1; ++j) fext[thetaIndex(j)] = 0.0;
}

std::vector<double> gravityForce(const std::vector<double>& mass, const Vec3& gravity) {
  std::vector<double> f(mass.size());
  gravityForce(mass, gravity, f);
  return f;
}

void restStateFrom(const RodKinematics& K, const Material& material, bool synchronizeKappa, RestState& rest) {
  KINEMA_CHECK(K.model == CurvatureModel::FourD, "restStateFrom: the rest curvature is the 4D curvature");
  const int N = K.N;
  rest.restLength.assign(K.length.begin(), K.length.end());
  rest.restKappa.assign(K.kappa.begin(), K.kappa.end());
  if (synchronizeKappa)
    for (Vec4& k : rest.restKappa) {
      k[2] = k[0];
      k[3] = k[1];
    }
  rest.restTwist.assign(K.twist.begin(), K.twist.end());
  rest.cStretch.assign(N - 1, material.cStretch);
  rest.cBend.assign(N, material.cBend);
  rest.cTwist.assign(N, material.cTwist);
}

RestState restStateFrom(const std::vector<double>& q, const ReferenceFrames& frames, const Material& material,
                        bool synchronizeKappa) {
  const RodKinematics K = computeKinematics(q, frames, CurvatureModel::FourD);
  RestState rest;
  restStateFrom(K, material, synchronizeKappa, rest);
  return rest;
}

}  // namespace kinema::der
