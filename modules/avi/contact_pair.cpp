#include "modules/avi/contact_pair.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kinema::avi {

ContactPair makePair(const PairKey& key, const Vertices& verts) {
  ContactPair p;
  p.key = key;
  switch (key.kind) {
    case PairKind::PointPoint: p.na = 1; p.nb = 1; break;
    case PairKind::PointEdge: p.na = 1; p.nb = 2; break;
    case PairKind::PointTriangle: p.na = 1; p.nb = 3; break;
    case PairKind::EdgeEdge: p.na = 2; p.nb = 2; break;
    case PairKind::PointPlane: p.na = 1; p.nb = 0; p.plane = key.b[0]; break;
  }
  p.a = key.a;
  if (p.nb > 0) p.b = key.b;
  p.mMin = std::numeric_limits<double>::infinity();
  for (int i = 0; i < p.na; ++i)
    if (!verts.scripted(p.a[i])) p.mMin = std::min(p.mMin, verts.mass[p.a[i]]);
  for (int i = 0; i < p.nb; ++i)
    if (!verts.scripted(p.b[i])) p.mMin = std::min(p.mMin, verts.mass[p.b[i]]);
  return p;
}

int gatherPair(const ContactPair& p, const Vertices& verts, const std::vector<Plane>& planes, double t,
               Vec3* xa, Vec3* va, Vec3* xb, Vec3* vb) {
  for (int i = 0; i < p.na; ++i) {
    xa[i] = verts.at(p.a[i], t);
    va[i] = verts.v[p.a[i]];
  }
  if (p.plane >= 0) {
    const Plane& pl = planes[p.plane];
    xb[0] = pl.offset * pl.normal;
    vb[0] = Vec3::Zero();
    return 1;
  }
  for (int i = 0; i < p.nb; ++i) {
    xb[i] = verts.at(p.b[i], t);
    vb[i] = verts.v[p.b[i]];
  }
  return p.nb;
}

geometry::ClosestPoints closestPoints(const ContactPair& p, const Vec3* xa, const Vec3* xb,
                                      const std::vector<Plane>& planes) {
  switch (p.key.kind) {
    case PairKind::PointPoint: return geometry::pointPoint(xa[0], xb[0]);
    case PairKind::PointEdge: return geometry::pointSegment(xa[0], xb[0], xb[1]);
    case PairKind::PointTriangle: return geometry::pointTriangle(xa[0], xb[0], xb[1], xb[2]);
    case PairKind::EdgeEdge: return geometry::segmentSegment(xa[0], xa[1], xb[0], xb[1]);
    case PairKind::PointPlane: {
      const Plane& pl = planes[p.plane];
      return geometry::pointPlane(xa[0], pl.normal, pl.offset);
    }
  }
  return {};
}

double penaltyKick(const ContactPair& p, const geometry::ClosestPoints& cp, int l, double h,
                   const PenaltyParams& prm, Vertices& verts, Vec3* dv) {
  const double g = cp.d - 2.0 * prm.eta / l;
  if (!(g < 0.0)) return 0.0;
  const Vec3& n = cp.n;
  // Relative velocity of the closest points (segment velocities before the kick).
  Vec3 vrel = Vec3::Zero();
  double wInv = 0.0;  // sum alpha^2 minv_a + sum beta^2 minv_b: inverse effective mass
  for (int i = 0; i < p.na; ++i) {
    vrel += cp.alpha[i] * verts.v[p.a[i]];
    wInv += cp.alpha[i] * cp.alpha[i] * verts.minv[p.a[i]];
  }
  for (int i = 0; i < p.nb; ++i) {
    vrel -= cp.beta[i] * verts.v[p.b[i]];
    wInv += cp.beta[i] * cp.beta[i] * verts.minv[p.b[i]];
  }
  const double vn = vrel.dot(n);
  const double s = vn > 0.0 ? prm.restitution : 1.0;  // the paper's §7.1: weakened while separating
  const double l3 = static_cast<double>(l) * l * l;
  const double Jn = h * 2.0 * l3 * prm.k * s * (-g);  // dV_l/dd = 2 l^3 k s g (README decision 26)
  Vec3 J = Jn * n;
  if (prm.friction > 0.0 && wInv > 0.0) {
    const Vec3 vt = vrel - vn * n;
    const double vtNorm = vt.norm();
    if (vtNorm > 0.0) {
      // Capped so the tangential relative velocity is at most stopped, never reversed.
      const double jf = std::min(prm.friction * Jn, vtNorm / wInv);
      J -= (jf / vtNorm) * vt;
    }
  }
  for (int i = 0; i < p.na; ++i) {
    dv[i] = (verts.minv[p.a[i]] * cp.alpha[i]) * J;
    verts.v[p.a[i]] += dv[i];
  }
  for (int i = 0; i < p.nb; ++i) {
    dv[p.na + i] = -(verts.minv[p.b[i]] * cp.beta[i]) * J;
    verts.v[p.b[i]] += dv[p.na + i];
  }
  return Jn;
}

}  // namespace kinema::avi
