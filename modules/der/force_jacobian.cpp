// Force, force Jacobian (Eq. 24-31) and BCQP assembly (Eq. 22-23) of one strand; see force_jacobian.hpp.
#include "modules/der/force_jacobian.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "framework/core/error.hpp"

namespace kinema::der {

namespace {

constexpr double kPi = std::numbers::pi;

// q-range [q0, q0 + len) of the column of parameter (vertex i, slot), before clipping to the
// free DOFs q >= 7 and q <= 4N-2 (README, code map of force_jacobian).
void columnRange(int N, int i, int slot, int& q0, int& len) {
  if (slot == kAlpha) {  // x_i .. x_{i+1} (theta_i in between is a structural zero)
    q0 = xIndex(i);
    len = 7;
  } else if (slot == kLbar) {  // y_i u y_{i+1} (or y_i alone for the last edge)
    q0 = stencilOffset(i);
    len = (i + 1 <= N - 2) ? 15 : 11;
  } else {  // y_i
    q0 = stencilOffset(i);
    len = 11;
  }
}

}  // namespace

// ---------------------------------------------------------------- ForceJacobianMatrix

void ForceJacobianMatrix::resize(int N) {
  rows_ = constraintCount(N);
  cols_ = parameterCount(N);
  rowBegin_.assign(static_cast<std::size_t>(cols_), 0);
  rowCount_.assign(static_cast<std::size_t>(cols_), 0);
  values_.assign(static_cast<std::size_t>(cols_), std::array<double, kMaxRows>{});
  for (int i = 1; i <= N - 2; ++i)
    for (int slot = 0; slot < kParamsPerVertex; ++slot) {
      int q0 = 0, len = 0;
      columnRange(N, i, slot, q0, len);
      const int first = std::max(q0, kFixedDofs);
      const int last = std::min(q0 + len, dofCount(N));  // exclusive
      const int a = paramIndex(i, slot);
      rowBegin_[a] = first - kFixedDofs;
      rowCount_[a] = last - first;
    }
}

double ForceJacobianMatrix::operator()(int r, int a) const {
  const int k = r - rowBegin_[a];
  return (k >= 0 && k < rowCount_[a]) ? values_[a][k] : 0.0;
}

void ForceJacobianMatrix::multiply(std::span<const double> x, std::span<double> y) const {
  std::fill(y.begin(), y.end(), 0.0);
  for (int a = 0; a < cols_; ++a) {
    const double xa = x[a];
    if (xa == 0.0) continue;
    const int r0 = rowBegin_[a];
    for (int k = 0; k < rowCount_[a]; ++k) y[r0 + k] += values_[a][k] * xa;
  }
}

void ForceJacobianMatrix::multiplyTransposed(std::span<const double> y, std::span<double> x) const {
  for (int a = 0; a < cols_; ++a) {
    const int r0 = rowBegin_[a];
    double s = 0.0;
    for (int k = 0; k < rowCount_[a]; ++k) s += values_[a][k] * y[r0 + k];
    x[a] = s;
  }
}

bool ForceJacobianMatrix::allFinite() const {
  for (int a = 0; a < cols_; ++a)
    for (int k = 0; k < rowCount_[a]; ++k)
      if (!std::isfinite(values_[a][k])) return false;
  return true;
}

// ---------------------------------------------------------------- StrandForceModel

StrandForceModel::StrandForceModel(RodKinematics kinematics, double radius, double restLength0, double scale,
                                   std::vector<double> massDiag, std::vector<double> externalForce)
    : N_(kinematics.N), kin_(std::move(kinematics)), radius_(radius), lbar0_(restLength0), s_(scale),
      mass_(std::move(massDiag)), fext_(std::move(externalForce)) {
  initMass();
}

void StrandForceModel::rebuild(const std::vector<double>& q, const ReferenceFrames& frames, double radius,
                               double restLength0, double scale, std::span<const double> massDiag,
                               std::span<const double> externalForce) {
  setKinematics(q, frames);
  rebuild(radius, restLength0, scale, massDiag, externalForce);
}

const RodKinematics& StrandForceModel::setKinematics(const std::vector<double>& q, const ReferenceFrames& frames) {
  computeKinematics(q, frames, kin_);
  N_ = kin_.N;
  return kin_;
}

void StrandForceModel::rebuild(double radius, double restLength0, double scale, std::span<const double> massDiag,
                               std::span<const double> externalForce) {
  radius_ = radius;
  lbar0_ = restLength0;
  s_ = scale;
  mass_.assign(massDiag.begin(), massDiag.end());
  fext_.assign(externalForce.begin(), externalForce.end());
  initMass();
}

void StrandForceModel::initMass() {
  if (N_ < 3) throw InputError(str("der optimizer: a strand needs at least 3 vertices, got ", N_));
  const std::size_t n = static_cast<std::size_t>(constraintCount(N_));
  if (mass_.size() != n || fext_.size() != n)
    throw Error(str("StrandForceModel: mass (", mass_.size(), ") and external force (", fext_.size(),
                    ") must have 4N-8 = ", n, " entries"));
  invMass_.resize(n);
  invSqrtMass_.resize(n);
  for (std::size_t r = 0; r < n; ++r) {
    if (!(mass_[r] > 0.0) || !std::isfinite(mass_[r]))
      throw InputError(str("der optimizer: the mass of free DOF ", r, " is ", mass_[r], "; it must be positive"));
    invMass_[r] = 1.0 / mass_[r];
    invSqrtMass_[r] = 1.0 / std::sqrt(mass_[r]);
  }
}

void StrandForceModel::force(std::span<const double> p, std::span<double> f) const {
  const int N = N_;
  std::copy(fext_.begin(), fext_.end(), f.begin());
  const double r2 = kPi * radius_ * radius_;
  const double r4 = r2 * radius_ * radius_;
  auto sub = [&](int q, double v) {
    if (q >= kFixedDofs) f[q - kFixedDofs] -= v;
  };
  for (int i = 1; i <= N - 2; ++i) {
    const double lbPrev = i == 1 ? lbar0_ : p[paramIndex(i - 1, kLbar)];
    const double Li = lbPrev + p[paramIndex(i, kLbar)];
    const double k0 = p[paramIndex(i, kKbar0)], k1 = p[paramIndex(i, kKbar1)];
    const Vec4 d = kin_.kappa[i] - Vec4(k0, k1, k0, k1);  // synchronised kbar (paper §IV)
    const double kb = s_ * p[paramIndex(i, kBeta)] * r4 / (4.0 * Li);          // Eq. 5
    const double kt = s_ * p[paramIndex(i, kGamma)] * r4 / Li;                 // Eq. 7
    const Vec11 g = kb * (kin_.gradKappa[i].transpose() * d) +                 // Eq. 6
                    (kt * (kin_.twist[i] - p[paramIndex(i, kMbar)])) * kin_.gradTwist[i];  // Eq. 8
    const int q0 = stencilOffset(i);
    for (int k = 0; k < 11; ++k) sub(q0 + k, g[k]);
    // Stretching of edge i (Eq. 3-4): grad_{x_{i+1}} = -grad_{x_i} = s alpha pi r^2 (l/lbar - 1) t.
    const double ks = s_ * p[paramIndex(i, kAlpha)] * r2;
    const Vec3 gs = (ks * (kin_.length[i] / p[paramIndex(i, kLbar)] - 1.0)) * kin_.tangent[i];
    for (int c = 0; c < 3; ++c) {
      sub(xIndex(i + 1, c), gs[c]);
      sub(xIndex(i, c), -gs[c]);
    }
  }
}

namespace {

// What the Jacobian's column helpers read and write: the model's kinematics and coefficients at
// p, J, and the buffer a column is first written into over its full q-range (seg, indexed from
// q0) before it is clipped into J.
struct JacobianColumns {
  const RodKinematics& kin;
  std::span<const double> p;
  int N = 0;
  double lbar0 = 0.0, s = 0.0, r2 = 0.0, r4 = 0.0;
  ForceJacobianMatrix& J;
  std::array<double, ForceJacobianMatrix::kMaxRows>& seg;
};

// Copies seg, clipped to the free DOFs, into the column of parameter (vertex i, slot).
inline void storeColumn(const JacobianColumns& ctx, int i, int slot) {
  int q0 = 0, len = 0;
  columnRange(ctx.N, i, slot, q0, len);
  const int skip = std::max(0, kFixedDofs - q0);
  std::span<double> col = ctx.J.column(paramIndex(i, slot));
  for (std::size_t k = 0; k < col.size(); ++k) col[k] = ctx.seg[k + static_cast<std::size_t>(skip)];
}

// Per-vertex quantities reused by the lbar columns of both neighbouring edges.
inline void bendTwistOverL(const JacobianColumns& ctx, int v, double& L, Vec11& gradEOverL) {
  const std::span<const double> p = ctx.p;
  // d f_{be+tw,v} / d L_v = +(grad E_be,v + grad E_tw,v) / L_v (Eq. 26, 29), L_v = lbar_{v-1} + lbar_v.
  const double lbPrev = v == 1 ? ctx.lbar0 : p[paramIndex(v - 1, kLbar)];
  L = lbPrev + p[paramIndex(v, kLbar)];
  const double k0 = p[paramIndex(v, kKbar0)], k1 = p[paramIndex(v, kKbar1)];
  const Vec4 d = ctx.kin.kappa[v] - Vec4(k0, k1, k0, k1);
  const double kb = ctx.s * p[paramIndex(v, kBeta)] * ctx.r4 / (4.0 * L);
  const double kt = ctx.s * p[paramIndex(v, kGamma)] * ctx.r4 / L;
  gradEOverL = (kb / L) * (ctx.kin.gradKappa[v].transpose() * d) +
               (kt / L * (ctx.kin.twist[v] - p[paramIndex(v, kMbar)])) * ctx.kin.gradTwist[v];
}

// The kbar, beta, mbar and gamma columns of vertex i (L_i = Li).
inline void storeBendTwistColumns(const JacobianColumns& ctx, int i, double Li) {
  const std::span<const double> p = ctx.p;
  auto& seg = ctx.seg;
  const Mat4x11& Jcu = ctx.kin.gradKappa[i];
  const Vec11& gm = ctx.kin.gradTwist[i];
  const double k0 = p[paramIndex(i, kKbar0)], k1 = p[paramIndex(i, kKbar1)];
  const Vec4 d = ctx.kin.kappa[i] - Vec4(k0, k1, k0, k1);
  const double beta = p[paramIndex(i, kBeta)], gamma = p[paramIndex(i, kGamma)];
  const double mDiff = ctx.kin.twist[i] - p[paramIndex(i, kMbar)];
  const double cb = ctx.s * ctx.r4 / (4.0 * Li);  // d kb / d beta
  const double ct = ctx.s * ctx.r4 / Li;          // d kt / d gamma
  // Eq. 27: d f_be / d kbar_j = kb (grad kappa_j + grad kappa_{j+2}) (synchronisation sum).
  for (int j = 0; j < 2; ++j) {
    const Vec11 col = (cb * beta) * (Jcu.row(j) + Jcu.row(j + 2)).transpose();
    for (int k = 0; k < 11; ++k) seg[k] = col[k];
    storeColumn(ctx, i, j == 0 ? kKbar0 : kKbar1);
  }
  {  // Eq. 28: d f_be / d beta = -s pi r^4 / (4 L) J^T (kappa - kbar)
    const Vec11 col = -cb * (Jcu.transpose() * d);
    for (int k = 0; k < 11; ++k) seg[k] = col[k];
    storeColumn(ctx, i, kBeta);
  }
  {  // Eq. 30: d f_tw / d mbar = kt grad m
    const Vec11 col = (ct * gamma) * gm;
    for (int k = 0; k < 11; ++k) seg[k] = col[k];
    storeColumn(ctx, i, kMbar);
  }
  {  // Eq. 31: d f_tw / d gamma = -s pi r^4 / L (m - mbar) grad m
    const Vec11 col = (-ct * mDiff) * gm;
    for (int k = 0; k < 11; ++k) seg[k] = col[k];
    storeColumn(ctx, i, kGamma);
  }
}

// The lbar and alpha columns of edge i (gL: bendTwistOverL's gradient at vertex i).
inline void storeStretchColumns(const JacobianColumns& ctx, int i, const Vec11& gL) {
  const std::span<const double> p = ctx.p;
  auto& seg = ctx.seg;
  const double lbar = p[paramIndex(i, kLbar)];
  const double l = ctx.kin.length[i];
  const Vec3& t = ctx.kin.tangent[i];
  {  // lbar_i: stretching (Eq. 24) + bending/twisting at vertices i and i+1 (Eq. 26, 29)
    std::fill(seg.begin(), seg.end(), 0.0);
    const Vec3 gs = (ctx.s * p[paramIndex(i, kAlpha)] * ctx.r2 * l / (lbar * lbar)) * t;
    for (int c = 0; c < 3; ++c) {
      seg[8 + c] += gs[c];  // x_{i+1} at q offset 4(i+1) - 4(i-1) = 8
      seg[4 + c] -= gs[c];  // x_i
    }
    for (int k = 0; k < 11; ++k) seg[k] += gL[k];
    if (i + 1 <= ctx.N - 2) {
      double Ln = 0.0;
      Vec11 gLn;
      bendTwistOverL(ctx, i + 1, Ln, gLn);
      for (int k = 0; k < 11; ++k) seg[4 + k] += gLn[k];
    }
    storeColumn(ctx, i, kLbar);
  }
  {  // Eq. 25: d f_{st,i,i+1} / d alpha = -s pi r^2 (l/lbar - 1) t, opposite on x_i
    std::fill(seg.begin(), seg.end(), 0.0);
    const Vec3 ga = (-ctx.s * ctx.r2 * (l / lbar - 1.0)) * t;
    for (int c = 0; c < 3; ++c) {
      seg[4 + c] = ga[c];  // x_{i+1} at q offset 4(i+1) - 4i = 4
      seg[c] = -ga[c];     // x_i
    }
    storeColumn(ctx, i, kAlpha);
  }
}

}  // namespace

void StrandForceModel::jacobian(std::span<const double> p, ForceJacobianMatrix& J) const {
  const int N = N_;
  if (J.cols() != parameterCount(N)) J.resize(N);
  const double r2 = kPi * radius_ * radius_;
  const double r4 = r2 * radius_ * radius_;
  // A column is first written over its full q-range (seg, indexed from q0), then clipped.
  std::array<double, ForceJacobianMatrix::kMaxRows> seg{};
  const JacobianColumns ctx{kin_, p, N, lbar0_, s_, r2, r4, J, seg};
  for (int i = 1; i <= N - 2; ++i) {
    double Li = 0.0;
    Vec11 gL;
    bendTwistOverL(ctx, i, Li, gL);
    storeBendTwistColumns(ctx, i, Li);
    storeStretchColumns(ctx, i, gL);
  }
}

// ---------------------------------------------------------------- BCQP pieces

void assembleBcqpMatrix(const ForceJacobianMatrix& J, std::span<const double> invMass, double rho,
                        std::span<const double> weights, BandedSymmetric& A) {
  const int n = J.cols();
  if (A.size() != n || A.bandwidth() != kBcqpBandwidth) A.resize(n, kBcqpBandwidth);
  else A.setZero();
  for (int a = 0; a < n; ++a) {
    const int ra = J.rowBegin(a), na = J.rowCount(a);
    const std::span<const double> ca = J.column(a);
    A.add(a, a, weights[a]);
    // Columns start at non-decreasing rows, so the partners of a are the b >= a starting before
    // the end of a's range.
    for (int b = a; b < n && J.rowBegin(b) < ra + na; ++b) {
      const int rb = J.rowBegin(b), nb = J.rowCount(b);
      const int lo = std::max(ra, rb), hi = std::min(ra + na, rb + nb);
      if (lo >= hi) continue;
      if (b - a > kBcqpBandwidth)
        throw Error(str("assembleBcqpMatrix: parameters ", a, " and ", b, " share a DOF outside the band 21"));
      const std::span<const double> cb = J.column(b);
      double s = 0.0;
      for (int r = lo; r < hi; ++r) s += ca[r - ra] * invMass[r] * cb[r - rb];
      A.add(b, a, rho * s);
    }
  }
}

void almGradient(const ForceJacobianMatrix& J, const AlmGradientInputs& in, std::span<double> work,
                 std::span<double> grad) {
  for (std::size_t r = 0; r < work.size(); ++r)
    work[r] = in.invSqrtMass[r] * in.lambda[r] + in.rho * in.invMass[r] * in.f[r];
  J.multiplyTransposed(work, grad);
  for (std::size_t a = 0; a < grad.size(); ++a) grad[a] += in.weights[a] * (in.p[a] - in.p0[a]);
}

// ---------------------------------------------------------------- structural sparsity

std::vector<std::vector<int>> structuralPattern(int N, SparsityModel model) {
  // DOF sets per parameter (free DOF indices), the stencils of Eq. 24-31 (they reproduce §VI-B's band figures).
  std::vector<std::vector<int>> sets;
  auto addX = [&](std::vector<int>& s, int v) {
    for (int c = 0; c < 3; ++c)
      if (xIndex(v, c) >= kFixedDofs) s.push_back(xIndex(v, c) - kFixedDofs);
  };
  auto addT = [&](std::vector<int>& s, int j) {
    if (thetaIndex(j) >= kFixedDofs) s.push_back(thetaIndex(j) - kFixedDofs);
  };
  auto stencil = [&](int i, bool th0, bool th1) {
    std::vector<int> s;
    addX(s, i - 1);
    addX(s, i);
    addX(s, i + 1);
    if (th0) addT(s, i - 1);
    if (th1) addT(s, i);
    return s;
  };
  auto lbarSet = [&](int i) {
    std::vector<int> s;
    addX(s, i);
    addX(s, i + 1);
    for (int v = i; v <= i + 1; ++v)
      if (v >= 1 && v <= N - 2) {
        const auto y = stencil(v, true, true);
        s.insert(s.end(), y.begin(), y.end());
      }
    return s;
  };
  for (int i = 1; i <= N - 2; ++i) {
    switch (model) {
      case SparsityModel::RestOnly2D:
        for (int k = 0; k < 3; ++k) sets.push_back(stencil(i, true, true));  // kbar0, kbar1, mbar
        sets.push_back(lbarSet(i));
        break;
      case SparsityModel::RestOnly4D:
        sets.push_back(stencil(i, true, false));  // kbar_0, kbar_1 depend on theta_{i-1} only
        sets.push_back(stencil(i, true, false));
        sets.push_back(stencil(i, false, true));  // kbar_2, kbar_3 on theta_i only
        sets.push_back(stencil(i, false, true));
        sets.push_back(stencil(i, true, true));   // mbar
        sets.push_back(lbarSet(i));
        break;
      case SparsityModel::Full:
        for (int k = 0; k < 5; ++k) sets.push_back(stencil(i, true, true));  // kbar0, kbar1, beta, mbar, gamma
        sets.push_back(lbarSet(i));
        {
          std::vector<int> s;
          addX(s, i);
          addX(s, i + 1);
          sets.push_back(s);  // alpha
        }
        break;
    }
  }
  const int n = static_cast<int>(sets.size());
  std::vector<std::vector<int>> byDof(static_cast<std::size_t>(constraintCount(N)));
  for (int a = 0; a < n; ++a) {
    auto& s = sets[a];
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    for (int d : s) byDof[d].push_back(a);
  }
  std::vector<std::vector<int>> rows(static_cast<std::size_t>(n));
  for (int a = 0; a < n; ++a) {
    auto& r = rows[a];
    r.push_back(a);
    for (int d : sets[a]) r.insert(r.end(), byDof[d].begin(), byDof[d].end());
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
  }
  return rows;
}

SparsityFigures structuralSparsity(int N, SparsityModel model) {
  const auto rows = structuralPattern(N, model);
  SparsityFigures f;
  f.n = static_cast<int>(rows.size());
  long long envelope = 0;
  for (int a = 0; a < f.n; ++a) {
    const auto& r = rows[a];
    f.nnz += static_cast<long long>(r.size());
    envelope += r.back() - r.front() + 1;
    f.halfBandwidth = std::max({f.halfBandwidth, a - r.front(), r.back() - a});
  }
  f.nnzPerRow = f.n > 0 ? static_cast<double>(f.nnz) / f.n : 0.0;
  f.envelopeFill = envelope > 0 ? static_cast<double>(f.nnz) / static_cast<double>(envelope) : 0.0;
  return f;
}

}  // namespace kinema::der
