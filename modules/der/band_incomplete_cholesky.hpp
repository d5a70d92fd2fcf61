#pragma once
// Incomplete LDL^T on the structural pattern of a banded A (entries exactly 0 in A are outside the
// pattern; the diagonal is always in it) and the IC / MIC BCQP preconditioners built on it with the
// same filtered sweeps as ASC ("active-set IC", paper §V-B; baselines of §VI-E1).
//   IC(0):  fill outside the pattern is dropped. Breakdown fallback: a pivot that is not above
//           pivotFloor * A_jj (non-positive up to round-off) is replaced by the original diagonal
//           A_jj (the safeguard of Bridson's MIC, applied to plain IC).
//   MIC(0): Bridson's modified IC: tau times each dropped fill value is added to the diagonals of
//           both its row and its column (row sums kept for tau = 1); a pivot below sigma * A_jj is
//           replaced by A_jj. Defaults tau = 0.97, sigma = 0.25.
// With a fully populated band both equal the complete LDL^T (then IC == ASC).
#include <cstdint>
#include <span>
#include <vector>

#include "modules/der/banded.hpp"
#include "modules/der/qp_masked_preconditioner.hpp"

namespace kinema::der {

struct IncompleteLdltOptions {
  bool modified = false;    // MIC if true
  double tau = 0.97;        // MIC: fraction of the dropped fill moved to the diagonal
  double sigma = 0.25;      // MIC: safety, pivot < sigma * A_jj -> A_jj
  double pivotFloor = 1e-12;  // IC: pivot <= pivotFloor * A_jj -> A_jj
};

class IncompleteBandedLdlt {
 public:
  explicit IncompleteBandedLdlt(IncompleteLdltOptions options = {}) : options_(options) {}
  void factor(const BandedSymmetric& A);
  void solveFiltered(std::span<const double> r, std::span<const std::uint8_t> freeMask, std::span<double> z) const {
    ldltSolveFiltered(n_, kd_, L_, D_, freeMask, r, z);
  }
  int size() const { return n_; }
  double l(int i, int j) const;
  double d(int i) const { return D_[static_cast<std::size_t>(i)]; }
  int fallbacks() const { return fallbacks_; }  // pivots replaced by A_jj in the last factor()
  long factorizations() const { return factorizations_; }

 private:
  IncompleteLdltOptions options_;
  int n_ = 0, kd_ = 0;
  std::vector<double> L_, D_, work_, pending_;
  int fallbacks_ = 0;
  long factorizations_ = 0;
};

class IncompleteCholeskyQpPreconditioner : public MaskedBandPreconditioner {
 public:
  explicit IncompleteCholeskyQpPreconditioner(IncompleteLdltOptions options) : ildlt_(options), modified_(options.modified) {}
  std::string name() const override { return modified_ ? "mic" : "ic0"; }
  void configure(const QpPreconditionerOptions& o) override {
    ildlt_ = IncompleteBandedLdlt({.modified = modified_, .tau = o.micTau, .sigma = o.micSigma, .pivotFloor = o.pivotFloor});
  }
  long factorizations() const override { return ildlt_.factorizations(); }
  const IncompleteBandedLdlt& factor() const { return ildlt_; }

 protected:
  void compute(const BandedSymmetric& A) override { ildlt_.factor(A); }
  void applyMasked(std::span<const double> r, std::span<const std::uint8_t> freeMask,
                   std::span<double> z) const override {
    ildlt_.solveFiltered(r, freeMask, z);
  }

 private:
  IncompleteBandedLdlt ildlt_;
  bool modified_;
};

}  // namespace kinema::der
