#pragma once
// The paper's simple MPRGP baselines (§VI-E1) on the band of A, restricted to
// the free set: each applies P_FF^{-1} with P_FF built from A_FF alone, and returns 0 on active
// indices (decision 8.8: "filtered", not "masked after the fact", so that every one is a symmetric
// operator on the free subspace).
//   none     z_F = r_F
//   jacobi   z_F = diag(A_FF)^{-1} r_F
//   wjacobi  k sweeps (default 2) of weighted Jacobi x <- x + omega D^{-1} (r - A_FF x) from x = 0
//            on A_FF (omega 0.5). Symmetric; positive definite iff omega lambda_max(D^-1 A_FF) < 2,
//            which holds for diagonally dominant A but not in general (a property of the baseline).
//   ssor     symmetric SOR on A_FF (omega 1.2): P = 1/(2-omega) (D/omega + L)(D/omega)^{-1}(D/omega + L^T)
//            with L the strictly lower part of A_FF: a filtered forward and a filtered backward sweep.
#include "modules/der/qp_masked_preconditioner.hpp"

namespace kinema::der {

class NoneQpPreconditioner : public MaskedBandPreconditioner {
 public:
  std::string name() const override { return "none"; }

 protected:
  void compute(const BandedSymmetric&) override {}
  void applyMasked(std::span<const double> r, std::span<const std::uint8_t> freeMask,
                   std::span<double> z) const override;
};

class JacobiQpPreconditioner : public MaskedBandPreconditioner {
 public:
  std::string name() const override { return "jacobi"; }

 protected:
  void compute(const BandedSymmetric& A) override;
  void applyMasked(std::span<const double> r, std::span<const std::uint8_t> freeMask,
                   std::span<double> z) const override;

 private:
  std::vector<double> invDiag_;
};

class WeightedJacobiQpPreconditioner : public MaskedBandPreconditioner {
 public:
  WeightedJacobiQpPreconditioner(double omega, int sweeps);
  std::string name() const override { return "wjacobi"; }
  void configure(const QpPreconditionerOptions& o) override;

 protected:
  void compute(const BandedSymmetric& A) override;
  void applyMasked(std::span<const double> r, std::span<const std::uint8_t> freeMask,
                   std::span<double> z) const override;

 private:
  double omega_;
  int sweeps_;
  BandedSymmetric A_;
  std::vector<double> invDiag_;
  mutable std::vector<double> rF_, y_;  // scratch (S r and A x), sized in compute()
};

class SsorQpPreconditioner : public MaskedBandPreconditioner {
 public:
  explicit SsorQpPreconditioner(double omega);
  std::string name() const override { return "ssor"; }
  void configure(const QpPreconditionerOptions& o) override;

 protected:
  void compute(const BandedSymmetric& A) override;
  void applyMasked(std::span<const double> r, std::span<const std::uint8_t> freeMask,
                   std::span<double> z) const override;

 private:
  double omega_;
  BandedSymmetric A_;
};

}  // namespace kinema::der
