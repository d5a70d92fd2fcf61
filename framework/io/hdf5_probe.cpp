#include "framework/io/hdf5_probe.hpp"

#include <hdf5.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "framework/core/error.hpp"
#include "framework/core/log.hpp"

// Set by the sanitizer runtimes (ASan, UBSan) when linked in; null otherwise. The child replaces
// the death callback (libFuzzer's, which would save the input as a crash of the parent) by one
// that only ends the child with kSanitizerReport.
extern "C" void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

namespace kinema::io {

namespace {

// Exit statuses of the child.
constexpr int kWalked = 0;
constexpr int kSanitizerReport = 86;  // a sanitizer reported a memory error inside HDF5
constexpr int kSetupFailed = 87;      // the child could not start its walk (no verdict)

// Reading one value, or one attribute, never needs more than this (a larger claim is left to the
// reader of this process, which refuses it against the file's size).
constexpr std::uint64_t kMaxReadBytes = std::uint64_t{1} << 26;

void onSanitizerDeath() { ::_exit(kSanitizerReport); }

struct Walk {
  std::uint64_t fileBytes = 0;
};

// Closes an HDF5 identifier of the child (errors are part of the walk, not reported).
struct Id {
  hid_t id;
  herr_t (*close)(hid_t);
  ~Id() {
    if (id >= 0) close(id);
  }
};

// Reads `count` x `size` bytes with `read` when that is a plausible amount; the file's own type
// is the memory type, so HDF5 converts nothing (variable-length values are not read).
template <class Read>
void readRaw(hid_t type, std::uint64_t count, std::uint64_t limit, Read read) {
  const std::size_t size = H5Tget_size(type);
  const H5T_class_t cls = H5Tget_class(type);
  if (size == 0 || count == 0 || cls == H5T_VLEN || H5Tis_variable_str(type) > 0) return;
  if (count > limit / size) return;
  std::vector<unsigned char> buf(static_cast<std::size_t>(count) * size);
  read(buf.data());
}

herr_t visitAttribute(hid_t object, const char* name, const H5A_info_t*, void* data) {
  const Walk& walk = *static_cast<Walk*>(data);
  Id attr{H5Aopen(object, name, H5P_DEFAULT), H5Aclose};
  if (attr.id < 0) return 0;
  Id space{H5Aget_space(attr.id), H5Sclose};
  Id type{H5Aget_type(attr.id), H5Tclose};
  if (space.id < 0 || type.id < 0) return 0;
  const hssize_t n = H5Sget_simple_extent_npoints(space.id);
  if (n <= 0) return 0;
  readRaw(type.id, static_cast<std::uint64_t>(n), std::min(walk.fileBytes, kMaxReadBytes),
          [&](void* buf) { H5Aread(attr.id, type.id, buf); });
  return 0;
}

void visitAttributes(hid_t object, Walk& walk) {
  hsize_t idx = 0;
  H5Aiterate2(object, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, visitAttribute, &walk);
}

// A dataset's layout, filters and chunk index, and its first value.
void visitDataset(hid_t dataset) {
  Id space{H5Dget_space(dataset), H5Sclose};
  Id type{H5Dget_type(dataset), H5Tclose};
  Id dcpl{H5Dget_create_plist(dataset), H5Pclose};
  if (space.id < 0 || type.id < 0 || dcpl.id < 0) return;
  const H5D_layout_t layout = H5Pget_layout(dcpl.id);
  (void)H5Pget_nfilters(dcpl.id);  // decodes the filter pipeline message
  (void)H5Dget_storage_size(dataset);  // walks a chunked dataset's index
  // Values outside the file (external storage, virtual datasets) are not this file's metadata.
  if (layout == H5D_VIRTUAL || layout < 0 || H5Pget_external_count(dcpl.id) != 0) return;
  const int rank = H5Sget_simple_extent_ndims(space.id);
  if (rank < 0 || rank > H5S_MAX_RANK || H5Sget_simple_extent_npoints(space.id) <= 0) return;
  if (rank > 0) {
    std::vector<hsize_t> start(static_cast<std::size_t>(rank), 0), count(static_cast<std::size_t>(rank), 1);
    if (H5Sselect_hyperslab(space.id, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) < 0) return;
  }
  Id memory{H5Screate(H5S_SCALAR), H5Sclose};
  if (memory.id < 0) return;
  readRaw(type.id, 1, kMaxReadBytes,
          [&](void* buf) { H5Dread(dataset, type.id, memory.id, space.id, H5P_DEFAULT, buf); });
}

void visitObject(hid_t object, Walk& walk) {
  H5O_info_t info;
  H5Oget_info2(object, &info, H5O_INFO_ALL);  // the whole header, its size and attribute count
  visitAttributes(object, walk);
  if (H5Iget_type(object) == H5I_DATASET) visitDataset(object);
}

herr_t visitLink(hid_t group, const char* name, const H5L_info_t* info, void* data) {
  // Soft and external links are not followed (an external link names another file).
  if (info == nullptr || info->type != H5L_TYPE_HARD) return 0;
  Id object{H5Oopen(group, name, H5P_DEFAULT), H5Oclose};
  if (object.id >= 0) visitObject(object.id, *static_cast<Walk*>(data));
  return 0;
}

// The child: reads the metadata of `file` and ends. Only _exit leaves it (no atexit handler of
// the parent, HDF5's or MPI's, runs here).
[[noreturn]] void childWalk(const std::string& file, std::uint64_t fileBytes) {
  // A crash must end the child by its signal: the parent's handlers (Open MPI's trace printer,
  // libFuzzer's and the sanitizers' reporters, Kinema's interrupt flag) are not for the child.
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGTRAP, SIGINT, SIGTERM, SIGHUP})
    ::signal(sig, SIG_DFL);
  if (&__sanitizer_set_death_callback != nullptr) __sanitizer_set_death_callback(onSanitizerDeath);
  // No limit on the child's memory: it meets what this process would (a limit made HDF5 1.10.8,
  // which uses some allocations unchecked, crash in the child on files it reads cleanly here).
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0 || H5Pset_fapl_sec2(fapl) < 0) ::_exit(kSetupFailed);
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, fapl);
  if (f < 0) ::_exit(kWalked);  // HDF5 refused the file cleanly: this process will too
  Walk walk{fileBytes};
  Id root{H5Gopen2(f, "/", H5P_DEFAULT), H5Gclose};
  if (root.id >= 0) {
    visitObject(root.id, walk);
    H5Lvisit(root.id, H5_INDEX_NAME, H5_ITER_NATIVE, visitLink, &walk);
  }
  ::_exit(kWalked);
}

std::string signalName(int sig) {
  const char* s = ::strsignal(sig);
  return str("signal ", sig, s ? str(" (", s, ")") : std::string());
}

double parseTimeout(const char* text) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || errno != 0 || !std::isfinite(v) || v < 1 || v > 86400)
    throw InputError(str("KINEMA_HDF5_CHECK_TIMEOUT='", text,
                         "': expected seconds in [1, 86400] (the time a child process may take to read "
                         "an HDF5 file's metadata, docs/reliability.md)"));
  return v;
}

}  // namespace

Hdf5ProbeSettings hdf5ProbeSettingsFromEnv() {
  Hdf5ProbeSettings s;
  if (const char* v = std::getenv("KINEMA_HDF5_CHECK")) {
    const std::string text = v;
    if (text == "off" || text == "0") s.enabled = false;
    else if (text == "on" || text == "1" || text.empty()) s.enabled = true;
    else
      throw InputError(str("KINEMA_HDF5_CHECK='", text,
                           "': expected on or off (read each HDF5 input file's metadata in a child "
                           "process first, docs/reliability.md)"));
  }
  if (const char* v = std::getenv("KINEMA_HDF5_CHECK_TIMEOUT")) s.timeoutSeconds = parseTimeout(v);
  return s;
}

namespace {

// How one child ended.
struct ChildEnd {
  bool started = false;   // a child ran (no verdict otherwise)
  bool finished = false;  // it ended within the timeout (else it was killed)
  bool reaped = false;    // its status is known
  int status = 0;
  std::string state;      // of a child killed at the timeout: what /proc said of it then
};

// "running", "sleeping in futex_wait_queue", ...: a hung child's scheduler state and the kernel
// function it waits in (/proc/PID/stat and wchan), for the warning; "" when /proc is not there.
std::string processState(pid_t pid) {
  std::ifstream stat(str("/proc/", pid, "/stat"));
  std::string line;
  if (!std::getline(stat, line)) return {};
  const std::size_t close = line.rfind(')');
  if (close == std::string::npos || close + 2 >= line.size()) return {};
  const char code = line[close + 2];
  std::string state = code == 'R' ? "running" : code == 'S' ? "sleeping" : code == 'D' ? "in uninterruptible wait"
                    : code == 'T' || code == 't' ? "stopped" : str("in state ", code);
  std::ifstream wchan(str("/proc/", pid, "/wchan"));
  std::string where;
  if (std::getline(wchan, where) && !where.empty() && where != "0") state += " in " + where;
  return state;
}

// Forks one child that walks `file` (childWalk) and waits for it at most the timeout.
ChildEnd runChild(const std::string& file, std::uint64_t fileBytes, const Hdf5ProbeSettings& settings,
                  int attempt) {
  ChildEnd end;
  // HDF5 is initialised here, so that the child does not: parallel HDF5's initialisation calls MPI
  // (it attaches a callback to MPI_COMM_SELF), and the child makes no MPI call.
  if (H5open() < 0) return end;
  // The child holds the write end of a pipe: its end (by any cause) closes it, which wakes the
  // poll below at once.
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    log::warn("cannot start a process to check ", file, " (pipe: ", std::strerror(errno),
              "); reading it without the check");
    return end;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    log::warn("cannot start a process to check ", file, " (fork: ", std::strerror(err),
              "); reading it without the check");
    return end;
  }
  if (pid == 0) {
    ::close(fds[0]);
    if (settings.beforeWalk != nullptr) settings.beforeWalk(attempt);
    childWalk(file, fileBytes);
  }
  end.started = true;
  ::close(fds[1]);
  timespec t0{};
  ::clock_gettime(CLOCK_MONOTONIC, &t0);
  while (!end.finished) {
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    const double left = settings.timeoutSeconds - (static_cast<double>(now.tv_sec - t0.tv_sec) +
                                                   1e-9 * static_cast<double>(now.tv_nsec - t0.tv_nsec));
    if (left <= 0) break;
    pollfd p{fds[0], POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::ceil(std::min(left, 3600.0) * 1000)));
    if (r > 0) {
      char c;
      end.finished = ::read(fds[0], &c, 1) <= 0;  // the child writes nothing: end of file = it ended
    } else if (r < 0 && errno != EINTR) {
      break;
    }
  }
  ::close(fds[0]);
  if (!end.finished) {
    end.state = processState(pid);
    ::kill(pid, SIGKILL);
  }
  pid_t r;
  while ((r = ::waitpid(pid, &end.status, 0)) < 0 && errno == EINTR) {
  }
  end.reaped = r == pid;  // else reaped elsewhere (a SIGCHLD handler): no verdict
  return end;
}

// The verdict on a child that finished: "" when it walked the file (or gave no verdict).
std::string verdict(const std::string& file, int status) {
  const std::string prefix = str("HDF5: ", file, " is damaged: the HDF5 library ", H5_VERS_MAJOR, ".",
                                 H5_VERS_MINOR, ".", H5_VERS_RELEASE, " ");
  const std::string suffix =
      " while a child process read the file's metadata, so this process does not open it "
      "(docs/reliability.md, \"HDF5 files\")";
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    // Interrupted with this process (Ctrl-C, a job's end): no verdict on the file.
    if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) return {};
    if (sig == SIGKILL) return prefix + "was killed (out of memory?)" + suffix;
    return prefix + "crashed with " + signalName(sig) + suffix;
  }
  if (WIFEXITED(status)) {
    const int code = WEXITSTATUS(status);
    if (code == kWalked || code == kSetupFailed) return {};
    if (code == kSanitizerReport) return prefix + "made a memory error (the sanitizer's report is above)" + suffix;
    return prefix + str("ended with status ", code) + suffix;
  }
  return {};
}

}  // namespace

std::string probeHdf5InChild(const std::string& file, const Hdf5ProbeSettings& settings) {
  if (!settings.enabled) return {};
  std::error_code ec;
  const std::uint64_t fileBytes = std::filesystem::file_size(file, ec);
  if (ec) return {};  // the open that follows reports it
  ChildEnd end = runChild(file, fileBytes, settings, 0);
  int tries = 1;
  if (end.started && !end.finished) {
    // A child that hangs may be held by a lock that another thread of this process (an MPI
    // progress thread, a sanitizer runtime's allocator) held when it forked, which the child
    // then never sees released; a second child, forked later, is not. A file that makes HDF5
    // loop hangs both.
    log::warn("the check of ", file, " in a child process did not finish within ", settings.timeoutSeconds, " s",
              end.state.empty() ? std::string() : " (the child was " + end.state + ")",
              "; checking it once more in a new child process (docs/reliability.md)");
    ChildEnd second = runChild(file, fileBytes, settings, 1);
    if (second.started) {  // else the first child's timeout stands
      end = std::move(second);
      tries = 2;
    }
  }
  if (!end.started) return {};
  if (!end.finished)
    return str("HDF5: ", file, " is damaged or too slow to read: reading its metadata (links, object "
               "headers, attributes, dataset layouts) in a child process did not finish within ",
               settings.timeoutSeconds, " s", tries == 2 ? ", twice" : "", " (a damaged file can make HDF5 loop "
               "without end); on a slow file system raise KINEMA_HDF5_CHECK_TIMEOUT (docs/reliability.md)");
  if (!end.reaped) return {};
  return verdict(file, end.status);
}

}  // namespace kinema::io
