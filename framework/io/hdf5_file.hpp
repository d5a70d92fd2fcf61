#pragma once
// An HDF5 file opened by every rank of a communicator through MPI-IO (parallel HDF5).
// Big arrays are written as slabs: each rank writes its rows [rowOffset, rowOffset + localRows)
// of a dataset whose first dimension is split over ranks (grid z-planes, particles, vector
// entries). Small arrays and attributes are replicated: every rank passes the same data and
// rank 0's copy is written. Every call here is collective unless it says otherwise.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "framework/core/comm.hpp"

namespace kinema::io {

using Shape = std::vector<std::uint64_t>;

class H5File {
 public:
  enum class Mode { create, append, read };  // create truncates; append opens read-write
  H5File(std::string path, Mode mode, Comm comm);
  ~H5File();
  H5File(const H5File&) = delete;
  H5File& operator=(const H5File&) = delete;
  void close();
  const std::string& path() const { return path_; }
  const Comm& comm() const { return comm_; }

  // Slab of a dataset of shape `globalShape` (rows first); `local` holds this rank's rows
  // (localRows * product of the other dimensions values). Creates intermediate groups.
  void writeSlab(const std::string& dataset, const Shape& globalShape, std::uint64_t rowOffset,
                 std::span<const double> local);
  void writeSlab(const std::string& dataset, const Shape& globalShape, std::uint64_t rowOffset,
                 std::span<const std::int64_t> local);
  // Replicated small arrays (rank 0's values are written).
  void writeArray(const std::string& dataset, const Shape& shape, std::span<const double> data);
  void writeArray(const std::string& dataset, const Shape& shape, std::span<const std::int64_t> data);
  // Attributes on a group or dataset (created if it is a group path that does not exist).
  void writeAttribute(const std::string& object, const std::string& name, double value);
  void writeAttribute(const std::string& object, const std::string& name, std::int64_t value);
  void writeAttribute(const std::string& object, const std::string& name, const std::string& value);
  void createGroup(const std::string& group);
  // Unlinks a group or dataset (no-op if missing). HDF5 does not reclaim the space.
  void remove(const std::string& path);

  // Reads check the file before they read it and throw InputError naming the file and object:
  // the object exists and is a dataset (a group for children()); values are of the class asked
  // for (floating-point, where integers also convert, integer, or string); an attribute holds
  // exactly one value; rows lie inside the dataset and fit in memory. Slab reads are collective
  // and agree on a problem found on one rank, so every rank throws it.
  bool exists(const std::string& path) const;
  Shape shape(const std::string& dataset) const;
  // Names of the members of a group, sorted.
  std::vector<std::string> children(const std::string& group) const;
  std::vector<double> readSlab(const std::string& dataset, std::uint64_t rowOffset, std::uint64_t rows) const;
  std::vector<std::int64_t> readSlabInt(const std::string& dataset, std::uint64_t rowOffset, std::uint64_t rows) const;
  std::vector<double> readAll(const std::string& dataset) const;
  std::vector<std::int64_t> readAllInt(const std::string& dataset) const;
  double readAttributeReal(const std::string& object, const std::string& name) const;
  std::int64_t readAttributeInt(const std::string& object, const std::string& name) const;
  std::string readAttributeString(const std::string& object, const std::string& name) const;
  bool hasAttribute(const std::string& object, const std::string& name) const;

  // Flushes HDF5's buffers to disk (so a crash later keeps what is written).
  void flush();

 private:
  std::string path_;
  Comm comm_;
  std::int64_t file_ = -1;  // hid_t
};

}  // namespace kinema::io
