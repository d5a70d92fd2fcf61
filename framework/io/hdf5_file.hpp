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

  // Bytes the file holds: its size on disk when opened for reading, else what HDF5 has allocated
  // so far. Every read checks the extent of what it reads against it (checkStorage below).
  std::uint64_t fileBytes() const;

 private:
  std::string path_;
  Comm comm_;
  std::int64_t file_ = -1;  // hid_t
  Mode mode_ = Mode::read;
  std::uint64_t bytesOnDisk_ = 0;  // read mode: the file's size when it was opened
};

// HDF5 identifiers of files, groups, datasets, datatypes and attributes open in this process
// (every one Kinema opens is closed by RAII, on error paths too; the fuzz harnesses check it after
// each input).
std::int64_t openHdf5Objects();

// The checks every HDF5 reader of Kinema makes before it allocates for an object of a file it did
// not just write (H5File's reads, the checksum walk of checkpoint.cpp); they throw InputError
// naming the file and the object (docs/reliability.md, "HDF5 files"). Identifiers are hid_t
// values, kept as int64_t so that this header needs no HDF5 header.
//
// A dataset's values are stored in the file, so its extent (element count x stored element size)
// cannot exceed the file's size in bytes: a damaged file that claims more (HDF5 returns fill
// values for storage that was never written, so a read of a few KB file would fill gigabytes) is
// refused before anything is allocated. Compressed datasets (deflate, which other tools such as
// h5py write; Kinema writes none) are allowed kMaxDeflateRatio times the file's size, deflate's
// largest ratio (zlib's documentation, "Maximum compression factor": 1032:1); any other filter,
// external storage and virtual datasets are refused (Kinema never writes them, and their values
// are not bounded by the file). Returns the element count.
constexpr std::uint64_t kMaxDeflateRatio = 1032;
std::uint64_t checkStorage(std::int64_t dataset, const std::string& object, const std::string& file,
                           std::uint64_t fileBytes);
// The same for an attribute (its values are in the file too): `count` values of the attribute's
// stored type, or of at least one byte each for variable-length strings. Returns the count.
std::uint64_t checkAttributeStorage(std::int64_t attribute, const std::string& subject, const std::string& file,
                                    std::uint64_t fileBytes);
// A number's bits must lie inside its bytes (HDF5 file format specification, "Datatype Message":
// the precision and bit offset of a fixed- or floating-point type, and a float's sign, exponent and
// mantissa fields). HDF5 1.10.8 converts with the stored layout unchecked: a damaged precision or
// field made its bit copy (H5T__bit_copy, converting an integer attribute to a real) read far
// outside its buffer and end the process with SIGBUS (fuzz_checkpoint, 27 Nov 2026). Checked
// before any read that converts; types of other classes pass.
void checkNumericType(std::int64_t type, const std::string& subject, const std::string& file);
// Refuses, before HDF5 opens the file, a file holding a local heap (the name store of HDF5's
// original groups, the kind Kinema writes) whose free list loops: HDF5 1.10 follows such a list
// without end while it loads the heap, which any lookup of a name in that group does (a fuzzed
// 4.7 KB checkpoint kept HDF5 busy for minutes, allocating gigabytes). Reads the whole file once.
// Returns the problem ("" when none).
std::string damagedLocalHeap(const std::string& file);

}  // namespace kinema::io
