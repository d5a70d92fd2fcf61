#pragma once
// A barrier that sleeps instead of spinning: the ranks that wait while rank 0 runs a benchmark
// part alone leave the core to it (and to other jobs) even when MPI busy-polls and the machine is
// oversubscribed.
#include <mpi.h>

#include <chrono>
#include <thread>

#include "framework/core/comm.hpp"

namespace kinema::bench {

inline void idleBarrier(const Comm& comm) {
  MPI_Request req;
  MPI_Ibarrier(comm.raw(), &req);
  for (int done = 0;;) {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (done) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

}  // namespace kinema::bench
