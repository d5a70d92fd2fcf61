// Separating-slab certificates (the paper's §6, test U8): random convex primitives
// (point, edge, triangle) with random linear vertex motion.
#include <gtest/gtest.h>

#include <random>

#include "framework/geometry/primitive_distance.hpp"
#include "modules/avi/certificate.hpp"

namespace kinema::avi {
namespace {

using geometry::ClosestPoints;

struct Prims {
  int na = 1, nb = 3;
  Vec3 xa[3], va[3], xb[3], vb[3];
};

ClosestPoints closest(const Prims& p, double t) {
  Vec3 a[3], b[3];
  for (int i = 0; i < p.na; ++i) a[i] = p.xa[i] + t * p.va[i];
  for (int i = 0; i < p.nb; ++i) b[i] = p.xb[i] + t * p.vb[i];
  if (p.na == 1 && p.nb == 1) return geometry::pointPoint(a[0], b[0]);
  if (p.na == 1 && p.nb == 2) return geometry::pointSegment(a[0], b[0], b[1]);
  if (p.na == 1 && p.nb == 3) return geometry::pointTriangle(a[0], b[0], b[1], b[2]);
  return geometry::segmentSegment(a[0], a[1], b[0], b[1]);
}

// Random primitives: B around the origin, A shifted by a random offset of length >= 1.5.
Prims randomPrims(std::mt19937_64& rng, int kind) {
  std::normal_distribution<double> N(0.0, 1.0);
  auto rv = [&]() { return Vec3(N(rng), N(rng), N(rng)); };
  Prims p;
  const int na[4] = {1, 1, 1, 2}, nb[4] = {1, 2, 3, 2};
  p.na = na[kind];
  p.nb = nb[kind];
  const Vec3 dir = rv().normalized();
  const Vec3 off = (1.5 + 2.0 * std::abs(N(rng))) * dir;
  for (int i = 0; i < p.nb; ++i) {
    p.xb[i] = 0.5 * rv();
    p.vb[i] = rv();
  }
  for (int i = 0; i < p.na; ++i) {
    p.xa[i] = off + 0.5 * rv();
    p.va[i] = rv();
  }
  return p;
}

TEST(AviCertificate, SlabSeparatesUntilExpiryAndTouchesAtExpiry) {
  std::mt19937_64 rng(2024);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  int tested = 0, finite = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const int kind = trial % 4;
    Prims p = randomPrims(rng, kind);
    const ClosestPoints cp = closest(p, 0.0);
    if (cp.degenerate || cp.d < 1e-3) continue;
    const double r = 0.5 * cp.d * (0.1 + 0.85 * U(rng));
    Slab slab;
    double life;
    ASSERT_TRUE(findSlab(cp.n, r, SlabSide{p.xa, p.va, p.na}, SlabSide{p.xb, p.vb, p.nb}, slab, life));
    ASSERT_GE(life, 0.0);
    EXPECT_EQ(slab.r, r);
    ++tested;
    // Sampled times before the expiry: the slab separates and d >= 2r.
    const double horizon = std::isfinite(life) ? life : 10.0;
    for (int s = 0; s < 20; ++s) {
      const double t = horizon * s / 20.0;
      Vec3 a[3], b[3];
      for (int i = 0; i < p.na; ++i) a[i] = p.xa[i] + t * p.va[i];
      for (int i = 0; i < p.nb; ++i) b[i] = p.xb[i] + t * p.vb[i];
      ASSERT_TRUE(slabSeparates(slab, SlabSide{a, p.va, p.na}, SlabSide{b, p.vb, p.nb}, 1e-12))
          << "trial " << trial << " t = " << t << " life = " << life;
      ASSERT_GE(closest(p, t).d, 2.0 * r * (1.0 - 1e-12)) << "trial " << trial << " t = " << t;
    }
    if (!std::isfinite(life)) continue;
    ++finite;
    // At the expiry some vertex is on its face.
    double gapMin = 1e300;
    for (int i = 0; i < p.na; ++i)
      gapMin = std::min(gapMin, slab.w.dot(p.xa[i] + life * p.va[i]) - (slab.c + slab.r));
    for (int i = 0; i < p.nb; ++i)
      gapMin = std::min(gapMin, (slab.c - slab.r) - slab.w.dot(p.xb[i] + life * p.vb[i]));
    EXPECT_NEAR(gapMin, 0.0, 1e-9 * (1.0 + life)) << "trial " << trial;
    // The centre maximises the expiry: no other admissible centre does better.
    double sA = 1e300, sB = -1e300;
    for (int i = 0; i < p.na; ++i) sA = std::min(sA, slab.w.dot(p.xa[i]));
    for (int i = 0; i < p.nb; ++i) sB = std::max(sB, slab.w.dot(p.xb[i]));
    for (int k = 0; k <= 10; ++k) {
      Slab other = slab;
      other.c = (sB + r) + (sA - sB - 2 * r) * k / 10.0;
      EXPECT_LE(slabLifetime(other, SlabSide{p.xa, p.va, p.na}, SlabSide{p.xb, p.vb, p.nb}),
                life * (1 + 1e-9) + 1e-12)
          << "trial " << trial << " centre " << k;
    }
    // Reschedule after a velocity change at t1 < expiry: t_c' >= t1 and the slab still holds
    // until t_c' with the new velocities.
    const double t1 = life * U(rng);
    Vec3 a1[3], b1[3], va1[3], vb1[3];
    std::normal_distribution<double> N(0.0, 2.0);
    for (int i = 0; i < p.na; ++i) {
      a1[i] = p.xa[i] + t1 * p.va[i];
      va1[i] = Vec3(N(rng), N(rng), N(rng));
    }
    for (int i = 0; i < p.nb; ++i) {
      b1[i] = p.xb[i] + t1 * p.vb[i];
      vb1[i] = Vec3(N(rng), N(rng), N(rng));
    }
    const double life1 = slabLifetime(slab, SlabSide{a1, va1, p.na}, SlabSide{b1, vb1, p.nb});
    ASSERT_GE(t1 + life1, t1);
    if (std::isfinite(life1)) {
      const double tm = 0.999 * life1;
      Vec3 a2[3], b2[3];
      for (int i = 0; i < p.na; ++i) a2[i] = a1[i] + tm * va1[i];
      for (int i = 0; i < p.nb; ++i) b2[i] = b1[i] + tm * vb1[i];
      EXPECT_TRUE(slabSeparates(slab, SlabSide{a2, va1, p.na}, SlabSide{b2, vb1, p.nb}, 1e-12));
    }
  }
  EXPECT_GT(tested, 3000);
  EXPECT_GT(finite, 1000);
}

TEST(AviCertificate, FailsWhenTheGapIsBelowTwiceTheHalfWidth) {
  Vec3 xa[1] = {Vec3(0, 0, 1)}, va[1] = {Vec3::Zero()};
  Vec3 xb[1] = {Vec3::Zero()}, vb[1] = {Vec3::Zero()};
  Slab slab;
  double life;
  EXPECT_FALSE(findSlab(Vec3::UnitZ(), 0.5000001, SlabSide{xa, va, 1}, SlabSide{xb, vb, 1}, slab, life));
  EXPECT_TRUE(findSlab(Vec3::UnitZ(), 0.5, SlabSide{xa, va, 1}, SlabSide{xb, vb, 1}, slab, life));
  EXPECT_EQ(life, std::numeric_limits<double>::infinity());
}

TEST(AviCertificate, PointOverAPlaneExpiresExactlyAtTheLayerOnset) {
  // A plane is a B pseudo vertex at rest on the plane: the slab sits on it and the expiry is the
  // exact time the point reaches distance 2r (layer onset 2 eta / j), z(t) = 1 - 0.5 t.
  Vec3 xa[1] = {Vec3(0.3, -0.2, 1.0)}, va[1] = {Vec3(0.1, 0.0, -0.5)};
  Vec3 xb[1] = {Vec3::Zero()}, vb[1] = {Vec3::Zero()};
  for (double r : {0.1, 0.05, 0.1 / 3}) {
    Slab slab;
    double life;
    ASSERT_TRUE(findSlab(Vec3::UnitZ(), r, SlabSide{xa, va, 1}, SlabSide{xb, vb, 1}, slab, life));
    EXPECT_NEAR(slab.c, r, 1e-15);
    EXPECT_NEAR(life, (1.0 - 2 * r) / 0.5, 1e-14);
  }
}

}  // namespace
}  // namespace kinema::avi
