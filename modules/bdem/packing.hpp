#pragma once
// Particle packings (paper §3.4): regular lattices of equal spheres of radius r
// clipped to a solid, optionally jittered.
//
// Lattices (spacing 2r, the spheres touch):
//   cubic: simple cubic, coordination 6, volume fraction pi/6 = 0.524.
//   fcc:   close-packed triangular layers in ABC stacking (face-centred cubic), coordination 12,
//          volume fraction pi/(3 sqrt 2) = 0.7405. The default: its bond network has the largest
//          Laplacian eigenvalue 16 the paper quotes for "hexagonal packing" (§5.1).
//   hcp:   the same layers in AB stacking (hexagonal close packing, the paper's name), also
//          coordination 12 and 0.7405.
// Layers are normal to z, rows along x (row pitch r sqrt 3 in y, layer pitch 2 r sqrt(2/3) in z).
//
// Placement (decision): the lattice is anchored at lower + (r, r, r) of the solid's bounding box,
// so the spheres touch the three lower faces, and a lattice point is kept when its centre is
// inside the solid (the rule for meshes in README decision 21; the same rule for every shape, so packing a
// cube mesh equals packing the box). Points are produced layer by layer (z), row by row (y), x
// increasing: a deterministic order.
//
// Jitter: each kept point moves by jitter * r * (u1, u2, u3), u_k uniform on [-1, 1), drawn from
// splitmix64 of (seed, lattice cell index): the same on every platform and independent of the
// clipping (a point keeps its displacement when the shape changes). The point is kept or dropped
// by its lattice position, before the jitter.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "modules/bdem/obj_mesh.hpp"
#include "modules/bdem/particles.hpp"

namespace kinema::bdem {

enum class Lattice : std::int8_t { Cubic = 0, Fcc = 1, Hcp = 2 };
Lattice parseLattice(const std::string& name);  // "cubic" | "fcc" | "hcp"
std::string toString(Lattice lattice);

struct PackingOptions {
  double radius = 0.01;
  Lattice lattice = Lattice::Fcc;
  double jitter = 0.0;      // fraction of r, in [0, 0.5)
  std::uint64_t seed = 1;
};

// A solid: its bounding box and an inside test for sphere centres.
struct Solid {
  Vec3 lower = Vec3::Zero(), upper = Vec3::Zero();
  std::function<bool(const Vec3&)> inside;
};

Solid boxSolid(const Vec3& lower, const Vec3& upper);
// A finite circular cylinder: centre, unit axis, radius, length along the axis.
Solid cylinderSolid(const Vec3& centre, const Vec3& axis, double radius, double length);
// A thin plate: a disc of `radius` and `thickness` with its axis along z, centred at `centre`.
Solid discPlateSolid(const Vec3& centre, double radius, double thickness);
// A closed triangle mesh (copied into the solid).
Solid meshSolid(const TriMesh& mesh);

// Lattice sphere centres inside `solid` (see above). InputError if r is not positive, or jitter
// is outside [0, 0.5), or the solid holds no point.
std::vector<Vec3> pack(const Solid& solid, const PackingOptions& options);

// The uniform [0, 1) double of splitmix64(seed, index): a platform-independent hash generator.
double hashUniform(std::uint64_t seed, std::uint64_t index);
std::uint64_t splitmix64(std::uint64_t x);

// Appends particles at `centres` (radius r, mass rho 4/3 pi r^3, material `materialId`, gids
// continuing from P.size()).
void addParticles(Particles& P, const std::vector<Vec3>& centres, double radius, double density,
                  int materialId = 0);

}  // namespace kinema::bdem
