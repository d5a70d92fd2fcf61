#pragma once
// The Eigen backend's native preconditioners (jacobi is the framework's JacobiPreconditioner).
// All work on the scalar CSR of an EigenMatrix and copy what they need at setup, so a later refill
// of the matrix does not change them until setup runs again.
#include <vector>

#include "backends/eigen/eigen_factorization.hpp"
#include "framework/la/preconditioner.hpp"

namespace kinema::la::eigen {

// IC(0): L L^T = A on the lower-triangular pattern of A, no fill (Meijerink & van der Vorst 1977).
// Exact on tridiagonal (and any chordal-without-fill) patterns. Uses the lower triangle only.
class Ic0Preconditioner final : public Preconditioner {
 public:
  void setup(OperatorPtr A) override;
  void apply(const Vector& r, Vector& z) const override;
  std::string name() const override { return "ic0"; }

 private:
  int n_ = 0;
  std::vector<int> outer_, inner_;  // CSR of L, diagonal last in each row
  std::vector<double> val_;
};

// Symmetric SOR: M = (D + wL) D^{-1} (D + wU) / (w (2 - w)). Symmetric when A is. The default
// w = 1 (symmetric Gauss-Seidel) needs no tuning; the layer's name "ssor" has no parameter yet.
class SsorPreconditioner final : public Preconditioner {
 public:
  explicit SsorPreconditioner(double omega = 1.0);
  void setup(OperatorPtr A) override;
  void apply(const Vector& r, Vector& z) const override;
  std::string name() const override { return "ssor"; }

 private:
  double omega_;
  EigenMatrix::Csr A_;
  std::vector<double> diag_;
};

// A sparse direct factorisation used as a preconditioner (M = A): LDL^T, LU if A is not symmetric.
class DirectPreconditioner final : public Preconditioner {
 public:
  void setup(OperatorPtr A) override;
  void apply(const Vector& r, Vector& z) const override;
  std::string name() const override { return "direct"; }

 private:
  EigenFactorization fact_;
  IndexMapPtr map_;
};

}  // namespace kinema::la::eigen
