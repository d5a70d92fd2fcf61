#pragma once
// Rigid-body test problems on (R^3 x S^3)^n for the Newton solver: each particle's position is
// pulled to a centre, its rotation minimises a quartic in q (Rayleigh quotient, alignment).
// Particles may be spread over ranks: a rank holds a contiguous range of global indices.
#include <Eigen/Dense>

#include <array>
#include <cmath>
#include <vector>

#include "framework/solvers/manifold_rigid.hpp"
#include "framework/solvers/newton.hpp"
#include "la/la_test_util.hpp"

namespace kinema::test {

using solvers::NewtonProblem;
using solvers::ReducedHessian;
using solvers::RigidManifold;
using Vec3 = Eigen::Vector3d;
using Vec4 = Eigen::Vector4d;

// The unit quaternion (x, y, z, w) of a rotation by `angle` about the axis (ax, ay, az).
inline Vec4 unitQuat(double ax, double ay, double az, double angle) {
  const Vec3 a = Vec3(ax, ay, az).normalized();
  Vec4 q;
  q.head<3>() = std::sin(0.5 * angle) * a;
  q[3] = std::cos(0.5 * angle);
  return q;
}

class RigidProblem : public NewtonProblem {
 public:
  // n particles owned here, global indices begin .. begin + n - 1; energy() sums over comm.
  explicit RigidProblem(int n, GlobalIndex begin = 0, Comm comm = Comm::self())
      : n_(n), begin_(begin), comm_(comm) {
    for (int a = 0; a < n; ++a) {
      const double g = static_cast<double>(begin + a);
      c_.push_back(Vec3(0.1 * g, -0.2, 0.3 + g));
    }
  }
  virtual double rotE(int a, const Vec4& q) const = 0;
  virtual Vec4 rotG(int a, const Vec4& q) const = 0;
  virtual Eigen::Matrix4d rotH(int a, const Vec4& q) const = 0;

  double energy(const la::Vector& x) override {
    la::Vector::ConstView r = x.view();
    double f = 0;
    for (int a = 0; a < n_; ++a) {
      const Vec3 p = Eigen::Map<const Vec3>(r.data() + 7 * a);
      const Vec4 q = Eigen::Map<const Vec4>(r.data() + 7 * a + 3);
      f += 0.5 * (p - c_[a]).squaredNorm() + rotE(a, q);
    }
    return comm_.sum(f);  // the solver's contract: the global energy on every rank
  }
  void gradient(const la::Vector& x, la::Vector& g) override {
    la::Vector::ConstView r = x.view();
    la::Vector::View w = g.view();
    for (int a = 0; a < n_; ++a) {
      const std::array<Vec4, 1> q{Vec4(Eigen::Map<const Vec4>(r.data() + 7 * a + 3))};
      Eigen::Map<Eigen::Matrix<double, 6, 1>>(w.data() + 6 * a) =
          RigidManifold::reduceGradient<1>(q, euclideanGrad(a, r.data() + 7 * a));
    }
  }
  void hessian(const la::Vector& x, ReducedHessian& H) override {
    la::Vector::ConstView r = x.view();
    for (int a = 0; a < n_; ++a) {
      const std::array<Vec4, 1> q{Vec4(Eigen::Map<const Vec4>(r.data() + 7 * a + 3))};
      Eigen::Matrix<double, 7, 7> h = Eigen::Matrix<double, 7, 7>::Zero();
      h.topLeftCorner<3, 3>().setIdentity();
      h.bottomRightCorner<4, 4>() = rotH(a, q[0]);
      const std::array<GlobalIndex, 1> blocks{begin_ + a};
      H.addElement<6>(blocks, RigidManifold::reduceHessian<1>(q, euclideanGrad(a, r.data() + 7 * a), h));
    }
  }
  Eigen::Matrix<double, 7, 1> euclideanGrad(int a, const double* xb) const {
    Eigen::Matrix<double, 7, 1> g;
    g.head<3>() = Eigen::Map<const Vec3>(xb) - c_[a];
    g.tail<4>() = rotG(a, Eigen::Map<const Vec4>(xb + 3));
    return g;
  }
  const Vec3& center(int a) const { return c_[a]; }

 protected:
  int n_;
  GlobalIndex begin_;
  Comm comm_;
  std::vector<Vec3> c_;
};

// Rayleigh quotient q^T A q, A = V diag(lambda) V^T: minimum lambda_min at q = +-v_min.
class Rayleigh final : public RigidProblem {
 public:
  Rayleigh(const Eigen::Matrix4d& A) : RigidProblem(1), A_(A) {}
  double rotE(int, const Vec4& q) const override { return q.dot(A_ * q); }
  Vec4 rotG(int, const Vec4& q) const override { return 2.0 * A_ * q; }
  Eigen::Matrix4d rotH(int, const Vec4&) const override { return 2.0 * A_; }

 private:
  Eigen::Matrix4d A_;
};

// Alignment: sum_j |R(q) a_j - b_j|^2 with b_j = R(q*) a_j. R(q) a is quadratic in q:
// component k is q^T M_jk q (polynomial extension of R off the sphere).
class Alignment final : public RigidProblem {
 public:
  // qstar: the target rotations of the particles owned here (global indices begin ...).
  Alignment(std::vector<Vec4> qstar, std::vector<Vec3> a, GlobalIndex begin = 0, Comm comm = Comm::self())
      : RigidProblem(static_cast<int>(qstar.size()), begin, comm), qs_(std::move(qstar)) {
    for (int p = 0; p < n_; ++p) {
      std::vector<std::array<Eigen::Matrix4d, 3>> Mp;
      std::vector<Vec3> bp;
      for (const Vec3& aj : a) {
        std::array<Eigen::Matrix4d, 3> M;
        auto h = [&](const Vec4& q) { return Vec3(RigidManifold::rotation(q) * aj); };
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 4; ++j) {
            const Vec4 ei = Vec4::Unit(i), ej = Vec4::Unit(j);
            const Vec3 v = (i == j) ? h(ei) : Vec3(0.5 * (h(ei + ej) - h(ei) - h(ej)));
            for (int k = 0; k < 3; ++k) M[k](i, j) = v[k];
          }
        Mp.push_back(M);
        bp.push_back(RigidManifold::rotation(qs_[p]) * aj);
      }
      M_.push_back(Mp);
      b_.push_back(bp);
    }
  }
  double rotE(int p, const Vec4& q) const override {
    double f = 0;
    for (std::size_t j = 0; j < b_[p].size(); ++j)
      for (int k = 0; k < 3; ++k) f += std::pow(q.dot(M_[p][j][k] * q) - b_[p][j][k], 2);
    return f;
  }
  Vec4 rotG(int p, const Vec4& q) const override {
    Vec4 g = Vec4::Zero();
    for (std::size_t j = 0; j < b_[p].size(); ++j)
      for (int k = 0; k < 3; ++k) g += 4.0 * (q.dot(M_[p][j][k] * q) - b_[p][j][k]) * (M_[p][j][k] * q);
    return g;
  }
  Eigen::Matrix4d rotH(int p, const Vec4& q) const override {
    Eigen::Matrix4d H = Eigen::Matrix4d::Zero();
    for (std::size_t j = 0; j < b_[p].size(); ++j)
      for (int k = 0; k < 3; ++k) {
        const Vec4 mq = M_[p][j][k] * q;
        H += 8.0 * mq * mq.transpose() + 4.0 * (q.dot(mq) - b_[p][j][k]) * M_[p][j][k];
      }
    return H;
  }
  const Vec4& qstar(int p) const { return qs_[p]; }

 private:
  std::vector<Vec4> qs_;
  std::vector<std::vector<std::array<Eigen::Matrix4d, 3>>> M_;
  std::vector<std::vector<Vec3>> b_;
};


}  // namespace kinema::test
