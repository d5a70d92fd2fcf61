// Diagnostics at a common time without touching the state (modules/avi/README.md, decision 58)
// and the certificate invariant of decision 4 (test C3).
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <limits>

#include "framework/core/error.hpp"
#include "framework/geometry/primitive_distance.hpp"
#include "modules/avi/engine_impl.hpp"
#include "modules/avi/force_element.hpp"
#include "modules/avi/penalty_layer.hpp"

namespace kinema::avi {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

Measurement Engine::Impl::measure(double T) const {
  const Vertices& V = scene.vertices;
  const int n = V.size();
  Measurement m;
  m.time = T;
  // Drifted copies (README decision 58); a partitioned engine drifts on the fly instead (its
  // vertices are the whole scene's, the copies would be O(N) per rank).
  if (!partitioned) {
    xs.resize(n);
    for (int a = 0; a < n; ++a) xs[a] = V.at(a, T);
  }
  const auto pos = [&](int a) -> Vec3 { return partitioned ? V.at(a, T) : xs[a]; };
  for (int a = 0; a < n; ++a) {
    if (!ownedVertex[a] || V.scripted(a)) continue;
    const double ma = V.mass[a];
    m.kinetic += 0.5 * ma * V.v[a].squaredNorm();
    m.momentum += ma * V.v[a];
    const Vec3 xa = pos(a);
    m.angularMomentum += ma * xa.cross(V.v[a]);
    if (!hasGravityElements) m.gravity -= ma * scene.gravity.dot(xa);
  }
  Vec3 x[4];
  for (std::size_t i = 0; i < scene.forces.size(); ++i) {
    if (!forceOwned[i]) continue;
    const ForceElement& f = scene.forces[i];
    for (int k = 0; k < f.n; ++k) x[k] = pos(f.v[k]);
    if (f.kind == ForceKind::Gravity) {
      if (!V.scripted(f.v[0])) m.gravity += energy(f, x);
    } else {
      m.elastic += energy(f, x);
    }
  }
  // Contact: the barrier B(d) (s = 1) of every candidate pair, distances, active layers.
  Vec3 xa[3], xb[3];
  for (const ContactPair& p : pairs) {
    for (int i = 0; i < p.na; ++i) xa[i] = pos(p.a[i]);
    for (int i = 0; i < p.nb; ++i) xb[i] = pos(p.b[i]);
    const geometry::ClosestPoints cp = closestPoints(p, xa, xb, scene.planes);
    m.minDistance = std::min(m.minDistance, cp.d);
    if (!(cp.d > 0.0) || cp.degenerate) {
      ++m.intersections;
    } else {
      m.contact += barrierEnergy(cp.d, scene.eta, scene.k);
    }
    int depth = p.deepest;
    if (opt.bruteForce)
      depth = cp.d > 0.0 ? std::min(activeLayerCount(cp.d, scene.eta), opt.bruteForceLayers) : 0;
    if (depth > 0) {
      ++m.activePairs;
      if (static_cast<int>(m.activePerDepth.size()) < depth) m.activePerDepth.resize(depth, 0);
      for (int l = 0; l < depth; ++l) ++m.activePerDepth[l];
    }
  }
  m.candidatePairs = static_cast<std::int64_t>(pairs.size());
  // Exact triangle-triangle tests between non-adjacent contact triangles (README decision 58).
  // Partitioned: not here (a triangle of another rank that is no ghost has stale positions); the
  // Domain runs them on the gathered positions.
  if (!partitioned && scene.dim == 3 && scene.contactTriangles.size() > 1) {
    measureBroad.trianglePairs(scene, xs, triPairs);
    for (const auto& [i, j] : triPairs) {
      const Eigen::Vector3i& A = scene.contactTriangles[i];
      const Eigen::Vector3i& B = scene.contactTriangles[j];
      if (geometry::trianglesIntersect(xs[A[0]], xs[A[1]], xs[A[2]], xs[B[0]], xs[B[1]], xs[B[2]]))
        ++m.intersections;
    }
  }
  return m;
}

std::string Engine::Impl::checkInvariant(double t, int maxCheck) const {
  const Vertices& V = scene.vertices;
  Vec3 xa[3], va[3], xb[3], vb[3];
  for (std::size_t pi = 0; pi < pairs.size(); ++pi) {
    const ContactPair& p = pairs[pi];
    auto layerQueued = [&](int l) -> std::string {
      if (static_cast<int>(p.layers.size()) < l) return str("pair ", pi, ": layer ", l, " has no clock");
      const LayerClock& c = p.layers[l - 1];
      if (!queued(c.handle)) return str("pair ", pi, ": active layer ", l, " is not on the queue");
      const double tick = c.origin + static_cast<double>(c.j) * layerH(p, l);
      if (queuedTime(c.handle) != tick)
        return str("pair ", pi, ": layer ", l, " queued at ", queuedTime(c.handle), " != its tick ", tick);
      if (tick < t) return str("pair ", pi, ": layer ", l, " queued at ", tick, " < t");
      return "";
    };
    if (opt.bruteForce) {
      for (int l = 1; l <= std::min(opt.bruteForceLayers, maxCheck); ++l) {
        std::string why = layerQueued(l);
        if (!why.empty()) return why;
      }
      continue;
    }
    for (int l = 1; l <= std::min(p.deepest, maxCheck); ++l) {
      std::string why = layerQueued(l);
      if (!why.empty()) return why;
    }
    for (int l = p.deepest + 1; l <= static_cast<int>(p.layers.size()); ++l)
      if (p.layers[l - 1].handle >= 0) return str("pair ", pi, ": inactive layer ", l, " still queued");
    if (p.deepest + 1 > maxCheck) continue;
    // Layers deeper than L_p: the certificate guards L_p + 1 (and hence every deeper layer).
    const Certificate& c = p.cert;
    if (c.guarded != p.deepest + 1)
      return str("pair ", pi, ": certificate guards layer ", c.guarded, ", expected ", p.deepest + 1);
    if (c.tc < kInf) {
      if (!queued(c.handle)) return str("pair ", pi, ": certificate not on the queue");
      if (queuedTime(c.handle) != c.tc)
        return str("pair ", pi, ": certificate queued at ", queuedTime(c.handle), " != t_c = ", c.tc);
      if (c.tc < t) return str("pair ", pi, ": certificate expired at ", c.tc, " < t = ", t);
    } else if (c.handle >= 0) {
      return str("pair ", pi, ": certificate with t_c = inf is queued");
    }
    const int nbs = gatherPair(p, V, scene.planes, t, xa, va, xb, vb);
    const SlabSide A{xa, va, p.na}, B{xb, vb, nbs};
    const double tol = 1e-9 * (std::abs(c.slab.c) + c.slab.r) + 1e-300;
    if (std::abs(c.slab.r - scene.eta / c.guarded) > 1e-12 * c.slab.r)
      return str("pair ", pi, ": slab half-width ", c.slab.r, " is not eta / ", c.guarded);
    if (!slabSeparates(c.slab, A, B, tol))
      return str("pair ", pi, ": the slab of layer ", c.guarded, " does not separate the pair at t = ", t);
    // With the current velocities the slab must hold at least until t_c (no missed reschedule).
    const double life = slabLifetime(c.slab, A, B);
    if (t + life < c.tc - 1e-9 * (1.0 + std::abs(c.tc)))
      return str("pair ", pi, ": the slab expires at ", t + life, " with the current velocities, but "
                 "its certificate is queued at ", c.tc);
    const geometry::ClosestPoints cp = closestPoints(p, xa, xb, scene.planes);
    if (cp.d < 2.0 * c.slab.r * (1.0 - 1e-9))
      return str("pair ", pi, ": distance ", cp.d, " < 2 eta / ", c.guarded, " under a certificate");
  }
  return "";
}

}  // namespace kinema::avi
