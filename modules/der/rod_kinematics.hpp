#pragma once
// Frames and the kinematic quantities of a DER strand at a configuration q (paper §III-C, §III-D;
// README decisions 3-7):
// reference frames (space-parallel transport at initialisation, time-parallel transport when q
// changes), material frames, 4D curvature kappa_i with its 4x11 Jacobian on the stencil y_i, and
// twist m_i (with reference twist) with its gradient on y_i. Also the 2D averaged-frame curvature
// of Bergou 2010 [7] (for the frame-flip comparison of Fig. 2).
#include <Eigen/Core>
#include <vector>

#include "modules/der/strand.hpp"

namespace kinema::der {

using Mat4x11 = Eigen::Matrix<double, 4, 11>;
using Vec11 = Eigen::Matrix<double, 11, 1>;

// Parallel transport P_{ta}^{tb}(u): rotation about ta x tb taking ta to tb (identity if parallel).
Vec3 parallelTransport(const Vec3& u, const Vec3& ta, const Vec3& tb);

// Reference frames of one strand: a1 per edge (a2 = t x a1), the tangents they were built for,
// and the reference twist per vertex kept continuous in time (2 pi unwrapping).
struct ReferenceFrames {
  std::vector<Vec3> a1;         // N - 1
  std::vector<Vec3> tangent;    // N - 1, tangents a1 belongs to
  std::vector<double> refTwist; // N (ends 0)
};

// Space-parallel transport from a1^0 (any unit vector normal to t^0, chosen deterministically).
ReferenceFrames initialFrames(const std::vector<double>& q);
// The same frames written into `frames`, its storage reused (no allocation once it has held a
// strand of at least this size): the optimiser's workspace recomputes them on every rebuild.
void initialFrames(const std::vector<double>& q, ReferenceFrames& frames);
// Time-parallel transport of `frames` to configuration q (updates a1, tangents, refTwist).
void transportFrames(ReferenceFrames& frames, const std::vector<double>& q);

enum class CurvatureModel { FourD, TwoDAveraged };

// Everything the energies need at q. Vertex-indexed arrays have N entries (only 1..N-2 used).
struct RodKinematics {
  int N = 0;
  std::vector<double> length;    // l_j = |e^j|
  std::vector<Vec3> tangent;     // t^j
  std::vector<Vec3> m1, m2;      // material directors per edge
  std::vector<Vec4> kappa;       // kappa_i (4D) or (k1, k2, 0, 0) for the 2D model
  std::vector<Mat4x11> gradKappa;// d kappa_i / d y_i
  std::vector<double> twist;     // m_i = theta_i - theta_{i-1} + refTwist_i
  std::vector<Vec11> gradTwist;  // d m_i / d y_i
  // The model kappa was computed with, and intermediate quantities the energies and tests use.
  CurvatureModel model = CurvatureModel::FourD;
  std::vector<Vec3> a1;          // reference director per edge, transported to q
  std::vector<Vec3> kb;          // curvature binormal (kappa b)_i = 2 t^{i-1} x t^i / (1 + t^{i-1} . t^i)
  std::vector<double> refTwist;  // m^ref_i (N entries, ends 0), 2 pi continuous w.r.t. frames.refTwist
};

RodKinematics computeKinematics(const std::vector<double>& q, const ReferenceFrames& frames,
                                CurvatureModel model = CurvatureModel::FourD);

// Number of vertices N of an interleaved q (size 4N - 1, N >= 3); throws InputError otherwise.
int vertexCount(const std::vector<double>& q);

// Signed angle from u to v about the unit axis n (u, v normal to n): atan2((u x v) . n, u . v).
double signedAngle(const Vec3& u, const Vec3& v, const Vec3& n);

// In-place variant for hot loops: reuses the storage of `out` (no allocation once `out` has been
// filled for a strand of the same N). `frames` may belong to an earlier configuration: the
// reference directors are time-parallel transported from frames.tangent to the tangents of q
// (the identity when frames were already transported to q), and the reference twist is unwrapped
// against frames.refTwist, exactly as transportFrames would do.
void computeKinematics(const std::vector<double>& q, const ReferenceFrames& frames, RodKinematics& out,
                       CurvatureModel model = CurvatureModel::FourD);

}  // namespace kinema::der
