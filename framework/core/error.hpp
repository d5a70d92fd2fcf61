#pragma once
// Errors with context. Two kinds: `Error` (something failed while running) and `InputError`
// (the user's input is wrong: config, files, command line). Both carry a chain of context lines
// ("while assembling level 2", "in scene poisson.yaml") added as the exception unwinds.
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace kinema {

// Concatenates anything streamable: str("n = ", n, ", h = ", h).
template <class... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message);
  // Adds a line of context ("while ..."); the outermost context is printed first.
  Error& addContext(const std::string& context);
  const std::string& message() const { return message_; }
  // Marks an error that every rank raises at the same point with the same message (a collective
  // check such as a NaN test, a rehearsed failure): the app then prints it once, from rank 0, and
  // the ranks exit together instead of one rank aborting the job.
  Error& onEveryRank() {
    everyRank_ = true;
    return *this;
  }
  bool everyRank() const { return everyRank_; }
  const std::vector<std::string>& contexts() const { return contexts_; }
  const char* what() const noexcept override { return full_.c_str(); }

 private:
  void rebuild();
  std::string message_;
  std::vector<std::string> contexts_;
  std::string full_;
  bool everyRank_ = false;
};

// Bad user input. The app exits with status 2 for these and 1 for other errors.
class InputError : public Error {
 public:
  using Error::Error;
};

[[noreturn]] void throwAt(const char* file, int line, const std::string& message);

}  // namespace kinema

// Internal invariant check: throws kinema::Error naming the source location.
#define KINEMA_CHECK(cond, ...)                                                     \
  do {                                                                              \
    if (!(cond)) ::kinema::throwAt(__FILE__, __LINE__, ::kinema::str(__VA_ARGS__)); \
  } while (0)
