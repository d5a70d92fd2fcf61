#pragma once
// The TAO side of bench_mprgp: the box QP assembled directly as a PETSc Mat and solved by one of
// TAO's bound-constrained solvers, written against PETSc's own API (no Kinema layer).
#include <mpi.h>

#include <string>
#include <vector>

#include "bench/mprgp/box_qp.hpp"

namespace kinema::bench {

struct TaoRun {
  std::string type;           // bqpip, gpcg, bncg, bntr, ...
  int iterations = 0;         // TAO iterations
  int linearIterations = 0;   // inner KSP iterations (GPCG, BQPIP, BNTR)
  long matvecs = 0;           // products with A or with a principal submatrix of A (GPCG)
  double seconds = 0;         // TaoSetUp + TaoSolve
  std::string reason;         // TaoConvergedReason name, or the error
  bool converged = false;
  bool capped = false;        // stopped by the time budget or the iteration cap
  std::string inner;          // KSP/PC used inside, if any
  std::vector<double> x;      // solution (all unknowns; one rank)
};

// Solves `qp` on `comm` (one rank) from x0 = 0 with TaoSetTolerances(gatol, 0, 0). Stops after
// `maxIterations` iterations or `budgetSeconds` of wall time. Never throws: failures come back in
// `reason`. A non-empty `pcType` replaces the preconditioner of the solver's inner KSP, if it has one.
TaoRun solveTao(MPI_Comm comm, const BoxQp& qp, const std::string& type, double gatol, int maxIterations,
                double budgetSeconds, const std::string& pcType = "");

}  // namespace kinema::bench
