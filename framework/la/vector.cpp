// Portable defaults of every Vector operation, over the local views and Comm reductions.
#include "framework/la/vector.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "framework/core/error.hpp"

namespace kinema::la {

namespace {
// Read access to `x` while a view of `self` is open: reuses that view's array when `x` is
// `self`, so a backend never hands out two views of one array at once (PETSc forbids it).
class Reader {
 public:
  Reader(const Vector& x, const Vector& self, const double* selfData) {
    if (&x == &self) {
      p_ = selfData;
    } else {
      view_.emplace(x);
      p_ = view_->data();
    }
  }
  double operator[](LocalIndex i) const { return p_[i]; }

 private:
  std::optional<Vector::ConstView> view_;
  const double* p_ = nullptr;
};
}  // namespace

Vector::Vector(IndexMapPtr map) : map_(std::move(map)) {
  KINEMA_CHECK(map_ != nullptr, "Vector created without an IndexMap");
}

Vector::View::View(Vector& v)
    : v_(v), data_(v.acquire(true)), size_(v.localSize()), owned_(v.ownedSize()) {}
Vector::View::~View() { v_.release(true); }

Vector::ConstView::ConstView(const Vector& v)
    : v_(v), data_(v.acquireConst()), size_(v.localSize()), owned_(v.ownedSize()) {}
Vector::ConstView::~ConstView() { v_.releaseConst(); }

void Vector::requireCompatible(const Vector& x, const char* op) const {
  if (map_->compatible(x.map())) return;
  throw Error(str("Vector::", op, ": the vectors have different distributions (global size ",
                  map_->globalSize(), " with ", map_->ownedSize(), " owned here and block size ",
                  map_->blockSize(), ", versus global size ", x.map().globalSize(), " with ",
                  x.map().ownedSize(), " owned here and block size ", x.map().blockSize(), ")"));
}

std::unique_ptr<Vector> Vector::zerosLike() const {
  auto z = clone();
  // All local entries, ghosts included: the contract is "all zero".
  View v = z->view();
  std::fill(v.all().begin(), v.all().end(), 0.0);
  return z;
}

void Vector::set(double alpha) {
  View v = view();
  std::fill(v.owned().begin(), v.owned().end(), alpha);
}

void Vector::copy(const Vector& x) {
  if (&x == this) return;
  requireCompatible(x, "copy");
  View v = view();
  ConstView xv = x.view();
  std::copy(xv.owned().begin(), xv.owned().end(), v.owned().begin());
}

void Vector::scale(double alpha) {
  View v = view();
  for (double& a : v.owned()) a *= alpha;
}

void Vector::axpy(double alpha, const Vector& x) {
  requireCompatible(x, "axpy");
  View v = view();
  Reader xv(x, *this, v.data());
  const LocalIndex n = ownedSize();
  for (LocalIndex i = 0; i < n; ++i) v[i] += alpha * xv[i];
}

void Vector::axpby(double alpha, const Vector& x, double beta) {
  requireCompatible(x, "axpby");
  View v = view();
  Reader xv(x, *this, v.data());
  const LocalIndex n = ownedSize();
  if (beta == 0.0) {  // so that NaN or garbage in `this` does not survive
    for (LocalIndex i = 0; i < n; ++i) v[i] = alpha * xv[i];
  } else {
    for (LocalIndex i = 0; i < n; ++i) v[i] = alpha * xv[i] + beta * v[i];
  }
}

double Vector::dot(const Vector& x) const {
  requireCompatible(x, "dot");
  ConstView v = view();
  Reader xv(x, *this, v.data());
  const LocalIndex n = ownedSize();
  double s = 0.0;
  for (LocalIndex i = 0; i < n; ++i) s += v[i] * xv[i];
  return map_->comm().sum(s);
}

double Vector::norm2() const {
  ConstView v = view();
  double s = 0.0;
  for (double a : v.owned()) s += a * a;
  return std::sqrt(map_->comm().sum(s));
}

double Vector::norm1() const {
  ConstView v = view();
  double s = 0.0;
  for (double a : v.owned()) s += std::abs(a);
  return map_->comm().sum(s);
}

double Vector::normInf() const {
  ConstView v = view();
  double m = 0.0;
  for (double a : v.owned()) m = std::max(m, std::abs(a));
  return map_->comm().max(m);
}

double Vector::sum() const {
  ConstView v = view();
  double s = 0.0;
  for (double a : v.owned()) s += a;
  return map_->comm().sum(s);
}

double Vector::min() const {
  ConstView v = view();
  double m = std::numeric_limits<double>::infinity();
  for (double a : v.owned()) m = std::min(m, a);
  return map_->comm().min(m);
}

double Vector::max() const {
  ConstView v = view();
  double m = -std::numeric_limits<double>::infinity();
  for (double a : v.owned()) m = std::max(m, a);
  return map_->comm().max(m);
}

void Vector::pointwiseMultiply(const Vector& x, const Vector& y) {
  requireCompatible(x, "pointwiseMultiply");
  requireCompatible(y, "pointwiseMultiply");
  View v = view();
  Reader xv(x, *this, v.data());
  Reader yv(y, *this, v.data());
  const LocalIndex n = ownedSize();
  for (LocalIndex i = 0; i < n; ++i) v[i] = xv[i] * yv[i];
}

void Vector::pointwiseDivide(const Vector& x, const Vector& y) {
  requireCompatible(x, "pointwiseDivide");
  requireCompatible(y, "pointwiseDivide");
  View v = view();
  Reader xv(x, *this, v.data());
  Reader yv(y, *this, v.data());
  const LocalIndex n = ownedSize();
  for (LocalIndex i = 0; i < n; ++i) v[i] = xv[i] / yv[i];
}

void Vector::pointwiseMin(const Vector& x) {
  requireCompatible(x, "pointwiseMin");
  View v = view();
  Reader xv(x, *this, v.data());
  const LocalIndex n = ownedSize();
  for (LocalIndex i = 0; i < n; ++i) v[i] = std::min(v[i], xv[i]);
}

void Vector::pointwiseMax(const Vector& x) {
  requireCompatible(x, "pointwiseMax");
  View v = view();
  Reader xv(x, *this, v.data());
  const LocalIndex n = ownedSize();
  for (LocalIndex i = 0; i < n; ++i) v[i] = std::max(v[i], xv[i]);
}

void Vector::clamp(const Vector& lo, const Vector& hi) {
  requireCompatible(lo, "clamp");
  requireCompatible(hi, "clamp");
  View v = view();
  Reader l(lo, *this, v.data());
  Reader h(hi, *this, v.data());
  const LocalIndex n = ownedSize();
  for (LocalIndex i = 0; i < n; ++i) v[i] = std::min(std::max(v[i], l[i]), h[i]);
}

void Vector::maskedCopy(const Vector& x, const Vector& mask) {
  requireCompatible(x, "maskedCopy");
  requireCompatible(mask, "maskedCopy");
  View v = view();
  Reader xv(x, *this, v.data());
  Reader m(mask, *this, v.data());
  const LocalIndex n = ownedSize();
  for (LocalIndex i = 0; i < n; ++i)
    if (m[i] != 0.0) v[i] = xv[i];
}

double Vector::minRatio(const Vector& den) const {
  requireCompatible(den, "minRatio");
  ConstView v = view();
  Reader d(den, *this, v.data());
  const LocalIndex n = ownedSize();
  double m = std::numeric_limits<double>::infinity();
  for (LocalIndex i = 0; i < n; ++i)
    if (d[i] > 0.0) m = std::min(m, v[i] / d[i]);
  return map_->comm().min(m);
}

bool Vector::hasNonFinite() const {
  bool bad = false;
  {
    ConstView v = view();
    for (double a : v.owned()) bad = bad || !std::isfinite(a);
  }
  return map_->comm().any(bad);
}

}  // namespace kinema::la
