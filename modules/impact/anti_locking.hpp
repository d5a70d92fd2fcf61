#pragma once
// Anti-locking (Algorithm 2 of Vouga et al. 2017, paper §4, §4.1, §7, §8; modules/impact/README.md,
// decisions 12-13) wired into the resolver: the pieces the Resolver needs to run ANY ImpactOperator
// on the projected problem (lines 3-7) and to map the result back.
//
// How the operator runs on the projected problem (design decision, see also the README notes in
// resolver.hpp): operators take a concrete `const ImpactSystem&`, whose constraints touch at most
// two bodies (Constraint::body is a std::array<int, 2>, no virtual interface). The projected
// covector n̄_i = Pᵀn_i = n_i − E(EᵀM⁻¹n_i) (README decision 10, covector form) generally spreads over every
// body of the locked island, so it cannot always be stored there. Hence two paths:
//
//  * representable (the common case, every L* case of README decision 19): each kept n̄_i touches at most two
//    dynamic bodies after dropping round-off entries (|x| <= dropTolerance·‖n̄_i‖_∞). This holds
//    whenever E is aligned with the DOFs the constraint touches (balls against walls, channel,
//    geyser, jammed box: P zeroes locked coordinates) and also when the correction lands on the one
//    other body of a one-body constraint (L13 mass mixing: a wall constraint on body 1 becomes a
//    body 1-2 constraint). A new ImpactSystem with the SAME bodies (same DOF layout, so q̇ is
//    shared) and the kept projected covectors (ImpactSystem::addConstraint; it re-normalises, line 7)
//    is built, and the caller's operator runs on it unchanged.
//  * spread (> 2 bodies): the operator cannot see such a constraint, so the projected problem is
//    resolved by a built-in dense pairwise Gauss-Seidel in Algorithm 3 form (lexicographic,
//    ϵ-relaxed test, renormalised; exact mode: strict test, no renormalisation) on the dense n̄_i.
//    It satisfies (ϵNORM), (ONE), (ϵKIN), (ϵDRIFT), (ϵVIO), (ϵMOD) on the reduced problem, which
//    has no implicit equalities, so it terminates (Theorem 7.3). The stats flag it (denseFallback).
#include <Eigen/Dense>
#include <string>
#include <vector>

#include "modules/impact/impact_system.hpp"
#include "modules/impact/lineality.hpp"

namespace kinema::impact {

// ResolverOptions::antiLocking.
enum class AntiLockingMode {
  Off,    // Algorithm 1/3/4 only (the fast mode, paper §8); lineality hits the cap with a report
  Eager,  // Algorithm 2: detect (one LP when I = ∅) before every resolution
  Lazy    // README decision 13: K plain iterations first; detect only if they (or a cycle) do not end it
};
std::string toString(AntiLockingMode mode);
// "off" | "eager" | "lazy"; InputError otherwise.
AntiLockingMode antiLockingModeFromString(const std::string& name);

// Algorithm 2 lines 3-7 on an ImpactSystem: the projected problem in the form the resolver runs.
struct ProjectedProblem {
  LinealityResult lineality;          // line 2 (E is M⁻¹-orthonormal)
  std::vector<int> kept, removed;     // original constraint indices (line 6)
  std::vector<double> relNorm;        // per original constraint: ‖Pᵀn_i‖_{M⁻¹} (n_i is normalised)
  bool representable = true;          // every kept n̄_i touches <= 2 dynamic bodies
  int firstSpread = -1;               // original index of the first kept constraint that does not
  ImpactSystem system;                // representable: same bodies, constraints = kept n̄_i
  std::vector<double> scale;          // representable: ImpactSystem's re-normalisation per kept one
  Eigen::MatrixXd N;                  // d x kept: the normalised n̄_i (always filled)
  Eigen::MatrixXd Minv;               // d x d dense M⁻¹ (kept for projecting later iterates)
  double seconds = 0.0;               // projection + system build (not the detection)
};

// Dense forms of the system's constraint matrix and M⁻¹, then detectLineality (line 2).
LinealityResult detectSystemLineality(const ImpactSystem& system, const LinealityOptions& options);

// Lines 4-7 given the detection: project every n_i, drop the vanished (vanishTolerance of
// `options`), build the projected ImpactSystem when representable (dropTolerance: relative size of
// a projected entry treated as round-off, see above).
ProjectedProblem projectSystem(const ImpactSystem& system, LinealityResult lineality,
                               const LinealityOptions& options, double dropTolerance);

// Line 3 (or the lazy variant's projection of the current iterate): v <- P v, returns the kinetic
// energy removed, ½‖Eᵀv‖² (E M⁻¹-orthonormal). If rank E = d (F = {0}, e.g. the jammed box) v is
// set to exactly 0.
double projectIterate(const ProjectedProblem& problem, Eigen::VectorXd& v);

// The dense fallback resolution of the spread path (see above): pairwise lexicographic GS
// (eq. (1)) on the columns of `N` (normalised, n̄ᵀM⁻¹n̄ = 1) with M⁻¹N given; relaxed:
// n̄ᵀv >= −ϵ‖v‖_M with renormalisation to the initial ‖v‖_M (Algorithm 3); otherwise strict.
// Returns the iterations; `converged` tells whether it ended feasible within `maxIterations`.
// `impulse` (size N.cols()) accumulates λ. No allocation inside the loop.
struct DenseGsResult {
  long iterations = 0;
  bool converged = false;
};
DenseGsResult denseGaussSeidel(const ImpactSystem& system, const Eigen::MatrixXd& N, const Eigen::MatrixXd& MinvN,
                               bool relaxed, double epsilon, long maxIterations, Eigen::VectorXd& v,
                               Eigen::VectorXd& impulse);

}  // namespace kinema::impact
