// Baseline: Tpetra CrsMatrix, Belos CG (through its SolverFactory) with Ifpack2 Jacobi or MueLu
// smoothed aggregation, all default parameters except the tolerance and the iteration cap.
#include <BelosLinearProblem.hpp>
#include <BelosSolverFactory.hpp>
#include <BelosTpetraAdapter.hpp>
#include <Ifpack2_Factory.hpp>
#include <MueLu_CreateTpetraPreconditioner.hpp>
#include <Teuchos_DefaultMpiComm.hpp>
#include <Tpetra_CrsMatrix.hpp>
#include <Tpetra_Map.hpp>
#include <Tpetra_MultiVector.hpp>

#include <vector>

#include "bench/backends/native.hpp"
#include "bench/backends/stencil.hpp"

namespace kinema::bench {

Result nativeTrilinos(MPI_Comm rawComm, const SolveSpec& spec) {
  using SC = double;
  using Map = Tpetra::Map<>;
  using LO = Map::local_ordinal_type;
  using GO = Map::global_ordinal_type;
  using NT = Map::node_type;
  using Matrix = Tpetra::CrsMatrix<SC, LO, GO, NT>;
  using MV = Tpetra::MultiVector<SC, LO, GO, NT>;
  using OP = Tpetra::Operator<SC, LO, GO, NT>;
  using Teuchos::RCP;
  using Teuchos::rcp;

  Stencil s{spec.n};
  const long m = s.m();
  long z0 = 0, nz = 0;
  planes(rawComm, spec.n, z0, nz);
  RCP<const Teuchos::Comm<int>> comm = rcp(new Teuchos::MpiComm<int>(rawComm));
  const Tpetra::global_size_t N = static_cast<Tpetra::global_size_t>(m * m * m);
  RCP<const Map> map = rcp(new Map(N, static_cast<size_t>(nz * m * m), GO(0), comm));
  RCP<Matrix> A = rcp(new Matrix(map, 7));
  MV b(map, 1), x(map, 1);
  {
    auto bv = b.getLocalViewHost(Tpetra::Access::OverwriteAll);
    std::vector<GO> cols(7);
    std::vector<SC> vals(7);
    for (long k = z0 + 1; k <= z0 + nz; ++k)
      for (long j = 1; j <= m; ++j)
        for (long i = 1; i <= m; ++i) {
          const GO row = static_cast<GO>(s.index(i, j, k));
          std::size_t c = 0;
          const double rhs = s.row(i, j, k, [&](std::int64_t col, double v) {
            cols[c] = static_cast<GO>(col);
            vals[c++] = v;
          });
          A->insertGlobalValues(row, Teuchos::ArrayView<const GO>(cols.data(), c),
                                Teuchos::ArrayView<const SC>(vals.data(), c));
          bv(map->getLocalElement(row), 0) = rhs;
        }
  }
  A->fillComplete();
  x.putScalar(0.0);

  comm->barrier();
  double t0 = MPI_Wtime();
  RCP<OP> M;
  if (spec.preconditioner == "amg") {
    Teuchos::ParameterList mueluParams;
    mueluParams.set("verbosity", "none");
    if (comm->getSize() > 1) {
      // As the backend does: Debian's Amesos2 13.2 KLU2 solves a gathered distributed coarse
      // matrix wrongly, so the coarsest level gets symmetric Gauss-Seidel sweeps instead.
      mueluParams.set("coarse: type", std::string("RELAXATION"));
      Teuchos::ParameterList& c = mueluParams.sublist("coarse: params");
      c.set("relaxation: type", std::string("Symmetric Gauss-Seidel"));
      c.set("relaxation: sweeps", 4);
      mueluParams.set("coarse: max size", 500);
    }
    M = MueLu::CreateTpetraPreconditioner(Teuchos::rcp_dynamic_cast<OP>(A), mueluParams);
  } else {
    auto prec = Ifpack2::Factory::create<Tpetra::RowMatrix<SC, LO, GO, NT>>("RELAXATION", A);
    Teuchos::ParameterList p;
    p.set("relaxation: type", "Jacobi");
    prec->setParameters(p);
    prec->initialize();
    prec->compute();
    M = prec;
  }
  auto params = rcp(new Teuchos::ParameterList);
  params->set("Convergence Tolerance", spec.rtol);
  params->set("Maximum Iterations", spec.maxIterations);
  params->set("Implicit Residual Scaling", "Norm of RHS");
  params->set("Explicit Residual Scaling", "Norm of RHS");
  Belos::SolverFactory<SC, MV, OP> factory;
  auto solver = factory.create("CG", params);
  auto problem = rcp(new Belos::LinearProblem<SC, MV, OP>(A, rcp(&x, false), rcp(&b, false)));
  problem->setLeftPrec(M);
  double t1 = MPI_Wtime();
  // setProblem computes the initial residual and, with a left preconditioner, one application of
  // it: part of the solve (the Kinema path pays it inside solve() too).
  problem->setProblem();
  solver->setProblem(problem);
  solver->solve();
  double t2 = MPI_Wtime();

  MV r(map, 1);
  A->apply(x, r);
  r.update(1.0, b, -1.0);
  std::vector<SC> rn(1), bn(1);
  r.norm2(rn);
  b.norm2(bn);

  Result res;
  res.backend = "trilinos";
  res.preconditioner = spec.preconditioner;
  res.path = "native";
  res.iterations = solver->getNumIters();
  double setup = t1 - t0, solve = t2 - t1;
  MPI_Allreduce(MPI_IN_PLACE, &setup, 1, MPI_DOUBLE, MPI_MAX, rawComm);
  MPI_Allreduce(MPI_IN_PLACE, &solve, 1, MPI_DOUBLE, MPI_MAX, rawComm);
  res.setupSeconds = setup;
  res.solveSeconds = solve;
  res.relativeResidual = rn[0] / bn[0];
  return res;
}

}  // namespace kinema::bench
