#include "heat1d_module.hpp"

#include <cmath>
#include <numbers>
#include <sstream>

#include "framework/core/error.hpp"
#include "framework/core/log.hpp"
#include "framework/core/timer.hpp"
#include "framework/la/backend.hpp"
#include "framework/la/index_map.hpp"
#include "framework/la/linear_solver_params.hpp"
#include "framework/la/matrix_assembler.hpp"

namespace heat1d {

using namespace kinema;
using std::numbers::pi;

void Heat1dModule::declare(ParamSchema& schema) {
  schema.addInt("heat1d.n", 64, Range::closed(2, 1 << 24), "cells on (0, 1) (n - 1 unknowns, h = 1/n)");
  schema.addInt("heat1d.steps", 20, Range::closed(1, 1000000), "implicit Euler steps");
  schema.addReal("heat1d.dt", 1e-3, Range::positive(), "time step");
  schema.addReal("heat1d.kappa", 1.0, Range::positive(), "diffusivity");
  schema.addInt("heat1d.mode", 1, Range::closed(1, 1000), "m of the initial condition sin(m pi x)");
  la::LinearSolverOptions defaults;
  defaults.type = "cg";
  defaults.preconditioner = "jacobi";
  defaults.rtol = 1e-12;
  la::linearSolverBindings().declare(schema, "heat1d.solver", defaults);
}

void Heat1dModule::setup(run::RunContext& ctx) {
  n_ = ctx.config.getInt("heat1d.n");
  steps_ = ctx.config.getInt("heat1d.steps");
  dt_ = ctx.config.getReal("heat1d.dt");
  kappa_ = ctx.config.getReal("heat1d.kappa");
  mode_ = ctx.config.getInt("heat1d.mode");
  solverOptions_ = la::linearSolverBindings().read(ctx.config, "heat1d.solver");
  if (mode_ >= n_)
    throw InputError(str(ctx.config.where("heat1d.mode"), ": heat1d.mode = ", mode_,
                         " is not resolved by heat1d.n = ", n_, " cells (needs mode < n)"));
  // The unknowns are the n - 1 interior points, split evenly over the ranks. The backend may refuse
  // the map (eigen on more than one rank) now, before any output exists.
  map_ = la::IndexMap::uniform(ctx.comm, n_ - 1);
  ctx.backend.requireUsable(*map_);

  // I + dt kappa A_h, A_h = tridiag(-1, 2, -1) / h^2; each rank adds its own rows.
  const double c = dt_ * kappa_ * static_cast<double>(n_) * static_cast<double>(n_);
  auto assembler = ctx.backend.createAssembler(map_, map_);
  assembler->begin();
  for (la::GlobalIndex i = map_->ownedBegin(); i < map_->ownedEnd(); ++i) {
    assembler->addScalar(i, i, 1.0 + 2.0 * c);
    if (i > 0) assembler->addScalar(i, i - 1, -c);
    if (i + 1 < n_ - 1) assembler->addScalar(i, i + 1, -c);
  }
  A_ = assembler->end();
  solver_ = ctx.backend.createLinearSolver(solverOptions_);
  solver_->setOperator(A_);

  u_ = ctx.backend.createVector(map_);
  discreteExact(0, *u_);
}

void Heat1dModule::discreteExact(long k, la::Vector& out) const {
  const double h = 1.0 / static_cast<double>(n_);
  const double s = std::sin(static_cast<double>(mode_) * pi * h / 2.0);
  const double lambda = 4.0 / (h * h) * s * s;
  const double factor = std::pow(1.0 + dt_ * kappa_ * lambda, -static_cast<double>(k));
  auto v = out.view();
  for (la::GlobalIndex i = map_->ownedBegin(); i < map_->ownedEnd(); ++i)
    v[i - map_->ownedBegin()] = factor * std::sin(static_cast<double>(mode_) * pi * x(i));
}

void Heat1dModule::continuousExact(long k, la::Vector& out) const {
  const double m = static_cast<double>(mode_);
  const double factor = std::exp(-kappa_ * m * m * pi * pi * static_cast<double>(k) * dt_);
  auto v = out.view();
  for (la::GlobalIndex i = map_->ownedBegin(); i < map_->ownedEnd(); ++i)
    v[i - map_->ownedBegin()] = factor * std::sin(m * pi * x(i));
}

void Heat1dModule::step(run::RunContext& ctx, io::Diagnostics::Row& row) {
  ++step_;
  auto rhs = u_->clone();
  la::SolverStats stats;
  {
    ScopedTimer t("heat1d.solve");
    stats = solver_->solve(*rhs, *u_);
  }
  run::requireFinite(*u_, "the temperature", step_);
  if (!stats.converged)
    log::warn("heat1d: step ", step_, ": ", solver_->description(), " did not converge (", stats.reason, ")");

  auto ref = ctx.backend.createVector(map_);
  discreteExact(step_, *ref);
  ref->axpy(-1.0, *u_);
  lastSolverError_ = ref->normInf();
  continuousExact(step_, *ref);
  ref->axpy(-1.0, *u_);
  lastError_ = ref->normInf();
  totalIterations_ += stats.iterations;

  row.emplace_back("iterations", static_cast<double>(stats.iterations));
  row.emplace_back("converged", stats.converged ? 1.0 : 0.0);
  row.emplace_back("u_max", u_->normInf());
  row.emplace_back("solver_error", lastSolverError_);   // vs the discrete closed form
  row.emplace_back("error", lastError_);                // vs the continuous solution
}

void Heat1dModule::writeFrame(run::RunContext& ctx, io::FrameWriter& frames) {
  // The rod as a point set: this rank's interior points at (x_i, 0, 0), rows in global order.
  std::vector<double> positions;
  for (la::GlobalIndex i = map_->ownedBegin(); i < map_->ownedEnd(); ++i)
    positions.insert(positions.end(), {x(i), 0.0, 0.0});
  io::PointSet points;
  points.globalCount = n_ - 1;
  points.rowOffset = map_->ownedBegin();
  points.positions = positions;
  auto exact = ctx.backend.createVector(map_);
  discreteExact(step_, *exact);
  frames.beginFrame(time(), points);
  {
    auto u = u_->constView();
    frames.addField("u", u.owned(), 1, "1");
  }
  {
    auto e = exact->constView();
    frames.addField("u_discrete_exact", e.owned(), 1, "1");
  }
  frames.endFrame();
}

void Heat1dModule::saveCheckpoint(run::RunContext&, io::CheckpointWriter& out) const {
  out.writeInt("heat1d_step", step_);
  out.writeInt("heat1d_n", n_);
  out.writeReal("heat1d_total_iterations", static_cast<double>(totalIterations_));
  out.writeVector("heat1d_u", *u_);
}

void Heat1dModule::loadCheckpoint(run::RunContext&, const io::CheckpointReader& in) {
  const long n = in.readInt("heat1d_n");
  if (n != n_)
    throw InputError(str(in.path(), ": checkpoint of heat1d.n = ", n, ", but the scene has heat1d.n = ", n_));
  step_ = in.readInt("heat1d_step");
  totalIterations_ = static_cast<long>(in.readReal("heat1d_total_iterations"));
  in.readVector("heat1d_u", *u_);
}

std::string Heat1dModule::summary() const {
  std::ostringstream os;
  os << "heat1d: " << step_ << " steps to t = " << time() << ", " << totalIterations_
     << " solver iterations; max |u - discrete exact| = " << lastSolverError_
     << ", max |u - continuous exact| = " << lastError_ << "\n";
  return os.str();
}

}  // namespace heat1d

// The registration function, with the name kinema_add_module(heat1d ...) expects; the plugin's
// generated kinema_plugin_register() calls it when the library is loaded.
namespace kinema {
void registerModule_heat1d() {
  run::modules().add({"heat1d", "1D heat equation, implicit Euler (out-of-tree example plugin)",
                      &heat1d::Heat1dModule::declare,
                      [] { return std::make_unique<heat1d::Heat1dModule>(); }});
}
}  // namespace kinema
