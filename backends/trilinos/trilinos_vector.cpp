#include "backends/trilinos/trilinos_vector.hpp"

#include <Teuchos_DefaultMpiComm.hpp>
#include <Teuchos_OpaqueWrapper.hpp>
#include <cxxabi.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <typeinfo>
#include <vector>

#include "framework/core/error.hpp"

namespace kinema::la::trilinos {

Teuchos::RCP<const Teuchos::Comm<int>> teuchosComm(MPI_Comm comm) {
  // A non-owning wrapper: the communicator belongs to the framework's Comm.
  return Teuchos::rcp(new Teuchos::MpiComm<int>(Teuchos::opaqueWrapper(comm)));
}

LayoutPtr makeLayout(IndexMapPtr map) {
  KINEMA_CHECK(map != nullptr, "trilinos backend: a vector or matrix without an IndexMap");
  auto L = std::make_shared<Layout>();
  L->map = map;
  L->comm = teuchosComm(map->comm().raw());
  const int bs = map->blockSize();
  const GO n = static_cast<GO>(map->globalSize());
  L->owned = Teuchos::rcp(new TMap(static_cast<Tpetra::global_size_t>(n),
                                   static_cast<size_t>(map->ownedSize()), GO{0}, L->comm));
  KINEMA_CHECK(L->owned->getMinGlobalIndex() == static_cast<GO>(map->ownedBegin() * bs) ||
                   map->ownedSize() == 0,
               "trilinos backend: Tpetra's contiguous map disagrees with the IndexMap's ranges");
  const bool anyGhosts = map->comm().any(!map->ghosts().empty());
  if (!anyGhosts) {
    L->overlap = L->owned;
    return L;
  }
  const Tpetra::global_size_t invalid = Teuchos::OrdinalTraits<Tpetra::global_size_t>::invalid();
  std::vector<GO> ghostGids;
  ghostGids.reserve(map->ghosts().size() * static_cast<size_t>(bs));
  for (GlobalIndex g : map->ghosts())
    for (int c = 0; c < bs; ++c) ghostGids.push_back(static_cast<GO>(g * bs + c));
  std::vector<GO> overlapGids;
  overlapGids.reserve(static_cast<size_t>(map->localSize()));
  for (GO g = static_cast<GO>(map->ownedBegin() * bs); g < static_cast<GO>(map->ownedEnd() * bs); ++g)
    overlapGids.push_back(g);
  overlapGids.insert(overlapGids.end(), ghostGids.begin(), ghostGids.end());
  L->ghost = Teuchos::rcp(new TMap(invalid, Teuchos::ArrayView<const GO>(ghostGids), GO{0}, L->comm));
  L->overlap =
      Teuchos::rcp(new TMap(invalid, Teuchos::ArrayView<const GO>(overlapGids), GO{0}, L->comm));
  L->importer = Teuchos::rcp(new TImport(L->owned, L->ghost));
  return L;
}

TrilinosVector::TrilinosVector(LayoutPtr layout)
    : Vector(layout->map), layout_(std::move(layout)) {
  all_ = Teuchos::rcp(new TVec(layout_->overlap, true));
  if (layout_->ghost.is_null()) {
    owned_ = all_;
  } else {
    owned_ = all_->offsetViewNonConst(layout_->owned, 0);
    ghost_ = all_->offsetViewNonConst(layout_->ghost, static_cast<size_t>(ownedSize()));
  }
  data_ = all_->getLocalViewHost(Tpetra::Access::ReadWrite).data();
}

TrilinosVector::TrilinosVector(LayoutPtr layout, Teuchos::RCP<TVec> v)
    : Vector(layout->map), layout_(std::move(layout)), all_(std::move(v)) {
  KINEMA_CHECK(layout_->map->ghosts().empty() &&
                   static_cast<LocalIndex>(all_->getLocalLength()) == ownedSize(),
               "trilinos backend: a view of a Tpetra vector needs a map without ghosts");
  owned_ = all_;
  data_ = all_->getLocalViewHost(Tpetra::Access::ReadWrite).data();
}

void TrilinosVector::updateGhosts() {
  if (layout_->importer.is_null()) return;
  ghost_->doImport(*owned_, *layout_->importer, Tpetra::INSERT);
}

void TrilinosVector::accumulateGhosts() {
  if (layout_->importer.is_null()) return;
  owned_->doExport(*ghost_, *layout_->importer, Tpetra::ADD);
  ghost_->putScalar(0.0);
}

std::unique_ptr<Vector> TrilinosVector::clone() const {
  auto c = std::make_unique<TrilinosVector>(layout_);
  std::copy(data_, data_ + localSize(), c->data_);
  return c;
}

// ---- BLAS-1: Tpetra's kernels on the owned part -------------------------------------------

void TrilinosVector::set(double alpha) { owned_->putScalar(alpha); }

void TrilinosVector::copy(const Vector& x) {
  if (&x == this) return;
  const TrilinosVector& t = asTrilinos(x, "Vector::copy");
  requireCompatible(x, "copy");
  std::copy(t.data_, t.data_ + ownedSize(), data_);
}

void TrilinosVector::scale(double alpha) { owned_->scale(alpha); }

void TrilinosVector::axpy(double alpha, const Vector& x) {
  const TrilinosVector& t = asTrilinos(x, "Vector::axpy");
  requireCompatible(x, "axpy");
  owned_->update(alpha, *t.owned_, 1.0);
}

void TrilinosVector::axpby(double alpha, const Vector& x, double beta) {
  const TrilinosVector& t = asTrilinos(x, "Vector::axpby");
  requireCompatible(x, "axpby");
  if (beta == 0.0 && &x != this) {
    // BLAS semantics: `this` is not read (NaN in it must not survive).
    const LocalIndex n = ownedSize();
    for (LocalIndex i = 0; i < n; ++i) data_[i] = alpha * t.data_[i];
    return;
  }
  owned_->update(alpha, *t.owned_, beta);
}

double TrilinosVector::dot(const Vector& x) const {
  const TrilinosVector& t = asTrilinos(x, "Vector::dot");
  requireCompatible(x, "dot");
  return owned_->dot(*t.owned_);
}

double TrilinosVector::norm2() const { return owned_->norm2(); }
double TrilinosVector::norm1() const { return owned_->norm1(); }
double TrilinosVector::normInf() const { return owned_->normInf(); }

void TrilinosVector::pointwiseMultiply(const Vector& x, const Vector& y) {
  const TrilinosVector& tx = asTrilinos(x, "Vector::pointwiseMultiply");
  const TrilinosVector& ty = asTrilinos(y, "Vector::pointwiseMultiply");
  requireCompatible(x, "pointwiseMultiply");
  requireCompatible(y, "pointwiseMultiply");
  owned_->elementWiseMultiply(1.0, *tx.owned_, *ty.owned_, 0.0);
}

// The remaining pointwise operations have no Tpetra kernel; the portable defaults run on the
// same host arrays. Foreign vectors are refused first, with a message naming both backends.
void TrilinosVector::pointwiseDivide(const Vector& x, const Vector& y) {
  asTrilinos(x, "Vector::pointwiseDivide");
  asTrilinos(y, "Vector::pointwiseDivide");
  Vector::pointwiseDivide(x, y);
}
void TrilinosVector::pointwiseMin(const Vector& x) {
  asTrilinos(x, "Vector::pointwiseMin");
  Vector::pointwiseMin(x);
}
void TrilinosVector::pointwiseMax(const Vector& x) {
  asTrilinos(x, "Vector::pointwiseMax");
  Vector::pointwiseMax(x);
}
void TrilinosVector::clamp(const Vector& lo, const Vector& hi) {
  asTrilinos(lo, "Vector::clamp");
  asTrilinos(hi, "Vector::clamp");
  Vector::clamp(lo, hi);
}
void TrilinosVector::maskedCopy(const Vector& x, const Vector& mask) {
  asTrilinos(x, "Vector::maskedCopy");
  asTrilinos(mask, "Vector::maskedCopy");
  Vector::maskedCopy(x, mask);
}
double TrilinosVector::minRatio(const Vector& den) const {
  asTrilinos(den, "Vector::minRatio");
  return Vector::minRatio(den);
}

// ---- foreign vectors ------------------------------------------------------------------------

std::string backendOf(const Vector& v) {
  const char* mangled = typeid(v).name();
  int status = 0;
  char* d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string type = (status == 0 && d) ? d : mangled;
  std::free(d);
  for (const char* b : {"eigen", "petsc", "trilinos"})
    if (type.find(std::string("::") + b + "::") != std::string::npos) return b;
  return type;
}

const TrilinosVector& asTrilinos(const Vector& v, const char* who) {
  if (const auto* t = dynamic_cast<const TrilinosVector*>(&v)) return *t;
  throw Error(str("trilinos backend: ", who, " was given a vector of the ", backendOf(v),
                  " backend; objects of the trilinos backend only take trilinos vectors (create "
                  "them with the same backend, e.g. operator.createDomainVector())"));
}

TrilinosVector& asTrilinos(Vector& v, const char* who) {
  return const_cast<TrilinosVector&>(asTrilinos(static_cast<const Vector&>(v), who));
}

}  // namespace kinema::la::trilinos
