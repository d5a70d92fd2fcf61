#include "modules/avi/event_queue.hpp"

#include "framework/core/error.hpp"

namespace kinema::avi {

void EventQueue::reserve(std::size_t n) {
  slots_.reserve(n);
  heap_.reserve(n);
  free_.reserve(n);
}

void EventQueue::clear() {
  slots_.clear();
  heap_.clear();
  free_.clear();
}

EventQueue::Handle EventQueue::push(double time, const Event& e) { return push(time, takeSeq(), e); }

EventQueue::Handle EventQueue::push(double time, std::uint64_t key, const Event& e) {
  Handle h;
  if (!free_.empty()) {
    h = free_.back();
    free_.pop_back();
  } else {
    h = static_cast<Handle>(slots_.size());
    slots_.emplace_back();
  }
  Slot& s = slots_[h];
  s.time = time;
  s.seq = key;
  s.event = e;
  const auto i = static_cast<std::int32_t>(heap_.size());
  heap_.push_back(h);
  s.pos = i;
  siftUp(i);
  return h;
}

Event EventQueue::pop(double& time) {
  const Handle h = heap_[0];
  time = slots_[h].time;
  const Event e = slots_[h].event;
  remove(h);
  return e;
}

void EventQueue::update(Handle h, double time) {
  Slot& s = slots_[h];
  const double old = s.time;
  s.time = time;
  s.seq = takeSeq();
  // A fresh seq makes the key larger at equal time, so equal or later times sift down.
  if (time < old)
    siftUp(s.pos);
  else
    siftDown(s.pos);
}

void EventQueue::updateTime(Handle h, double time) {
  Slot& s = slots_[h];
  const double old = s.time;
  s.time = time;
  if (time < old)
    siftUp(s.pos);
  else if (time > old)
    siftDown(s.pos);
}

void EventQueue::remove(Handle h) {
  const std::int32_t i = slots_[h].pos;
  const auto last = static_cast<std::int32_t>(heap_.size()) - 1;
  slots_[h].pos = -1;
  free_.push_back(h);
  if (i != last) {
    place(i, heap_[last]);
    heap_.pop_back();
    siftDown(i);
    siftUp(slots_[heap_[i]].pos);
  } else {
    heap_.pop_back();
  }
}

void EventQueue::siftUp(std::int32_t i) {
  const Handle h = heap_[i];
  while (i > 0) {
    const std::int32_t parent = (i - 1) / 2;
    if (!less(h, heap_[parent])) break;
    place(i, heap_[parent]);
    i = parent;
  }
  place(i, h);
}

void EventQueue::siftDown(std::int32_t i) {
  const Handle h = heap_[i];
  const auto n = static_cast<std::int32_t>(heap_.size());
  for (;;) {
    std::int32_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && less(heap_[child + 1], heap_[child])) ++child;
    if (!less(heap_[child], h)) break;
    place(i, heap_[child]);
    i = child;
  }
  place(i, h);
}

bool EventQueue::valid() const {
  const auto n = static_cast<std::int32_t>(heap_.size());
  for (std::int32_t i = 0; i < n; ++i) {
    const Handle h = heap_[i];
    if (h < 0 || h >= static_cast<Handle>(slots_.size()) || slots_[h].pos != i) return false;
    if (i > 0 && less(h, heap_[(i - 1) / 2])) return false;
  }
  std::size_t live = 0;
  for (const Slot& s : slots_) live += s.pos >= 0 ? 1 : 0;
  return live == heap_.size() && live + free_.size() == slots_.size();
}

void EventQueue::save(std::vector<double>& reals, std::vector<std::int64_t>& ints) const {
  ints.push_back(static_cast<std::int64_t>(slots_.size()));
  ints.push_back(static_cast<std::int64_t>(heap_.size()));
  ints.push_back(static_cast<std::int64_t>(free_.size()));
  ints.push_back(static_cast<std::int64_t>(seq_));
  for (const Slot& s : slots_) {
    reals.push_back(s.time);
    ints.push_back(static_cast<std::int64_t>(s.seq));
    ints.push_back(static_cast<std::int64_t>(s.event.kind));
    ints.push_back(s.event.id);
    ints.push_back(s.event.aux);
    ints.push_back(s.pos);
  }
  for (Handle h : heap_) ints.push_back(h);
  for (Handle h : free_) ints.push_back(h);
}

void EventQueue::load(const std::vector<double>& reals, std::size_t& ri,
                      const std::vector<std::int64_t>& ints, std::size_t& ii) {
  KINEMA_CHECK(ii + 4 <= ints.size(), "event queue state truncated");
  const auto ns = static_cast<std::size_t>(ints[ii++]);
  const auto nh = static_cast<std::size_t>(ints[ii++]);
  const auto nf = static_cast<std::size_t>(ints[ii++]);
  seq_ = static_cast<std::uint64_t>(ints[ii++]);
  KINEMA_CHECK(ri + ns <= reals.size() && ii + 5 * ns + nh + nf <= ints.size(),
               "event queue state truncated");
  slots_.assign(ns, Slot{});
  for (Slot& s : slots_) {
    s.time = reals[ri++];
    s.seq = static_cast<std::uint64_t>(ints[ii++]);
    s.event.kind = static_cast<EventKind>(ints[ii++]);
    s.event.id = static_cast<std::int32_t>(ints[ii++]);
    s.event.aux = static_cast<std::int32_t>(ints[ii++]);
    s.pos = static_cast<std::int32_t>(ints[ii++]);
  }
  heap_.resize(nh);
  for (Handle& h : heap_) h = static_cast<Handle>(ints[ii++]);
  free_.resize(nf);
  for (Handle& h : free_) h = static_cast<Handle>(ints[ii++]);
  KINEMA_CHECK(valid(), "event queue state inconsistent");
}

}  // namespace kinema::avi
