#pragma once
// Procedural strands for DER scenes and tests (paper §VI): straight vertical and
// horizontal strands (Figs. 2, 3, 5-7), a coil (Fig. 4) and a hair-like set of curly wisps on a
// scalp (Figs. 1, 10 use captured hair; this is the procedural stand-in).
//
// Every generator is deterministic, returns theta = 0 and N >= 3 vertices, root first, with
// (near-)equal edge lengths, and a first edge that leaves the root along the strand's root
// direction (the curve's tangent there), so the minimal clamp (x_0, theta_0, x_1 fixed) holds a
// sensible root. Invalid arguments are a kinema::InputError naming the argument.
// Lengths are in the scene's units (metres by the module's defaults).
#include <cstdint>
#include <vector>

#include "modules/der/strand.hpp"

namespace kinema::der {

// N vertices from `root` straight down (-z), total length `length`; equal edges.
StrandGeometry straightVertical(int N, double length, const Vec3& root = Vec3::Zero());

// N vertices from `root` along +x, total length `length`; equal edges.
StrandGeometry straightHorizontal(int N, double length, const Vec3& root = Vec3::Zero());

// A coil of N vertices hanging from `root` along -z: vertex i at angle phi_i = 2 pi turns i/(N-1),
//   x_i = root + (radius (cos phi_i - 1), radius sin phi_i, -pitch phi_i / (2 pi)),
// so the root is on the coil and every edge has the same length (a helix has constant speed in
// phi). pitch is the axial drop per turn (0 gives a flat circle, allowed if it does not close
// on itself). Fig. 4 of the paper uses a coil of 2000 vertices.
StrandGeometry helix(int N, double radius, double pitch, double turns, const Vec3& root = Vec3::Zero());

// Hair-like wisps on a spherical scalp centred at the origin.
struct WispParams {
  double scalpRadius = 0.1;      // sphere radius [m]
  double capAngle = 1.0;         // roots uniform (by area) on the cap of polar angle <= capAngle [rad] around +z
  double length = 0.2;           // mean strand length (arc length) [m]
  double lengthJitter = 0.2;     // strand length uniform in length * [1 - jitter, 1 + jitter]
  double bendLength = 0.05;      // e-folding arc length of the turn from the scalp normal to -z [m]
  double curlRadiusMin = 0.002;  // curl (helix around the centre line) radius range [m]
  double curlRadiusMax = 0.008;
  double curlPeriodMin = 0.02;   // centre-line length per curl turn range [m]
  double curlPeriodMax = 0.05;
  double curlRamp = 0.02;        // centre-line length over which the curl grows from 0 at the root [m]
};

// `count` strands of `vertices` vertices each. Strand k depends only on (seed, k, params,
// vertices): its random draws come from std::mt19937_64 seeded with a splitmix64 hash of (seed, k),
// mapped to [0, 1) by hand (53 high bits), so they are the same on every platform (std::
// distributions are implementation-defined); positions then agree to the last bit wherever the
// math library's sin/cos/exp do.
//
// Strand k: a root on the cap (uniform by area), a centre line that leaves along the scalp normal
// and turns in the vertical plane of the root towards -z, polar angle
//   alpha(s) = pi - (pi - alpha_0) exp(-s / bendLength)   (s: centre-line arc length),
// plus a curl of random radius, period and phase around it whose radius ramps up smoothly from 0
// over curlRamp. The curve is resampled at equal arc length, so edges are equal to within the
// chord-versus-arc difference (well under 1% at the defaults with 100 vertices), and the strand's
// arc length is exactly its drawn length (of the finely sampled curve). Strands are not kept out
// of the scalp or of each other (DER here has no contact, as in the paper's §III).
std::vector<StrandGeometry> wisps(int count, int vertices, const WispParams& params, std::uint64_t seed);
// Strands [first, first + count) of the same set, bitwise equal to those entries of
// wisps(first + count, ...): each rank of a run builds only the strands it owns
// (docs/modules/der.md, "Several ranks").
std::vector<StrandGeometry> wispRange(std::int64_t first, int count, int vertices, const WispParams& params,
                                      std::uint64_t seed);

}  // namespace kinema::der
