#pragma once
// Contact detection of the impact simulator: a broad phase (spatial hash or sweep and prune, from
// framework/geometry) over the bodies' boxes inflated by how far each body can move in one step,
// then the framework's narrow phase on every candidate pair and every (body, plane). Returns every
// contact point whose gap is within reach: distance ≤ tolerance + s_a + s_b, s = (|v| + |ω| R) dt.
// Which of them become constraints is the stepper's decision (sim_stepper.hpp).
#include <Eigen/Dense>
#include <cstdint>
#include <string>
#include <vector>

#include "framework/geometry/broad_phase.hpp"
#include "framework/geometry/spatial_hash.hpp"
#include "framework/geometry/sweep_and_prune.hpp"
#include "modules/impact/sim_world.hpp"

namespace kinema::impact {

struct SimContact {
  int a = -1;      // body (dynamic, or static when b is dynamic)
  int b = -1;      // body, or -1 for the plane `plane`
  int plane = -1;
  Eigen::Vector3d point = Eigen::Vector3d::Zero();
  Eigen::Vector3d normal = Eigen::Vector3d::UnitX();  // unit, from a towards b
  double distance = 0.0;                              // signed gap (< 0: penetration)
};

enum class BroadPhaseKind { SpatialHash, SweepAndPrune };
BroadPhaseKind parseBroadPhase(const std::string& name);  // "spatial_hash" | "sweep_and_prune"

class SimContactDetector {
 public:
  explicit SimContactDetector(BroadPhaseKind kind = BroadPhaseKind::SpatialHash) : kind_(kind) {}
  // Contacts sorted by (a, b) pair order, then planes by (body, plane); deterministic.
  void detect(const SimWorld& world, double dt, double tolerance, std::vector<SimContact>& out);
  std::int64_t candidatePairs() const { return static_cast<std::int64_t>(pairs_.size()); }

 private:
  template <int D>
  void detectD(const SimWorld& world, double dt, double tolerance, std::vector<SimContact>& out);

  BroadPhaseKind kind_;
  geometry::SpatialHash<2> hash2_;
  geometry::SpatialHash<3> hash3_;
  geometry::SweepAndPrune<2> sap2_;
  geometry::SweepAndPrune<3> sap3_;
  std::vector<geometry::Aabb<2>> boxes2_;
  std::vector<geometry::Aabb<3>> boxes3_;
  std::vector<geometry::BodyPair> pairs_;
  std::vector<double> reach_;
};

}  // namespace kinema::impact
