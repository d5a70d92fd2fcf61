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
}  // namespace

MpiContext::MpiContext(int* argc, char*** argv) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) {
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
      throw Error("MPI_Init_thread failed");
    ownsMpi_ = true;
  }
}

MpiContext::~MpiContext() {
  auto& f = finalisers();
  for (auto it = f.rbegin(); it != f.rend(); ++it) it->second();
  f.clear();
  libraries().clear();
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (ownsMpi_ && !finalised) MPI_Finalize();
}

void MpiContext::ensureLibrary(const std::string& name, const std::function<void()>& init,
                               std::function<void()> finalize) {
  if (libraries().count(name)) return;
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
