#include "framework/core/comm.hpp"

#include <algorithm>
#include <stdexcept>

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

namespace {
template <class T>
std::vector<T> allgathervImpl(MPI_Comm comm, int size, const std::vector<T>& x, MPI_Datatype type) {
  int n = static_cast<int>(x.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size) + 1, 0);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  for (int r = 0; r < size; ++r) displs[r + 1] = displs[r] + counts[r];
  std::vector<T> out(static_cast<std::size_t>(displs.back()));
  MPI_Allgatherv(x.data(), n, type, out.data(), counts.data(), displs.data(), type, comm);
  return out;
}

template <class T>
std::vector<std::vector<T>> alltoallvImpl(MPI_Comm comm, int size,
                                          const std::vector<std::vector<T>>& send,
                                          MPI_Datatype type,
                                          const std::vector<std::size_t>* known = nullptr) {
  const auto p = static_cast<std::size_t>(size);
  if (send.size() != p) throw std::invalid_argument("Comm::alltoallv: need one buffer per rank");
  if (known && known->size() != p) throw std::invalid_argument("Comm::alltoallv: need one count per rank");
  std::vector<int> scount(p), rcount(p), sdispl(p + 1, 0), rdispl(p + 1, 0);
  for (std::size_t r = 0; r < p; ++r) scount[r] = static_cast<int>(send[r].size());
  if (known)
    for (std::size_t r = 0; r < p; ++r) rcount[r] = static_cast<int>((*known)[r]);
  else
    MPI_Alltoall(scount.data(), 1, MPI_INT, rcount.data(), 1, MPI_INT, comm);
  for (std::size_t r = 0; r < p; ++r) {
    sdispl[r + 1] = sdispl[r] + scount[r];
    rdispl[r + 1] = rdispl[r] + rcount[r];
  }
  std::vector<T> sbuf(static_cast<std::size_t>(sdispl[p])), rbuf(static_cast<std::size_t>(rdispl[p]));
  for (std::size_t r = 0; r < p; ++r)
    std::copy(send[r].begin(), send[r].end(), sbuf.begin() + sdispl[r]);
  MPI_Alltoallv(sbuf.data(), scount.data(), sdispl.data(), type, rbuf.data(), rcount.data(),
                rdispl.data(), type, comm);
  std::vector<std::vector<T>> recv(p);
  for (std::size_t r = 0; r < p; ++r)
    recv[r].assign(rbuf.begin() + rdispl[r], rbuf.begin() + rdispl[r + 1]);
  return recv;
}
}  // namespace

std::vector<double> Comm::allgatherv(const std::vector<double>& x) const {
  return allgathervImpl(comm_, size(), x, MPI_DOUBLE);
}
std::vector<std::int64_t> Comm::allgatherv(const std::vector<std::int64_t>& x) const {
  return allgathervImpl(comm_, size(), x, MPI_INT64_T);
}
std::vector<std::vector<double>> Comm::alltoallv(const std::vector<std::vector<double>>& send) const {
  return alltoallvImpl(comm_, size(), send, MPI_DOUBLE);
}
std::vector<std::vector<std::int64_t>> Comm::alltoallv(
    const std::vector<std::vector<std::int64_t>>& send) const {
  return alltoallvImpl(comm_, size(), send, MPI_INT64_T);
}
std::vector<std::vector<double>> Comm::alltoallv(const std::vector<std::vector<double>>& send,
                                                 const std::vector<std::size_t>& recvCounts) const {
  return alltoallvImpl(comm_, size(), send, MPI_DOUBLE, &recvCounts);
}

}  // namespace kinema
