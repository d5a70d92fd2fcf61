#pragma once
// Rods from polylines (README decision: discrete rods without twist): lumped masses (linear
// density * half of each adjacent segment), one spring per segment (k_s = EA / L per segment from
// the axial stiffness EA), one RodBend per interior vertex, contact edges (edge-edge pairs with
// eta = the rod radius, so layer 1 starts where the two tubes of radius eta touch), contact points
// (planes, triangles) and draw edges. The end vertices can be scripted.
#include <string>
#include <vector>

#include "modules/avi/scene.hpp"
#include "modules/avi/scene_assembly.hpp"

namespace kinema::avi {

struct RodOptions {
  std::string name = "rod";
  double linearDensity = 1.0;  // mass per length
  double axial = 1.0;          // EA: spring stiffness of a segment of rest length L is EA / L
  double bend = 0.0;           // RodBend k_b
  double stretchDamping = 0.0;
  double bendDamping = 0.0;
  Vec3 velocity = Vec3::Zero();
};

// Adds the open polyline `points` (at rest) as one object; returns the index of its first vertex.
int addRod(Scene& scene, const std::vector<Vec3>& points, const RodOptions& options, const StepRule& steps);

}  // namespace kinema::avi
