// Dispatch of the material and external potentials by kind (force_element.hpp). The element
// formulas live in spring.cpp, cst.cpp, hinge.cpp, rod_bend.cpp and gravity.cpp; here the Vec3
// stencil arrays are mapped (without copying) onto the fixed-size Stencil<N> matrices.
#include "modules/avi/force_element.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "framework/core/error.hpp"
#include "modules/avi/cst.hpp"
#include "modules/avi/gravity.hpp"
#include "modules/avi/hinge.hpp"
#include "modules/avi/rod_bend.hpp"
#include "modules/avi/spring.hpp"

namespace kinema::avi {

namespace {

template <int N>
Eigen::Map<const Stencil<N>> in(const Vec3* x) {
  return Eigen::Map<const Stencil<N>>(x[0].data());
}
template <int N>
Eigen::Map<Stencil<N>> out(Vec3* x) {
  return Eigen::Map<Stencil<N>>(x[0].data());
}

// Rest stencil of the element in a local frame (stableStep).
template <int N>
Stencil<N> restStencil(const ForceElement& e);
template <>
Stencil<2> restStencil<2>(const ForceElement& e) {
  return springRestStencil(e);
}
template <>
Stencil<3> restStencil<3>(const ForceElement& e) {
  return e.kind == ForceKind::Cst ? cstRestStencil(e) : rodBendRestStencil(e);
}
template <>
Stencil<4> restStencil<4>(const ForceElement& e) {
  return hingeRestStencil(e);
}

// omega_max^2 = largest eigenvalue of M^-1/2 H M^-1/2, H by central differences of the analytic
// gradient at the rest stencil (step 1e-5 of the stencil size).
template <int N>
double omegaMaxSquared(const ForceElement& e, const double* masses) {
  constexpr int D = 3 * N;
  const Stencil<N> rest = restStencil<N>(e);
  double size = 0.0;
  for (int a = 0; a < N; ++a)
    for (int b = a + 1; b < N; ++b) size = std::max(size, (rest.col(a) - rest.col(b)).norm());
  if (!(size > 0.0) || !std::isfinite(size))
    throw Error(str("avi stableStep: element on vertices ", e.v[0], ", ", e.v[1],
                    "... has no rest shape (build it with the make* builders)"));
  const double delta = 1e-5 * size;
  std::array<Vec3, N> x, gp, gm;
  for (int a = 0; a < N; ++a) x[a] = rest.col(a);
  Eigen::Matrix<double, D, D> H;
  for (int i = 0; i < D; ++i) {
    const int a = i / 3, c = i % 3;
    x[a][c] = rest(c, a) + delta;
    gradient(e, x.data(), gp.data());
    x[a][c] = rest(c, a) - delta;
    gradient(e, x.data(), gm.data());
    x[a][c] = rest(c, a);
    for (int b = 0; b < N; ++b) H.col(i).template segment<3>(3 * b) = gp[b] - gm[b];
  }
  H /= 2.0 * delta;
  Eigen::Matrix<double, D, 1> s;
  for (int i = 0; i < D; ++i) s(i) = 1.0 / std::sqrt(masses[i / 3]);
  const Eigen::Matrix<double, D, D> A = s.asDiagonal() * (0.5 * (H + H.transpose())) * s.asDiagonal();
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix<double, D, D>> eig(A, Eigen::EigenvaluesOnly);
  return eig.eigenvalues().maxCoeff();
}

}  // namespace

double energy(const ForceElement& e, const Vec3* x) {
  switch (e.kind) {
    case ForceKind::Spring: return springEnergy(e, in<2>(x));
    case ForceKind::Cst: return cstEnergy(e, in<3>(x));
    case ForceKind::Hinge: return hingeEnergy(e, in<4>(x));
    case ForceKind::RodBend: return rodBendEnergy(e, in<3>(x));
    case ForceKind::Gravity: return gravityEnergy(e, x[0]);
  }
  return 0.0;
}

void gradient(const ForceElement& e, const Vec3* x, Vec3* grad) {
  switch (e.kind) {
    case ForceKind::Spring: out<2>(grad) = springGradient(e, in<2>(x)); return;
    case ForceKind::Cst: out<3>(grad) = cstGradient(e, in<3>(x)); return;
    case ForceKind::Hinge: out<4>(grad) = hingeGradient(e, in<4>(x)); return;
    case ForceKind::RodBend: out<3>(grad) = rodBendGradient(e, in<3>(x)); return;
    case ForceKind::Gravity: grad[0] = gravityGradient(e); return;
  }
}

void dampingForce(const ForceElement& e, const Vec3* x, const Vec3* v, Vec3* f) {
  switch (e.kind) {
    case ForceKind::Spring: out<2>(f) = springDamping(e, in<2>(x), in<2>(v)); return;
    case ForceKind::Cst: out<3>(f) = cstDamping(e, in<3>(x), in<3>(v)); return;
    case ForceKind::Hinge: out<4>(f) = hingeDamping(e, in<4>(x), in<4>(v)); return;
    case ForceKind::RodBend: out<3>(f) = rodBendDamping(e, in<3>(x), in<3>(v)); return;
    case ForceKind::Gravity: f[0].setZero(); return;
  }
}

double stableStep(const ForceElement& e, const double* masses, double cSafe) {
  for (int a = 0; a < e.n; ++a)
    if (!(masses[a] > 0.0))
      throw InputError(str("avi stableStep: stencil vertex ", e.v[a], " has mass ", masses[a], " (need > 0)"));
  double w2 = 0.0;
  switch (e.kind) {
    case ForceKind::Spring: w2 = omegaMaxSquared<2>(e, masses); break;
    case ForceKind::Cst: w2 = omegaMaxSquared<3>(e, masses); break;
    case ForceKind::Hinge: w2 = omegaMaxSquared<4>(e, masses); break;
    case ForceKind::RodBend: w2 = omegaMaxSquared<3>(e, masses); break;
    case ForceKind::Gravity: return std::numeric_limits<double>::infinity();
  }
  if (!(w2 > 0.0)) return std::numeric_limits<double>::infinity();
  return cSafe * 2.0 / std::sqrt(w2);
}

}  // namespace kinema::avi
