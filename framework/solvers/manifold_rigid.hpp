#pragma once
// RigidManifold: (R^3 x S^3)^n, the configuration space of n rigid particles (bdem paper
// §4). Each block is (p, q), 7 scalars: position p, then the unit quaternion q stored
// scalar last, q = (t, s) = (u, v, w, s) (bdem App. A, Eq. 39). Reduced tangent coordinates
// are 6 per block, (dp, y) with dq = G(q)^T y (bdem Eqs. 28-29).
//
// G = G_r(q) = [s I3 + t^x | -t] (bdem Eq. 47), the world-frame choice (docs/solvers/newton.md): y is half
// the world-frame rotation increment, and the rigid-body near-null-space vectors are constant.
// Identities for unit q: G q = 0, G G^T = I3, G^T G = P(q) = I4 - q q^T (Eqs. 48-50).
//
// Retraction (bdem Eqs. 20-22): p <- p + alpha dp; q <- (yhat sin(phi), cos(phi)) (x) q with
// phi = alpha |y|, which is exactly the geodesic q cos(phi) + (dq/|dq|) sin(phi) because
// G_r(q)^T y = (y, 0) (x) q and |dq| = |y|. Then q <- q / |q| (Eq. 22). For phi < 1e-12 the step
// is normalize(q + alpha dq). maxStep() caps alpha |y| at `maxAngle` (pi/4 by default, our choice).
#include <Eigen/Core>
#include <Eigen/Geometry>
#include <array>

#include "framework/solvers/manifold.hpp"

namespace kinema::solvers {

class RigidManifold final : public Manifold {
 public:
  using Vec3 = Eigen::Vector3d;
  using Vec4 = Eigen::Vector4d;  // quaternion (u, v, w, s)
  using Mat34 = Eigen::Matrix<double, 3, 4>;
  using Mat76 = Eigen::Matrix<double, 7, 6>;
  static constexpr int kAmbient = 7;
  static constexpr int kTangent = 6;

  // maxAngle: the cap on alpha |y| per block (|y| is half the rotation angle).
  explicit RigidManifold(double maxAngle = 0.7853981633974483);
  std::string name() const override { return "rigid"; }
  int ambientBlockSize() const override { return kAmbient; }
  int tangentBlockSize() const override { return kTangent; }
  void retract(la::Vector& x, const la::Vector& y, double alpha) const override;
  double maxStep(const la::Vector& y) const override;
  void projectTangent(const la::Vector& x, la::Vector& v) const override;
  void toReduced(const la::Vector& x, const la::Vector& v, la::Vector& y) const override;
  void fromReduced(const la::Vector& x, const la::Vector& y, la::Vector& v) const override;
  void transport(const la::Vector& xOld, const la::Vector& xNew, la::Vector& y) const override;
  void tangentBasis(const double* xBlock, double* basis) const override;

  // ---- Element-level quaternion algebra (bdem App. A), fixed size, no allocation ----
  // Hamilton product a (x) b, scalar last.
  static Vec4 multiply(const Vec4& a, const Vec4& b);
  // t^x (bdem Eq. 43).
  static Eigen::Matrix3d cross(const Vec3& t);
  // G(q) = G_r(q) = [s I3 + t^x | -t] (bdem Eq. 47).
  static Mat34 G(const Vec4& q);
  // R(q) = (s^2 - |t|^2) I3 + 2 t t^T + 2 s t^x, the rotation d = q (.) d0 (bdem Eqs. 44-45).
  static Eigen::Matrix3d rotation(const Vec4& q);
  // The tangent basis of one block: B = blockdiag(I3, G(q)^T), 7 x 6 (bdem Eqs. 28-29).
  static Mat76 basis(const Vec4& q);

  // Reduction of an element over `n` particles with quaternions q[a] (bdem Eqs. 28-29):
  //   g_red = B^T grad,   H_red = B^T hess B - blockdiag_a(0_3, (q_a . grad_{q_a}) I3),
  // grad and hess being the Euclidean gradient and Hessian over (p_a, q_a) blocks of 7. The last
  // term is the curvature (Weingarten) term of S^3 (Eqs. 23-27).
  template <int n>
  static Eigen::Matrix<double, 6 * n, 1> reduceGradient(const std::array<Vec4, n>& q,
                                                        const Eigen::Matrix<double, 7 * n, 1>& grad) {
    Eigen::Matrix<double, 6 * n, 1> g;
    for (int a = 0; a < n; ++a) {
      g.template segment<3>(6 * a) = grad.template segment<3>(7 * a);
      g.template segment<3>(6 * a + 3) = G(q[a]) * grad.template segment<4>(7 * a + 3);
    }
    return g;
  }
  template <int n>
  static Eigen::Matrix<double, 6 * n, 6 * n> reduceHessian(const std::array<Vec4, n>& q,
                                                           const Eigen::Matrix<double, 7 * n, 1>& grad,
                                                           const Eigen::Matrix<double, 7 * n, 7 * n>& hess) {
    Eigen::Matrix<double, 7 * n, 6 * n> B = Eigen::Matrix<double, 7 * n, 6 * n>::Zero();
    for (int a = 0; a < n; ++a) B.template block<7, 6>(7 * a, 6 * a) = basis(q[a]);
    Eigen::Matrix<double, 6 * n, 6 * n> H = B.transpose() * hess * B;
    for (int a = 0; a < n; ++a) {
      const double c = q[a].dot(grad.template segment<4>(7 * a + 3));
      H.template block<3, 3>(6 * a + 3, 6 * a + 3).diagonal().array() -= c;
    }
    return H;
  }

 private:
  double maxAngle_;
};

}  // namespace kinema::solvers
