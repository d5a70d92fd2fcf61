#pragma once
// The impact simulator's time step (paper section 1: all interferences inside one step are
// resolved together as one simultaneous impact per island). One step of length Δt, with h = Δt g/2
// under gravity_kick = split (the default) and h = 0 under gravity_kick = before:
//
//  1. detection velocity  v⁻ = v + Δt g                                  (dynamic bodies)
//  2. detection           broad + narrow phase (sim_contacts.hpp) of every contact point within
//                         reach; a point becomes a constraint n_i (impact_system.hpp, paper section 2)
//                         iff its gap is within the contact tolerance δ, d ≤ δ, or the step would
//                         close it, d + Δt·u_n < 0 (u_n: relative normal velocity at the point under
//                         v⁻): a linearised continuous detection, so fast bodies do not tunnel and
//                         resting contacts stay active.
//  3. islands             connected components of the constraint graph (geometry::ContactGraph;
//                         static bodies and planes never merge islands). The impact acts on the
//                         pre-impact velocity w = v⁻ − h (split: v + Δt g/2, half of the gravity
//                         impulse). Islands without a constraint approaching under w or under
//                         w + h are left alone (w + h is feasible), the rest are assigned to ranks
//                         by contact count (sim_partition.hpp).
//  4. impact              per island, on its own ImpactSystem with its own ‖q̇‖_M (the ϵ-test and
//                         renormalisation are per island, paper section 7): c_r = 1: Resolver
//                         (Algorithm 1/3/4) with the chosen operator; c_r < 1: the interpolated
//                         restitution (1 − c_r) q̇_in + c_r q̇_el (paper section 6.2); the result w⁺.
//                         Then the optional one-way friction pass (paper section 6.3) bounded by
//                         the impact's normal impulse, followed, if friction left a constraint
//                         approaching, by the inelastic projection (no energy added). Then the
//                         second half kick y = w⁺ + h and, if y approaches a constraint (gravity
//                         pressing a resting contact), the support projection
//                         y ← argmin ‖v − y‖_M s.t. Nᵀv ≥ 0 (the inelastic QP of section 6.2).
//                         Operators with a seed get
//                         seed + 1000003·step + first body of the island: the random choice does
//                         not depend on which rank resolves the island, nor on a restart.
//     (distributed)      with SimOptions::distributedIslandContacts > 0, operator gr, c_r = 1 and a
//                         distributed backend at several ranks, an island with at least that many
//                         constraints is resolved by all ranks together (resolveDistributedGR).
//  5. exchange            the resolved velocities of every island are gathered on every rank
//                         (MPI_Allgatherv, in the deterministic island order): every rank ends with
//                         the same bits, whatever the rank count. Bodies of unresolved islands get
//                         w + h.
//  6. closure             contacts that were not constraints but that the new velocities would now
//                         close within the step (d + Δt·u_n < 0) are added, and steps 3-5 are
//                         redone from w (at most `closurePasses` passes; the remainder is counted).
//  7. drift               x ← x + Δt v⁺; rigid bodies: q ← exp(Δt ω/2) q (unit quaternion, the exact
//                         rotation by the angle Δt|ω|), and ω ← I_world(q)⁻¹ L with L = I_world ω
//                         before the rotation (torque-free flight keeps L exactly).
//
// Symplectic Euler (kick, then drift with the new velocity) for the free flight: it conserves the
// shadow energy H̃ = KE + PE + ½Δt Σ m g·v exactly (SimWorld::shadowEnergy). Across a step with
// contacts, ΔH̃ = ½‖v⁺ − h‖²_M − ½‖w‖²_M exactly (SimStepStats::contactWork) under the split kick:
// zero for an elastic impact (KIN), ≤ 0 for a dissipative one without support projection. With the
// whole kick before the impact (gravity_kick = before, the former order) the impact reflects the
// step's gravity impulse too, and ΔH̃ gains −½Δt gᵀ(M v⁺ − M v⁻) on top: +m|g|Δt|u_n| per elastic
// bounce off a floor, a steady gain (docs/modules/impact.md, Energy). The impact makes the velocity
// feasible (Nᵀv⁺ ≥ −ϵ‖v⁺‖_M) on every constraint, so the positions never move further into a
// contact than ϵ-level drift. Penetrations that exist are not pushed apart (no position
// correction): the paper's velocity-level model only.
#include <Eigen/Dense>
#include <cstdint>
#include <string>
#include <vector>

#include "framework/core/comm.hpp"
#include "framework/la/backend.hpp"
#include "framework/geometry/contact_graph.hpp"
#include "modules/impact/impact_params.hpp"
#include "modules/impact/sim_contacts.hpp"
#include "modules/impact/sim_world.hpp"

namespace kinema::impact {

// Where the step's gravity impulse Δt g enters relative to the impact (sim_stepper.hpp, step 3-4).
enum class GravityKick {
  Split,   // half before, half after the impact (Strang splitting): elastic impacts keep H̃
  Before,  // all before the impact (the former order): H̃ gains −½Δt gᵀΣλ per impact
};
GravityKick parseGravityKick(const std::string& name);  // "split" | "before"

struct SimOptions {
  double dt = 1e-3;                 // Δt
  GravityKick gravityKick = GravityKick::Split;
  // Islands with at least this many constraints are resolved by all ranks together with GR on a
  // distributed Delassus operator (distributed_gr.hpp) instead of by one rank; 0 = never. Only with
  // operator gr, c_r = 1, more than one rank and a distributed `backend`; such islands agree with
  // the one-rank result to the QP tolerance, not bitwise.
  std::int64_t distributedIslandContacts = 0;
  const la::Backend* backend = nullptr;
  double contactTolerance = 1e-6;   // δ, absolute length
  int closurePasses = 3;
  BroadPhaseKind broadPhase = BroadPhaseKind::SpatialHash;
  ImpactParams impact;              // operator, resolver, restitution, friction
};

// Figures of one step (identical on every rank after the step).
struct SimStepStats {
  std::int64_t candidates = 0;        // contact points within reach
  std::int64_t constraints = 0;       // of them, constraints of the impact problem
  std::int64_t islands = 0;           // islands with at least one constraint
  std::int64_t resolvedIslands = 0;   // islands with an approaching constraint (resolved)
  std::int64_t largestIsland = 0;     // constraints of the largest resolved island
  std::int64_t distributedIslands = 0;// islands resolved by all ranks together (distributed GR)
  std::int64_t linealityDetections = 0;  // islands whose anti-locking found implicit equalities
  std::int64_t constraintsRemoved = 0;   // constraints those projections removed
  std::int64_t iterationsMax = 0;     // resolver iterations, max over islands
  std::int64_t iterationsTotal = 0;   // and summed
  std::int64_t cycles = 0;            // islands whose resolution reported a cycle
  std::int64_t caps = 0;              // islands that hit the iteration cap
  std::int64_t notConverged = 0;      // islands whose elastic resolution was not feasible at exit
  std::int64_t qpNotConverged = 0;    // islands whose inelastic QP (c_r < 1) missed its KKT tolerance
  double qpResidualMax = 0.0;         // the largest inelastic-QP KKT residual relative to ‖q̇⁻‖_M
  std::int64_t closurePasses = 0;     // impact solves this step (1 + closure passes)
  std::int64_t unresolvedClosures = 0;// contacts still closing after the last pass
  std::int64_t supportProjections = 0;// islands whose velocity after the second half kick approached
                                      // a constraint and was projected (support of resting contacts)
  // Σ over resolved islands of ½‖v⁺ − h‖²_M − ½‖w‖²_M (last pass): the change of the shadow energy
  // H̃ that the contacts make this step (exact under the split kick, see above) [J].
  double contactWork = 0.0;
  // Of it, the impact alone (restitution, friction excluded): ½‖w⁺‖²_M − ½‖w‖²_M, ≤ 0 [J].
  double impactWork = 0.0;
  double maxPenetration = 0.0;        // max(0, −d) over the detected contacts at the start
  double imbalance = 1.0;             // max rank load / mean (contact counts)
  double secondsDetect = 0.0, secondsIslands = 0.0, secondsResolve = 0.0, secondsExchange = 0.0,
         secondsIntegrate = 0.0;      // max over ranks
};

class SimStepper {
 public:
  // Validates the world (InputError naming the body) and the options.
  SimStepper(SimWorld world, SimOptions options, Comm comm = Comm::self());

  // Advances by Δt. Throws Error naming the body and step if a velocity becomes NaN / infinite.
  const SimStepStats& step();

  const SimWorld& world() const { return world_; }
  SimWorld& world() { return world_; }  // for restarts (state) and tests
  const SimOptions& options() const { return options_; }
  long steps() const { return step_; }
  void setSteps(long s) { step_ = s; }
  const SimStepStats& lastStats() const { return stats_; }

 private:
  struct IslandResult {
    long iterations = 0;
    bool cycle = false, cap = false, converged = true, qpConverged = true;
    double qpResidual = 0.0;
    long linealityDetections = 0, constraintsRemoved = 0;  // anti-locking (Algorithm 2)
    bool supportProjection = false;
    double contactWork = 0.0, impactWork = 0.0;
  };
  bool isConstraint(const SimContact& c, double dt) const;
  // Relative normal velocity at the contact under the bodies' velocities plus `shift` on every
  // dynamic body (a uniform shift only moves contacts with static bodies and planes).
  double normalVelocity(const SimContact& c, const Eigen::Vector3d& shift = Eigen::Vector3d::Zero()) const;
  // The island's post-impact steps: second half kick, support projection, friction (step 4).
  Eigen::VectorXd finishIsland(const ImpactSystem& sys, const Eigen::VectorXd& q0, Eigen::VectorXd qdot,
                               Eigen::VectorXd impulse, const OperatorOptions& oo, IslandResult& r) const;
  void buildIslands();
  IslandResult resolveIsland(int island, std::vector<double>& out);
  // The island's ImpactSystem and pre-impact velocity (localOf_ maps its bodies; reset by the caller).
  void buildIslandSystem(int island, ImpactSystem& sys, Eigen::VectorXd& q0);
  bool distributedIsland(int island) const;
  IslandResult resolveDistributedIsland(int island);
  void resolveAll();
  void integrate();
  void checkFinite() const;

  SimWorld world_;
  SimOptions options_;
  Comm comm_;
  long step_ = 0;
  SimStepStats stats_;
  SimContactDetector detector_;

  // Buffers reused every step.
  std::vector<SimContact> candidates_;
  std::vector<int> constraintOf_;           // candidate -> constraint index or -1
  std::vector<int> constraints_;            // constraint -> candidate
  std::vector<std::uint8_t> isStatic_;
  std::vector<geometry::BodyPair> edges_;
  geometry::ContactGraph graph_;
  std::vector<int> resolved_;               // islands to resolve, ascending
  std::vector<double> cost_, load_;
  std::vector<int> rankOf_, order_;
  std::vector<Eigen::Vector3d> vMinus_, omegaMinus_;  // w, ω before the impact
  std::vector<Eigen::Vector3d> vKicked_;              // v⁻ = v + Δt g
  Eigen::Vector3d half_ = Eigen::Vector3d::Zero();     // h (the second half kick; 0: Before)
  std::vector<std::uint8_t> touched_;                 // bodies of resolved islands (this pass)
  std::vector<double> send_, recv_;
  std::vector<int> counts_, displs_, localOf_;
};

}  // namespace kinema::impact
