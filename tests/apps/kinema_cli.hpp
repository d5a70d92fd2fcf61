// Helpers shared by the tests that run the kinema binary: where the binary is, running a command
// and capturing its exit status and output (through popen, or spawned in a clean environment with
// the output in a log file), reading files and status.yaml, and comparing two runs' outputs.
#pragma once

#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "framework/io/hdf5_file.hpp"

namespace kinema_cli {

// The kinema binary: KINEMA_BIN where the test's CMake target defines it, else the one of this
// build tree (tests land in <build>/tests, the CLI in <build>/bin).
inline std::string kinemaBin() {
#ifdef KINEMA_BIN
  return KINEMA_BIN;
#else
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path() / "bin" / "kinema").string();
#endif
}

// `kinema ARGS` as a shell command.
inline std::string kinemaCmd(const std::string& args) { return kinemaBin() + " " + args; }

// mpiexec from the PATH ("" if there is none).
inline std::string mpiexec() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':'))
    if (!dir.empty() && access((dir + "/mpiexec").c_str(), X_OK) == 0) return dir + "/mpiexec";
  return "";
}

#ifdef KINEMA_MPIEXEC
// The build's mpiexec starting `np` ranks, as a command prefix.
inline std::string mpiexec(int np) {
  return std::string(KINEMA_MPIEXEC) + " --allow-run-as-root --oversubscribe -n " + std::to_string(np) + " ";
}
#endif

// `env -i PATH='<this PATH>' `: a clean environment for a nested mpiexec (this test process is
// itself an MPI singleton, and its OMPI_/PMIX_ variables would make mpiexec fail).
inline std::string cleanEnv() {
  const char* path = std::getenv("PATH");
  return "env -i PATH='" + std::string(path ? path : "/usr/bin:/bin") + "' ";
}

struct Result {
  int status = -1;     // exit status; -1 if it could not run (or, from sh, died of a signal)
  std::string output;  // stdout and stderr
};

inline bool has(const Result& r, const std::string& text) { return r.output.find(text) != std::string::npos; }
inline bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

inline std::string readFile(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

inline std::string writeScene(const std::string& dir, const std::string& name, const std::string& text) {
  std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// Runs `cmd` through the shell (popen), stdout and stderr captured together.
inline Result sh(const std::string& cmd) {
  Result r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), p)) r.output += buf.data();
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

// A child process: `sh -c 'exec CMD'` in a clean environment (PATH only: this test process is an
// MPI singleton whose OMPI_/PMIX_ variables would confuse a nested mpiexec), output to `log`.
struct Child {
  pid_t pid = -1;
  std::string log;
};

inline Child start(const std::string& cmd, const std::string& log) {
  const char* path = std::getenv("PATH");
  std::string env = "PATH=" + std::string(path ? path : "/usr/bin:/bin");
  std::string script = "exec " + cmd + " >" + log + " 2>&1";
  char* argv[] = {const_cast<char*>("/bin/sh"), const_cast<char*>("-c"), script.data(), nullptr};
  char* envp[] = {env.data(), nullptr};
  Child c;
  c.log = log;
  if (posix_spawn(&c.pid, "/bin/sh", nullptr, nullptr, argv, envp) != 0) c.pid = -1;
  return c;
}

// The child's exit status, or 128 + the signal that ended it (-1 if it cannot be waited for).
inline int wait(const Child& c) {
  int st = 0;
  if (waitpid(c.pid, &st, 0) != c.pid) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

// Runs `cmd` as a child (see start) to the end: its status and the log's text.
inline Result runCmd(const std::string& cmd, const std::string& log) {
  Child c = start(cmd, log);
  if (c.pid < 0) return {-1, ""};
  const int st = wait(c);
  if (st == -1) return {-1, ""};
  return {st, readFile(log)};
}

// status.yaml as key -> value (the values are written quoted, one per line).
inline std::map<std::string, std::string> readStatus(const std::string& dir) {
  std::map<std::string, std::string> m;
  std::istringstream in(readFile(dir + "/status.yaml"));
  std::string line;
  while (std::getline(in, line)) {
    auto colon = line.find(": \"");
    if (line.empty() || line[0] == '#' || colon == std::string::npos) continue;
    m[line.substr(0, colon)] = line.substr(colon + 3, line.size() - colon - 4);
  }
  return m;
}

inline bool bitwiseEqual(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// Every frame's positions and velocities, and the diagnostics table without its timing columns,
// are the same bits in both runs.
inline void expectSameRun(const std::string& a, const std::string& b) {
  kinema::Comm self = kinema::Comm::self();
  kinema::io::H5File fa(a + "/frames.h5", kinema::io::H5File::Mode::read, self);
  kinema::io::H5File fb(b + "/frames.h5", kinema::io::H5File::Mode::read, self);
  const auto frames = fa.children("/frames");
  ASSERT_EQ(frames, fb.children("/frames"));
  ASSERT_FALSE(frames.empty());
  for (const auto& f : frames)
    for (const char* field : {"positions", "velocity"})
      EXPECT_TRUE(bitwiseEqual(fa.readAll("/frames/" + f + "/" + field), fb.readAll("/frames/" + f + "/" + field)))
          << f << "/" << field;
  auto strip = [](const std::string& csv) {
    // Drops the timing columns (wall_seconds, seconds_*): the only ones that may differ.
    std::istringstream in(csv);
    std::string line, out;
    std::vector<bool> timing;
    while (std::getline(in, line)) {
      std::vector<std::string> cells;
      std::stringstream ss(line);
      std::string cell;
      while (std::getline(ss, cell, ',')) cells.push_back(cell);
      if (timing.empty())
        for (const auto& c : cells) timing.push_back(c.find("seconds") != std::string::npos);
      for (std::size_t i = 0; i < cells.size(); ++i)
        if (i >= timing.size() || !timing[i]) out += cells[i] + ",";
      out += "\n";
    }
    return out;
  };
  const std::string da = strip(readFile(a + "/diagnostics.csv")), db = strip(readFile(b + "/diagnostics.csv"));
  EXPECT_FALSE(da.empty());
  EXPECT_EQ(da, db);
}

}  // namespace kinema_cli
