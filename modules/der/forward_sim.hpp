#pragma once
// Implicit forward simulation of one DER strand (paper §III, Eq. 1 and Sec. VI):
// each step minimises E_in + E_elastic over the free DOFs with Newton iterations (one by default:
// linearised backward Euler as in the paper), on the banded system M / dt^2 + H (half-bandwidth 10)
// factored by BandedLdlt; the root DOFs (x_0, theta_0, x_1) follow a prescribed rigid motion;
// reference frames are time-parallel transported after each step.
#include <Eigen/Geometry>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "modules/der/banded.hpp"
#include "modules/der/rod_energy.hpp"
#include "modules/der/rod_kinematics.hpp"
#include "modules/der/strand.hpp"

namespace kinema::der {

// Prescribed motion of the clamped root: the rigid transform T(t) applied to the root's initial
// state (x_0, x_1 and the material director m_1^0 at time 0). An empty callback keeps the root
// where it is.
struct RootMotion {
  std::function<Eigen::Isometry3d(double t)> transform;

  static RootMotion fixed() { return {}; }
  // Constant-velocity translation T(t) = x + v t.
  static RootMotion translation(const Vec3& velocity);
  // Rotation about the axis through `center` with angular velocity omega (rad/s).
  static RootMotion rotation(const Vec3& center, const Vec3& axis, double omega);
};

struct ForwardSimOptions {
  int maxNewtonIterations = 1;     // 1 = linearised backward Euler (paper Sec. VI)
  double relativeTolerance = 0.0;  // stop when ||g|| <= rtol * ||g at the step's first iterate||
  double absoluteTolerance = 0.0;  // or when ||g|| <= atol (g: gradient of E_in + E over the free DOFs)
  bool lineSearch = false;         // backtracking (Armijo) on E_in + E for multi-iteration solves
  CurvatureModel model = CurvatureModel::FourD;
  double pivotFloor = 1e-12;       // BandedLdlt pivot clamp, relative to max diagonal
  int strandId = -1;               // names the strand in error messages (-1: none)
};

struct StepStats {
  long step = 0;              // steps taken so far (this one included)
  double time = 0.0;          // simulated time after the step
  int newtonIterations = 0;
  double residualNorm = 0.0;  // ||grad (E_in + E)||_2 over the free DOFs at the new state
  int clampedPivots = 0;      // over all factorisations of the step
  double kinetic = 0.0;       // 1/2 qdot^T M qdot
  double gravityPotential = 0.0;  // -f_ext . q
  ElasticEnergy elastic;
  double energy() const { return kinetic + gravityPotential + elastic.total(); }
};

// Work storage of the forward simulation for one strand at a time: the Newton system (banded
// M / dt^2 + H and its LDL^T factor), the kinematics, forces and step buffers. A simulator holds
// its state only (q, qdot, frames, rest state, mass, time); simulators that share a workspace
// (one per rank in the der module) must step one after the other. A simulator that finds the
// workspace last used by another strand re-evaluates its kinematics instead of reusing them,
// which gives bitwise the same numbers (frames transported to q leave them unchanged, see
// rod_kinematics.cpp). docs/modules/der.md, "Memory".
class ForwardWorkspace {
 public:
  long rebuilds() const { return rebuilds_; }  // changes of strand so far

 private:
  friend class StrandSimulator;
  std::uint64_t owner_ = 0;  // id of the simulator whose data it holds (0: none)
  long rebuilds_ = 0;
  std::vector<double> qPrev_, qStar_, qTrial_, f_, g_, dx_;
  RodKinematics K_;
  BandedSymmetric H_;
  BandedLdlt ldlt_;
};

class StrandSimulator {
 public:
  // Starts at rest (qdot = 0) at time 0 with frames initialFrames(q0), or the given frames (which
  // must belong to q0, e.g. those the rest state was computed with). M and f_ext come from the
  // edge lengths of q0 (the modelled shape, as in the optimisation) and the material (rod_mass.hpp).
  // `workspace`: shared work storage (null: the simulator makes its own).
  StrandSimulator(std::vector<double> q0, RestState rest, Material material, ForwardSimOptions options = {},
                  std::shared_ptr<ForwardWorkspace> workspace = nullptr);
  StrandSimulator(std::vector<double> q0, ReferenceFrames frames, RestState rest, Material material,
                  ForwardSimOptions options = {}, std::shared_ptr<ForwardWorkspace> workspace = nullptr);
  ~StrandSimulator();
  StrandSimulator(const StrandSimulator&) = delete;
  StrandSimulator& operator=(const StrandSimulator&) = delete;

  // Advances by dt; the root DOFs are set from root.transform(time + dt). Throws kinema::Error
  // naming the step if the state becomes non-finite (the state is then left as before the step).
  // No heap allocation after the first step.
  const StepStats& step(double dt, const RootMotion& root = {});

  const std::vector<double>& q() const { return q_; }
  const std::vector<double>& qdot() const { return qdot_; }
  const ReferenceFrames& frames() const { return frames_; }
  const RestState& rest() const { return rest_; }
  const Material& material() const { return material_; }
  const ForwardSimOptions& options() const { return options_; }
  const std::vector<double>& mass() const { return mass_; }
  const std::vector<double>& externalForce() const { return fext_; }
  const StepStats& lastStats() const { return stats_; }
  double time() const { return time_; }
  long steps() const { return steps_; }
  int vertices() const { return N_; }

  // Sets the generalised velocity (size 4N - 1).
  void setVelocity(const std::vector<double>& qdot);
  // Restart from a checkpoint: construct with the time-0 state (which defines the root's
  // prescribed motion), then restore the saved state. Copies into the existing buffers.
  void restoreState(const std::vector<double>& q, const std::vector<double>& qdot, const ReferenceFrames& frames,
                    double time, long steps);
  // Energies of the current state (evaluates the kinematics).
  StepStats energies() const;
  const ForwardWorkspace& workspace() const { return *ws_; }

 private:
  double inertialEnergy(const std::vector<double>& q, double dt) const;  // E_in (Eq. 1), free DOFs
  double incrementalPotential(const std::vector<double>& q, double dt);  // E_in + E at q
  void evaluate(double dt);                                             // K_, f_, g_ at q_
  void prescribeRoot(const RootMotion& root, double t);
  // The parts of step().
  void beginStep(double dt, const RootMotion& root);  // q*, the root at the step's end, reuse of K_, f_
  double newtonDirection(double dt);                 // dx = -(M / dt^2 + H)^-1 g; returns the slope g . dx
  double lineSearch(double dt, double slope);        // backtracking step length along dx
  void endStep(double dt);                           // velocity, frames, time and energies of the new state
  void checkFinite(const char* what, const std::vector<double>& v) const;
  ForwardWorkspace& bound();  // the workspace, sized for this strand (caches dropped if it served another)
  [[noreturn]] void fail(const std::string& message) const;

  int N_ = 0, n_ = 0;
  std::vector<double> q_, qdot_, mass_, fext_;
  ReferenceFrames frames_;
  RestState rest_;
  Material material_;
  ForwardSimOptions options_;
  ElasticEnergy elastic_;  // at the state the workspace's K_, f_ belong to (with evaluatedAtEnd_)
  std::uint64_t id_;
  std::shared_ptr<ForwardWorkspace> ws_;
  StepStats stats_;
  // Root state at time 0 for the prescribed motion.
  Vec3 rootX0_, rootX1_, rootM1_;
  double time_ = 0.0;
  long steps_ = 0;
  bool evaluated_ = false;       // K_, f_, elastic_ belong to q_ (skip the next recomputation)
  bool evaluatedAtEnd_ = false;  // the step ended with K_, f_ evaluated at the final q_
};

// Names used by the module driver.
using ForwardSimulator = StrandSimulator;
using ForwardOptions = ForwardSimOptions;

}  // namespace kinema::der
