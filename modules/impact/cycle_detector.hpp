#pragma once
// Detects a revisited velocity (up to round-off) over a sequence of iterates: the practical
// symptom of non-termination (FIN fails), which for NORM..MOD operators means implicit equality
// constraints (lineality, the paper's Sec. 4). Keeps the last `window` iterates in a ring buffer
// allocated once. A scalar signature ⟨g, v⟩_M with a fixed pseudo-random g filters candidates:
// ‖v − u‖_M ≤ τ implies |⟨g, v − u⟩_M| ≤ ‖g‖_M τ, so no revisit is missed and push() costs
// O(d + window) unless a candidate passes. Nothing is allocated after reset().
#include <Eigen/Dense>

#include "modules/impact/impact_system.hpp"

namespace kinema::impact {

class CycleDetector {
 public:
  // A velocity within relTolerance · ‖q̇_0‖_M (M-norm) of one of the last `window` iterates counts
  // as revisited.
  explicit CycleDetector(int window = 16, double relTolerance = 1e-12);
  void reset(const ImpactSystem& system, const Eigen::VectorXd& qdot0);
  // Returns the period (1..window) if v revisits a stored iterate, else 0. Then stores v.
  int push(const ImpactSystem& system, const Eigen::VectorXd& v);
  int window() const { return window_; }

 private:
  int window_;
  double relTol_;
  double scale_ = 0.0;
  Eigen::MatrixXd ring_;  // d x window
  Eigen::VectorXd sig_;   // signatures of the stored iterates
  Eigen::VectorXd g_;     // signature direction
  double gNorm_ = 0.0;    // ‖g‖_M
  Eigen::VectorXd diff_;
  long count_ = 0;
};

}  // namespace kinema::impact
