#pragma once
// Shared pieces of the linear-algebra conformance suite (in the spirit of Belos's MVOPTester):
// a fixture parameterised by backend name, reference functions of the global index, and small
// block-sparse test problems with an independent dense reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "framework/core/config.hpp"
#include "framework/core/error.hpp"
#include "apps/builtins.hpp"
#include "framework/core/registry.hpp"
#include "framework/la/backend.hpp"
#include "framework/la/matrix_assembler.hpp"

namespace kinema::test {

using la::GlobalIndex;
using la::LocalIndex;

// Backend names for INSTANTIATE_TEST_SUITE_P. GoogleTest evaluates generators inside
// InitGoogleTest, before the test main registers builtins, so register them here (idempotent).
inline std::vector<std::string> backendNames(bool distributedOnly = false) {
  registerBuiltins();
  std::vector<std::string> out;
  for (const auto& [name, e] : la::backends().entries())
    if (!distributedOnly || e.distributed) out.push_back(name);
  return out;
}

// The backend by name with default options, as the app makes it.
inline la::BackendPtr makeBackend(const std::string& name) { return la::createBackend(name); }

// The message of the exception `f` throws, "" if it throws none.
inline std::string messageOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

inline std::string paramName(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

class BackendTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { backend = makeBackend(GetParam()); }
  // Objects span every rank on a distributed backend, one rank (this one) otherwise.
  Comm comm() const { return backend->distributed() ? Comm::world() : Comm::self(); }
  la::IndexMapPtr uniform(GlobalIndex blocks, int bs = 1) const {
    return la::IndexMap::uniform(comm(), blocks, bs);
  }
  la::BackendPtr backend;
};

// Reference values as functions of the global scalar index.
inline double fA(GlobalIndex g) { return std::sin(0.7 * static_cast<double>(g) + 0.3) + 0.05 * static_cast<double>(g); }
inline double fB(GlobalIndex g) { return std::cos(1.3 * static_cast<double>(g)) - 0.2; }
inline double fPos(GlobalIndex g) { return 1.0 + 0.25 * static_cast<double>(g % 7); }

// Global scalar index of owned entry i.
inline GlobalIndex globalOf(const la::Vector& v, LocalIndex i) {
  return v.map().ownedBegin() * v.map().blockSize() + i;
}

inline void fill(la::Vector& v, const std::function<double(GlobalIndex)>& f) {
  la::Vector::View w = v.view();
  for (LocalIndex i = 0; i < v.ownedSize(); ++i) w[i] = f(globalOf(v, i));
}

// Max over owned entries and ranks of |v_i - f(g_i)| (collective).
inline double maxError(const la::Vector& v, const std::function<double(GlobalIndex)>& f) {
  double e = 0.0;
  {
    la::Vector::ConstView r = v.view();
    for (LocalIndex i = 0; i < v.ownedSize(); ++i) e = std::max(e, std::abs(r[i] - f(globalOf(v, i))));
  }
  return v.map().comm().max(e);
}

// A block-sparse problem given as a list of (possibly repeated) blocks, with its dense reference.
struct Block {
  GlobalIndex I, J;
  std::vector<double> v;  // bs x bs, row-major
};

struct Problem {
  GlobalIndex blocks = 0;
  int bs = 1;
  std::vector<Block> list;

  GlobalIndex n() const { return blocks * bs; }
  std::vector<double> dense() const {
    const std::size_t N = static_cast<std::size_t>(n());
    std::vector<double> A(N * N, 0.0);
    for (const Block& b : list)
      for (int a = 0; a < bs; ++a)
        for (int c = 0; c < bs; ++c)
          A[static_cast<std::size_t>(b.I * bs + a) * N + static_cast<std::size_t>(b.J * bs + c)] +=
              b.v[static_cast<std::size_t>(a * bs + c)];
    return A;
  }
  // Distinct blocks (the pattern) times bs^2.
  std::int64_t patternNonzeros() const {
    std::vector<std::pair<GlobalIndex, GlobalIndex>> ij;
    for (const Block& b : list) ij.emplace_back(b.I, b.J);
    std::sort(ij.begin(), ij.end());
    ij.erase(std::unique(ij.begin(), ij.end()), ij.end());
    return static_cast<std::int64_t>(ij.size()) * bs * bs;
  }
  std::vector<double> matvec(const std::vector<double>& x) const {
    const std::vector<double> A = dense();
    const std::size_t N = static_cast<std::size_t>(n());
    std::vector<double> y(N, 0.0);
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < N; ++j) y[i] += A[i * N + j] * x[j];
    return y;
  }
};

// SPD: 1D chain of elements [[B, -B], [-B, B]] plus shift * I on every node, B an SPD block.
// Diagonal blocks are added twice (by both neighbouring elements): tests duplicate summing.
inline Problem laplace(GlobalIndex blocks, int bs, double shift = 0.1) {
  Problem p{blocks, bs, {}};
  const std::size_t bb = static_cast<std::size_t>(bs * bs);
  std::vector<double> B(bb), mB(bb), S(bb, 0.0);
  for (int a = 0; a < bs; ++a)
    for (int c = 0; c < bs; ++c) {
      B[static_cast<std::size_t>(a * bs + c)] = (a == c) ? 1.0 : 0.2 / (1.0 + std::abs(a - c));
      if (a == c) S[static_cast<std::size_t>(a * bs + c)] = shift;
    }
  for (std::size_t k = 0; k < bb; ++k) mB[k] = -B[k];
  for (GlobalIndex e = 0; e + 1 < blocks; ++e) {
    p.list.push_back({e, e, B});
    p.list.push_back({e, e + 1, mB});
    p.list.push_back({e + 1, e, mB});
    p.list.push_back({e + 1, e + 1, B});
  }
  for (GlobalIndex i = 0; i < blocks; ++i) p.list.push_back({i, i, S});
  return p;
}

// Nonsymmetric (convection-diffusion, bs = 1): tridiag(-1 - g, 2.5, -1 + g).
inline Problem convection(GlobalIndex n, double g = 0.6) {
  Problem p{n, 1, {}};
  for (GlobalIndex i = 0; i < n; ++i) {
    p.list.push_back({i, i, {1.25}});
    p.list.push_back({i, i, {1.25}});
    if (i + 1 < n) p.list.push_back({i, i + 1, {-1.0 + g}});
    if (i > 0) p.list.push_back({i, i - 1, {-1.0 - g}});
  }
  return p;
}

// Symmetric indefinite (bs = 1): diagonal +-3 alternating, off-diagonals 1. Gershgorin keeps
// every eigenvalue at |lambda| >= 1, with both signs present.
inline Problem indefinite(GlobalIndex n) {
  Problem p{n, 1, {}};
  for (GlobalIndex i = 0; i < n; ++i) {
    p.list.push_back({i, i, {i % 2 == 0 ? 3.0 : -3.0}});
    if (i + 1 < n) {
      p.list.push_back({i, i + 1, {1.0}});
      p.list.push_back({i + 1, i, {1.0}});
    }
  }
  return p;
}

inline Problem scaled(Problem p, double s) {
  for (Block& b : p.list)
    for (double& x : b.v) x *= s;
  return p;
}

// Each rank adds the blocks k with k % ranks == rank, so on a distributed map some rows belong
// to other ranks (off-rank assembly); on a one-rank map every block is added here.
inline la::MatrixPtr assemble(la::MatrixAssembler& asmb, const Problem& p, const Comm& comm,
                              long* offRank = nullptr, const la::IndexMap* rows = nullptr) {
  asmb.begin();
  const std::size_t ranks = static_cast<std::size_t>(comm.size()), me = static_cast<std::size_t>(comm.rank());
  for (std::size_t k = 0; k < p.list.size(); ++k) {
    if (k % ranks != me) continue;
    const Block& b = p.list[k];
    if (offRank && rows && !rows->owns(b.I)) ++*offRank;
    asmb.add(b.I, b.J, b.v.data());
  }
  return asmb.end();
}

// The global vector x(g) = f(g) as a std::vector (for dense references).
inline std::vector<double> globalValues(GlobalIndex n, const std::function<double(GlobalIndex)>& f) {
  std::vector<double> x(static_cast<std::size_t>(n));
  for (GlobalIndex g = 0; g < n; ++g) x[static_cast<std::size_t>(g)] = f(g);
  return x;
}

}  // namespace kinema::test
