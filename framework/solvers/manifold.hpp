#pragma once
// Manifold: the space a Newton iterate lives on (framework/solvers/newton.hpp), described block by
// block. A point is an la::Vector whose blocks ("particles") have `ambientBlockSize()` scalars;
// a tangent vector is given in reduced coordinates, `tangentBlockSize()` scalars per block, in the
// tangent basis B(x) of each block (bdem paper Eqs. 28-29: y = G dx, dx = G^T y).
// Newton solves its system in reduced coordinates, so its matrix has the tangent block size.
//
// Contract: every operation acts on the owned blocks; retract() then refreshes the ghosts of the
// point (collective). Implementations allocate nothing per call.
#include <limits>
#include <string>

#include "framework/la/vector.hpp"

namespace kinema::solvers {

class Manifold {
 public:
  virtual ~Manifold() = default;
  virtual std::string name() const = 0;
  // Scalars per block of a point (embedding space) and of a reduced tangent vector.
  virtual int ambientBlockSize() const = 0;
  virtual int tangentBlockSize() const = 0;

  // The map of reduced tangent vectors at points on `pointMap`: same distribution and ghosts,
  // tangent block size. Collective when a new map has to be built.
  la::IndexMapPtr tangentMap(const la::IndexMapPtr& pointMap) const;

  // x <- R_x(alpha B(x) y): the retraction along reduced tangent coordinates y (bdem Eqs. 20-22
  // for S^3: the geodesic, then renormalisation). Refreshes the ghosts of x (collective).
  virtual void retract(la::Vector& x, const la::Vector& y, double alpha) const = 0;
  // Largest alpha the retraction accepts for direction y (e.g. a cap on the rotation angle per
  // step, bdem §4); +inf when unbounded. Collective.
  virtual double maxStep(const la::Vector& y) const {
    (void)y;
    return std::numeric_limits<double>::infinity();
  }
  // v <- P(x) v for an ambient vector v (bdem §4: P(q) = I4 - q q^T).
  virtual void projectTangent(const la::Vector& x, la::Vector& v) const = 0;
  // Reduced coordinates of an ambient vector: y = B(x)^T v (for a Euclidean gradient this is the
  // reduced Riemannian gradient, bdem Eqs. 28-29: g_y = G(q) grad_q f).
  virtual void toReduced(const la::Vector& x, const la::Vector& v, la::Vector& y) const = 0;
  // The ambient tangent vector of reduced coordinates: v = B(x) y (bdem: dq = G(q)^T y).
  virtual void fromReduced(const la::Vector& x, const la::Vector& y, la::Vector& v) const = 0;
  // Vector transport of reduced coordinates from T_xOld to T_xNew (by projection); in place.
  virtual void transport(const la::Vector& xOld, const la::Vector& xNew, la::Vector& y) const = 0;
  // The tangent basis of one block, ambient x tangent, column-major into `basis`
  // (ambientBlockSize() * tangentBlockSize() doubles). Generic access; the instances also give
  // it as a fixed-size Eigen matrix for element-level math.
  virtual void tangentBasis(const double* xBlock, double* basis) const = 0;
};

}  // namespace kinema::solvers
