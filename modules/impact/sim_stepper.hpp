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
//  3. islands             connected components of the constraint graph (static bodies and planes
//                         never merge islands), found across ranks (below). The impact acts on the
//                         pre-impact velocity w = v⁻ − h (split: v + Δt g/2, half of the gravity
//                         impulse). Islands without a constraint approaching under w or under
//                         w + h are left alone (w + h is feasible).
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
//                         Operators with a seed get seed + 1000003·step + the island's smallest
//                         body id: the random choice does not depend on the rank count, nor on a
//                         restart.
//     (distributed)      with SimOptions::distributedIslandContacts > 0, operator gr, c_r = 1 and a
//                         distributed backend at several ranks, an island with at least that many
//                         constraints is resolved by all ranks together (resolveDistributedGR).
//  5. exchange            the resolved velocities go to the bodies' owners, and from them to the
//                         ranks that hold the bodies as ghosts. Bodies of unresolved islands get
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
//
// Distributed world (docs/modules/impact.md, "Distributed world"). Each rank owns the bodies in its
// subdomain of a recursive coordinate bisection (sim_decomposition.hpp), weighted by contacts and
// rebuilt when the load imbalance passes SimOptions::rebalanceImbalance; a body that leaves its
// subdomain migrates to the new owner at the start of the next step. Every step, each owned body is
// sent as a ghost to every rank whose subdomain lies within its bounding radius + the largest
// dynamic bounding radius + the detection reach (δ + 2 max s, s = (|v| + |ω| R) Δt, the reach of
// sim_contacts.hpp): every contact within reach is then seen by the rank that keeps it, the owner
// of its smaller-id dynamic body. Islands are found by union-find on each rank and label
// propagation across ranks (an island's label is its smallest body id; the island is resolved by
// the owner of that body, its root, which gathers the island's bodies and contacts from the ranks
// that hold them). The island's ImpactSystem is built in a canonical order, bodies by id and
// contacts by (pair or plane, ids), so:
//   - what stays bitwise at any rank count: every body's trajectory (positions, velocities,
//     orientations), iteration counts, cycles and caps, the figures of every island; the work of
//     an island is done once, by its root;
//   - what depends on the rank count: sums over bodies or islands (energies, momenta, the
//     contacts' work) in their last bits (they are summed per rank, then across ranks), the
//     timings, and islands resolved by the distributed GR (the QP tolerance).
// Nothing of size O(whole scene) is kept on a rank: its bodies, its ghosts, its contacts and
// the islands it roots, plus the decomposition tree (O(ranks)).
#include <Eigen/Dense>
#include <cstdint>
#include <string>
#include <vector>

#include "framework/core/comm.hpp"
#include "framework/la/backend.hpp"
#include "modules/impact/impact_params.hpp"
#include "modules/impact/impact_system.hpp"
#include "modules/impact/sim_contacts.hpp"
#include "modules/impact/sim_decomposition.hpp"
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
  // The decomposition is rebuilt when max rank load / mean load exceeds this (load: bodies
  // weighted by their contacts); at one rank it is never built.
  double rebalanceImbalance = 1.25;
  ImpactParams impact;              // operator, resolver, restitution, friction
};

// How the world given to SimStepper is spread over the ranks.
enum class WorldInput {
  Replicated,   // every rank passes the whole scene (small scenes, tests); ids are set to the
                // bodies' positions in it; each rank keeps a block
  Distributed,  // each rank passes its part: disjoint ids whose union is 0 .. N-1, any split
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
  double imbalance = 1.0;             // max rank load / mean (bodies weighted by contacts)
  std::int64_t ghosts = 0;            // ghost bodies, summed over ranks
  std::int64_t migrated = 0;          // bodies that changed owner at the start of the step
  std::int64_t rebalanced = 0;        // 1 if the decomposition was rebuilt this step
  std::int64_t crossRankIslands = 0;  // islands gathered from several ranks to their root
  std::int64_t labelRounds = 0;       // rounds of label propagation (last pass)
  double secondsDetect = 0.0, secondsIslands = 0.0, secondsResolve = 0.0, secondsExchange = 0.0,
         secondsIntegrate = 0.0, secondsMigrate = 0.0;  // max over ranks
};

class SimStepper {
 public:
  // Validates the world (InputError naming the body) and the options. Collective.
  SimStepper(SimWorld world, SimOptions options, Comm comm = Comm::self(),
             WorldInput input = WorldInput::Replicated);

  // Advances by Δt. Collective. Throws Error naming the body and step if a velocity becomes NaN /
  // infinite.
  const SimStepStats& step();

  // This rank's bodies (owned, ascending id), the planes, gravity and time. At one rank: the scene.
  const SimWorld& world() const { return world_; }
  SimWorld& world() { return world_; }  // for tests; restarts go through toBlocks()
  const SimOptions& options() const { return options_; }
  const Comm& comm() const { return comm_; }
  long steps() const { return step_; }
  void setSteps(long s) { step_ = s; }
  const SimStepStats& lastStats() const { return stats_; }
  std::int64_t globalBodies() const { return globalBodies_; }
  std::int64_t rebuilds() const { return decomposition_.builds(); }

  // Collective sums over the whole scene (SimWorld's definitions, summed per rank then across).
  double kineticEnergy() const;
  double potentialEnergy() const;
  double shadowEnergy() const;
  Eigen::Vector3d linearMomentum() const;
  Eigen::Vector3d angularMomentum() const;

  // Collective. The bodies of this rank's block of ids [first, first + rows.size()), the block
  // split N r / P (the rows of frames and checkpoints), in id order.
  // With `owner` and `weight`: each row's owner rank and load weight too (checkpoints).
  void blockRows(std::vector<SimBody>& rows, std::int64_t& first, std::vector<int>* owner = nullptr,
                 std::vector<std::int64_t>* weight = nullptr) const;
  // Collective. Moves the bodies to the block split (world().bodies becomes this rank's block, in
  // id order) so that a restart can overwrite their state; the next step() redistributes them.
  std::int64_t toBlocks();
  // Collective, after toBlocks(): each block row back to `owner` (its owner when the checkpoint was
  // written) with its load weight, under `decomposition`; the run then continues exactly as it
  // would have (restart at the same rank count).
  void restoreOwnership(const SimDecomposition& decomposition, const std::vector<int>& owner,
                        const std::vector<std::int64_t>& weight);
  const SimDecomposition& decomposition() const { return decomposition_; }
  // Collective. The whole scene on every rank, in id order (tests and benchmarks only: O(N)).
  SimWorld gathered() const;

 private:
  struct IslandResult {
    long iterations = 0;
    bool cycle = false, cap = false, converged = true, qpConverged = true;
    double qpResidual = 0.0;
    long linealityDetections = 0, constraintsRemoved = 0;  // anti-locking (Algorithm 2)
    bool supportProjection = false;
    double contactWork = 0.0, impactWork = 0.0;
  };
  // An island as its root gathers it: bodies (dynamic and static) in id order, contacts in the
  // canonical order (pairs by ids, then planes by body and plane).
  struct IslandBody {
    SimBody body;
    int owner = 0;
  };
  struct IslandContact {
    std::int64_t a = -1, b = -1;  // body ids; b = -1 for a plane
    int plane = -1;
    Eigen::Vector3d point = Eigen::Vector3d::Zero(), normal = Eigen::Vector3d::UnitX();
    double distance = 0.0;
  };
  struct Island {
    std::int64_t label = -1;  // the smallest dynamic body id
    std::vector<IslandBody> bodies;
    std::vector<IslandContact> contacts;
    const SimBody& body(std::int64_t id) const;
  };

  bool isConstraint(const SimContact& c, double dt) const;
  double normalVelocity(const SimContact& c, const Eigen::Vector3d& shift = Eigen::Vector3d::Zero()) const;
  bool approaching(const Island& island) const;
  int keeperOf(const SimContact& c) const;
  Eigen::VectorXd finishIsland(const ImpactSystem& sys, const Eigen::VectorXd& q0, Eigen::VectorXd qdot,
                               Eigen::VectorXd impulse, const OperatorOptions& oo, IslandResult& r) const;
  void buildIslandSystem(const Island& island, ImpactSystem& sys, Eigen::VectorXd& q0) const;
  IslandResult resolveIsland(const Island& island, Eigen::VectorXd& qdot) const;
  IslandResult resolveDistributedIsland(const Island& island, Eigen::VectorXd& qdot) const;
  bool distributedIsland(const Island& island) const;

  void sendBodies(const std::vector<std::size_t>& which, const std::vector<int>& target, std::vector<SimBody>& into,
                  std::vector<std::int64_t>* intoWeight, std::vector<int>* intoOwner = nullptr) const;
  std::int64_t moveBodies(const std::vector<std::size_t>& movers, const std::vector<int>& target);
  void rebalanceAndMigrate();
  void buildLocal();        // owned + ghosts -> local_ (ascending id)
  void kickLocalBodies();   // w, ω and v⁻ = v + Δt g of every local body (steps 1, 3)
  double detectConstraints();  // candidates kept here and constraints (step 2); returns the largest penetration
  void resolvePasses();     // steps 3-6, redone while contacts close (closure passes)
  void updateLoadWeights(); // weight_ for the next rebalance
  void labelIslands();      // union-find + label propagation over local_
  std::vector<std::vector<double>> packContributions();  // this rank's constraints by island, per root
  void gatherIslands();     // contributions -> islands_ at their roots
  struct PassTally;         // one pass's figures and resolved velocities (sim_stepper.cpp)
  void resolveDistributedIslands(PassTally& tally, std::vector<std::uint8_t>& done);
  void deliverVelocities(std::vector<std::vector<double>>& results);  // to owners and ghosts
  void resolveAll();        // one pass: islands -> velocities at owners and ghosts
  void refreshGhostVelocities();
  void integrate();
  void checkFinite() const;
  int localIndexOf(std::int64_t id) const;  // local_ index of a body id, -1 if absent

  SimWorld world_;          // owned bodies, ascending id
  SimOptions options_;
  Comm comm_;
  long step_ = 0;
  std::int64_t globalBodies_ = 0;
  double maxDynamicRadius_ = 0.0;
  SimStepStats stats_;
  SimContactDetector detector_;
  SimDecomposition decomposition_;
  bool rebuild_ = true;
  std::vector<std::int64_t> weight_;        // per owned body: 1 + 2 · its constraints last step

  // The step's local world: owned bodies and ghosts, ascending id.
  SimWorld local_;
  std::vector<int> ownerOf_;                // per local body
  std::vector<int> ownedLocal_;             // world_ index -> local_ index
  std::vector<std::vector<int>> ghostTo_;   // per rank: world_ indices sent to it as ghosts
  std::vector<std::vector<int>> ghostFrom_; // per rank: local_ indices of the ghosts it sent

  // Buffers reused every step.
  std::vector<SimContact> candidates_;      // kept candidates (this rank is their keeper)
  std::vector<int> constraintOf_;           // candidate -> constraint index or -1
  std::vector<int> constraints_;            // constraint -> candidate
  std::vector<int> parent_;                 // union-find over local_
  std::vector<std::int64_t> label_;         // per local body: island label (smallest id)
  std::vector<int> labelRoot_;              // per local body: owner of the label's body
  std::vector<Island> islands_;             // islands rooted here (this pass)
  std::vector<Eigen::Vector3d> vMinus_, omegaMinus_;  // w, ω before the impact (per local body)
  std::vector<Eigen::Vector3d> vKicked_;              // v⁻ = v + Δt g (per local body)
  Eigen::Vector3d half_ = Eigen::Vector3d::Zero();     // h (the second half kick; 0: Before)
  std::vector<std::uint8_t> touched_;                 // local bodies given a velocity (this pass)
};

}  // namespace kinema::impact
