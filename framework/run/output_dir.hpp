#pragma once
// The output directory of a run: created only after the scene validated, never silently
// clobbering an earlier run, with a status.yaml that says whether the run is running, completed,
// failed or interrupted, and how to restart it.
#include <map>
#include <string>

#include "framework/core/comm.hpp"

namespace kinema::run {

class OutputDir {
 public:
  // Collective. `restart`: the directory is expected to hold the run being continued.
  // Refuses (InputError) a directory holding an earlier run unless `overwrite` or `restart`, and
  // with `restart` one that holds no run (nothing is created then).
  OutputDir(std::string path, Comm comm, bool overwrite, bool restart);
  // What the constructor would refuse, without creating or removing anything (empty: fine); for
  // `kinema check`. Not collective: reads the file system of the caller.
  static std::string problemWith(const std::string& path, bool overwrite, bool restart);
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  std::string checkpointDir() const { return path_ + "/checkpoints"; }
  // Rank 0 writes `name` atomically (temporary file, then rename).
  void writeText(const std::string& name, const std::string& text) const;
  // Rank 0 writes status.yaml from key/value pairs (values are quoted).
  void writeStatus(const std::map<std::string, std::string>& fields) const;

 private:
  std::string path_;
  Comm comm_;
};

// The files a run writes, removed by --overwrite (and only these: other files are left alone).
bool isRunOutput(const std::string& fileName);

}  // namespace kinema::run
