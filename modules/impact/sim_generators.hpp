#pragma once
// Scene generators of the impact simulator (the paper's Secs. 1, 3, 4 and Figs. 1-3;
// modules/impact/README.md, decision 19): each builds a SimWorld from a few parameters. Positions
// are exact where the paper's geometry needs touching contacts (a cradle's balls are 2r apart, a
// rack is hexagonally packed) up to the round-off of √3.
#include <cstdint>

#include "modules/impact/sim_world.hpp"

namespace kinema::impact::generators {

// Newton's cradle (paper section 3): n touching balls of radius r and mass m on the x axis, the
// first moving at +speed towards the others. dimension 2 or 3. No walls.
SimWorld cradle(int n, double radius, double mass, double speed, int dimension);

// Pool break (paper section 1): a triangular rack of rows(rows+1)/2 touching balls (2D,
// hexagonally packed, tip towards −x) and a cue ball at `gap` before the tip moving at +speed;
// a table of cushions (four half-spaces) around it.
SimWorld poolBreak(int rows, double radius, double mass, double speed);

// Fig. 3 wedge: two half-spaces meeting at the origin with opening angle θ about +y; one ball of
// radius r touching both, moving down the bisector (into the apex) at speed.
SimWorld wedge(double thetaRadians, double radius, double mass, double speed);

// The mini-geyser (Fig. 1 stand-in, README decision 19): shaft walls x = 0 and x = 4 + gap, plug
// balls A (1, 0), B (3, 0), projectile C moving up at speed, symmetric (C at (2, −√3)) or
// off-centre (touching A at 20°); unit radii (scaled by `radius`) and masses.
SimWorld miniGeyser(bool symmetric, double gap, double speed, double radius);

// Jammed box (test L11, README decision 19): a k x k block of touching balls filling a box exactly
// (2D), with Gaussian velocities of standard deviation `speed` from `seed`.
SimWorld jammedBox(int k, double radius, double speed, std::uint64_t seed);

// Granular pile: n balls of radius r on a jittered cubic (3D) or square (2D) lattice of pitch
// 2r(1 + spacing + √3 jitter) (no initial overlap), above the floor of an open box of inner width `width` (half-spaces: floor and
// side walls), dropped from rest with jitter (a fraction of r, from `seed`) in position and
// velocity.
// Bodies [first, last) only (last = -1: to the end), with their ids, for a rank of a distributed
// run: the same bits as the whole scene's (the random stream is advanced past the earlier balls).
struct PileSpec {
  int n = 0;              // balls
  double radius = 0.0;    // r
  double mass = 1.0;      // of each ball
  double width = 0.0;     // inner width of the box
  double spacing = 0.05;  // gap between lattice neighbours, in units of 2r
  double jitter = 0.1;    // position and velocity jitter, in units of r
  std::uint64_t seed = 1;
  int dimension = 3;      // 2 or 3
};
SimWorld pile(const PileSpec& spec, std::int64_t first = 0, std::int64_t last = -1);

// Rigid boxes (3D): `n` boxes of half extents h in a column above a floor, each tilted by a
// seeded random rotation, falling onto the floor and a static box.
// Bodies [first, last) of the n + 1 (the static box is body 0), as pile does.
SimWorld boxDrop(int n, const Eigen::Vector3d& halfExtents, double mass, std::uint64_t seed, std::int64_t first = 0,
                 std::int64_t last = -1);

}  // namespace kinema::impact::generators
