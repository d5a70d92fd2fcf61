#include "backends/eigen/eigen_preconditioners.hpp"

#include <cmath>

#include "framework/core/error.hpp"

namespace kinema::la::eigen {

namespace {
// z = r through views, then the caller works in place on z's array.
void copyInto(const Vector& r, Vector& z) {
  if (&r != &z) z.copy(r);
}
}  // namespace

void Ic0Preconditioner::setup(OperatorPtr A) {
  const EigenMatrix& M = requireEigenMatrix(A, "the ic0 preconditioner");
  const auto& a = M.csr();
  KINEMA_CHECK(a.rows() == a.cols(), "ic0: ", M.description(), " is not square");
  n_ = static_cast<int>(a.rows());
  const int* ao = a.outerIndexPtr();
  const int* ai = a.innerIndexPtr();
  const double* av = a.valuePtr();

  // Pattern of L: the entries of A with col <= row (rows are sorted, so the diagonal is last).
  outer_.assign(static_cast<std::size_t>(n_) + 1, 0);
  inner_.clear();
  val_.clear();
  for (int i = 0; i < n_; ++i) {
    bool hasDiag = false;
    for (int p = ao[i]; p < ao[i + 1] && ai[p] <= i; ++p) {
      inner_.push_back(ai[p]);
      val_.push_back(av[p]);
      hasDiag = hasDiag || ai[p] == i;
    }
    if (!hasDiag)
      throw Error(str("ic0: row ", i, " of ", M.description(),
                      " has no diagonal entry; use preconditioner ssor or jacobi"));
    outer_[static_cast<std::size_t>(i) + 1] = static_cast<int>(inner_.size());
  }

  // Row-oriented IC(0): L_ik = (A_ik - sum_{j<k} L_ij L_kj) / L_kk over the pattern, then
  // L_ii = sqrt(A_ii - sum_{j<i} L_ij^2).
  const int* o = outer_.data();
  const int* c = inner_.data();
  double* v = val_.data();
  for (int i = 0; i < n_; ++i) {
    const int bi = o[i], di = o[i + 1] - 1;
    for (int p = bi; p < di; ++p) {
      const int k = c[p], dk = o[k + 1] - 1;
      double s = v[p];
      int q = bi, t = o[k];  // merge row i (before p) with row k (before its diagonal)
      while (q < p && t < dk) {
        if (c[q] == c[t])
          s -= v[q++] * v[t++];
        else if (c[q] < c[t])
          ++q;
        else
          ++t;
      }
      v[p] = s / v[dk];
    }
    double d = v[di];
    for (int p = bi; p < di; ++p) d -= v[p] * v[p];
    if (!(d > 0.0))
      throw Error(str("ic0: non-positive pivot ", d, " at row ", i, " of ", M.description(),
                      " (the matrix is not SPD, or IC(0) breaks down on it); use preconditioner "
                      "ssor or jacobi"));
    v[di] = std::sqrt(d);
  }
}

void Ic0Preconditioner::apply(const Vector& r, Vector& z) const {
  KINEMA_CHECK(z.ownedSize() == n_, "ic0 applied before setup or on a vector of another size");
  copyInto(r, z);
  Vector::View zv = z.view();
  double* y = zv.data();
  const int* o = outer_.data();
  const int* c = inner_.data();
  const double* v = val_.data();
  for (int i = 0; i < n_; ++i) {  // L y = r
    double s = y[i];
    for (int p = o[i]; p < o[i + 1] - 1; ++p) s -= v[p] * y[c[p]];
    y[i] = s / v[o[i + 1] - 1];
  }
  for (int i = n_ - 1; i >= 0; --i) {  // L^T z = y, column-oriented on the rows of L
    y[i] /= v[o[i + 1] - 1];
    for (int p = o[i]; p < o[i + 1] - 1; ++p) y[c[p]] -= v[p] * y[i];
  }
}

SsorPreconditioner::SsorPreconditioner(double omega) : omega_(omega) {
  if (!(omega > 0.0 && omega < 2.0))
    throw InputError(str("ssor: relaxation factor ", omega, " is outside (0, 2)"));
}

void SsorPreconditioner::setup(OperatorPtr A) {
  const EigenMatrix& M = requireEigenMatrix(A, "the ssor preconditioner");
  A_ = M.csr();
  KINEMA_CHECK(A_.rows() == A_.cols(), "ssor: ", M.description(), " is not square");
  diag_.assign(static_cast<std::size_t>(A_.rows()), 0.0);
  for (int i = 0; i < A_.rows(); ++i) {
    const std::int64_t p = M.find(i, i);
    const double d = p < 0 ? 0.0 : A_.valuePtr()[p];
    if (d == 0.0 || !std::isfinite(d))
      throw Error(str("ssor: zero or non-finite diagonal entry at row ", i, " of ", M.description(),
                      "; use preconditioner ic0, direct or none"));
    diag_[static_cast<std::size_t>(i)] = d;
  }
}

void SsorPreconditioner::apply(const Vector& r, Vector& z) const {
  const int n = static_cast<int>(A_.rows());
  KINEMA_CHECK(z.ownedSize() == n, "ssor applied before setup or on a vector of another size");
  copyInto(r, z);
  Vector::View zv = z.view();
  double* y = zv.data();
  const int* o = A_.outerIndexPtr();
  const int* c = A_.innerIndexPtr();
  const double* v = A_.valuePtr();
  const double* d = diag_.data();
  const double w = omega_;
  for (int i = 0; i < n; ++i) {  // (D + wL) y = r
    double s = y[i];
    for (int p = o[i]; p < o[i + 1] && c[p] < i; ++p) s -= w * v[p] * y[c[p]];
    y[i] = s / d[i];
  }
  for (int i = 0; i < n; ++i) y[i] *= d[i];
  for (int i = n - 1; i >= 0; --i) {  // (D + wU) z = D y
    double s = y[i];
    for (int p = o[i + 1] - 1; p >= o[i] && c[p] > i; --p) s -= w * v[p] * y[c[p]];
    y[i] = s / d[i];
  }
  const double f = w * (2.0 - w);
  if (f != 1.0)
    for (int i = 0; i < n; ++i) y[i] *= f;
}

void DirectPreconditioner::setup(OperatorPtr A) {
  const EigenMatrix& M = requireEigenMatrix(A, "the direct preconditioner");
  fact_.compute(M, "direct preconditioner");
  map_ = M.domainMap();
}

void DirectPreconditioner::apply(const Vector& r, Vector& z) const {
  KINEMA_CHECK(map_ != nullptr, "direct preconditioner applied before setup");
  KINEMA_CHECK(&r != &z, "direct preconditioner: r and z must be distinct");
  Vector::ConstView rv = r.view();
  Vector::View zv = z.view();
  fact_.solve(rv.data(), zv.data());
}

}  // namespace kinema::la::eigen
