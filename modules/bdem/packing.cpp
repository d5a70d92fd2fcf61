#include "modules/bdem/packing.hpp"

#include <cmath>
#include <memory>
#include <numbers>

#include "framework/core/error.hpp"

namespace kinema::bdem {

Lattice parseLattice(const std::string& name) {
  if (name == "cubic") return Lattice::Cubic;
  if (name == "fcc") return Lattice::Fcc;
  if (name == "hcp") return Lattice::Hcp;
  throw InputError("bdem: unknown lattice '" + name + "' (expected cubic | fcc | hcp)");
}

std::string toString(Lattice lattice) {
  switch (lattice) {
    case Lattice::Cubic: return "cubic";
    case Lattice::Fcc: return "fcc";
    case Lattice::Hcp: return "hcp";
  }
  return "?";
}

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

double hashUniform(std::uint64_t seed, std::uint64_t index) {
  return static_cast<double>(splitmix64(seed ^ splitmix64(index)) >> 11) * 0x1.0p-53;
}

Solid boxSolid(const Vec3& lower, const Vec3& upper) {
  Solid s;
  s.lower = lower;
  s.upper = upper;
  s.inside = [lower, upper](const Vec3& x) {
    return (x.array() >= lower.array()).all() && (x.array() <= upper.array()).all();
  };
  return s;
}

Solid cylinderSolid(const Vec3& centre, const Vec3& axisIn, double radius, double length) {
  const Vec3 axis = axisIn.normalized();
  Solid s;
  // Bounding box of a cylinder: half length along the axis plus radius sqrt(1 - a_k^2) across.
  Vec3 half;
  for (int k = 0; k < 3; ++k)
    half[k] = 0.5 * length * std::abs(axis[k]) + radius * std::sqrt(std::max(0.0, 1.0 - axis[k] * axis[k]));
  s.lower = centre - half;
  s.upper = centre + half;
  s.inside = [centre, axis, radius, length](const Vec3& x) {
    const Vec3 d = x - centre;
    const double t = d.dot(axis);
    return std::abs(t) <= 0.5 * length && (d - t * axis).squaredNorm() <= radius * radius;
  };
  return s;
}

Solid discPlateSolid(const Vec3& centre, double radius, double thickness) {
  return cylinderSolid(centre, Vec3::UnitZ(), radius, thickness);
}

Solid meshSolid(const TriMesh& mesh) {
  auto m = std::make_shared<TriMesh>(mesh);
  Solid s;
  s.lower = m->lower();
  s.upper = m->upper();
  const Vec3 lo = s.lower, hi = s.upper;
  s.inside = [m, lo, hi](const Vec3& x) {
    if ((x.array() < lo.array()).any() || (x.array() > hi.array()).any()) return false;
    return m->inside(x);
  };
  return s;
}

std::vector<Vec3> pack(const Solid& solid, const PackingOptions& o) {
  const double r = o.radius;
  if (!(r > 0) || !std::isfinite(r)) throw InputError(str("bdem packing: particle radius ", r, " must be positive"));
  if (!(o.jitter >= 0 && o.jitter < 0.5))
    throw InputError(str("bdem packing: jitter ", o.jitter, " must be in [0, 0.5) (a fraction of the radius)"));
  if (!solid.inside) throw InputError("bdem packing: the solid has no inside test");
  const Vec3 ext = solid.upper - solid.lower;
  if (!(ext.array() >= 0).all() || !ext.allFinite())
    throw InputError("bdem packing: the solid's bounding box is empty or not finite");
  double dx = 2 * r, dy = 2 * r, dz = 2 * r;
  if (o.lattice != Lattice::Cubic) {
    dy = std::sqrt(3.0) * r;
    dz = 2.0 * r * std::sqrt(2.0 / 3.0);
  }
  const double maxCells = 4e8;
  const double cells = (ext[0] / dx + 2) * (ext[1] / dy + 2) * (ext[2] / dz + 2);
  if (cells > maxCells)
    throw InputError(str("bdem packing: radius ", r, " is too small for the solid (", cells, " lattice cells)"));
  const Vec3 base = solid.lower + Vec3::Constant(r);
  std::vector<Vec3> out;
  for (std::int64_t k = 0;; ++k) {
    const double z = base[2] + static_cast<double>(k) * dz;
    if (z > solid.upper[2]) break;
    // In-layer offset of the close-packed stacking: A (0, 0), B (r, r/sqrt3), C (2r, 2r/sqrt3).
    int stack = 0;
    if (o.lattice == Lattice::Fcc) stack = static_cast<int>(k % 3);
    if (o.lattice == Lattice::Hcp) stack = static_cast<int>(k % 2);
    const double ox = stack * r, oy = stack * r / std::sqrt(3.0);
    for (std::int64_t j = 0;; ++j) {
      const double y = base[1] + oy + static_cast<double>(j) * dy;
      if (y > solid.upper[1]) break;
      // Row start: the layer and row offsets reduced modulo the spacing 2r, so that no lattice
      // point with x >= lower + r is skipped.
      const double rowShift = (o.lattice != Lattice::Cubic && (j % 2) == 1) ? r : 0.0;
      const double x0 = std::fmod(ox + rowShift, dx);
      for (std::int64_t i = 0;; ++i) {
        const double x = base[0] + x0 + static_cast<double>(i) * dx;
        if (x > solid.upper[0]) break;
        Vec3 p(x, y, z);
        if (!solid.inside(p)) continue;
        if (o.jitter > 0) {
          const std::uint64_t cell = splitmix64(static_cast<std::uint64_t>(i) +
                                                splitmix64(static_cast<std::uint64_t>(j) +
                                                           splitmix64(static_cast<std::uint64_t>(k))));
          for (int c = 0; c < 3; ++c)
            p[c] += o.jitter * r * (2.0 * hashUniform(o.seed, cell + static_cast<std::uint64_t>(c)) - 1.0);
        }
        out.push_back(p);
      }
    }
  }
  if (out.empty())
    throw InputError(str("bdem packing: no lattice point of radius ", r,
                         " lies inside the solid (radius too large for the shape?)"));
  return out;
}

void addParticles(Particles& P, const std::vector<Vec3>& centres, double radius, double density, int materialId) {
  const double m = density * 4.0 / 3.0 * std::numbers::pi * radius * radius * radius;
  for (const Vec3& c : centres)
    P.add(c, radius, m, static_cast<GlobalId>(P.size()), materialId);
  P.numOwned = P.size();
}

}  // namespace kinema::bdem
