#pragma once
// The free-DOF force f(p) = f_ext - grad_q (E_st + E_be + E_tw)(q; p) of one strand at a FIXED
// configuration q, its Jacobian J = df/dp (paper §IV-E, Eq. 24-31), and the pieces of
// the Newton BCQP (Eq. 20-23): A = W + rho J^T M^-1 J accumulated straight into a band of
// half-bandwidth 21 and the ALM gradient Eq. 22. Also the structural sparsity model (the band figures of §VI-B).
//
// J is stored by columns: every parameter's column touches one contiguous range of free DOFs
// (the stencil y_i for kbar, beta, mbar, gamma; y_i u y_{i+1} for lbar_i; x_i..x_{i+1} for
// alpha_i), at most 15 rows, so a column is (first free row, row count, 15 values).
#include <array>
#include <span>
#include <vector>

#include "modules/der/banded.hpp"
#include "modules/der/parameters.hpp"
#include "modules/der/rod_kinematics.hpp"

namespace kinema::der {

// Half-bandwidth of A = W + rho J^T M^-1 J in the paper's ordering (§VI-B).
inline constexpr int kBcqpBandwidth = 21;

class ForceJacobianMatrix {
 public:
  static constexpr int kMaxRows = 15;  // rows of the longest column (lbar_i: y_i u y_{i+1})
  ForceJacobianMatrix() = default;
  explicit ForceJacobianMatrix(int N) { resize(N); }
  void resize(int N);  // 4N-8 rows, 7N-14 columns; the row ranges are fixed by N
  int rows() const { return rows_; }
  int cols() const { return cols_; }
  int rowBegin(int a) const { return rowBegin_[a]; }
  int rowCount(int a) const { return rowCount_[a]; }
  std::span<double> column(int a) { return {values_[a].data(), static_cast<std::size_t>(rowCount_[a])}; }
  std::span<const double> column(int a) const {
    return {values_[a].data(), static_cast<std::size_t>(rowCount_[a])};
  }
  double operator()(int r, int a) const;  // 0 outside the column's range
  void multiply(std::span<const double> x, std::span<double> y) const;            // y = J x
  void multiplyTransposed(std::span<const double> y, std::span<double> x) const;  // x = J^T y
  bool allFinite() const;

 private:
  int rows_ = 0, cols_ = 0;
  std::vector<int> rowBegin_, rowCount_;
  std::vector<std::array<double, kMaxRows>> values_;
};

// Force and Jacobian of one strand at fixed kinematics. `massDiag` and `externalForce` are on the
// 4N-8 free DOFs (diagonal generalised mass, constant during the optimisation; gravity force).
// `restLength0` is lbar_0 (the clamped edge: not a parameter, but in the coefficients at vertex 1).
class StrandForceModel {
 public:
  StrandForceModel(RodKinematics kinematics, double radius, double restLength0, double scale,
                   std::vector<double> massDiag, std::vector<double> externalForce);
  // An empty model, to be filled by rebuild() (the optimiser's per-rank workspace).
  StrandForceModel() = default;
  // Re-initialises the model for another strand (or the same one again) in place: the kinematics
  // of q with `frames` (computeKinematics, in place) and copies of mass and force. Bitwise the
  // model the constructor builds from the same inputs; no allocation once the storage has held a
  // strand of at least this size.
  void rebuild(const std::vector<double>& q, const ReferenceFrames& frames, double radius, double restLength0,
               double scale, std::span<const double> massDiag, std::span<const double> externalForce);
  // rebuild() in two halves, for a caller that needs the kinematics before the rest (the
  // optimiser's workspace derives the strand's rest state from them instead of computing them
  // twice): setKinematics(q, frames) then rebuild(radius, ...) is bitwise rebuild(q, frames, ...).
  const RodKinematics& setKinematics(const std::vector<double>& q, const ReferenceFrames& frames);
  void rebuild(double radius, double restLength0, double scale, std::span<const double> massDiag,
               std::span<const double> externalForce);
  int vertices() const { return N_; }
  int parameters() const { return parameterCount(N_); }
  int constraints() const { return constraintCount(N_); }
  double scale() const { return s_; }
  const RodKinematics& kinematics() const { return kin_; }
  std::span<const double> mass() const { return mass_; }
  std::span<const double> inverseMass() const { return invMass_; }
  std::span<const double> inverseSqrtMass() const { return invSqrtMass_; }
  std::span<const double> externalForce() const { return fext_; }

  // f(p) = f_ext - grad E (Eq. 2-8 with kbar synchronised), 4N-8 entries.
  void force(std::span<const double> p, std::span<double> f) const;
  // J = df/dp (Eq. 24-31; the kbar columns carry the synchronisation sum of Eq. 27).
  void jacobian(std::span<const double> p, ForceJacobianMatrix& J) const;

 private:
  void initMass();  // checks sizes and positivity, fills invMass_, invSqrtMass_

  int N_ = 0;
  RodKinematics kin_;
  double radius_ = 0.0, lbar0_ = 0.0, s_ = 1.0;
  std::vector<double> mass_, invMass_, invSqrtMass_, fext_;
};

// A = W + rho J^T M^-1 J into `A` (resized to (7N-14, 21) on first use, then only overwritten).
// Throws if two columns more than 21 apart share a row (the band assumption).
void assembleBcqpMatrix(const ForceJacobianMatrix& J, std::span<const double> invMass, double rho,
                        std::span<const double> weights, BandedSymmetric& A);

// The values of the ALM gradient (Eq. 22) besides J: parameters (7N - 14 each) and free DOFs
// (4N - 8 each).
struct AlmGradientInputs {
  std::span<const double> weights, p, p0;        // W (its diagonal), p, p0
  std::span<const double> invSqrtMass, invMass;  // M^-1/2, M^-1
  std::span<const double> lambda, f;             // multipliers, f(p)
  double rho = 0.0;
};

// Eq. 22: grad = W (p - p0) + J^T (M^-1/2 lambda + rho M^-1 f). `work` has 4N-8 entries.
void almGradient(const ForceJacobianMatrix& J, const AlmGradientInputs& in, std::span<double> work,
                 std::span<double> grad);

// Structural sparsity of A (§VI-B): A_ab != 0 iff the DOF sets of parameters a and b meet.
enum class SparsityModel {
  RestOnly2D,  // (kbar_0, kbar_1, mbar, lbar) per vertex, 4N-8
  RestOnly4D,  // (kbar_0..3, mbar, lbar), 6N-12
  Full         // the paper's 7-parameter ordering, 7N-14
};
struct SparsityFigures {
  int n = 0;                 // rows
  long long nnz = 0;         // structural non-zeros of A (both triangles)
  double nnzPerRow = 0.0;
  int halfBandwidth = 0;
  double envelopeFill = 0.0;  // nnz / sum over rows of (max col - min col + 1)
};
// Column index lists per row (sorted) of the structural pattern of A.
std::vector<std::vector<int>> structuralPattern(int N, SparsityModel model);
SparsityFigures structuralSparsity(int N, SparsityModel model);

}  // namespace kinema::der
