#include "framework/run/output_dir.hpp"

#include <filesystem>
#include <fstream>

#include "framework/core/error.hpp"

namespace fs = std::filesystem;

namespace kinema::run {

bool isRunOutput(const std::string& name) {
  return name == "status.yaml" || name == "config.resolved.yaml" || name == "diagnostics.csv" ||
         name == "frames.h5" || name == "frames.xdmf" || name == "checkpoints";
}

std::string OutputDir::problemWith(const std::string& path, bool overwrite, bool restart) {
  std::error_code ec;
  if (fs::exists(path, ec) && !fs::is_directory(path, ec))
    return path + ": output.directory exists and is not a directory";
  if (restart && !fs::exists(fs::path(path) / "status.yaml", ec))
    return path + ": --restart continues a run in its output directory, but this one holds no "
                  "run (no status.yaml); pass --output with the directory of the run that wrote "
                  "the checkpoint";
  if (!restart && !overwrite && fs::exists(fs::path(path) / "status.yaml", ec))
    return path + ": holds the results of an earlier run; pass --overwrite (or set "
                  "output.overwrite: true) to replace them, --output DIR to write elsewhere, "
                  "or --restart CHECKPOINT to continue it";
  return "";
}

OutputDir::OutputDir(std::string path, Comm comm, bool overwrite, bool restart)
    : path_(std::move(path)), comm_(comm) {
  // Rank 0 decides and acts; the verdict is broadcast so every rank throws the same error.
  std::string problem;
  if (comm_.isRoot()) {
    std::error_code ec;
    problem = problemWith(path_, overwrite, restart);
    if (problem.empty() && !restart && fs::exists(fs::path(path_) / "status.yaml", ec)) {
      for (const auto& entry : fs::directory_iterator(path_, ec))  // overwrite: only Kinema's files
        if (isRunOutput(entry.path().filename().string())) fs::remove_all(entry.path(), ec);
    }
    if (problem.empty()) {
      fs::create_directories(fs::path(path_) / "checkpoints", ec);
      if (ec) problem = path_ + ": cannot create the output directory: " + ec.message();
    }
    if (problem.empty() && restart) {
      // A checkpoint_NNNNNN.h5.tmp is one a killed run never finished (docs/reliability.md,
      // "Kill tests"): never a checkpoint, removed so that it cannot be mistaken for one.
      for (const auto& entry : fs::directory_iterator(fs::path(path_) / "checkpoints", ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("checkpoint_", 0) == 0 && name.ends_with(".h5.tmp"))
          fs::remove(entry.path(), ec);
      }
      ec.clear();
    }
  }
  problem = comm_.broadcast(problem);
  if (!problem.empty()) throw InputError(problem);
}

void OutputDir::writeText(const std::string& name, const std::string& text) const {
  if (!comm_.isRoot()) return;
  fs::path target = fs::path(path_) / name;
  fs::path tmp = target;
  tmp += ".tmp";
  {
    std::ofstream out(tmp);
    if (!out) throw Error("cannot write " + tmp.string());
    out << text;
    if (!out) throw Error("cannot write " + tmp.string() + " (disk full?)");
  }
  fs::rename(tmp, target);
}

void OutputDir::writeStatus(const std::map<std::string, std::string>& fields) const {
  std::string text = "# Written by kinema; 'state' is running, completed, failed, interrupted or stopped (a Python Simulation closed before its last step).\n";
  for (const auto& [k, v] : fields) {
    std::string q;
    for (char c : v) {
      if (c == '"' || c == '\\') q += '\\';
      if (c == '\n') {
        q += "\\n";
        continue;
      }
      q += c;
    }
    text += k + ": \"" + q + "\"\n";
  }
  writeText("status.yaml", text);
}

}  // namespace kinema::run
