#pragma once
// A strand as the DER model sees it (paper §III): N vertices x_0..x_{N-1}, one
// material-frame angle theta_j per edge e^j = x_{j+1} - x_j, interleaved into
//   q = [x_0, theta_0, x_1, theta_1, ..., theta_{N-2}, x_{N-1}]  (size 4N - 1).
// Minimal clamping: x_0, theta_0 and x_1 are fixed (prescribed), leaving 4N - 8 free DOFs, which are
// q[7 .. 4N-2] in the same order (free index a = q index - 7).
#include <Eigen/Core>
#include <cstddef>
#include <vector>

namespace kinema::der {

using Vec3 = Eigen::Vector3d;
using Vec4 = Eigen::Vector4d;

// DOF layout helpers (q index of x_v component c, of theta_j; first free q index).
inline constexpr int kFixedDofs = 7;
inline int xIndex(int v, int c = 0) { return 4 * v + c; }
inline int thetaIndex(int j) { return 4 * j + 3; }
inline int dofCount(int N) { return 4 * N - 1; }
inline int freeDofCount(int N) { return 4 * N - 8; }
// Offset in q of the bending/twisting stencil y_i = (x_{i-1}, theta_{i-1}, x_i, theta_i, x_{i+1})
// (11 contiguous entries) of interior vertex i.
inline int stencilOffset(int i) { return 4 * (i - 1); }

// Geometry of one strand: positions and edge angles (angles usually 0 in input files).
struct StrandGeometry {
  std::vector<Vec3> x;        // N >= 3 vertices, root first
  std::vector<double> theta;  // N - 1 edge angles (radians)
  int vertices() const { return static_cast<int>(x.size()); }
  int edges() const { return static_cast<int>(x.size()) - 1; }
};

// Material constants shared by the strands of a scene (SI units; see the module README for the
// defaults and why).
struct Material {
  double radius = 5e-5;     // r [m], circular cross-section
  double density = 1300.0;  // rho_d [kg/m^3]
  Vec3 gravity{0.0, 0.0, -9.81};
  double cStretch = 1e9;    // c_st [Pa] (Young's modulus for stretching)
  double cBend = 1e9;       // c_be [Pa]
  double cTwist = 1e9;      // c_tw [Pa]
};

// Rest state and stiffness of one strand: the parameters p of the optimisation in physical form.
// Edge-indexed arrays have N - 1 entries; vertex-indexed arrays N (end entries unused).
struct RestState {
  std::vector<double> restLength;  // lbar_j
  std::vector<Vec4> restKappa;     // kbar_i (4D curvature, paper §III-C)
  std::vector<double> restTwist;   // mbar_i
  std::vector<double> cStretch;    // c_st,j = s alpha_j per edge
  std::vector<double> cBend;       // c_be,i = s beta_i per vertex
  std::vector<double> cTwist;      // c_tw,i = s gamma_i per vertex
};

// Interleaved q from geometry and back.
std::vector<double> interleave(const StrandGeometry& g);
StrandGeometry deinterleave(const std::vector<double>& q);

}  // namespace kinema::der
