#include "framework/core/comm.hpp"

namespace kinema {

int Comm::rank() const {
  int r = 0;
  MPI_Comm_rank(comm_, &r);
  return r;
}

int Comm::size() const {
  int s = 1;
  MPI_Comm_size(comm_, &s);
  return s;
}

void Comm::barrier() const { MPI_Barrier(comm_); }

namespace {
template <class T>
T reduce(MPI_Comm comm, T x, MPI_Datatype type, MPI_Op op) {
  T out{};
  MPI_Allreduce(&x, &out, 1, type, op, comm);
  return out;
}
}  // namespace

double Comm::sum(double x) const { return reduce(comm_, x, MPI_DOUBLE, MPI_SUM); }
double Comm::min(double x) const { return reduce(comm_, x, MPI_DOUBLE, MPI_MIN); }
double Comm::max(double x) const { return reduce(comm_, x, MPI_DOUBLE, MPI_MAX); }
std::int64_t Comm::sum(std::int64_t x) const { return reduce(comm_, x, MPI_INT64_T, MPI_SUM); }
std::int64_t Comm::min(std::int64_t x) const { return reduce(comm_, x, MPI_INT64_T, MPI_MIN); }
std::int64_t Comm::max(std::int64_t x) const { return reduce(comm_, x, MPI_INT64_T, MPI_MAX); }
bool Comm::any(bool x) const { return reduce<int>(comm_, x ? 1 : 0, MPI_INT, MPI_LOR) != 0; }
bool Comm::all(bool x) const { return reduce<int>(comm_, x ? 1 : 0, MPI_INT, MPI_LAND) != 0; }

std::int64_t Comm::exscan(std::int64_t x) const {
  std::int64_t out = 0;
  MPI_Exscan(&x, &out, 1, MPI_INT64_T, MPI_SUM, comm_);
  if (rank() == 0) out = 0;  // MPI leaves rank 0's result undefined
  return out;
}

std::vector<std::int64_t> Comm::allgather(std::int64_t x) const {
  std::vector<std::int64_t> out(static_cast<std::size_t>(size()));
  MPI_Allgather(&x, 1, MPI_INT64_T, out.data(), 1, MPI_INT64_T, comm_);
  return out;
}

std::string Comm::broadcast(const std::string& s, int root) const {
  long long n = static_cast<long long>(s.size());
  MPI_Bcast(&n, 1, MPI_LONG_LONG, root, comm_);
  std::string out = rank() == root ? s : std::string(static_cast<std::size_t>(n), '\0');
  if (n > 0) MPI_Bcast(out.data(), static_cast<int>(n), MPI_CHAR, root, comm_);
  return out;
}

}  // namespace kinema
