#include "framework/solvers/manifold_rigid.hpp"

#include <cmath>
#include <limits>

#include "framework/core/error.hpp"

namespace kinema::solvers {

namespace {
void requireBlocks(const la::Vector& v, int bs, const char* what) {
  KINEMA_CHECK(v.map().blockSize() == bs, "RigidManifold: ", what, " must have block size ", bs, ", got ",
               v.map().blockSize());
}
}  // namespace

RigidManifold::RigidManifold(double maxAngle) : maxAngle_(maxAngle) {
  KINEMA_CHECK(maxAngle > 0.0, "RigidManifold: maxAngle must be positive");
}

RigidManifold::Vec4 RigidManifold::multiply(const Vec4& a, const Vec4& b) {
  const Vec3 av = a.head<3>(), bv = b.head<3>();
  Vec4 r;
  r.head<3>() = a[3] * bv + b[3] * av + av.cross(bv);
  r[3] = a[3] * b[3] - av.dot(bv);
  return r;
}

Eigen::Matrix3d RigidManifold::cross(const Vec3& t) {
  Eigen::Matrix3d m;
  m << 0.0, -t[2], t[1], t[2], 0.0, -t[0], -t[1], t[0], 0.0;
  return m;
}

RigidManifold::Mat34 RigidManifold::G(const Vec4& q) {
  Mat34 g;
  g.leftCols<3>() = q[3] * Eigen::Matrix3d::Identity() + cross(q.head<3>());
  g.col(3) = -q.head<3>();
  return g;
}

Eigen::Matrix3d RigidManifold::rotation(const Vec4& q) {
  const Vec3 t = q.head<3>();
  const double s = q[3];
  return (s * s - t.squaredNorm()) * Eigen::Matrix3d::Identity() + 2.0 * t * t.transpose() + 2.0 * s * cross(t);
}

RigidManifold::Mat76 RigidManifold::basis(const Vec4& q) {
  Mat76 B = Mat76::Zero();
  B.topLeftCorner<3, 3>().setIdentity();
  B.bottomRightCorner<4, 3>() = G(q).transpose();
  return B;
}

void RigidManifold::retract(la::Vector& x, const la::Vector& y, double alpha) const {
  requireBlocks(x, kAmbient, "a point");
  requireBlocks(y, kTangent, "a reduced tangent vector");
  {
    la::Vector::View xv = x.view();
    la::Vector::ConstView yv = y.view();
    const la::LocalIndex nb = x.map().ownedBlocks();
    for (la::LocalIndex b = 0; b < nb; ++b) {
      Eigen::Map<Eigen::Matrix<double, 7, 1>> xb(xv.data() + kAmbient * b);
      Eigen::Map<const Eigen::Matrix<double, 6, 1>> yb(yv.data() + kTangent * b);
      xb.head<3>() += alpha * yb.head<3>();                        // Eq. 20
      const Vec4 q = xb.tail<4>();
      const Vec3 w = alpha * yb.tail<3>();
      const double phi = w.norm();
      Vec4 qn;
      if (phi < 1e-12) {
        qn = q + G(q).transpose() * w;  // our choice: tiny steps
      } else {
        Vec4 e;
        e.head<3>() = (std::sin(phi) / phi) * w;
        e[3] = std::cos(phi);
        qn = multiply(e, q);  // Eq. 21: q cos(phi) + (dq/|dq|) sin(phi)
      }
      xb.tail<4>() = qn / qn.norm();  // Eq. 22
    }
  }
  x.updateGhosts();
}

double RigidManifold::maxStep(const la::Vector& y) const {
  requireBlocks(y, kTangent, "a reduced tangent vector");
  double m = 0.0;
  {
    la::Vector::ConstView yv = y.view();
    const la::LocalIndex nb = y.map().ownedBlocks();
    for (la::LocalIndex b = 0; b < nb; ++b) {
      Eigen::Map<const Vec3> r(yv.data() + kTangent * b + 3);
      m = std::max(m, r.norm());
    }
  }
  m = y.map().comm().max(m);
  return m > 0.0 ? maxAngle_ / m : std::numeric_limits<double>::infinity();
}

void RigidManifold::projectTangent(const la::Vector& x, la::Vector& v) const {
  requireBlocks(x, kAmbient, "a point");
  requireBlocks(v, kAmbient, "an ambient vector");
  la::Vector::ConstView xv = x.view();
  la::Vector::View vv = v.view();
  const la::LocalIndex nb = x.map().ownedBlocks();
  for (la::LocalIndex b = 0; b < nb; ++b) {
    Eigen::Map<const Vec4> q(xv.data() + kAmbient * b + 3);
    Eigen::Map<Vec4> d(vv.data() + kAmbient * b + 3);
    d -= q.dot(d) * q;  // P(q) = I4 - q q^T
  }
}

void RigidManifold::toReduced(const la::Vector& x, const la::Vector& v, la::Vector& y) const {
  requireBlocks(x, kAmbient, "a point");
  requireBlocks(v, kAmbient, "an ambient vector");
  requireBlocks(y, kTangent, "a reduced tangent vector");
  la::Vector::ConstView xv = x.view(), vv = v.view();
  la::Vector::View yv = y.view();
  const la::LocalIndex nb = x.map().ownedBlocks();
  for (la::LocalIndex b = 0; b < nb; ++b) {
    Eigen::Map<const Eigen::Matrix<double, 7, 1>> vb(vv.data() + kAmbient * b);
    Eigen::Map<Eigen::Matrix<double, 6, 1>> yb(yv.data() + kTangent * b);
    const Vec4 q = Eigen::Map<const Vec4>(xv.data() + kAmbient * b + 3);
    yb.head<3>() = vb.head<3>();
    yb.tail<3>() = G(q) * vb.tail<4>();
  }
}

void RigidManifold::fromReduced(const la::Vector& x, const la::Vector& y, la::Vector& v) const {
  requireBlocks(x, kAmbient, "a point");
  requireBlocks(v, kAmbient, "an ambient vector");
  requireBlocks(y, kTangent, "a reduced tangent vector");
  la::Vector::ConstView xv = x.view(), yv = y.view();
  la::Vector::View vv = v.view();
  const la::LocalIndex nb = x.map().ownedBlocks();
  for (la::LocalIndex b = 0; b < nb; ++b) {
    Eigen::Map<Eigen::Matrix<double, 7, 1>> vb(vv.data() + kAmbient * b);
    Eigen::Map<const Eigen::Matrix<double, 6, 1>> yb(yv.data() + kTangent * b);
    const Vec4 q = Eigen::Map<const Vec4>(xv.data() + kAmbient * b + 3);
    vb.head<3>() = yb.head<3>();
    vb.tail<4>() = G(q).transpose() * yb.tail<3>();
  }
}

void RigidManifold::transport(const la::Vector& xOld, const la::Vector& xNew, la::Vector& y) const {
  requireBlocks(xOld, kAmbient, "a point");
  requireBlocks(xNew, kAmbient, "a point");
  requireBlocks(y, kTangent, "a reduced tangent vector");
  la::Vector::ConstView ov = xOld.view(), nv = xNew.view();
  la::Vector::View yv = y.view();
  const la::LocalIndex nb = y.map().ownedBlocks();
  for (la::LocalIndex b = 0; b < nb; ++b) {
    const Vec4 qo = Eigen::Map<const Vec4>(ov.data() + kAmbient * b + 3);
    const Vec4 qn = Eigen::Map<const Vec4>(nv.data() + kAmbient * b + 3);
    Eigen::Map<Vec3> r(yv.data() + kTangent * b + 3);
    const Vec4 d = G(qo).transpose() * r;  // the ambient tangent vector at q_old
    r = G(qn) * d;                          // projected onto T_{q_new} S^3, in its coordinates
  }
}

void RigidManifold::tangentBasis(const double* xBlock, double* basis) const {
  Eigen::Map<Eigen::Matrix<double, 7, 6>> B(basis);
  B = RigidManifold::basis(Vec4(xBlock[3], xBlock[4], xBlock[5], xBlock[6]));
}

}  // namespace kinema::solvers
