#include "backends/petsc/petsc_vector.hpp"

#include <limits>
#include <vector>

#include "backends/petsc/petsc_base.hpp"

namespace kinema::la::petsc {

PetscVector::PetscVector(IndexMapPtr map) : Vector(std::move(map)) {
  const IndexMap& m = this->map();
  requireIndexRange(m);
  std::vector<PetscInt> ghosts(m.ghosts().begin(), m.ghosts().end());
  KINEMA_PETSC_CHECK(VecCreateGhostBlock(m.comm().raw(), m.blockSize(), idx(m.ownedSize()),
                                         idx(m.globalSize()), static_cast<PetscInt>(ghosts.size()),
                                         ghosts.data(), &v_));
  ghosted_ = true;
  // Zero owned and ghost entries (the contract of a new vector).
  Vec local = nullptr;
  KINEMA_PETSC_CHECK(VecGhostGetLocalForm(v_, &local));
  KINEMA_PETSC_CHECK(VecZeroEntries(local));
  KINEMA_PETSC_CHECK(VecGhostRestoreLocalForm(v_, &local));
}

PetscVector::PetscVector(IndexMapPtr map, Vec v, Borrow) : Vector(std::move(map)), v_(v), owns_(false) {
  Vec local = nullptr;
  KINEMA_PETSC_CHECK(VecGhostGetLocalForm(v_, &local));
  ghosted_ = local != nullptr;
  if (local) KINEMA_PETSC_CHECK(VecGhostRestoreLocalForm(v_, &local));
  PetscInt n = 0;
  KINEMA_PETSC_CHECK(VecGetLocalSize(v_, &n));
  KINEMA_CHECK(n == this->map().ownedSize(), "petsc vector: wrapping a Vec of ", n,
               " local entries on a map with ", this->map().ownedSize(), " owned entries");
  KINEMA_CHECK(ghosted_ || this->map().ghosts().empty(),
               "petsc vector: wrapping a Vec without ghosts on a map with ghosts");
}

PetscVector::~PetscVector() {
  if (owns_ && v_ && alive()) VecDestroy(&v_);
}

const PetscVector& asPetsc(const Vector& v, const char* who) {
  if (const auto* p = dynamic_cast<const PetscVector*>(&v)) return *p;
  throw Error(str(who, ": the petsc backend was given a vector of the ", backendOf(v),
                  " backend; vectors, matrices, preconditioners and solvers used together must come "
                  "from one backend (here petsc)"));
}

PetscVector& asPetsc(Vector& v, const char* who) {
  return const_cast<PetscVector&>(asPetsc(static_cast<const Vector&>(v), who));
}

const PetscVector& PetscVector::other(const Vector& x, const char* op) const {
  const auto* p = dynamic_cast<const PetscVector*>(&x);
  if (!p) (void)asPetsc(x, str("Vector::", op).c_str());  // throws, naming both backends
  requireCompatible(x, op);
  return *p;
}

double* PetscVector::acquire(bool write) {
  if (write) {
    if (writes_++ == 0) KINEMA_PETSC_CHECK(VecGetArray(v_, &array_));
    return array_;
  }
  if (reads_++ == 0) KINEMA_PETSC_CHECK(VecGetArrayRead(v_, &carray_));
  return const_cast<double*>(carray_);
}

void PetscVector::release(bool write) {
  // Called from view destructors: never throw.
  if (write) {
    if (--writes_ == 0) VecRestoreArray(v_, &array_);
  } else {
    if (--reads_ == 0) VecRestoreArrayRead(v_, &carray_);
  }
}

void PetscVector::updateGhosts() {
  if (!ghosted_) return;  // a borrowed Vec without ghosts (its map has none)
  KINEMA_PETSC_CHECK(VecGhostUpdateBegin(v_, INSERT_VALUES, SCATTER_FORWARD));
  KINEMA_PETSC_CHECK(VecGhostUpdateEnd(v_, INSERT_VALUES, SCATTER_FORWARD));
}

void PetscVector::accumulateGhosts() {
  if (!ghosted_) return;
  KINEMA_PETSC_CHECK(VecGhostUpdateBegin(v_, ADD_VALUES, SCATTER_REVERSE));
  KINEMA_PETSC_CHECK(VecGhostUpdateEnd(v_, ADD_VALUES, SCATTER_REVERSE));
  View w = view();
  for (double& g : w.ghosts()) g = 0.0;
}

std::unique_ptr<Vector> PetscVector::clone() const {
  auto c = std::make_unique<PetscVector>(mapPtr());
  if (ghosted_ && !map().ghosts().empty()) {
    Vec a = nullptr, b = nullptr;
    KINEMA_PETSC_CHECK(VecGhostGetLocalForm(v_, &a));
    KINEMA_PETSC_CHECK(VecGhostGetLocalForm(c->v_, &b));
    KINEMA_PETSC_CHECK(VecCopy(a, b));
    KINEMA_PETSC_CHECK(VecGhostRestoreLocalForm(c->v_, &b));
    KINEMA_PETSC_CHECK(VecGhostRestoreLocalForm(v_, &a));
  } else {
    KINEMA_PETSC_CHECK(VecCopy(v_, c->v_));
  }
  return c;
}

void PetscVector::set(double alpha) { KINEMA_PETSC_CHECK(VecSet(v_, alpha)); }

void PetscVector::copy(const Vector& x) {
  if (&x == this) return;
  KINEMA_PETSC_CHECK(VecCopy(other(x, "copy").v_, v_));
}

void PetscVector::scale(double alpha) { KINEMA_PETSC_CHECK(VecScale(v_, alpha)); }

void PetscVector::axpy(double alpha, const Vector& x) {
  if (&x == this) {  // PETSc refuses aliased arguments
    KINEMA_PETSC_CHECK(VecScale(v_, 1.0 + alpha));
    return;
  }
  KINEMA_PETSC_CHECK(VecAXPY(v_, alpha, other(x, "axpy").v_));
}

void PetscVector::axpby(double alpha, const Vector& x, double beta) {
  if (&x == this) {
    KINEMA_PETSC_CHECK(VecScale(v_, alpha + beta));
    return;
  }
  const PetscVector& px = other(x, "axpby");
  if (beta == 0.0) {  // overwrite, so that NaN or garbage in this vector does not survive
    KINEMA_PETSC_CHECK(VecCopy(px.v_, v_));
    if (alpha != 1.0) KINEMA_PETSC_CHECK(VecScale(v_, alpha));
    return;
  }
  KINEMA_PETSC_CHECK(VecAXPBY(v_, alpha, beta, px.v_));
}

double PetscVector::dot(const Vector& x) const {
  PetscScalar d = 0;
  KINEMA_PETSC_CHECK(VecDot(v_, &x == this ? v_ : other(x, "dot").v_, &d));
  return d;
}

double PetscVector::norm2() const {
  PetscReal n = 0;
  KINEMA_PETSC_CHECK(VecNorm(v_, NORM_2, &n));
  return n;
}

double PetscVector::norm1() const {
  PetscReal n = 0;
  KINEMA_PETSC_CHECK(VecNorm(v_, NORM_1, &n));
  return n;
}

double PetscVector::normInf() const {
  PetscReal n = 0;
  KINEMA_PETSC_CHECK(VecNorm(v_, NORM_INFINITY, &n));
  return n;
}

double PetscVector::sum() const {
  PetscScalar s = 0;
  KINEMA_PETSC_CHECK(VecSum(v_, &s));
  return s;
}

double PetscVector::min() const {
  // PETSc returns PETSC_MAX_REAL for an empty vector; the layer says +inf.
  if (map().globalSize() == 0) return std::numeric_limits<double>::infinity();
  PetscReal m = 0;
  KINEMA_PETSC_CHECK(VecMin(v_, nullptr, &m));
  return m;
}

double PetscVector::max() const {
  if (map().globalSize() == 0) return -std::numeric_limits<double>::infinity();
  PetscReal m = 0;
  KINEMA_PETSC_CHECK(VecMax(v_, nullptr, &m));
  return m;
}

void PetscVector::pointwiseMultiply(const Vector& x, const Vector& y) {
  const Vec xv = &x == this ? v_ : other(x, "pointwiseMultiply").v_;
  const Vec yv = &y == this ? v_ : other(y, "pointwiseMultiply").v_;
  KINEMA_PETSC_CHECK(VecPointwiseMult(v_, xv, yv));
}

void PetscVector::pointwiseMin(const Vector& x) {
  if (&x == this) return;
  KINEMA_PETSC_CHECK(VecPointwiseMin(v_, v_, other(x, "pointwiseMin").v_));
}

void PetscVector::pointwiseMax(const Vector& x) {
  if (&x == this) return;
  KINEMA_PETSC_CHECK(VecPointwiseMax(v_, v_, other(x, "pointwiseMax").v_));
}

void PetscVector::clamp(const Vector& lo, const Vector& hi) {
  const PetscVector& l = other(lo, "clamp");
  const PetscVector& h = other(hi, "clamp");
  if (&lo != this) KINEMA_PETSC_CHECK(VecPointwiseMax(v_, v_, l.v_));
  if (&hi != this) KINEMA_PETSC_CHECK(VecPointwiseMin(v_, v_, h.v_));
}

}  // namespace kinema::la::petsc
