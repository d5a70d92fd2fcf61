// Stretching, bending and twisting energies of a DER strand with forces and the forward-simulation
// Hessian (paper §III-B-D, Eq. 2-8 and Sec. VI).
#include "modules/der/rod_energy.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <numbers>

#include "framework/core/error.hpp"

namespace kinema::der {

namespace {

using Mat3 = Eigen::Matrix3d;
using Mat11 = Eigen::Matrix<double, 11, 11>;

constexpr double kPi = std::numbers::pi;

// Adds a dense symmetric block whose rows/columns are the q indices q0 + offsets[k] (increasing)
// to the free-DOF band H, skipping the clamped DOFs (q index < kFixedDofs).
template <int n>
void addBlock(BandedSymmetric& H, int q0, const int (&offsets)[n], const Eigen::Matrix<double, n, n>& B) {
  for (int b = 0; b < n; ++b) {
    const int jb = q0 + offsets[b] - kFixedDofs;
    if (jb < 0) continue;
    for (int a = b; a < n; ++a) {
      const int ia = q0 + offsets[a] - kFixedDofs;
      H.add(ia, jb, B(a, b));
    }
  }
}

constexpr int kStencil[11] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
constexpr int kEdge[6] = {0, 1, 2, 4, 5, 6};  // x_j and x_{j+1} around theta_j

}  // namespace

double stretchCoefficient(double c, double radius, double restLength) {
  return c * kPi * radius * radius / restLength;
}
double bendCoefficient(double c, double radius, double restLengthPrev, double restLengthNext) {
  const double r2 = radius * radius;
  return c * kPi * r2 * r2 / (4.0 * (restLengthPrev + restLengthNext));
}
double twistCoefficient(double c, double radius, double restLengthPrev, double restLengthNext) {
  const double r2 = radius * radius;
  return c * kPi * r2 * r2 / (restLengthPrev + restLengthNext);
}

Vec4 modelRestKappa(const Vec4& restKappa, CurvatureModel model) {
  if (model == CurvatureModel::FourD) return restKappa;
  return Vec4(0.5 * (restKappa[0] + restKappa[2]), 0.5 * (restKappa[1] + restKappa[3]), 0.0, 0.0);
}

double modelBendFactor(CurvatureModel model) { return model == CurvatureModel::FourD ? 1.0 : 2.0; }

void checkRestState(const RestState& rest, int N) {
  auto check = [&](std::size_t size, int expected, const char* name) {
    if (static_cast<int>(size) != expected)
      throw InputError(str("rest state of a ", N, "-vertex strand: ", name, " has ", size, " entries, expected ",
                           expected));
  };
  check(rest.restLength.size(), N - 1, "restLength");
  check(rest.cStretch.size(), N - 1, "cStretch");
  check(rest.restKappa.size(), N, "restKappa");
  check(rest.restTwist.size(), N, "restTwist");
  check(rest.cBend.size(), N, "cBend");
  check(rest.cTwist.size(), N, "cTwist");
}

ElasticEnergy elasticEnergy(const RodKinematics& K, const RestState& rest, double radius) {
  const int N = K.N;
  checkRestState(rest, N);
  ElasticEnergy E;
  // Eq. 2: edges 1..N-2 (edge 0 has both ends clamped).
  for (int j = 1; j < N - 1; ++j) {
    const double k = stretchCoefficient(rest.cStretch[j], radius, rest.restLength[j]);
    const double d = K.length[j] - rest.restLength[j];
    E.stretch += 0.5 * k * d * d;
  }
  const double factor = modelBendFactor(K.model);
  for (int i = 1; i < N - 1; ++i) {
    const double lb0 = rest.restLength[i - 1], lb1 = rest.restLength[i];
    // Eq. 5.
    const double kb = factor * bendCoefficient(rest.cBend[i], radius, lb0, lb1);
    E.bend += 0.5 * kb * (K.kappa[i] - modelRestKappa(rest.restKappa[i], K.model)).squaredNorm();
    // Eq. 7.
    const double kt = twistCoefficient(rest.cTwist[i], radius, lb0, lb1);
    const double dm = K.twist[i] - rest.restTwist[i];
    E.twist += 0.5 * kt * dm * dm;
  }
  return E;
}

ElasticEnergy elasticForce(const RodKinematics& K, const RestState& rest, double radius, std::span<double> f) {
  const int N = K.N;
  checkRestState(rest, N);
  KINEMA_CHECK(static_cast<int>(f.size()) == dofCount(N), "elasticForce: force of size ", f.size(), " for ", N,
               " vertices");
  std::fill(f.begin(), f.end(), 0.0);
  ElasticEnergy E;
  // Stretching, Eq. 3-4: grad_{x_{j+1}} = -grad_{x_j} = k (l - lbar) t.
  for (int j = 1; j < N - 1; ++j) {
    const double k = stretchCoefficient(rest.cStretch[j], radius, rest.restLength[j]);
    const double d = K.length[j] - rest.restLength[j];
    E.stretch += 0.5 * k * d * d;
    const Vec3 g = k * d * K.tangent[j];
    for (int c = 0; c < 3; ++c) {
      f[xIndex(j, c)] += g[c];
      f[xIndex(j + 1, c)] -= g[c];
    }
  }
  const double factor = modelBendFactor(K.model);
  for (int i = 1; i < N - 1; ++i) {
    const double lb0 = rest.restLength[i - 1], lb1 = rest.restLength[i];
    // Bending, Eq. 6: grad = k J^T (kappa - kbar).
    const double kb = factor * bendCoefficient(rest.cBend[i], radius, lb0, lb1);
    const Vec4 dk = K.kappa[i] - modelRestKappa(rest.restKappa[i], K.model);
    E.bend += 0.5 * kb * dk.squaredNorm();
    // Twisting, Eq. 8: grad = k (m - mbar) grad m.
    const double kt = twistCoefficient(rest.cTwist[i], radius, lb0, lb1);
    const double dm = K.twist[i] - rest.restTwist[i];
    E.twist += 0.5 * kt * dm * dm;
    const Vec11 g = kb * (K.gradKappa[i].transpose() * dk) + (kt * dm) * K.gradTwist[i];
    const int o = stencilOffset(i);
    for (int a = 0; a < 11; ++a) f[o + a] -= g[a];
  }
  return E;
}

void addElasticHessian(const RodKinematics& K, const RestState& rest, double radius, BandedSymmetric& H) {
  const int N = K.N;
  checkRestState(rest, N);
  KINEMA_CHECK(H.size() == freeDofCount(N) && H.bandwidth() >= kForwardBandwidth, "addElasticHessian: matrix of size ",
               H.size(), " and half-bandwidth ", H.bandwidth(), " for ", N, " vertices (need ", freeDofCount(N),
               " and >= ", kForwardBandwidth, ")");
  // Stretching: exact Hessian with the negative part projected out (README decision 13):
  // k [t t^T + max(0, (l - lbar) / l) (I - t t^T)], edge block [[H, -H], [-H, H]].
  for (int j = 1; j < N - 1; ++j) {
    const double k = stretchCoefficient(rest.cStretch[j], radius, rest.restLength[j]);
    const Vec3& t = K.tangent[j];
    const Mat3 tt = t * t.transpose();
    const double lateral = std::max(0.0, (K.length[j] - rest.restLength[j]) / K.length[j]);
    const Mat3 He = k * (tt + lateral * (Mat3::Identity() - tt));
    Eigen::Matrix<double, 6, 6> B;
    B << He, -He, -He, He;
    addBlock<6>(H, xIndex(j), kEdge, B);
  }
  // Bending and twisting: Gauss-Newton k J^T J and k grad m grad m^T (paper Sec. VI, [23]).
  const double factor = modelBendFactor(K.model);
  for (int i = 1; i < N - 1; ++i) {
    const double lb0 = rest.restLength[i - 1], lb1 = rest.restLength[i];
    const double kb = factor * bendCoefficient(rest.cBend[i], radius, lb0, lb1);
    const double kt = twistCoefficient(rest.cTwist[i], radius, lb0, lb1);
    const Mat4x11& J = K.gradKappa[i];
    const Mat11 B = kb * (J.transpose() * J) + kt * (K.gradTwist[i] * K.gradTwist[i].transpose());
    addBlock<11>(H, stencilOffset(i), kStencil, B);
  }
}

}  // namespace kinema::der
