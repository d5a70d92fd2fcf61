#pragma once
// Checkpoints: the state a module needs to continue a run, in one HDF5 file. Written to
// `<path>.tmp` and renamed when complete, so a crash while writing never leaves a broken
// checkpoint under the final name. Vectors are stored in global order, so a run may restart on a
// different number of ranks (each rank reads the rows it owns).
//
// Integrity (format 2): commit() stores a checksum of every dataset and of every root value
// (attribute) in the root attribute "kinema_checksums"; the reader recomputes them when it opens
// the file and refuses one that differs, naming the dataset or value. A dataset's checksum is a
// sum over its elements of a 64-bit mix of (element index, element bytes), so each rank hashes
// its own rows and the sums combine to the same value at any rank count. A format-1 checkpoint
// (written before checksums) is read unchecked: legacy() says so.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "framework/io/hdf5_file.hpp"
#include "framework/la/vector.hpp"

namespace kinema::io {

class CheckpointWriter {
 public:
  CheckpointWriter(std::string path, Comm comm);  // collective
  ~CheckpointWriter();                            // abandons (removes .tmp) unless commit() ran
  void writeVector(const std::string& name, const la::Vector& v);  // owned entries, global order
  void writeReal(const std::string& name, double value);
  void writeInt(const std::string& name, std::int64_t value);
  void writeString(const std::string& name, const std::string& value);
  void writeArray(const std::string& name, std::span<const double> replicated);
  // Closes the file and renames it to its final path (collective).
  void commit();
  H5File& file() { return *file_; }

 private:
  std::string path_, tmp_;
  Comm comm_;
  std::unique_ptr<H5File> file_;
  bool committed_ = false;
};

class CheckpointReader {
 public:
  // A missing file or one that is not a Kinema checkpoint is an InputError naming the path.
  CheckpointReader(std::string path, Comm comm);
  // Reads into `v` the rows it owns; throws an InputError if the stored global size differs.
  void readVector(const std::string& name, la::Vector& v) const;
  double readReal(const std::string& name) const;
  std::int64_t readInt(const std::string& name) const;
  std::string readString(const std::string& name) const;
  std::vector<double> readArray(const std::string& name) const;
  bool has(const std::string& name) const;
  const std::string& path() const { return path_; }
  // True for a checkpoint written before checksums (format 1): its contents were not verified.
  bool legacy() const { return legacy_; }
  // The file itself, for modules that store ragged per-object data as slabs (collective reads).
  const H5File& file() const { return *file_; }

 private:
  std::string path_;
  std::unique_ptr<H5File> file_;
  bool legacy_ = false;
};

}  // namespace kinema::io
