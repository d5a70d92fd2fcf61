#pragma once
// Thin shells (and cloth) from a triangle surface mesh (the paper's §8; README decisions 8, 21,
// 22): lumped masses (areal density * area / 3 per triangle corner), one CST membrane per triangle,
// one discrete-shell hinge per interior edge, optional viscous damping, each potential with its own
// step; every vertex a contact point, every edge a contact edge, every triangle a contact triangle.
// Scripted shells (walls, the spiked plate, a fixed wedge) get masses for bookkeeping, minv = 0,
// contact primitives and no elastic potentials (their stencils would be entirely prescribed).
#include <string>

#include "framework/geometry/tri_mesh.hpp"
#include "modules/avi/scene.hpp"
#include "modules/avi/scene_assembly.hpp"

namespace kinema::avi {

struct ShellMaterial {
  double arealDensity = 1.0;    // mass per area (density * thickness)
  double stretch = 0.0;         // CST Y (the paper's "stretching stiffness", README decision 8)
  double poisson = 0.3;         // CST nu
  double bend = 0.0;            // hinge k_b (the paper's "bending stiffness")
  double stretchDamping = 0.0;  // CST strain-rate damping
  double bendDamping = 0.0;     // hinge angle-rate damping
};

struct ShellOptions {
  std::string name = "shell";
  ShellMaterial material;
  Vec3 velocity = Vec3::Zero();  // initial velocity of every vertex
  bool scripted = false;         // minv = 0, moves with `velocity` (no elastic potentials)
};

// Adds the mesh (rest = current shape) as one object; returns the object index. The mesh must be
// a manifold surface (edges of at most two triangles, no degenerate triangle).
int addShell(Scene& scene, const geometry::TriMesh& mesh, const ShellOptions& options, const StepRule& steps);

}  // namespace kinema::avi
