#include "framework/run/lifecycle.hpp"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "framework/core/error.hpp"
#include "framework/core/plugins.hpp"

namespace fs = std::filesystem;

namespace kinema::run {

namespace {

volatile std::sig_atomic_t g_signal = 0;
bool g_installed = false;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGUSR1};
struct sigaction g_previous[3];

extern "C" void onStopSignal(int sig) {
  if (g_signal == 0) g_signal = sig;
}

}  // namespace

StopSignals::StopSignals() {
  if (g_installed) throw Error("StopSignals: the stop handlers are installed already");
  g_signal = 0;
  for (int i = 0; i < 3; ++i) {
    struct sigaction sa {};
    sa.sa_handler = onStopSignal;
    sigemptyset(&sa.sa_mask);
    // SA_RESTART: a signal arriving in a read, write or MPI wait does not break it. SIGINT and
    // SIGTERM fall back to their default action once caught, so a second one ends the run at once.
    sa.sa_flags = SA_RESTART | (kSignals[i] == SIGUSR1 ? 0 : SA_RESETHAND);
    sigaction(kSignals[i], &sa, &g_previous[i]);
  }
  g_installed = true;
}

StopSignals::~StopSignals() {
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &g_previous[i], nullptr);
  g_installed = false;
}

int StopSignals::received() { return static_cast<int>(g_signal); }

int StopSignals::agreed(const Comm& comm) {
  return static_cast<int>(comm.max(static_cast<std::int64_t>(received())));
}

std::string signalName(int signal) {
  switch (signal) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGUSR1: return "SIGUSR1";
    default: return "signal " + std::to_string(signal);
  }
}

CheckpointSchedule::CheckpointSchedule(long everySteps, double wallSeconds, double now)
    : everySteps_(everySteps), wallSeconds_(wallSeconds), last_(now) {}

double CheckpointSchedule::interval() const {
  if (wallSeconds_ <= 0) return 0;
  return std::max(wallSeconds_, 20.0 * lastCost_);
}

bool CheckpointSchedule::due(long step, double now) const {
  if (everySteps_ > 0 && step % everySteps_ == 0) return true;
  return wallSeconds_ > 0 && now - last_ >= interval();
}

void CheckpointSchedule::written(double started, double now) {
  last_ = now;
  lastCost_ = std::max(0.0, now - started);
}

std::string shellQuote(const std::string& word) {
  if (word.empty()) return "''";
  bool plain = true;
  for (char c : word) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    std::string("_./:=,+@%-").find(c) != std::string::npos;
    if (!ok) plain = false;
  }
  if (plain) return word;
  std::string q = "'";
  for (char c : word) {
    if (c == '\'') q += "'\\''";
    else q += c;
  }
  return q + "'";
}

namespace {

std::vector<std::string> parentCommandLine() {
  std::ifstream in("/proc/" + std::to_string(getppid()) + "/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), {});
  std::vector<std::string> args;
  std::string cur;
  for (char c : raw) {
    if (c == '\0') {
      args.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) args.push_back(cur);
  return args;
}

std::string baseName(const std::string& path) { return fs::path(path).filename().string(); }

}  // namespace

std::string launcherPrefix(int ranks) {
  if (ranks <= 1) return "";
  const std::string fallback = "mpiexec -n " + std::to_string(ranks);
  std::error_code ec;
  const std::string self = baseName(fs::read_symlink("/proc/self/exe", ec).string());
  if (ec || self.empty()) return fallback;
  const std::vector<std::string> parent = parentCommandLine();
  if (parent.empty()) return fallback;
  const std::string launcher = baseName(parent[0]);
  bool known = false;
  for (const char* name : {"mpiexec", "mpirun", "orterun", "prterun", "srun"})
    if (launcher.find(name) != std::string::npos) known = true;
  if (!known) return fallback;
  for (std::size_t i = 1; i < parent.size(); ++i) {
    if (baseName(parent[i]) != self) continue;
    std::string prefix;
    for (std::size_t j = 0; j < i; ++j) {
      if (j) prefix += ' ';
      prefix += shellQuote(parent[j]);
    }
    return prefix;
  }
  return fallback;
}

namespace {

std::string keyOf(const std::string& assignment) {
  std::string key = assignment.substr(0, assignment.find('='));
  while (!key.empty() && key.back() == ' ') key.pop_back();
  while (!key.empty() && key.front() == ' ') key.erase(key.begin());
  return key;
}

// Whether the scene file itself (not an override) rehearses a failure.
bool sceneFileFails(const std::string& path) {
  try {
    auto raw = Config::loadFile(path).rawScalar("run.fail_at_step");
    return raw && *raw != "0";
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

std::string restartCommand(const SceneOptions& options, const Config& config, const std::string& outputDir,
                           const std::string& checkpoint, int ranks) {
  std::vector<std::string> words;
  const std::string launcher = launcherPrefix(ranks);
  std::string cmd = launcher.empty() ? "" : launcher + " ";
  words.push_back(options.program.empty() ? "kinema" : options.program);
  words.push_back("run");
  words.push_back(options.path);
  words.push_back("--output");
  words.push_back(outputDir);
  if (options.backend) {
    words.push_back("--backend");
    words.push_back(*options.backend);
  }
  // Every plugin this run loaded, by absolute path, wherever it came from (--plugin-path, the
  // environment, the scene): the command then works from any shell; one loaded again through the
  // environment or the scene is skipped, not an error.
  if (!plugins::loaded().empty()) {
    std::string all;
    for (const auto& f : plugins::loaded()) all += (all.empty() ? "" : ":") + f;
    words.push_back("--plugin-path");
    words.push_back(all);
  }
  for (const auto& s : options.sets) {
    const std::string key = keyOf(s);
    if (key == "run.restart" || key == "output.overwrite" || key == "output.directory" || key == "run.fail_at_step" ||
        key == "run.fail_kind")
      continue;
    words.push_back("--set");
    words.push_back(s);
  }
  if (config.getInt("run.fail_at_step") != 0 && sceneFileFails(options.path)) {
    words.push_back("--set");
    words.push_back("run.fail_at_step=0");
  }
  if (checkpoint.empty()) {
    words.push_back("--overwrite");
  } else {
    words.push_back("--restart");
    words.push_back(checkpoint);
  }
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i) cmd += ' ';
    cmd += shellQuote(words[i]);
  }
  return cmd;
}

std::string latestCheckpoint(const std::string& outputDir) {
  std::error_code ec;
  fs::path best;
  fs::file_time_type bestTime{};
  for (const auto& entry : fs::directory_iterator(fs::path(outputDir) / "checkpoints", ec)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file(ec) || name.rfind("checkpoint_", 0) != 0 || entry.path().extension() != ".h5")
      continue;
    const auto t = entry.last_write_time(ec);
    if (ec) continue;
    if (best.empty() || t > bestTime || (t == bestTime && entry.path() > best)) {
      best = entry.path();
      bestTime = t;
    }
  }
  return best.string();
}

}  // namespace kinema::run
