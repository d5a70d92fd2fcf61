// Frames, 4D curvature and twist of a DER strand with their stencil gradients (README decisions
// 3-7; paper Sec. III-C/D, Bergou et al. 2008 [6] and 2010 [7]).
#include "modules/der/rod_kinematics.hpp"

#include <Eigen/Geometry>
#include <cmath>
#include <numbers>

#include "framework/core/error.hpp"

namespace kinema::der {

namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;

Vec3 vertex(const std::vector<double>& q, int v) {
  return Vec3(q[xIndex(v, 0)], q[xIndex(v, 1)], q[xIndex(v, 2)]);
}

// Unit tangent of edge j and its length; a zero-length edge has no tangent.
Vec3 edgeTangent(const std::vector<double>& q, int j, double& length) {
  const Vec3 e = vertex(q, j + 1) - vertex(q, j);
  length = e.norm();
  if (!(length > 0.0) || !std::isfinite(length))
    throw Error(str("DER strand: edge ", j, " has length ", length, " (degenerate or non-finite)"));
  return e / length;
}

// Removes the component along t and renormalises (keeps a1 a unit normal of t despite round-off).
Vec3 orthonormalise(const Vec3& a, const Vec3& t) {
  const Vec3 b = a - t * t.dot(a);
  return b / b.norm();
}

// Time-parallel transport of a reference director from tangent tOld to t. An unchanged tangent
// (bitwise) keeps the director as it is, so that kinematics evaluated with frames already
// transported to q are bitwise those evaluated with the frames of the previous configuration
// (the forward simulation reuses them; restarts reproduce runs exactly).
Vec3 transportedDirector(const Vec3& a1, const Vec3& tOld, const Vec3& t) {
  if (t == tOld) return a1;
  return orthonormalise(parallelTransport(a1, tOld, t), t);
}

// The reference twist at vertex i (Sec. 1.3): signed angle about t^i from P_{t^{i-1}}^{t^i}(a1^{i-1})
// to a1^i, shifted by a multiple of 2 pi to lie closest to `previous` (continuity in time).
double referenceTwist(const Vec3& a1Prev, const Vec3& tPrev, const Vec3& a1, const Vec3& t,
                      double previous) {
  const Vec3 u = parallelTransport(a1Prev, tPrev, t);
  double m = signedAngle(u, a1, t);
  m += kTwoPi * std::round((previous - m) / kTwoPi);
  return m;
}

}  // namespace

Vec3 parallelTransport(const Vec3& u, const Vec3& ta, const Vec3& tb) {
  // Rodrigues rotation about b = ta x tb by the angle atan2(|b|, ta . tb).
  const Vec3 b = ta.cross(tb);
  const double s = b.norm();
  if (s < 1e-300) return u;  // parallel (or exactly antiparallel): identity
  const double c = ta.dot(tb);
  const Vec3 k = b / s;
  return u * c + k.cross(u) * s + k * (k.dot(u) * (1.0 - c));
}

double signedAngle(const Vec3& u, const Vec3& v, const Vec3& n) {
  return std::atan2(u.cross(v).dot(n), u.dot(v));
}

int vertexCount(const std::vector<double>& q) {
  const int n = static_cast<int>(q.size());
  if (n < dofCount(3) || (n + 1) % 4 != 0)
    throw InputError(str("a DER coordinate vector has size 4N - 1 with N >= 3, got ", n));
  return (n + 1) / 4;
}

ReferenceFrames initialFrames(const std::vector<double>& q) {
  ReferenceFrames f;
  initialFrames(q, f);
  return f;
}

void initialFrames(const std::vector<double>& q, ReferenceFrames& f) {
  const int N = vertexCount(q);
  f.a1.resize(N - 1);
  f.tangent.resize(N - 1);
  f.refTwist.assign(N, 0.0);
  double l = 0.0;
  for (int j = 0; j < N - 1; ++j) f.tangent[j] = edgeTangent(q, j, l);
  // a1^0: the coordinate axis least aligned with t^0, made normal to it (deterministic).
  const Vec3& t0 = f.tangent[0];
  int axis = 0;
  for (int c = 1; c < 3; ++c)
    if (std::abs(t0[c]) < std::abs(t0[axis])) axis = c;
  f.a1[0] = orthonormalise(Vec3::Unit(axis), t0);
  // Space-parallel transport along the strand (Sec. 1.3).
  for (int j = 1; j < N - 1; ++j)
    f.a1[j] = orthonormalise(parallelTransport(f.a1[j - 1], f.tangent[j - 1], f.tangent[j]), f.tangent[j]);
  for (int i = 1; i < N - 1; ++i)
    f.refTwist[i] = referenceTwist(f.a1[i - 1], f.tangent[i - 1], f.a1[i], f.tangent[i], 0.0);
}

void transportFrames(ReferenceFrames& frames, const std::vector<double>& q) {
  const int N = vertexCount(q);
  KINEMA_CHECK(static_cast<int>(frames.a1.size()) == N - 1 && static_cast<int>(frames.tangent.size()) == N - 1 &&
                   static_cast<int>(frames.refTwist.size()) == N,
               "reference frames of a strand with ", frames.a1.size() + 1, " vertices used for one with ", N);
  double l = 0.0;
  // Time-parallel transport of each a1^j from the old to the new tangent (Sec. 1.3).
  for (int j = 0; j < N - 1; ++j) {
    const Vec3 t = edgeTangent(q, j, l);
    frames.a1[j] = transportedDirector(frames.a1[j], frames.tangent[j], t);
    frames.tangent[j] = t;
  }
  for (int i = 1; i < N - 1; ++i)
    frames.refTwist[i] = referenceTwist(frames.a1[i - 1], frames.tangent[i - 1], frames.a1[i],
                                        frames.tangent[i], frames.refTwist[i]);
}

namespace {

// Sizes every array of K for a strand of N vertices (no allocation once K has held N vertices).
void sizeKinematics(RodKinematics& K, int N, CurvatureModel model) {
  K.N = N;
  K.model = model;
  K.length.resize(N - 1);
  K.tangent.resize(N - 1);
  K.a1.resize(N - 1);
  K.m1.resize(N - 1);
  K.m2.resize(N - 1);
  K.kappa.resize(N);
  K.gradKappa.resize(N);
  K.kb.resize(N);
  K.twist.resize(N);
  K.gradTwist.resize(N);
  K.refTwist.resize(N);
}

// Edges, reference frames (time-parallel transported to q) and material frames (Sec. 1.3).
inline void computeEdgeFrames(const std::vector<double>& q, const ReferenceFrames& frames, RodKinematics& K) {
  for (int j = 0; j < K.N - 1; ++j) {
    const Vec3 t = edgeTangent(q, j, K.length[j]);
    K.tangent[j] = t;
    const Vec3 a1 = transportedDirector(frames.a1[j], frames.tangent[j], t);
    const Vec3 a2 = t.cross(a1);
    const double th = q[thetaIndex(j)];
    const double c = std::cos(th), s = std::sin(th);
    K.a1[j] = a1;
    K.m1[j] = c * a1 + s * a2;
    K.m2[j] = -s * a1 + c * a2;
  }
}

// The end vertices carry no curvature and no twist.
void zeroEndVertices(RodKinematics& K) {
  for (int i : {0, K.N - 1}) {
    K.kappa[i].setZero();
    K.gradKappa[i].setZero();
    K.kb[i].setZero();
    K.twist[i] = 0.0;
    K.gradTwist[i].setZero();
    K.refTwist[i] = 0.0;
  }
}

// Curvature binormal kb_i, curvature kappa_i and its Jacobian on y_i at interior vertex i (of
// K.model).
inline void computeCurvature(RodKinematics& K, int i) {
  const Vec3& t0 = K.tangent[i - 1];
  const Vec3& t1 = K.tangent[i];
  const double l0 = K.length[i - 1], l1 = K.length[i];
  const double chi = 1.0 + t0.dot(t1);
  if (!(chi > 1e-12))
    throw Error(str("DER strand: edges ", i - 1, " and ", i, " fold back onto each other (1 + t.t = ", chi, ")"));
  const Vec3 tTilde = (t0 + t1) / chi;
  const Vec3 kb = 2.0 * t0.cross(t1) / chi;
  K.kb[i] = kb;

  // 4D curvature (Sec. 1.5): components 0, 2 pair with m2, components 1, 3 with m1.
  const Vec3 d[4] = {K.m2[i - 1], -K.m1[i - 1], K.m2[i], -K.m1[i]};
  Vec4 k;
  for (int c = 0; c < 4; ++c) k[c] = kb.dot(d[c]);
  Mat4x11 J = Mat4x11::Zero();
  for (int c = 0; c < 4; ++c) {
    const Vec3 dTilde = 2.0 * d[c] / chi;
    const Vec3 de0 = (-k[c] * tTilde + t1.cross(dTilde)) / l0;  // d kappa_c / d e^{i-1}
    const Vec3 de1 = (-k[c] * tTilde - t0.cross(dTilde)) / l1;  // d kappa_c / d e^i
    J.block<1, 3>(c, 0) = -de0.transpose();
    J.block<1, 3>(c, 4) = (de0 - de1).transpose();
    J.block<1, 3>(c, 8) = de1.transpose();
  }
  // d m1/d theta = m2, d m2/d theta = -m1.
  J(0, 3) = k[1];
  J(1, 3) = -k[0];
  J(2, 7) = k[3];
  J(3, 7) = -k[2];

  if (K.model == CurvatureModel::FourD) {
    K.kappa[i] = k;
    K.gradKappa[i] = J;
  } else {
    // 2D curvature with averaged material frames [7]: kappa = (kb . (m2^{i-1} + m2^i) / 2,
    // -kb . (m1^{i-1} + m1^i) / 2), i.e. the mean of the 4D slots (Fig. 2a/b).
    K.kappa[i] = Vec4(0.5 * (k[0] + k[2]), 0.5 * (k[1] + k[3]), 0.0, 0.0);
    Mat4x11 J2 = Mat4x11::Zero();
    J2.row(0) = 0.5 * (J.row(0) + J.row(2));
    J2.row(1) = 0.5 * (J.row(1) + J.row(3));
    K.gradKappa[i] = J2;
  }
}

// Twist with reference twist (Sec. 1.6, Eq. 7-8) and its gradient on y_i at interior vertex i
// (after computeCurvature, whose kb_i it uses).
inline void computeTwist(const std::vector<double>& q, const ReferenceFrames& frames, RodKinematics& K, int i) {
  const double l0 = K.length[i - 1], l1 = K.length[i];
  const Vec3& kb = K.kb[i];
  K.refTwist[i] = referenceTwist(K.a1[i - 1], K.tangent[i - 1], K.a1[i], K.tangent[i], frames.refTwist[i]);
  K.twist[i] = q[thetaIndex(i)] - q[thetaIndex(i - 1)] + K.refTwist[i];
  const Vec3 dm0 = kb / (2.0 * l0);  // d m / d e^{i-1}
  const Vec3 dm1 = kb / (2.0 * l1);  // d m / d e^i
  Vec11& g = K.gradTwist[i];
  g.segment<3>(0) = -dm0;
  g[3] = -1.0;
  g.segment<3>(4) = dm0 - dm1;
  g[7] = 1.0;
  g.segment<3>(8) = dm1;
}

}  // namespace

void computeKinematics(const std::vector<double>& q, const ReferenceFrames& frames, RodKinematics& K,
                       CurvatureModel model) {
  const int N = vertexCount(q);
  KINEMA_CHECK(static_cast<int>(frames.a1.size()) == N - 1 && static_cast<int>(frames.tangent.size()) == N - 1 &&
                   static_cast<int>(frames.refTwist.size()) == N,
               "reference frames of a strand with ", frames.a1.size() + 1, " vertices used for one with ", N);
  sizeKinematics(K, N, model);
  computeEdgeFrames(q, frames, K);
  zeroEndVertices(K);
  for (int i = 1; i < N - 1; ++i) {
    computeCurvature(K, i);
    computeTwist(q, frames, K, i);
  }
}

RodKinematics computeKinematics(const std::vector<double>& q, const ReferenceFrames& frames,
                                CurvatureModel model) {
  RodKinematics K;
  computeKinematics(q, frames, K, model);
  return K;
}

}  // namespace kinema::der
