#pragma once
// The life of a run beyond its steps: stopping cleanly on a signal, deciding when to checkpoint,
// and the command that continues a run. See docs/user-guide.md, "Stopping and restarting".
//
// - SIGINT (Ctrl-C), SIGTERM (a batch queue's time limit) and SIGUSR1 (the batch queue's warning
//   signal, e.g. Slurm's `--signal=USR1@300`) do not kill the run: it finishes the current step,
//   writes a checkpoint, marks status.yaml `interrupted`, prints the restart command and exits with
//   kExitInterrupted. A second SIGINT or SIGTERM kills it at once.
// - Under MPI the ranks agree at each step boundary (one allreduce) so that all stop after the
//   same step, whichever rank (or ranks) got the signal.
#include <string>
#include <vector>

#include "framework/core/comm.hpp"
#include "framework/core/config.hpp"
#include "framework/run/scene.hpp"

namespace kinema::run {

// Exit status of `kinema run` stopped by a signal after writing its checkpoint (EX_TEMPFAIL of
// sysexits.h: the run can be continued with the printed command).
constexpr int kExitInterrupted = 75;

// Installs the stop handlers for SIGINT, SIGTERM and SIGUSR1 and restores the previous ones when
// it goes out of scope. One at a time per process.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  // The signal this process received since construction (the first one), 0 if none.
  static int received();
  // Collective: the signal any rank received (the largest number if several), 0 if none.
  static int agreed(const Comm& comm);
};

// "SIGINT", "SIGTERM", "SIGUSR1", or "signal N".
std::string signalName(int signal);

// When to write checkpoints besides the last step and a stop: every `everySteps` steps (0 = not by
// step count) and when `wallSeconds` of wall time passed since the last one (0 = not by time).
// The wall-time interval is stretched to 20 times the duration of the last checkpoint, so that
// checkpoints written by time never take more than 1/21 (under 5 %) of the run.
class CheckpointSchedule {
 public:
  CheckpointSchedule(long everySteps, double wallSeconds, double now);
  // True if the step count or the wall time asks for a checkpoint after `step`.
  bool due(long step, double now) const;
  // Call after writing a checkpoint that started at `started` and ended at `now`.
  void written(double started, double now);
  // The current wall-time interval in seconds (0 = not by time).
  double interval() const;

 private:
  long everySteps_;
  double wallSeconds_;
  double last_;
  double lastCost_ = 0;
};

// Single-quotes `word` for a POSIX shell when it holds anything but [A-Za-z0-9_./:=,+@%-].
std::string shellQuote(const std::string& word);

// The launcher in front of the program when this process runs as one of several MPI ranks:
// the command line of the parent mpiexec / mpirun / srun up to the program (what the user typed,
// e.g. `mpiexec --oversubscribe -n 4`), else `mpiexec -n <ranks>`. Empty for one rank.
std::string launcherPrefix(int ranks);

// The command that continues this run from `checkpoint`, word for word as it was started: the
// launcher, the program, the scene, --output (the directory in use), --backend and every --set in
// order. --restart and --overwrite are replaced; a rehearsed failure (run.fail_at_step) is
// dropped so that the continued run does not fail again. An empty `checkpoint` gives the command
// that starts the run afresh (with --overwrite).
std::string restartCommand(const SceneOptions& options, const Config& config, const std::string& outputDir,
                           const std::string& checkpoint, int ranks);

// The most recently written checkpoint in `<outputDir>/checkpoints`, "" if there is none.
std::string latestCheckpoint(const std::string& outputDir);

}  // namespace kinema::run
