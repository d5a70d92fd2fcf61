#pragma once
// Vector: a distributed vector over an IndexMap, owned entries plus ghosts.
// Backends implement the storage (acquire/release of a local array, ghost exchange, clone);
// every other operation has a portable default written over the local views and Comm
// reductions, which a backend may override with its native kernel (VecAXPY, Tpetra::update).
// BLAS-1 operations act on owned entries only; reductions are collective.
#include <memory>
#include <span>
#include <string>

#include "framework/la/index_map.hpp"

namespace kinema::la {

class Vector {
 public:
  explicit Vector(IndexMapPtr map);
  virtual ~Vector() = default;
  Vector(const Vector&) = delete;
  Vector& operator=(const Vector&) = delete;

  const IndexMap& map() const { return *map_; }
  const IndexMapPtr& mapPtr() const { return map_; }
  LocalIndex ownedSize() const { return map_->ownedSize(); }
  LocalIndex localSize() const { return map_->localSize(); }

  // RAII access to the local array: owned entries [0, ownedSize), then ghosts.
  class View {
   public:
    View(Vector& v);
    ~View();
    View(const View&) = delete;
    View& operator=(const View&) = delete;
    double& operator[](LocalIndex i) { return data_[i]; }
    std::span<double> all() { return {data_, static_cast<std::size_t>(size_)}; }
    std::span<double> owned() { return {data_, static_cast<std::size_t>(owned_)}; }
    std::span<double> ghosts() { return {data_ + owned_, static_cast<std::size_t>(size_ - owned_)}; }
    double* data() { return data_; }

   private:
    Vector& v_;
    double* data_;
    LocalIndex size_, owned_;
  };
  class ConstView {
   public:
    ConstView(const Vector& v);
    ~ConstView();
    ConstView(const ConstView&) = delete;
    ConstView& operator=(const ConstView&) = delete;
    double operator[](LocalIndex i) const { return data_[i]; }
    std::span<const double> all() const { return {data_, static_cast<std::size_t>(size_)}; }
    std::span<const double> owned() const { return {data_, static_cast<std::size_t>(owned_)}; }
    std::span<const double> ghosts() const {
      return {data_ + owned_, static_cast<std::size_t>(size_ - owned_)};
    }
    const double* data() const { return data_; }

   private:
    const Vector& v_;
    const double* data_;
    LocalIndex size_, owned_;
  };
  View view() { return View(*this); }
  ConstView view() const { return ConstView(*this); }
  ConstView constView() const { return ConstView(*this); }

  // Ghost exchange (collective). updateGhosts: every ghost takes its owner's value.
  // accumulateGhosts: owners add the ghost values held by other ranks, then ghosts are zeroed.
  virtual void updateGhosts() = 0;
  virtual void accumulateGhosts() = 0;

  // A new vector on the same map with the same owned and ghost values.
  virtual std::unique_ptr<Vector> clone() const = 0;
  // A new vector on the same map, all zero.
  std::unique_ptr<Vector> zerosLike() const;

  // BLAS-1 (owned entries).
  virtual void set(double alpha);
  virtual void copy(const Vector& x);
  virtual void scale(double alpha);
  virtual void axpy(double alpha, const Vector& x);                // this += alpha x
  virtual void axpby(double alpha, const Vector& x, double beta);  // this = alpha x + beta this
  virtual double dot(const Vector& x) const;
  virtual double norm2() const;
  virtual double norm1() const;
  virtual double normInf() const;
  virtual double sum() const;
  virtual double min() const;  // +inf for an empty global vector
  virtual double max() const;  // -inf for an empty global vector

  // Pointwise operations (owned entries), what bound-constrained solvers need.
  virtual void pointwiseMultiply(const Vector& x, const Vector& y);  // this = x .* y
  virtual void pointwiseDivide(const Vector& x, const Vector& y);    // this = x ./ y
  virtual void pointwiseMin(const Vector& x);                        // this = min(this, x)
  virtual void pointwiseMax(const Vector& x);                        // this = max(this, x)
  virtual void clamp(const Vector& lo, const Vector& hi);           // this = min(max(this, lo), hi)
  virtual void maskedCopy(const Vector& x, const Vector& mask);     // this_i = x_i where mask_i != 0
  // min over i with den_i > 0 of this_i / den_i; +inf if there is no such i (collective).
  virtual double minRatio(const Vector& den) const;
  // True if any owned entry on any rank is NaN or infinite (collective).
  bool hasNonFinite() const;

 protected:
  // Backends hand out their local array (owned then ghosts); write access may mark state dirty.
  virtual double* acquire(bool write) = 0;
  virtual void release(bool write) = 0;
  const double* acquireConst() const { return const_cast<Vector*>(this)->acquire(false); }
  void releaseConst() const { const_cast<Vector*>(this)->release(false); }
  // Throws an Error unless `x` has the same distribution as this vector.
  void requireCompatible(const Vector& x, const char* op) const;

 private:
  IndexMapPtr map_;
};

using VectorPtr = std::unique_ptr<Vector>;

}  // namespace kinema::la
