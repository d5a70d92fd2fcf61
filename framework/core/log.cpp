#include "framework/core/log.hpp"

#include <mpi.h>

namespace kinema::log {
namespace {
Level g_level = Level::info;
bool g_allRanks = false;

int worldRank(int* size = nullptr) {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  int r = 0, s = 1;
  if (init && !fin) {
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &s);
  }
  if (size) *size = s;
  return r;
}

void emit(Level level, const std::string& line, int rank, int size) {
  std::ostream& os = (level <= Level::warn) ? std::cerr : std::cout;
  std::string prefix;
  if (size > 1 && (g_allRanks || rank != 0)) prefix = "[rank " + std::to_string(rank) + "] ";
  if (level == Level::error) prefix += "error: ";
  if (level == Level::warn) prefix += "warning: ";
  os << prefix << line << std::endl;
}
}  // namespace

void setLevel(Level level) { g_level = level; }
Level level() { return g_level; }
void setAllRanks(bool all) { g_allRanks = all; }

Level parseLevel(const std::string& name) {
  if (name == "quiet") return Level::quiet;
  if (name == "error") return Level::error;
  if (name == "warn") return Level::warn;
  if (name == "info") return Level::info;
  if (name == "debug") return Level::debug;
  throw InputError("unknown log level '" + name + "' (quiet, error, warn, info, debug)");
}

void write(Level level, const std::string& line) {
  if (level > g_level) return;
  int size = 1;
  int rank = worldRank(&size);
  if (rank != 0 && !g_allRanks) return;
  emit(level, line, rank, size);
}

void writeAnyRank(Level level, const std::string& line) {
  if (level > g_level) return;
  int size = 1;
  int rank = worldRank(&size);
  emit(level, line, rank, size);
}

}  // namespace kinema::log
