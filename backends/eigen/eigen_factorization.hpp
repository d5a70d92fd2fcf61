#pragma once
// EigenFactorization: a sparse direct factorisation of an EigenMatrix, shared by the "direct"
// preconditioner and the "direct" solver. LDL^T (SimplicialLDLT) when the matrix is symmetric,
// LU (SparseLU) when it is not or when LDL^T fails (a zero pivot of a symmetric indefinite matrix).
#include <Eigen/SparseCholesky>
#include <Eigen/SparseLU>
#include <string>

#include "backends/eigen/eigen_matrix.hpp"

namespace kinema::la::eigen {

class EigenFactorization {
 public:
  // Throws an Error naming `who` if no factorisation succeeds. `preferLu` skips LDL^T.
  void compute(const EigenMatrix& A, const std::string& who, bool preferLu = false);
  // x = A^{-1} b on raw arrays of the matrix's size (b and x distinct).
  void solve(const double* b, double* x) const;
  bool usesLdlt() const { return ldlt_; }
  const char* method() const { return ldlt_ ? "LDL^T" : "LU"; }

 private:
  using ColMajor = Eigen::SparseMatrix<double>;
  Eigen::SimplicialLDLT<ColMajor> ldltF_;
  Eigen::SparseLU<ColMajor> luF_;
  bool ldlt_ = false;
  bool ready_ = false;
  int n_ = 0;
};

// `A` as an assembled matrix of this backend, or an InputError naming `who` (e.g. "ic0").
const EigenMatrix& requireEigenMatrix(const OperatorPtr& A, const std::string& who);

}  // namespace kinema::la::eigen
