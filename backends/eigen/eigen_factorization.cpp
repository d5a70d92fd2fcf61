#include "backends/eigen/eigen_factorization.hpp"

#include "framework/core/error.hpp"

namespace kinema::la::eigen {

namespace {
bool isSymmetric(const EigenMatrix::Csr& A) {
  if (A.rows() != A.cols()) return false;
  EigenMatrix::Csr At = A.transpose();
  const double scale = A.norm();
  return (A - At).norm() <= 1e-12 * scale;
}
}  // namespace

void EigenFactorization::compute(const EigenMatrix& A, const std::string& who, bool preferLu) {
  const auto& csr = A.csr();
  KINEMA_CHECK(csr.rows() == csr.cols(), who, ": ", A.description(), " is not square");
  n_ = static_cast<int>(csr.rows());
  ready_ = false;
  ColMajor a = csr;
  ldlt_ = !preferLu && isSymmetric(csr);
  if (ldlt_) {
    ldltF_.compute(a);
    if (ldltF_.info() == Eigen::Success) {
      ready_ = true;
      return;
    }
    ldlt_ = false;  // e.g. a zero pivot without pivoting: LU pivots
  }
  a.makeCompressed();
  luF_.analyzePattern(a);
  luF_.factorize(a);
  if (luF_.info() != Eigen::Success)
    throw Error(str(who, ": the sparse factorisation of ", A.description(),
                    " failed (the matrix is singular or numerically singular): ",
                    luF_.lastErrorMessage()));
  ready_ = true;
}

void EigenFactorization::solve(const double* b, double* x) const {
  KINEMA_CHECK(ready_, "EigenFactorization::solve before compute");
  Eigen::Map<const Eigen::VectorXd> bm(b, n_);
  Eigen::Map<Eigen::VectorXd> xm(x, n_);
  if (ldlt_)
    xm = ldltF_.solve(bm);
  else
    xm = luF_.solve(bm);
}

const EigenMatrix& requireEigenMatrix(const OperatorPtr& A, const std::string& who) {
  KINEMA_CHECK(A != nullptr, who, ": no operator");
  const auto* m = dynamic_cast<const EigenMatrix*>(A.get());
  if (!m)
    throw InputError(str(who, " needs a matrix assembled by the eigen backend, but operator '",
                         A->description(),
                         "' is not one (for matrix-free operators use preconditioner jacobi or "
                         "none and an iterative solver)"));
  return *m;
}

}  // namespace kinema::la::eigen
