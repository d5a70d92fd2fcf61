#pragma once
// A non-owning handle on an MPI communicator with the few collectives the framework needs.
// MPI is part of the framework (not a backend): every backend shares the same communicator.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kinema {

class Comm {
 public:
  Comm() : comm_(MPI_COMM_WORLD) {}
  explicit Comm(MPI_Comm comm) : comm_(comm) {}
  static Comm world() { return Comm(MPI_COMM_WORLD); }
  static Comm self() { return Comm(MPI_COMM_SELF); }

  MPI_Comm raw() const { return comm_; }
  int rank() const;
  int size() const;
  bool isRoot() const { return rank() == 0; }
  void barrier() const;

  double sum(double x) const;
  double min(double x) const;
  double max(double x) const;
  std::int64_t sum(std::int64_t x) const;
  std::int64_t min(std::int64_t x) const;
  std::int64_t max(std::int64_t x) const;
  // Logical OR / AND across ranks (e.g. "did any rank see a NaN").
  bool any(bool x) const;
  bool all(bool x) const;
  // Exclusive prefix sum (rank r gets the sum over ranks < r).
  std::int64_t exscan(std::int64_t x) const;
  std::vector<std::int64_t> allgather(std::int64_t x) const;
  // Broadcasts a string from root.
  std::string broadcast(const std::string& s, int root = 0) const;
  // Concatenation over ranks (in rank order) of every rank's `x` (sizes may differ).
  std::vector<double> allgatherv(const std::vector<double>& x) const;
  std::vector<std::int64_t> allgatherv(const std::vector<std::int64_t>& x) const;
  // Personalised all-to-all: send[r] goes to rank r; returns recv[r] = what rank r sent here.
  // `send` must have size() entries.
  std::vector<std::vector<double>> alltoallv(const std::vector<std::vector<double>>& send) const;
  std::vector<std::vector<std::int64_t>> alltoallv(
      const std::vector<std::vector<std::int64_t>>& send) const;
  // The same when every rank knows how many values it receives from each rank (recvCounts[r]):
  // one collective instead of two. Throws if a sender disagrees (MPI truncation error).
  std::vector<std::vector<double>> alltoallv(const std::vector<std::vector<double>>& send,
                                             const std::vector<std::size_t>& recvCounts) const;

 private:
  MPI_Comm comm_;
};

}  // namespace kinema
