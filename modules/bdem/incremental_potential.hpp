#pragma once
// The incremental potential of one implicit step (paper Eq. 6, §4.2, §5) as a
// solvers::NewtonProblem on (R^3 x S^3)^n:
//   f(x) = sum_a [m |p - p_hat|^2 + (8/5) m r^2 |q - q_hat|^2] / (2 dt^2) + sum_bonds V_b
//        + sum_pairs V_self (Eq. 32) + sum_obstacles V_ext (Eq. 33) - sum_a (m g + f_a).p   (Eq. 6)
// with f_a the external load of particle a (System::load, loads.hpp), a term like gravity.
// The point x is an la::Vector on Domain::pointMap() (block (p, q), owned then ghosts in the order
// of System::P). Each element is evaluated by one rank: bonds by their owner, pair contacts by the
// owner of the smaller global index, inertia, gravity and obstacle terms by the particle's owner;
// the energy is summed over the communicator, gradient contributions to ghost blocks are
// accumulated to their owners.
//
// Fixed and gripped particles (Dof != Free) are not unknowns (README decision 28): the evaluation reads
// their p, q from System::P (set to the prescribed values at t^{n+1} before the solve, grips.hpp),
// never from x, their gradient rows are zero and their Hessian blocks the identity, so the
// Newton direction does not move them (and if a Krylov solver leaves round-off there, the energy
// does not see it; the stepper writes the prescribed values back after the solve). Their inertia
// and gravity terms are constants and are left out.
#include <memory>
#include <utility>
#include <vector>

#include "framework/core/comm.hpp"
#include "framework/geometry/spatial_hash.hpp"
#include "framework/la/backend.hpp"
#include "framework/solvers/newton.hpp"
#include "modules/bdem/integrator_options.hpp"
#include "modules/bdem/system.hpp"

namespace kinema::bdem {

// A contact candidate: local particle indices, gid(i) < gid(j), gid(i) owned here.
struct ContactCandidate {
  std::int32_t i = -1, j = -1;
};

// What the energy is made of (owned contributions summed over ranks).
struct PotentialTerms {
  double inertia = 0, bonds = 0, pairContacts = 0, obstacleContacts = 0, gravity = 0, loads = 0;
  long activePairs = 0, activeObstacle = 0;
  double total() const { return inertia + bonds + pairContacts + obstacleContacts + gravity + loads; }
};

class IncrementalPotential final : public solvers::NewtonProblem {
 public:
  // s must outlive the problem; comm is the point map's communicator.
  IncrementalPotential(System& s, Comm comm, const IntegratorOptions& options);

  // Per step (Alg. 3 lines 1-3): predictor p_hat = p + dt v, q_hat = q + dt qdot from the state
  // in s.P (x^n, v^n), time t^{n+1} = s.time + dt for moving obstacles, contact candidates.
  // Collective.
  void beginStep(double dt);
  // Contact candidates only (README decision 44): unbonded pairs within (r_i + r_j)(1 + padding) +
  // 2 max|v| dt, found with a SpatialHash over the local particles. Collective (max |v|).
  void buildCandidates(double dt);
  // Turns the inertia term off (explicit integrator: gradient of V only).
  void setInertia(bool on) { inertia_ = on; }
  // Time at which obstacles are evaluated (beginStep sets t^{n+1}; the explicit integrator t^n).
  void setObstacleTime(double t) { tNext_ = t; }

  // s.P (p, q of every local particle) into x (owned and ghost blocks), and back (owned and ghost).
  void gather(la::Vector& x) const;
  void scatter(const la::Vector& x);

  double energy(const la::Vector& x) override;
  void gradient(const la::Vector& x, la::Vector& g) override;
  void hessian(const la::Vector& x, solvers::ReducedHessian& H) override;
  // Relative force residual (docs/modules/bdem.md, "Convergence"): the largest residual force of a
  // free particle, max_a max(|g_p|, |g_y| / r_a), over the force scale of the step, the mean over
  // free particles of the summed magnitudes of every term acting on it (inertia, gravity, bonds,
  // contacts; torques divided by r) at the same point, as gradient() accumulated it. Unlike the
  // position measure ((dt^2/m)|g|/r), it does not vanish as dt -> 0, so a predictor
  // that leaves out the elastic forces cannot pass it. Collective.
  double convergenceMeasure(const la::Vector& x, const la::Vector& g) override;
  // The force scale q of the last gradient() (collective; floored, see forceScaleFloor()).
  double forceScale() const;
  // The floor of the force scale: 1e-12 E_max r_max^2 (a force that strains a bond by ~1e-12), so
  // that a body exactly at rest with no load (every term 0) does not divide 0 by 0.
  double forceScaleFloor() const { return forceFloor_; }
  // The six rigid-body modes (G_r: y_a = e_k / 2 for rotation k).
  std::vector<std::shared_ptr<const la::Vector>> nearNullSpace(const la::Vector& x, const la::Backend& backend,
                                                               const la::IndexMapPtr& tangentMap) override;

  // grad_p, G_r grad_q of the bond and contact terms on every owned particle, fixed and gripped
  // ones included (tangent layout, ghost contributions accumulated; no inertia, gravity or load):
  // the forces the supports hold (probes.hpp). Collective.
  void supportGradient(const la::Vector& x, la::Vector& g);

  // Energy split into its terms, with active contact counts (collective).
  PotentialTerms terms(const la::Vector& x);

  // --- Element access for the other formulations (constrained_formulations.cpp, explicit) ---
  // Euclidean gradient (7 per local block, ghost contributions accumulated locally, not yet sent)
  // and Hessian callback of the potential terms V (no inertia) at a state read from s.P.
  const std::vector<ContactCandidate>& candidates() const { return candidates_; }
  double kec() const { return kec_; }
  double kc() const { return kc_; }
  double dt() const { return dt_; }
  double timeNext() const { return tNext_; }
  const std::vector<Vec3>& pHat() const { return pHat_; }
  const std::vector<Vec4>& qHat() const { return qHat_; }
  const System& system() const { return s_; }
  System& system() { return s_; }
  const Comm& comm() const { return comm_; }
  bool isFree(std::size_t a) const { return s_.P.dof[a] == Dof::Free; }
  // Inertial rotational-block floor (README decision 29), relative: H_yy >= epsInertia (8/5) m r^2 / dt^2.
  static constexpr double epsInertia = 1e-2;

 private:
  Vec3 position(const double* x, std::size_t a) const;
  Vec4 orientation(const double* x, std::size_t a) const;
  PotentialTerms evaluate(const double* x) const;

  System& s_;
  Comm comm_;
  IntegratorOptions opt_;
  double kec_ = 0, kc_ = 0;
  double forceFloor_ = 0;      // forceScaleFloor()
  double forceSumLocal_ = 0;   // sum of term magnitudes on owned free particles, last gradient()
  double freeLocal_ = 0;       // owned free particles
  double dt_ = 1, tNext_ = 0;
  bool inertia_ = true;
  bool allRows_ = false;       // gradient() for supportGradient(): V only, Dirichlet rows kept
  std::vector<Vec3> pHat_;
  std::vector<Vec4> qHat_;
  std::vector<ContactCandidate> candidates_;
  std::vector<std::pair<GlobalId, GlobalId>> bonded_;  // alive bonds (gid_i < gid_j), sorted
  geometry::SpatialHash<3> hash_;
  std::vector<geometry::Aabb<3>> boxes_;
  std::vector<geometry::BodyPair> pairs_;
};

// Element-element and element-obstacle stiffnesses with the defaults of README decision 44 (0: E_max r_max,
// collective over the particles' radii).
double contactStiffnessPair(const System& s, const Comm& comm);
double contactStiffnessObstacle(const System& s, const Comm& comm);

}  // namespace kinema::bdem
