#pragma once
// The same Poisson solve written directly against each library's own API (no Kinema layer), the
// baseline of the overhead ratio. Each assembles the matrix of stencil.hpp on `comm` with the same
// z-plane partition as modules/poisson and solves with CG from a zero initial guess.
#include <mpi.h>

#include <string>

#include "bench/backends/result.hpp"

namespace kinema::bench {

struct SolveSpec {
  long n = 100;                      // cells per direction
  std::string preconditioner;        // "jacobi" or "amg"
  double rtol = 1e-8;
  int maxIterations = 5000;
};

// This rank's interior z-planes [zBegin, zBegin + zCount), as modules/poisson splits them.
inline void planes(MPI_Comm comm, long n, long& zBegin, long& zCount) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const long m = n - 1, base = m / size, extra = m % size;
  zCount = base + (rank < extra ? 1 : 0);
  zBegin = rank * base + std::min<long>(rank, extra);
}

Result nativeEigen(const SolveSpec& spec);  // one rank only
Result nativePetsc(MPI_Comm comm, const SolveSpec& spec);
Result nativeTrilinos(MPI_Comm comm, const SolveSpec& spec);

}  // namespace kinema::bench
