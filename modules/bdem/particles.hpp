#pragma once
// Particles: the BDEM elements of one rank, structure of arrays (paper §3.1).
// Local index a in [0, numOwned) are the particles this rank owns, in increasing
// global index; [numOwned, size()) are ghost copies of particles other ranks own (README decisions 1-5).
// Global indices are the block indices of the Newton point map (domain.hpp), so a rank owns one
// contiguous range of them.
//
// State per particle: position p, unit quaternion q stored scalar last (u, v, w, s) (Eq. 39),
// velocity v = dp/dt and quaternion velocity qdot = dq/dt (the finite differences of Alg. 3
// line 18). Mass m and radius r give the constant extended mass diag(m I3, (8/5) m r^2 I4) (Eq. 1).
#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace kinema::bdem {

using Vec3 = Eigen::Vector3d;
using Vec4 = Eigen::Vector4d;  // quaternion (u, v, w, s), scalar last
using Mat3 = Eigen::Matrix3d;
using GlobalId = std::int64_t;

// How a particle moves: free (solved for), fixed (never moves), or gripped: its p and q follow the
// prescribed motion of grip `grip[a]` (Dirichlet DOFs, README decision 28).
enum class Dof : std::int8_t { Free = 0, Fixed = 1, Grip = 2 };

struct Particles {
  std::vector<Vec3> p, v;
  std::vector<Vec4> q, qdot;
  std::vector<double> r, m;
  std::vector<Dof> dof;
  std::vector<std::int32_t> grip;     // grip index for Dof::Grip, -1 otherwise
  std::vector<std::int32_t> material; // index into the scene's materials
  std::vector<GlobalId> gid;          // global index (Newton block index)
  std::vector<Vec3> pRef;             // position at t = 0 (grip motion, displacement output)
  std::vector<Vec4> qRef;             // orientation at t = 0
  std::size_t numOwned = 0;

  std::size_t size() const { return p.size(); }
  bool owned(std::size_t a) const { return a < numOwned; }
  // (8/5) m r^2: the rotational entry of the constant mass matrix (Eq. 1; = 4 x inertia 2/5 m r^2).
  double rotationalMass(std::size_t a) const { return 1.6 * m[a] * r[a] * r[a]; }
  void resize(std::size_t n);
  void clear() { resize(0); numOwned = 0; }
  // Appends one particle at rest, q = identity, free.
  void add(const Vec3& position, double radius, double mass, GlobalId id, int materialId = 0);
};

}  // namespace kinema::bdem
