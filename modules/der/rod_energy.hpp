#pragma once
// Elastic energy of a DER strand (paper §III-B-D, Eq. 2-8): stretching, bending with
// 4D curvature (or the 2D averaged-frame curvature of [7] for comparison, Fig. 2) and twisting;
// the generalised force f = -grad E over all 4N - 1 DOFs; and the forward-simulation Hessian of
// the free DOFs q[7 .. 4N-2] (stretching exact with SPD projection, bending and twisting
// Gauss-Newton, paper Sec. VI) in banded storage.
#include <span>

#include "modules/der/banded.hpp"
#include "modules/der/rod_kinematics.hpp"
#include "modules/der/strand.hpp"

namespace kinema::der {

// Half-bandwidth of the forward-simulation Hessian in the interleaved ordering (paper §III).
inline constexpr int kForwardBandwidth = 10;

struct ElasticEnergy {
  double stretch = 0.0, bend = 0.0, twist = 0.0;
  double total() const { return stretch + bend + twist; }
};

// Stiffness coefficients k of E = k/2 (.)^2 for a modulus c (= s alpha, s beta, s gamma):
// Eq. 2: k_st = c pi r^2 / lbar_j;  Eq. 5: k_be = c pi r^4 / (4 (lbar_{i-1} + lbar_i));
// Eq. 7: k_tw = c pi r^4 / (lbar_{i-1} + lbar_i).
double stretchCoefficient(double c, double radius, double restLength);
double bendCoefficient(double c, double radius, double restLengthPrev, double restLengthNext);
double twistCoefficient(double c, double radius, double restLengthPrev, double restLengthNext);

// The rest curvature the bending energy compares kappa_i with: kbar_i itself for the 4D model;
// for the 2D averaged-frame model ((kbar_0 + kbar_2) / 2, (kbar_1 + kbar_3) / 2, 0, 0), the
// averaged-frame curvature of a rest shape whose 4D curvature is kbar.
Vec4 modelRestKappa(const Vec4& restKappa, CurvatureModel model);

// Bending coefficient multiplier of the model: 1 for 4D (two half-weighted copies of each
// curvature), 2 for the 2D model (one full-weight copy), so both agree for untwisted rods.
double modelBendFactor(CurvatureModel model);

// Energies at the kinematics K (computed with K.model). Stretching sums edges 1..N-2 (edge 0 is
// clamped), bending and twisting interior vertices 1..N-2.
ElasticEnergy elasticEnergy(const RodKinematics& K, const RestState& rest, double radius);

// f = -grad E over all 4N - 1 DOFs (f is overwritten); returns the energies.
ElasticEnergy elasticForce(const RodKinematics& K, const RestState& rest, double radius, std::span<double> f);

// Adds the forward-simulation Hessian of E restricted to the free DOFs (size 4N - 8, free index
// a = q index - 7) to H, which must have size 4N - 8 and half-bandwidth >= 10.
void addElasticHessian(const RodKinematics& K, const RestState& rest, double radius, BandedSymmetric& H);

// Checks that `rest` has the array sizes of a strand with N vertices (throws InputError).
void checkRestState(const RestState& rest, int N);

}  // namespace kinema::der
