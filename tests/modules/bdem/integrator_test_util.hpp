#pragma once
// Small scenes for the integrator tests (test_bdem_integrator / _variants / _calibration): a
// System built by hand or from the packing generator, distributed on one rank, plus helpers.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <numbers>
#include <vector>

#include "framework/core/comm.hpp"
#include "framework/la/backend.hpp"
#include "modules/bdem/bond_builder.hpp"
#include "modules/bdem/domain.hpp"
#include "modules/bdem/implicit_stepper.hpp"
#include "modules/bdem/packing.hpp"
#include "modules/bdem/quaternion.hpp"
#include "modules/bdem/system.hpp"

namespace kinema::bdem::test {

inline double sphereMass(double r, double rho) { return rho * 4.0 / 3.0 * std::numbers::pi * r * r * r; }

// Appends a particle with gid = scene index.
inline std::size_t addSphere(System& s, const Vec3& p, double r, int material = 0) {
  const std::size_t id = s.P.size();
  s.P.add(p, r, sphereMass(r, s.materials[static_cast<std::size_t>(material)].density), static_cast<GlobalId>(id),
          material);
  return id;
}

// Bonds i-j (scene indices) with the material of particle i.
inline void bond(System& s, std::size_t i, std::size_t j) {
  s.bonds.push_back(makeBond(s.P, static_cast<std::int32_t>(i), static_cast<std::int32_t>(j),
                             s.materials[static_cast<std::size_t>(s.P.material[i])]));
}

// A scene on one rank: the domain and the eigen backend. Build `s`, then call distribute().
struct Rig {
  System s;
  std::unique_ptr<Domain> domain = std::make_unique<Domain>(Comm::self());
  la::BackendPtr backend = la::createBackend("eigen");
  void distribute() { domain->distribute(s, 4.0 * maxRadius()); }
  double maxRadius() const {
    double r = 0;
    for (double x : s.P.r) r = std::max(r, x);
    return r;
  }
  // Local index of scene particle k after distribute().
  std::size_t local(std::size_t k) const {
    const GlobalId g = domain->newIndexOfSceneParticle()[k];
    for (std::size_t a = 0; a < s.P.size(); ++a)
      if (s.P.gid[a] == g) return a;
    ADD_FAILURE() << "scene particle " << k << " not found";
    return 0;
  }
};

// Options with a direct linear solve and a tight tolerance on the relative force residual
// (IncrementalPotential::convergenceMeasure; about 1e-9 is the double-precision floor of the
// small scenes of these tests, where the forces balance to round-off).
inline IntegratorOptions tightOptions(double tol = 1e-8) {
  IntegratorOptions o;
  o.tolerance = tol;
  o.newton.linear.type = "direct";
  o.newton.maxIterations = 100;
  return o;
}

// Linear momentum sum m v and angular momentum sum (m p x v + (2/5) m r^2 omega) of the owned particles.
inline Vec3 linearMomentum(const System& s) {
  Vec3 P = Vec3::Zero();
  for (std::size_t a = 0; a < s.P.numOwned; ++a) P += s.P.m[a] * s.P.v[a];
  return P;
}
inline Vec3 angularMomentum(const System& s) {
  Vec3 L = Vec3::Zero();
  for (std::size_t a = 0; a < s.P.numOwned; ++a)
    L += s.P.m[a] * s.P.p[a].cross(s.P.v[a]) +
         0.4 * s.P.m[a] * s.P.r[a] * s.P.r[a] * quat::omegaFromQdot(s.P.q[a], s.P.qdot[a]);
  return L;
}

// Packs an (nx x ny x nz)-cell box of spheres of radius r with `lattice` and bonds touching pairs.
inline void packedBox(System& s, const Vec3& size, double r, Lattice lattice) {
  PackingOptions po;
  po.radius = r;
  po.lattice = lattice;
  const std::vector<Vec3> c = pack(boxSolid(Vec3::Zero(), size), po);
  addParticles(s.P, c, r, s.materials[0].density);
  buildBonds(s);
}

}  // namespace kinema::bdem::test
