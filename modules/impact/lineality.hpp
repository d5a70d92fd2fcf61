#pragma once
// Lineality (implicit-equality) detection and the anti-locking projection of Algorithm 2
// (Vouga et al. 2017, paper §4, §4.1, §7;
// modules/impact/README.md, decisions 7-10).
//
// Given the normalised constraint gradients N = [n_1 ... n_m] (d x m) and M^-1 (d x d SPD), find
//
//   the implicit-equality set  𝔹 = I = { i : ∃ λ >= 0, N λ = 0, λ_i > 0 }          (paper §4)
//   and a basis E (d x r) of L = span{ n_i : i ∈ I } with Eᵀ M⁻¹ E = I_r             (decision 7)
//
// then project (paper §4.1, README decision 10, with E M⁻¹-orthonormal so (EᵀM⁻¹E)⁺ = I):
//
//   velocities   P q̇  = q̇ − M⁻¹E (Eᵀ q̇)          (Algorithm 2 line 3)
//   covectors    Pᵀn  = n − E (EᵀM⁻¹ n)           (lines 5-7, the consistent covector form)
//
// and drop the constraints whose projected gradient vanishes (line 6).
//
// All LPs are posed in whitened coordinates: with M⁻¹ = L Lᵀ (Cholesky), ñ_i = Lᵀ n_i and a velocity
// w = L u, we have n_iᵀw = ñ_iᵀu, ‖n_i‖_{M⁻¹} = ‖ñ_i‖_2 and ‖w‖_M = ‖u‖_2, so the LP data are unit
// vectors and the box |u_k| <= 1 is the polyhedral stand-in for the M-ball of paper §7 (LP-1's
// S = L⁻¹). I is invariant under this change of variables (Ñλ = 0 ⟺ Nλ = 0).
//
// Tolerance model. θ = epsilon + lpTolerance. By LP duality, for each constraint i
//   v_i := max{ ñ_iᵀu : Ñᵀu >= 0, ‖u‖_∞ <= 1 } = min_{y >= 0} ‖ñ_i + Ñy‖_1,
// the whitened ℓ1 distance of −n_i from pos(N); v_i = 0 ⟺ i ∈ I (paper §4).
//   I_θ := { i : v_i <= θ }      (paper §7: "i is ϵ-implicit iff max{n_iᵀw : Nᵀw >= 0, ‖w‖ <= 1} <= ϵ",
//                                 with the box for the M-ball).
// LP-1 value t* = max_{‖u‖_∞<=1} min_i ñ_iᵀu = min_{λ>=0, 1ᵀλ=1} ‖Ñλ‖_1 <= v_i/(1+1ᵀy), so t* > θ
// proves I_θ = ∅ (the one-LP common case). Support & Shave computes I_θ exactly by its definition.
// LP-2 is for exact detection (epsilon = 0): its ℓ1 slack θ·(count) returns I_θ up to constraints
// with v_i within a factor 2m of θ = lpTolerance, i.e. up to LP round-off (see lineality.cpp).
// epsilon = 0 is exact detection (lpTolerance absorbs LP round-off only); epsilon > 0 is the
// approximate lineality of paper §7. Caveat (the two notions of paper §7 differ): a cone can be
// narrower than ϵ (t* <= θ) without any single constraint within ϵ of −pos(N) (e.g. a wedge of
// width between ϵ and 2ϵ); then I_θ = ∅ and `narrowCone` is set, and the caller may raise ϵ.
// A set declared free has a certificate u with ñ_iᵀu > θ‖u‖_∞ >= θ‖u‖_2/√d, i.e.
// n_iᵀw >= (θ/√d)‖w‖_M; `certificateMargin` reports the exact M-norm margin achieved.
#include <Eigen/Core>
#include <string>
#include <vector>

#include "framework/solvers/lp_solver.hpp"

namespace kinema::impact {

// The LP formulation (README decisions 7-9).
enum class LinealityMethod {
  // LP-1 (d+1 variables, m rows); only if t* <= θ, one LP-2 for I (epsilon > 0: the Support & Shave
  // stage instead, as LP-2 is exact only). 1 LP when I = ∅, else 2 (epsilon = 0).
  lp1ThenLp2,
  // LP-2 alone (2m + d variables, m + 2d + 1 rows): I in one solve always; no certificate;
  // epsilon = 0 only.
  lp2,
  // Support & Shave (after López 2011, reconstructed, README decision 9): LP-1, then per-constraint LPs of
  // size d (v_i above); each one "shaves" every constraint its optimal u separates (ñ_kᵀu > θ: not
  // implicit) and "supports" i and every constraint with dual multiplier >= 1 (implicit).
  // At most m + 1 <= 2m LPs; 1 when I = ∅.
  supportAndShave,
};
std::string toString(LinealityMethod method);
// "lp1" | "lp2" | "support_and_shave"; throws InputError on anything else.
LinealityMethod linealityMethodFromString(const std::string& name);

struct LinealityOptions {
  LinealityMethod method = LinealityMethod::lp1ThenLp2;
  // ϵ of paper §7: a constraint whose −n_i is within θ = ϵ + lpTolerance of pos(N)
  // (v_i <= θ, tolerance model above) is treated as implicit. 0 = exact detection. Algorithm 2
  // run with Algorithm 3/4 should pass its own ϵ. Not with method lp2.
  double epsilon = 0.0;
  // τ_lin: margin for LP round-off, added to epsilon (README decision 8: 10x the LP
  // feasibility tolerance). The LP data are O(1) (unit ñ_i, |u_k| <= 1) and solved to feasibility
  // 1e-9 (LpOptions), so 10x that separates "0 up to the LP" from a real cone width, while the
  // rounding in ñ is ~d ε_mach ≈ 1e-15 (paper App. A). The user ϵ of §7 (1e-10 .. 1e-8, √ε_mach ≈ 1.5e-8
  // being the proof-driven scale) is added on top, so ϵ = 1e-8 gives θ = 2e-8.
  double lpTolerance = 1e-8;
  // Rank tolerance for the basis E (pivoted QR of the unit columns ñ_i, i ∈ I): |R_kk| <= tol
  // ends the basis. Rounding in ñ is ~d ε_mach ≈ 1e-15; 1e-10 leaves five orders of headroom and
  // stays far below vanishTolerance, so every i ∈ I is removed by projectConstraints.
  double rankTolerance = 1e-10;
  // Line 6 of Algorithm 2: a projected gradient with ‖Pᵀn_i‖_{M⁻¹} <= vanishTolerance ‖n_i‖_{M⁻¹}
  // has vanished (a tolerance instead of exact zero).
  double vanishTolerance = 1e-8;
  // Forwarded to solvers::makeLpSolver.
  solvers::LpOptions lp;
};

struct LinealityResult {
  std::vector<int> implicitEqualities;  // 𝔹 = I, sorted constraint indices
  Eigen::MatrixXd E;                    // d x r basis of L = span{n_i : i ∈ I}, Eᵀ M⁻¹ E = I_r
  int rank() const { return static_cast<int>(E.cols()); }
  bool hasLineality() const { return !implicitEqualities.empty(); }

  LinealityMethod method = LinealityMethod::lp1ThenLp2;
  double threshold = 0.0;  // θ = epsilon + lpTolerance
  // LP-1 (if solved): t* (box-normalised), and, when t* > θ, the strictly feasible certificate
  // w = L u* (Nᵀw >= t* componentwise; usable as the w of Lemma 5.1 / T-CERT) with its
  // exact margin min_i n_iᵀw / (‖n_i‖_{M⁻¹}‖w‖_M) (a lower bound on the M-ball width t*_ϵ of paper §7).
  bool lp1Solved = false;
  double lp1Value = 0.0;
  Eigen::VectorXd certificate;
  double certificateMargin = 0.0;
  // LP-1 said "not free" (t* <= θ) but no constraint is within θ of −pos(N) (only with epsilon > 0
  // in practice): the cone is narrower than ϵ; see the tolerance model above.
  bool narrowCone = false;
  // Largest ‖Pᵀn_i‖_{M⁻¹}/‖n_i‖_{M⁻¹} over i ∈ I after projecting with E (should be ~rankTolerance).
  double maxImplicitResidual = 0.0;

  int lpSolves = 0;    // LPs solved (first attempts)
  int lpRetries = 0;   // re-solves with the other simplex after a non-optimal status (rare)
  long lpIterations = 0;
  double seconds = 0.0;  // wall time of detectLineality (validation, LPs, basis)
};

// Detects I and E. N: d x m gradients (any positive column scale; they are normalised internally
// to n_iᵀM⁻¹n_i = 1, which leaves I and E unchanged); Minv: d x d SPD. m = 0 gives an empty result
// with no LP. Throws InputError on bad input (size mismatch, NaN/Inf, a zero gradient — naming the
// constraint index —, Minv not symmetric positive definite, bad options) and Error if an LP ends
// non-optimal with both simplex algorithms (all the LPs here are feasible and bounded).
LinealityResult detectLineality(const Eigen::MatrixXd& N, const Eigen::MatrixXd& Minv,
                                const LinealityOptions& opts = {});

// Algorithm 2 lines 5-7 applied to every column: the result of projectConstraints.
struct ProjectedConstraints {
  std::vector<int> kept;         // original indices of the surviving constraints, increasing
  std::vector<int> removed;      // original indices of the vanished ones (line 6)
  Eigen::MatrixXd N;             // d x kept.size(): n̄_i / ‖n̄_i‖_{M⁻¹} (normalised, spec (norm))
  std::vector<double> relNorm;   // per original constraint: ‖Pᵀn_i‖_{M⁻¹} / ‖n_i‖_{M⁻¹}
};

// The M-orthogonal projector onto Q̄ = ker Eᵀ (paper §4.1; README decision 10) for an
// M⁻¹-orthonormal E. Holds E and M⁻¹E; the in-place applies do not allocate (they share an
// r-vector of scratch, so one projector must not be used from two threads at once).
class LinealityProjector {
 public:
  LinealityProjector() = default;
  // E: d x r with EᵀM⁻¹E = I (as returned by detectLineality); r = 0 is the identity.
  LinealityProjector(const Eigen::MatrixXd& E, const Eigen::MatrixXd& Minv);

  int dimension() const { return static_cast<int>(E_.rows()); }
  int rank() const { return static_cast<int>(E_.cols()); }
  const Eigen::MatrixXd& E() const { return E_; }
  const Eigen::MatrixXd& MinvE() const { return MinvE_; }

  // q̇ <- P q̇ = q̇ − M⁻¹E(Eᵀq̇)      (Algorithm 2 line 3; dissipative, impulse in L ⊂ pos(N))
  void projectVelocity(Eigen::Ref<Eigen::VectorXd> qdot) const;
  // n <- Pᵀ n = n − E(EᵀM⁻¹n)       (covector form of lines 5-7; M⁻¹Pᵀn = P M⁻¹ n ∈ Q̄)
  void projectCovector(Eigen::Ref<Eigen::VectorXd> n) const;
  // Lines 4-7 for all columns of N (Minv as in the constructor): project, drop the vanished
  // (‖Pᵀn_i‖_{M⁻¹} <= vanishTolerance ‖n_i‖_{M⁻¹}), normalise the rest.
  ProjectedConstraints projectConstraints(const Eigen::MatrixXd& N, const Eigen::MatrixXd& Minv,
                                          double vanishTolerance = 1e-8) const;

 private:
  Eigen::MatrixXd E_, MinvE_;
  mutable Eigen::VectorXd coeff_;  // r scratch: Eᵀq̇ or EᵀM⁻¹n
};

// Algorithm 2 lines 2-7 in one call: detect (line 2), project the initial velocity (line 3) and the
// gradients (lines 4-7). The resolver then runs Algorithm 1/3/4 on (qdot0, constraints.N) and maps
// impulses back through constraints.kept. If no lineality is found, qdot0 = qdot and every
// constraint is kept (normalised), i.e. Algorithm 2 reduces to Algorithm 1.
struct AntiLocking {
  LinealityResult lineality;
  Eigen::VectorXd qdot0;             // P q̇
  ProjectedConstraints constraints;  // n̄_i of the survivors (all of 𝒩 ∖ I, up to vanishTolerance)
  // Kinetic energy removed by line 3: ½‖q̇‖²_M − ½‖Pq̇‖²_M = ½‖Eᵀq̇‖² (P is M-orthogonal and
  // EᵀM⁻¹E = I), computed without M. The impulse M(Pq̇ − q̇) = −E(Eᵀq̇) lies in L ⊂ pos(N).
  double energyRemoved = 0.0;
};
AntiLocking applyAntiLocking(const Eigen::MatrixXd& N, const Eigen::MatrixXd& Minv,
                             const Eigen::VectorXd& qdot, const LinealityOptions& opts = {});

// Convenience (allocating) forms of the two projections.
Eigen::VectorXd projectVelocity(const Eigen::MatrixXd& E, const Eigen::MatrixXd& Minv,
                                const Eigen::VectorXd& qdot);
Eigen::VectorXd projectCovector(const Eigen::MatrixXd& E, const Eigen::MatrixXd& Minv,
                                const Eigen::VectorXd& n);

}  // namespace kinema::impact
