#pragma once
// Per-vertex state of the asynchronous integrator (README decision 4): position x_a at its own time
// t_a, segment velocity v_a, mass and inverse mass (0 for scripted / fixed vertices, whose velocity
// is prescribed). Lazy drift (the paper's Algorithm 1): a vertex moves on a straight line between
// kicks, so x_a(t) = x_a + (t - t_a) v_a; DRIFT(a, t) makes that the stored state.
#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace kinema::avi {

using Vec3 = Eigen::Vector3d;

struct Vertices {
  std::vector<Vec3> x;           // position at t[a]
  std::vector<Vec3> v;           // velocity of the current segment (half-step velocity)
  std::vector<double> t;         // time of x[a]
  std::vector<double> mass;      // lumped mass (> 0; scripted vertices keep their nominal mass)
  std::vector<double> minv;      // 1 / mass, or 0 for scripted / fixed vertices
  std::vector<std::int32_t> object;  // object (mesh / particle / rod) each vertex belongs to

  int size() const { return static_cast<int>(x.size()); }
  void resize(int n) {
    x.assign(n, Vec3::Zero());
    v.assign(n, Vec3::Zero());
    t.assign(n, 0.0);
    mass.assign(n, 1.0);
    minv.assign(n, 1.0);
    object.assign(n, 0);
  }
  // DRIFT(a, t) of README decision 4.
  void drift(int a, double time) {
    x[a] += (time - t[a]) * v[a];
    t[a] = time;
  }
  // Position at `time` without changing the state (diagnostics, certificates).
  Vec3 at(int a, double time) const { return x[a] + (time - t[a]) * v[a]; }
  bool scripted(int a) const { return minv[a] == 0.0; }
};

}  // namespace kinema::avi
