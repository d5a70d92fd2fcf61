#pragma once
// The diagnostics table of a run: one row per step or per solve (energy, iterations, residuals,
// errors, timings, ...). Rows are appended to `<dir>/diagnostics.csv` on rank 0 as they come and
// flushed at once, so a run that dies keeps every finished row; writeTo() stores the table in an
// HDF5 file as a 2D dataset (rows x columns) with the column names as an attribute.
// Every rank calls addRow with the same values (reduce first).
#include <string>
#include <utility>
#include <vector>

#include "framework/io/hdf5_file.hpp"

namespace kinema::io {

class Diagnostics {
 public:
  using Row = std::vector<std::pair<std::string, double>>;
  // With append, rows already in the CSV are read back (a restarted run continues the table);
  // `keepRows` (>= 0) drops rows after the checkpoint being restarted from.
  Diagnostics(std::string csvPath, Comm comm, bool append = false, long keepRows = -1);
  ~Diagnostics();

  // The first row fixes the columns; every later row must have the same names in the same order.
  void addRow(const Row& row);
  const std::vector<std::string>& columns() const { return columns_; }
  const std::vector<std::vector<double>>& rows() const { return rows_; }
  // Column values by name (throws if unknown).
  std::vector<double> column(const std::string& name) const;
  // Collective: writes `dataset` (rows x columns) with attribute "columns" (comma separated).
  void writeTo(H5File& file, const std::string& dataset = "/diagnostics") const;
  const std::string& csvPath() const { return csvPath_; }

 private:
  std::string csvPath_;
  Comm comm_;
  std::vector<std::string> columns_;
  std::vector<std::vector<double>> rows_;
  void* csv_ = nullptr;  // FILE* on rank 0
};

}  // namespace kinema::io
