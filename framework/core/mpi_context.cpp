#include "framework/core/mpi_context.hpp"

#include <cstdlib>
#include <set>
#include <utility>
#include <vector>

#include "framework/core/error.hpp"

namespace kinema {
namespace {
std::set<std::string>& libraries() {
  static std::set<std::string> s;
  return s;
}
std::vector<std::pair<std::string, std::function<void()>>>& finalisers() {
  static std::vector<std::pair<std::string, std::function<void()>>> f;
  return f;
}
bool g_ownsMpi = false;  // this process called MPI_Init (now or deferred) and must finalise it

void initMpi(int* argc, char*** argv) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (initialised) return;
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    throw Error("MPI_Init_thread failed");
  g_ownsMpi = true;
}

const char* envRank() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "MV2_COMM_WORLD_RANK", "SLURM_PROCID"})
    if (const char* r = std::getenv(v)) return r;
  return nullptr;
}
}  // namespace

MpiContext::MpiContext(int* argc, char*** argv, Init init) {
  if (init == Init::now || underLauncher()) initMpi(argc, argv);
}

void MpiContext::ensureMpi() { initMpi(nullptr, nullptr); }

bool MpiContext::mpiActive() {
  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  return initialised && !finalised;
}

bool MpiContext::underLauncher() {
  // SLURM_PROCID alone is also set in a batch script's shell, so it does not count here.
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MV2_COMM_WORLD_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

int MpiContext::worldRank() {
  if (mpiActive()) return Comm::world().rank();
  const char* r = underLauncher() ? envRank() : nullptr;
  return r ? std::atoi(r) : 0;
}

MpiContext::~MpiContext() {
  auto& f = finalisers();
  for (auto it = f.rbegin(); it != f.rend(); ++it) it->second();
  f.clear();
  libraries().clear();
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (g_ownsMpi && !finalised) MPI_Finalize();
  g_ownsMpi = false;
}

void MpiContext::ensureLibrary(const std::string& name, const std::function<void()>& init,
                               std::function<void()> finalize) {
  if (libraries().count(name)) return;
  ensureMpi();  // every library here runs on MPI
  init();
  libraries().insert(name);
  if (finalize) finalisers().emplace_back(name, std::move(finalize));
}

bool MpiContext::libraryInitialised(const std::string& name) { return libraries().count(name) > 0; }

void MpiContext::abort(int code) {
  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  if (initialised && !finalised) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

}  // namespace kinema
