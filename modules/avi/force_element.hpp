#pragma once
// Material and external potentials V^i of the AVI (the paper's §4 and the models of its §8), each
// with its own fixed step h^i and its own clock: the i-th potential ticks at j * h^i, j = 1, 2, ...
// (never at 0, never restarted; the clock index j is stored, the time j * h is recomputed).
//
// One struct for every kind (a tagged record rather than a class hierarchy): the event loop keeps
// them in one contiguous array and dispatches with a switch, with no allocation and no virtual
// call per event. Element formulas live one per file: spring.cpp, cst.cpp, hinge.cpp,
// rod_bend.cpp, gravity.cpp; force_element.cpp dispatches.
//
// Conventions: gradient() writes dV/dx_a for the n stencil vertices (the kick is
// v_a -= h minv_a dV/dx_a, the paper's Eq. (9)); dampingForce() writes the non-variational viscous force
// on strain rates (the paper's §8, decision recorded in the README), already with its sign (it is
// added to the kick as v_a += h minv_a f_a). Energies use the 1/2 convention (README decision 59).
#include <Eigen/Core>
#include <array>
#include <cstdint>

#include "modules/avi/vertices.hpp"

namespace kinema::avi {

enum class ForceKind : std::uint8_t {
  Spring,   // 2 vertices: V = 1/2 k (|x1 - x0| - L)^2                           (the paper's §8)
  Cst,      // 3 vertices: St-Venant-Kirchhoff membrane on the rest triangle       (the paper's §8)
  Hinge,    // 4 vertices (edge x0-x1, flaps x2, x3): discrete-shell bending        (the paper's §8)
  RodBend,  // 3 vertices x0-x1-x2: discrete rod bending at x1                      (README)
  Gravity   // 1 vertex:  V = -m g . x
};

struct ForceElement {
  ForceKind kind = ForceKind::Spring;
  std::uint8_t n = 0;                       // stencil size (1..4)
  std::array<std::int32_t, 4> v{-1, -1, -1, -1};  // stencil vertex indices
  double h = 0.0;                           // fixed step of this potential
  std::int64_t j = 1;                       // index of the next tick: next event at j * h
  double k = 0.0;        // stiffness: spring k_s; CST Y (stretching stiffness); hinge k_b; rod bend k_b
  double nu = 0.0;       // CST Poisson ratio
  double damping = 0.0;  // viscous damping coefficient on the strain rate (0 = off)
  double rest = 0.0;     // spring rest length L; hinge rest angle theta_bar; rod rest turning angle
  double weight = 0.0;   // CST rest area; hinge 3|e|^2/(A1 + A2); rod 1 / (Voronoi length)
  Eigen::Matrix2d restInv = Eigen::Matrix2d::Zero();  // CST inverse of the 2x2 rest edge matrix
  Vec3 g = Vec3::Zero();  // Gravity: acceleration vector (V = -m g . x, m = mass of the vertex)
  double mass = 0.0;      // Gravity: mass of the vertex
  // (Added by the elements helper.) Rest shape in a local frame, only for stableStep, which needs
  // the rest-state Hessian: Hinge {|e|, s2, h2, s3, h3} (edge length; for each flap the foot of
  // its vertex along the edge from x0 and its height above the edge line); RodBend {|e0|, |e1|}.
  // Spring, CST (restInv) and Gravity do not use it.
  std::array<double, 5> restShape{};
};

// (Added by the elements helper.) Stencil positions / gradients of an n-vertex element as the
// columns of a fixed-size matrix; force_element.cpp maps the Vec3 arrays onto it without copying.
template <int N>
using Stencil = Eigen::Matrix<double, 3, N>;

// Builders compute the rest data from rest positions and choose nothing else (h is set by the
// scene builder). They throw InputError on degenerate rest shapes (zero length / area).
ForceElement makeSpring(int a, int b, const Vec3& xa, const Vec3& xb, double k, double damping);
ForceElement makeCst(int a, int b, int c, const Vec3& xa, const Vec3& xb, const Vec3& xc,
                     double Y, double nu, double damping);
// Hinge on the interior edge (a, b) with opposite vertices c (in triangle a, b, c) and d (in b, a, d).
ForceElement makeHinge(int a, int b, int c, int d, const Vec3& xa, const Vec3& xb, const Vec3& xc,
                       const Vec3& xd, double kb, double damping);
ForceElement makeRodBend(int a, int b, int c, const Vec3& xa, const Vec3& xb, const Vec3& xc,
                         double kb, double damping);
ForceElement makeGravity(int a, double mass, const Vec3& g);

// V(x) for the stencil positions x[0..n).
double energy(const ForceElement& e, const Vec3* x);
// dV/dx for the stencil positions, into grad[0..n).
void gradient(const ForceElement& e, const Vec3* x, Vec3* grad);
// Viscous damping force (README decisions 7 and 24) for positions x and velocities v, into f[0..n);
// writes zeros when e.damping == 0. Translation- and rotation-invariant (sum f = 0, sum x x f = 0).
void dampingForce(const ForceElement& e, const Vec3* x, const Vec3* v, Vec3* f);
// A stable step estimate for the element alone: C_safe * 2 / omega_max with omega_max from the
// element stiffness and the stencil masses (used by the scene builder to pick h per element).
double stableStep(const ForceElement& e, const double* masses, double cSafe);

}  // namespace kinema::avi
