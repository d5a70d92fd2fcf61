#pragma once
// Small impact problems from the paper (its Secs. 3-6 and Figs. 1-3, 7, 8) and the team's derived
// oracles (modules/impact/README.md, decision 19), shared by tests, benchmarks and examples. Each
// returns the system and a default velocity.
#include <vector>

#include "modules/impact/impact_system.hpp"

namespace kinema::impact::scenes {

struct Scene {
  ImpactSystem system;
  Eigen::VectorXd qdot;  // an initial velocity (size d)
};

// 1D chain of touching 2D balls on the x axis (unit radius, centres 2 apart), constraints between
// neighbours left to right; `vx` the x-velocities (y = 0). Newton's cradle of paper section 3.
Scene chain(const std::vector<double>& masses, const std::vector<double>& vx);
Scene chain(const std::vector<double>& vx);  // unit masses
// x-components of a chain velocity.
Eigen::VectorXd xComponents(const Eigen::VectorXd& qdot);

// Fig. 3 wedge: one unit ball, normals (0,1) and (sin θ, −cos θ); velocity along −bisector.
Scene wedge(double thetaRadians);
// Fig. 2 left: one unit ball between parallel walls, n = (1,0), (−1,0); velocity (1, 0.5).
Scene parallelWalls();
// Fig. 2 centre: two balls between walls, n1 ∝ (1,0,0,0), n2 ∝ (−1,0,1,0), n3 ∝ (0,0,−1,0);
// velocity (1, 0.3, 0, −0.2).
Scene twoBallsBetweenWalls();
// Fig. 7 corner: n1 = (0,1), n2 = (−1,0), velocity (2, −1).
Scene corner();
// Hexagonal patch of 19 unit balls (rows 3,4,5,4,3), unit radius, 42 contacts, no walls (README
// decision 19); Gaussian velocity from `seed`.
Scene hexCluster19(unsigned seed);
// A rows x cols hexagonal patch of touching unit balls (unit radius), Gaussian velocities; the
// larger sibling of hexCluster19 for scale tests and benchmarks.
Scene hexPatch(int rows, int cols, unsigned seed);
// The mini-geyser (README decision 19): shaft walls x = 0 and x = rightWall, plug balls A (1,0), B
// (3,0), projectile C moving up (0,1); `symmetric`: C at (2, −√3) touching A and B, else C touching
// A only at 20°. Contacts in the order wallL–A, A–B, B–wallR (only if it touches), A–C, B–C (if
// touching).
Scene miniGeyser(bool symmetric, double rightWall = 4.0);
// Random 3D rigid bodies (boxes with random inertia) with random contacts between random pairs
// and against the ground (if `withStatic`), random velocities.
Scene randomRigid(int bodies, int contacts, unsigned seed, bool withStatic);

// L11 jammed box: n x n touching unit balls in a box of side 2n (every constraint an implicit
// equality: dim E = 2n^2), seeded Gaussian velocities.
Scene jammedBox(int n, unsigned seed);
// Random 2D balls with random contact normals (paper footnote 1: any normals are valid) and walls.
Scene randomBalls2D(int balls, int contacts, int walls, unsigned seed);

}  // namespace kinema::impact::scenes
