#pragma once
// A built AVI scene: everything the engine needs and nothing about YAML (scene_builder.hpp makes
// it from the parameters). Units are whatever the scene states (the spring is dimensionless;
// the 3D paper scenes use cm-g-s, README decision 8).
//
// Contact surfaces are given as primitive lists; the engine forms candidate pairs between them
// (README decision 26): in 3D, contactPoints x contactTriangles (vertex-face), contactEdges x contactEdges
// (edge-edge), isolated points x isolated points (particles, point-point); in 2D (dim == 2, every
// z and v_z exactly 0), contactPoints x contactEdges (point-edge) and isolated x isolated points.
// Every contact point also meets every plane. Pairs sharing a vertex, and pairs whose vertices are
// all scripted, are never formed. `isolated[a]` marks points that belong to no edge / triangle.
#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

#include "modules/avi/force_element.hpp"
#include "modules/avi/vertices.hpp"

namespace kinema::avi {

// A rigid, fixed plane {x : normal . x = offset}; the free side is normal . x > offset.
struct Plane {
  Vec3 normal = Vec3::UnitZ();
  double offset = 0.0;
};

// Scripted vertices (minv = 0) moving with a piecewise-constant prescribed velocity: from
// times[i] on, every listed vertex has velocity velocities[i] (times increasing, times[0] >= 0).
struct Script {
  std::string name;
  std::vector<std::int32_t> vertices;
  std::vector<double> times;
  std::vector<Vec3> velocities;
};

// One object (mesh, particle, rod) for output and partitioning.
struct ObjectInfo {
  std::string name;
  std::int32_t firstVertex = 0;
  std::int32_t numVertices = 0;
};

struct Scene {
  std::string name;
  int dim = 3;
  Vertices vertices;                 // initial state (t = 0 for all)
  std::vector<ForceElement> forces;  // material + gravity potentials with their steps h set
  std::vector<std::int32_t> contactPoints;
  std::vector<std::uint8_t> isolated;            // per vertex
  std::vector<Eigen::Vector2i> contactEdges;
  std::vector<Eigen::Vector3i> contactTriangles;
  std::vector<Plane> planes;
  std::vector<Script> scripts;
  std::vector<ObjectInfo> objects;
  // Triangles drawn in frames (may equal contactTriangles) and segments (rods, 2D outlines).
  std::vector<Eigen::Vector3i> drawTriangles;
  std::vector<Eigen::Vector2i> drawEdges;
  double eta = 0.0;     // contact thickness parameter (layer l onset at 2 eta / l)
  double k = 0.0;       // base penalty stiffness (V_l = l^3 k g^2)
  Vec3 gravity = Vec3::Zero();  // for the gravity part of the energy diagnostics only

  // Throws InputError naming the first problem: sizes inconsistent, NaN / infinite coordinates,
  // mass <= 0, an index out of range, a step h <= 0, dim == 2 with a non-zero z, eta or k <= 0,
  // or two non-adjacent contact primitives closer than 2 eta at rest (a layer active at t = 0:
  // the message names the two primitives, their distance and the largest eta that works).
  void validate() const;
};

}  // namespace kinema::avi
