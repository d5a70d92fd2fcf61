#include "framework/core/timer.hpp"

#include <iomanip>
#include <map>
#include <sstream>
#include <vector>

namespace kinema {
namespace {
struct Entry {
  double seconds = 0;
  long calls = 0;
};
std::map<std::string, Entry>& table() {
  static std::map<std::string, Entry> t;
  return t;
}
}  // namespace

double wallTime() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

ScopedTimer::ScopedTimer(std::string name)
    : name_(std::move(name)), start_(std::chrono::steady_clock::now()) {}

ScopedTimer::~ScopedTimer() {
  timers::add(name_, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
}

namespace timers {
void add(const std::string& name, double seconds) {
  auto& e = table()[name];
  e.seconds += seconds;
  e.calls += 1;
}
double total(const std::string& name) {
  auto it = table().find(name);
  return it == table().end() ? 0.0 : it->second.seconds;
}
long count(const std::string& name) {
  auto it = table().find(name);
  return it == table().end() ? 0 : it->second.calls;
}
void reset() { table().clear(); }

std::string summary(const Comm& comm) {
  // Rank 0's names define the rows; every rank reports its own value for each (0 if absent).
  std::string names;
  for (const auto& [name, e] : table()) names += name + "\n";
  names = comm.broadcast(names, 0);
  std::istringstream in(names);
  std::ostringstream os;
  os << std::left << std::setw(32) << "timer" << std::right << std::setw(10) << "calls"
     << std::setw(13) << "min [s]" << std::setw(13) << "mean [s]" << std::setw(13) << "max [s]"
     << "\n";
  std::string name;
  while (std::getline(in, name)) {
    if (name.empty()) continue;
    auto it = table().find(name);
    double s = it == table().end() ? 0.0 : it->second.seconds;
    long calls = it == table().end() ? 0 : it->second.calls;
    double mn = comm.min(s), mx = comm.max(s), mean = comm.sum(s) / comm.size();
    os << std::left << std::setw(32) << name << std::right << std::setw(10) << calls << std::fixed
       << std::setprecision(4) << std::setw(13) << mn << std::setw(13) << mean << std::setw(13)
       << mx << "\n";
  }
  return os.str();
}
}  // namespace timers

}  // namespace kinema
