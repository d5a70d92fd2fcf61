#include "backends/trilinos/trilinos_backend.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>

#include "backends/trilinos/trilinos_belos.hpp"
#include "backends/trilinos/trilinos_direct.hpp"
#include "backends/trilinos/trilinos_matrix.hpp"
#include "backends/trilinos/trilinos_preconditioners.hpp"
#include "backends/trilinos/trilinos_vector.hpp"
#include "framework/core/error.hpp"
#include "framework/core/mpi_context.hpp"
#include "framework/la/solver_types.hpp"

namespace kinema::la::trilinos {

namespace {
bool ownsKokkos = false;

YAML::Node solverNative(const LinearSolverOptions& opts) {
  const auto it = opts.native.find("trilinos");
  return it == opts.native.end() ? YAML::Node() : YAML::Load(it->second);
}
}  // namespace

TrilinosBackend::TrilinosBackend(YAML::Node options) : options_(std::move(options)) {
  // MPI is up (the app's or the test's MpiContext). Kokkos must outlive every Tpetra object:
  // MpiContext finalises it after the backends are gone, before MPI_Finalize.
  MpiContext::ensureLibrary(
      "kokkos",
      [] {
        if (!Kokkos::is_initialized()) {
          Kokkos::initialize();
          ownsKokkos = true;
        }
      },
      [] {
        if (ownsKokkos && Kokkos::is_initialized()) Kokkos::finalize();
        ownsKokkos = false;
      });
  // Converted now so a malformed list stops the run before any work.
  backendOptions_ = std::make_shared<const NativeOptions>(readNativeOptions(options_, YAML::Node()));
}

std::shared_ptr<const Layout> TrilinosBackend::layoutFor(const IndexMapPtr& map) const {
  KINEMA_CHECK(map != nullptr, "trilinos backend: an object without an IndexMap");
  layouts_.erase(std::remove_if(layouts_.begin(), layouts_.end(),
                                [](const auto& e) { return e.first.expired() || e.second.expired(); }),
                 layouts_.end());
  for (const auto& [m, l] : layouts_)
    if (m.lock() == map)
      if (auto p = l.lock()) return p;
  LayoutPtr L = makeLayout(map);
  layouts_.emplace_back(map, L);
  return L;
}

std::unique_ptr<Vector> TrilinosBackend::createVector(IndexMapPtr map) const {
  return std::make_unique<TrilinosVector>(layoutFor(map));
}

std::unique_ptr<MatrixAssembler> TrilinosBackend::createAssembler(IndexMapPtr rows, IndexMapPtr cols) const {
  KINEMA_CHECK(rows && cols, "trilinos backend: createAssembler without maps");
  return std::make_unique<TrilinosAssembler>(layoutFor(rows), layoutFor(cols));
}

std::unique_ptr<LinearSolver> TrilinosBackend::createLinearSolver(const LinearSolverOptions& opts) const {
  auto native = std::make_shared<const NativeOptions>(readNativeOptions(options_, solverNative(opts)));
  if (opts.type == "direct") return makeDirectSolver(opts, native);
  if (opts.type == "cg" || opts.type == "minres" || opts.type == "gmres")
    return makeBelosSolver(opts, native,
                           makePreconditioner(opts.preconditioner, native, opts.reusePreconditioner == "interpolation"));
  throw InputError(str("trilinos backend: unknown linear solver type '", opts.type,
                       "' (available: cg, minres, gmres, direct)"));
}

std::vector<std::string> TrilinosBackend::offeredPreconditioners() { return {"jacobi", "ssor", "ic0", "amg", "direct"}; }
std::vector<std::string> TrilinosBackend::offeredSolverTypes() { return linearSolverTypes(); }
std::vector<std::string> TrilinosBackend::nativePreconditioners() const { return offeredPreconditioners(); }
std::vector<std::string> TrilinosBackend::solverTypes() const { return offeredSolverTypes(); }

std::unique_ptr<Preconditioner> TrilinosBackend::makePreconditioner(
    const std::string& name, std::shared_ptr<const NativeOptions> native, bool reuseInterpolation) const {
  const auto n = nativePreconditioners();
  if (std::find(n.begin(), n.end(), name) == n.end()) return createPreconditioner(name);
  if (name == "amg") return makeMueLuPreconditioner(std::move(native), reuseInterpolation);
  if (name == "direct") return makeAmesos2Preconditioner(std::move(native));
  return makeIfpack2Preconditioner(name, std::move(native));
}

std::unique_ptr<Preconditioner> TrilinosBackend::createNativePreconditioner(const std::string& name) const {
  return makePreconditioner(name, backendOptions_);
}

}  // namespace kinema::la::trilinos
