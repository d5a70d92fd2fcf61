#include "modules/bdem/lattice_calibration.hpp"

#include <Eigen/Dense>
#include <cmath>
#include <optional>
#include <numbers>
#include <vector>

#include "framework/core/error.hpp"

namespace kinema::bdem {

namespace {

// One bond of the periodic cell: from basis particle a (cell 0) to basis particle b at a + d.
struct CellBond {
  int a = 0, b = 0;
  Vec3 d = Vec3::Zero();
};

struct Cell {
  int basis = 1;
  std::vector<CellBond> bonds;  // each bond of the infinite lattice once per cell
  double volume = 0;
};

// The lattices of packing.cpp (layers normal to z, rows along x, spacing 2r): neighbour vectors
// within 2r; a test compares them with the bonds of an actual packing.
Cell unitCell(Lattice lattice, double r) {
  const double s3 = std::sqrt(3.0), h = 2.0 * r * std::sqrt(2.0 / 3.0);
  Cell c;
  auto add = [&](int a, int b, const Vec3& d) { c.bonds.push_back({a, b, d}); };
  auto layer = [&](int a) {  // three of the six in-layer neighbours (the others are their opposites)
    add(a, a, Vec3(2 * r, 0, 0));
    add(a, a, Vec3(r, r * s3, 0));
    add(a, a, Vec3(-r, r * s3, 0));
  };
  switch (lattice) {
    case Lattice::Cubic:
      add(0, 0, Vec3(2 * r, 0, 0));
      add(0, 0, Vec3(0, 2 * r, 0));
      add(0, 0, Vec3(0, 0, 2 * r));
      c.volume = 8 * r * r * r;
      break;
    case Lattice::Fcc:  // ABC: the layer above is shifted by (r, r/sqrt3), the one below by -(r, r/sqrt3)
      layer(0);
      add(0, 0, Vec3(r, r / s3, h));
      add(0, 0, Vec3(-r, r / s3, h));
      add(0, 0, Vec3(0, -2 * r / s3, h));
      c.volume = 4 * std::sqrt(2.0) * r * r * r;
      break;
    case Lattice::Hcp:  // AB: particle 1 (B) sits over (r, r/sqrt3) of particle 0 (A), above and below
      c.basis = 2;
      layer(0);
      layer(1);
      for (double z : {h, -h}) {
        add(0, 1, Vec3(r, r / s3, z));
        add(0, 1, Vec3(-r, r / s3, z));
        add(0, 1, Vec3(0, -2 * r / s3, z));
      }
      c.volume = 8 * std::sqrt(2.0) * r * r * r;
      break;
  }
  return c;
}

Mat3 cross(const Vec3& v) {
  Mat3 m;
  m << 0, -v[2], v[1], v[2], 0, -v[0], -v[1], v[0], 0;
  return m;
}

// Voigt vector of the unit-direction dyad a a^T (for stresses; engineering shears for strains).
Eigen::Matrix<double, 6, 1> dyad(const Vec3& a, const Vec3& b) {
  Eigen::Matrix<double, 6, 1> v;
  v << a[0] * b[0], a[1] * b[1], a[2] * b[2], 0.5 * (a[1] * b[2] + a[2] * b[1]), 0.5 * (a[0] * b[2] + a[2] * b[0]),
      0.5 * (a[0] * b[1] + a[1] * b[0]);
  return v;
}

}  // namespace

double LatticeElasticity::young(const Vec3& a) const {
  const Vec3 u = a.normalized();
  const Eigen::Matrix<double, 6, 1> v = dyad(u, u);
  return 1.0 / v.dot(C.ldlt().solve(v));
}

double LatticeElasticity::poisson(const Vec3& a, const Vec3& b) const {
  // Uniaxial unit stress along a: strain (engineering shears) = C^-1 dyad(a); the normal strain
  // along a unit u is dyad(u) . strain.
  const Vec3 u = a.normalized(), w = b.normalized();
  const Eigen::Matrix<double, 6, 1> va = dyad(u, u), vb = dyad(w, w);
  const Eigen::Matrix<double, 6, 1> strain = C.ldlt().solve(va);
  return -vb.dot(strain) / va.dot(strain);
}

LatticeElasticity homogenise(Lattice lattice, double r, const Material& m, const BondModel& model) {
  if (!(r > 0) || !(m.E > 0)) throw InputError(str("bdem calibration: radius ", r, " and E ", m.E, " must be positive"));
  const Cell cell = unitCell(lattice, r);
  const int nz = 6 * cell.basis, n = 6 + nz;  // unknowns: eps (Voigt), then (u_b, w_b) per basis particle
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(n, n);
  const double pi = std::numbers::pi;
  const double G = m.shearModulus();
  const double S = pi * r * r, I = pi * std::pow(r, 4) / 4.0, J = 2.0 * I;  // Eqs. 8, 11 with r0 = r
  const double bendFactor = model.rotScale() * model.rotScale() / 4.0;    // (s/2)^2: 1 full angle, 1/4 half
  for (const CellBond& b : cell.bonds) {
    const double l0 = b.d.norm();
    const Vec3 nb = b.d / l0;
    const Mat3 P = Mat3::Identity() - nb * nb.transpose();
    const double kn = m.E * S / l0, kt = G * S / l0, kTwist = G * J / l0, kBend = m.E * I / l0;
    const double shearLength = model.shear == ShearForm::Consistent ? l0 * l0 : 1.0;
    // du = eps d + u_b - u_a as a 3 x n map; eps d with engineering shears e4 = 2 eps_yz, ...
    Eigen::MatrixXd D = Eigen::MatrixXd::Zero(3, n);
    const double x = b.d[0], y = b.d[1], z = b.d[2];
    D(0, 0) = x, D(1, 1) = y, D(2, 2) = z;
    D(1, 3) = 0.5 * z, D(2, 3) = 0.5 * y;
    D(0, 4) = 0.5 * z, D(2, 4) = 0.5 * x;
    D(0, 5) = 0.5 * y, D(1, 5) = 0.5 * x;
    D.block<3, 3>(0, 6 + 6 * b.b) += Mat3::Identity();
    D.block<3, 3>(0, 6 + 6 * b.a) -= Mat3::Identity();
    Eigen::MatrixXd Wc = Eigen::MatrixXd::Zero(3, n), Phi = Eigen::MatrixXd::Zero(3, n);
    Wc.block<3, 3>(0, 6 + 6 * b.a + 3) += 0.5 * Mat3::Identity();
    Wc.block<3, 3>(0, 6 + 6 * b.b + 3) += 0.5 * Mat3::Identity();
    Phi.block<3, 3>(0, 6 + 6 * b.b + 3) += Mat3::Identity();
    Phi.block<3, 3>(0, 6 + 6 * b.a + 3) -= Mat3::Identity();
    const Eigen::MatrixXd stretch = nb.transpose() * D;                  // n . du
    const Eigen::MatrixXd theta = P * D / l0 + cross(nb) * Wc;           // P du / l0 - w_c x n
    const Mat3 Kp = kTwist * nb * nb.transpose() + kBend * P;            // K' (README decision 15)
    K += kn * stretch.transpose() * stretch;
    K += kt * shearLength * theta.transpose() * theta;
    K += bendFactor * Phi.transpose() * Kp * Phi;
  }
  // Condense the internal unknowns; basis particle 0 does not translate (rigid translation).
  std::vector<int> internal;
  for (int i = 9; i < n; ++i) internal.push_back(i);
  const int ni = static_cast<int>(internal.size());
  Eigen::MatrixXd Kei(6, ni), Kii(ni, ni);
  for (int i = 0; i < ni; ++i) {
    for (int a = 0; a < 6; ++a) Kei(a, i) = K(a, internal[static_cast<std::size_t>(i)]);
    for (int j = 0; j < ni; ++j) Kii(i, j) = K(internal[static_cast<std::size_t>(i)], internal[static_cast<std::size_t>(j)]);
  }
  LatticeElasticity e;
  e.C = (K.topLeftCorner<6, 6>() - Kei * Kii.completeOrthogonalDecomposition().solve(Kei.transpose())) / cell.volume;
  e.volumePerParticle = cell.volume / cell.basis;
  e.packingFraction = 4.0 / 3.0 * pi * r * r * r / e.volumePerParticle;
  return e;
}

LatticeCalibration calibrateLattice(Lattice lattice, const Material& nominal, const BondModel& model) {
  const double r = 1.0;  // the moduli do not depend on r
  LatticeCalibration cal;
  cal.lattice = lattice;
  cal.before = homogenise(lattice, r, nominal, model);
  const double eLattice = std::sqrt(cal.before.young(Vec3::UnitX()) * cal.before.young(Vec3::UnitZ()));
  cal.stiffnessScale = nominal.E / eLattice;
  cal.massScale = 1.0 / cal.before.packingFraction;
  Material scaled = nominal;
  scaled.E *= cal.stiffnessScale;
  cal.after = homogenise(lattice, r, scaled, model);
  return cal;
}

std::vector<double> surfaceFactors(const System& S, Lattice lattice) {
  // Bond directions at each particle (rest state: the positions as built).
  const std::size_t n = S.P.size();
  std::vector<std::vector<std::pair<std::size_t, Vec3>>> at(n);
  for (std::size_t b = 0; b < S.bonds.size(); ++b) {
    const auto i = static_cast<std::size_t>(S.bonds[b].i), j = static_cast<std::size_t>(S.bonds[b].j);
    const Vec3 d = (S.P.p[j] - S.P.p[i]).normalized();
    at[i].emplace_back(b, d);
    at[j].emplace_back(b, -d);
  }
  // f at one end: 2 when the particle has no bond within 25 degrees of the partner direction:
  // -d (fcc and cubic neighbourhoods are centrosymmetric), or for hcp, whose out-of-layer
  // neighbours sit at d and its mirror image in the layer plane, also (d_x, d_y, -d_z).
  constexpr double kAligned = 0.9;
  std::vector<double> factor(S.bonds.size(), 0.0);
  for (std::size_t a = 0; a < n; ++a)
    for (const auto& [b, d] : at[a]) {
      const Vec3 mirror(d.x(), d.y(), -d.z());
      const bool layer = std::abs(d.z()) < 0.1;
      bool partner = false;
      for (const auto& other : at[a]) {
        partner = partner || other.second.dot(-d) > kAligned;
        if (lattice == Lattice::Hcp && !layer && other.first != b) partner = partner || other.second.dot(mirror) > kAligned;
      }
      factor[b] += 0.5 * (partner ? 1.0 : 2.0);
    }
  return factor;
}

long applyLatticeCalibration(System& S, const LatticeCalibration& cal, bool surface) {
  KINEMA_CHECK(cal.lattice.has_value(), "bdem calibration: no lattice");
  KINEMA_CHECK(!S.materials.empty(), "bdem calibration: the system has no material");
  Material& m = S.materials[0];
  m.E *= cal.stiffnessScale;
  m.density *= cal.massScale;
  m.sigmaC *= cal.stiffnessScale;
  m.tauC *= cal.stiffnessScale;
  for (std::size_t a = 0; a < S.P.size(); ++a)
    if (S.P.material[a] == 0) S.P.m[a] *= cal.massScale;
  const std::vector<double> f = surface ? surfaceFactors(S, *cal.lattice) : std::vector<double>(S.bonds.size(), 1.0);
  long compensated = 0;
  for (std::size_t k = 0; k < S.bonds.size(); ++k) {
    Bond& b = S.bonds[k];
    const double scale = cal.stiffnessScale * f[k];
    compensated += f[k] > 1.0 ? 1 : 0;
    b.kn *= scale;
    b.kt *= scale;
    b.kTwist *= scale;
    b.kBend *= scale;
    b.sigmaC *= scale;
    b.tauC *= scale;
  }
  return compensated;
}

}  // namespace kinema::bdem
