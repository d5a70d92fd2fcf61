#include "modules/poisson/poisson_module.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "framework/core/log.hpp"
#include "framework/core/param_binding.hpp"
#include "framework/core/timer.hpp"
#include "framework/la/linear_solver_params.hpp"

namespace kinema::poisson {

namespace {

// Every poisson.* key, bound once to the field it fills (framework/core/param_binding.hpp).
struct Params {
  long n = 16;
  long levels = 1;
  std::string solution = "exponential";
  la::LinearSolverOptions solver = [] {
    la::LinearSolverOptions o;
    o.type = "cg";
    o.preconditioner = "jacobi";
    o.rtol = 1e-10;
    o.maxIterations = 20000;
    return o;
  }();
};

const ParamBindings<Params>& bindings() {
  static const ParamBindings<Params> b = [] {
    ParamBindings<Params> r;
    r.integer("n", &Params::n, Range::closed(2, 4096),
              "grid cells per direction at the first level (h = 1/n, (n-1)^3 unknowns)");
    r.integer("levels", &Params::levels, Range::closed(1, 10),
              "number of solves; each level doubles n (the error should drop about 4x per level)");
    r.choice("solution", &Params::solution, {"exponential", "sine"},
             "manufactured solution: exp(x+2y+3z) (non-zero boundary) or sin(pi x)sin(pi y)sin(pi z)");
    return r;
  }();
  return b;
}

Params readParams(const Config& config) {
  Params p = bindings().read(config, "poisson");
  p.solver = la::linearSolverBindings().read(config, "poisson.solver");
  return p;
}

}  // namespace

void PoissonModule::declare(ParamSchema& schema) {
  const Params defaults;
  bindings().declare(schema, "poisson", defaults);
  la::linearSolverBindings().declare(schema, "poisson.solver", defaults.solver);
}

run::ResourceEstimate PoissonModule::estimate(const Config& config, int ranks) {
  // Only the finest level is alive at its solve (buildLevel replaces the previous one). Measured
  // peak resident memory (docs/reliability.md, Limits): about 520 bytes per unknown with CG and
  // Jacobi or IC(0) (matrix, assembly, vectors, Krylov work vectors) on eigen and petsc, plus about
  // 80 MB per process (MPI, HDF5, the backends' libraries). An AMG hierarchy or a direct factor is
  // not counted: for them the estimate is a lower bound.
  const Params p = readParams(config);
  const long long n0 = p.n, levels = p.levels;
  const double n = static_cast<double>(n0) * std::pow(2.0, static_cast<double>(levels - 1));
  const double unknowns = std::pow(n - 1, 3);
  run::ResourceEstimate e;
  e.bytes = 520 * unknowns + 80e6 * ranks;
  e.steps = static_cast<double>(levels);
  // A lower bound of the time: 50 ns per unknown of the finest level for its assembly and first
  // iterations, shared by the ranks (measured: 10 us per unknown for n = 128, 1 rank).
  e.seconds = 50e-9 * unknowns / ranks;
  char detail[160];
  std::snprintf(detail, sizeof detail, "%.3g unknowns at the finest level, n = %.0f; %lld level(s)", unknowns, n, levels);
  e.detail = detail;
  return e;
}

void PoissonModule::setup(run::RunContext& ctx) {
  const Params p = readParams(ctx.config);
  n0_ = p.n;
  levels_ = p.levels;
  solution_.name = p.solution;
  solverOptions_ = p.solver;
  if (cellsAt(levels_) > 4096)
    throw InputError(str(ctx.config.where("poisson.levels"), ": poisson.levels: ", levels_,
                         " levels from n = ", n0_, " reach n = ", cellsAt(levels_),
                         ", above the limit 4096"));
  // The coarsest level has the fewest planes, and building it also asks the backend whether it
  // can hold the distributed vectors: both may reject the scene now, before any output exists.
  buildLevel(ctx, 1);
}

void PoissonModule::buildLevel(run::RunContext& ctx, long level) {
  problem_ = std::make_unique<PoissonProblem>(ctx.backend, ctx.comm, cellsAt(level), solution_);
  u_ = ctx.backend.createVector(problem_->map());
  exact_ = ctx.backend.createVector(problem_->map());
  problem_->exact(*exact_);
}

void PoissonModule::step(run::RunContext& ctx, io::Diagnostics::Row& row) {
  ++level_;
  buildLevel(ctx, level_);
  auto b = ctx.backend.createVector(problem_->map());
  la::MatrixPtr A;
  {
    ScopedTimer t("poisson.assemble");
    auto assembler = ctx.backend.createAssembler(problem_->map(), problem_->map());
    A = problem_->assemble(*assembler, *b);
  }
  auto solver = ctx.backend.createLinearSolver(solverOptions_);
  {
    ScopedTimer t("poisson.preconditioner_setup");
    solver->setOperator(A);
  }
  la::SolverStats stats;
  {
    ScopedTimer t("poisson.solve");
    stats = solver->solve(*b, *u_);
  }
  run::requireFinite(*u_, "the Poisson solution", level_);
  if (!stats.converged)
    log::warn("poisson: level ", level_, " (n = ", problem_->cells(), "): ", solver->description(),
              " did not converge (", stats.reasonName(), ", residual ", stats.finalResidual, ")");

  // Discretisation error against the manufactured solution: discrete L2 and max norms.
  auto e = u_->clone();
  e->axpy(-1.0, *exact_);
  const double h = problem_->h();
  const double l2 = e->norm2() * std::pow(h, 1.5);
  const double mx = e->normInf();
  errorL2_.push_back(l2);
  errorMax_.push_back(mx);
  iterations_.push_back(stats.iterations);

  row.emplace_back("n", static_cast<double>(problem_->cells()));
  row.emplace_back("h", h);
  row.emplace_back("unknowns", static_cast<double>(problem_->map()->globalSize()));
  row.emplace_back("iterations", static_cast<double>(stats.iterations));
  row.emplace_back("relative_residual", stats.rhsNorm > 0 ? stats.finalResidual / stats.rhsNorm : 0.0);
  row.emplace_back("converged", stats.converged ? 1.0 : 0.0);
  row.emplace_back("error_l2", l2);
  row.emplace_back("error_max", mx);
  row.emplace_back("solve_seconds", stats.seconds);
  if (errorL2_.size() > 1)
    log::info("poisson: n = ", problem_->cells(), "  error_l2 = ", l2, "  observed order ",
              std::log2(errorL2_[errorL2_.size() - 2] / l2));
  else
    log::info("poisson: n = ", problem_->cells(), "  error_l2 = ", l2);
}

void PoissonModule::writeFrame(run::RunContext&, io::FrameWriter& frames) {
  const long m = problem_->pointsPerSide();
  const double h = problem_->h();
  io::UniformGrid grid;
  grid.dims = {m, m, m};
  grid.origin = {h, h, h};
  grid.spacing = {h, h, h};
  grid.zBegin = problem_->zBegin();
  grid.zCount = problem_->zCount();
  auto e = u_->clone();
  e->axpy(-1.0, *exact_);
  // Each level is its own temporal collection: grids of different sizes in one collection would
  // be seen by ParaView's filters with the first level's extent (docs/output.md).
  frames.setCollection(str("level_", level_));
  frames.beginFrame(time(), grid);
  {
    auto u = u_->constView();
    frames.addField("u", u.owned());
  }
  {
    auto x = exact_->constView();
    frames.addField("u_exact", x.owned());
  }
  {
    auto ev = e->constView();
    frames.addField("error", ev.owned());
  }
  frames.endFrame();
}

// The solution of the current level on this rank's z-planes, with the grid to place it.
void PoissonModule::exportState(run::StateArrays& out) const {
  if (!problem_) return;
  out.addScalar("level", static_cast<double>(level_));
  out.addScalar("points_per_side", static_cast<double>(problem_->pointsPerSide()));
  out.addScalar("h", problem_->h());
  out.addScalar("z_begin", static_cast<double>(problem_->zBegin()));
  out.addScalar("z_count", static_cast<double>(problem_->zCount()));
  {
    auto u = u_->constView();
    out.add("u", u.owned());
  }
  {
    auto x = exact_->constView();
    out.add("u_exact", x.owned());
  }
  out.add("error_l2", errorL2_);
  out.add("error_max", errorMax_);
}

void PoissonModule::saveCheckpoint(run::RunContext&, io::CheckpointWriter& out) const {
  out.writeInt("poisson_level", level_);
  out.writeInt("poisson_n", n0_);
  out.writeArray("poisson_error_l2", errorL2_);
  out.writeArray("poisson_error_max", errorMax_);
  std::vector<double> its(iterations_.begin(), iterations_.end());
  out.writeArray("poisson_iterations", its);
  out.writeVector("poisson_u", *u_);
}

void PoissonModule::loadCheckpoint(run::RunContext& ctx, const io::CheckpointReader& in) {
  const long n0 = in.readInt("poisson_n");
  if (n0 != n0_)
    throw InputError(str(in.path(), ": checkpoint of poisson.n = ", n0, ", but the scene has poisson.n = ", n0_));
  level_ = in.readInt("poisson_level");
  if (level_ < 0 || level_ > levels_)
    throw InputError(str(in.path(), ": checkpoint after level ", level_, ", but the scene's levels are 0 to ",
                         levels_));
  errorL2_ = in.readArray("poisson_error_l2");
  errorMax_ = in.readArray("poisson_error_max");
  iterations_.clear();
  for (double v : in.readArray("poisson_iterations")) iterations_.push_back(static_cast<long>(v));
  buildLevel(ctx, level_);
  in.readVector("poisson_u", *u_);  // also checks the stored grid matches this level
}

std::string PoissonModule::summary() const {
  std::ostringstream os;
  os << "poisson: discretisation error by level\n      n    error_l2      error_max     order  iterations\n";
  for (std::size_t l = 0; l < errorL2_.size(); ++l) {
    char buf[160];
    char order[16] = "     -";
    if (l > 0) std::snprintf(order, sizeof order, "%6.3f", std::log2(errorL2_[l - 1] / errorL2_[l]));
    std::snprintf(buf, sizeof buf, "  %5ld  %.4e  %.4e  %s  %10ld\n", cellsAt(static_cast<long>(l) + 1),
                  errorL2_[l], errorMax_[l], order, iterations_[l]);
    os << buf;
  }
  return os.str();
}

}  // namespace kinema::poisson
