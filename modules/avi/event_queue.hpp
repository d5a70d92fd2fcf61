#pragma once
// The event queue of the AVI (the paper's Algorithm 1 and README decision 4): an indexed binary
// min-heap keyed (time, seq) with stable handles, so a certificate can be moved (update) or
// dropped (remove) in O(log Q) when a velocity in its support changes (the paper's §6, Alg. 3).
//
// Tie-break (README decision): equal times pop in the order of a 64-bit secondary key. Either
// the queue draws it from a counter (push / update without a key: push order), or the caller
// gives a canonical key (the engine: event class and potential index, so the order of same-time
// events does not depend on certificate bookkeeping). Same-time kicks commute mathematically
// (the paper's Algorithm 1), so any order is valid; a fixed one makes the round-off reproducible.
//
// Storage: a slot table (payload, key, heap position) addressed by handle, a free list of slots
// and the heap array of slot indices. After a warm-up to the largest queue size nothing allocates.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace kinema::avi {

enum class EventKind : std::uint8_t { Force, Penalty, Cert, Script, BroadPhase };

// What an event refers to: Force (id = force index), Penalty (id = pair index, aux = layer l),
// Cert (id = pair index), Script (id = script index, aux = entry k), BroadPhase.
struct Event {
  EventKind kind = EventKind::Force;
  std::int32_t id = 0;
  std::int32_t aux = 0;
};

class EventQueue {
 public:
  using Handle = std::int32_t;
  static constexpr Handle kNone = -1;

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  void reserve(std::size_t n);
  void clear();

  // Adds an event at `time` with the next sequence id; returns its handle (valid until popped or
  // removed; handles of freed slots are reused).
  Handle push(double time, const Event& e);
  // Adds an event with the secondary key `key` (unique among queued events with equal time).
  Handle push(double time, std::uint64_t key, const Event& e);
  // Time / sequence / payload of the smallest key. Undefined on an empty queue.
  double topTime() const { return slots_[heap_[0]].time; }
  std::uint64_t topSeq() const { return slots_[heap_[0]].seq; }
  const Event& top() const { return slots_[heap_[0]].event; }
  Handle topHandle() const { return heap_[0]; }
  // Removes the smallest event and returns it (time in `time`).
  Event pop(double& time);
  // Moves an event to a new time; it gets a fresh sequence id (as a remove + push would).
  void update(Handle h, double time);
  // Moves an event to a new time keeping its key.
  void updateTime(Handle h, double time);
  // Replaces the key without reordering: only for renumberings that keep the relative order of
  // every pair of queued events with equal times (the caller's guarantee).
  void setKeyInPlace(Handle h, std::uint64_t key) { slots_[h].seq = key; }
  void remove(Handle h);

  bool contains(Handle h) const {
    return h >= 0 && h < static_cast<Handle>(slots_.size()) && slots_[h].pos >= 0;
  }
  double time(Handle h) const { return slots_[h].time; }
  std::uint64_t seq(Handle h) const { return slots_[h].seq; }
  const Event& event(Handle h) const { return slots_[h].event; }
  Event& event(Handle h) { return slots_[h].event; }  // payload ids change when pairs are renumbered

  // The sequence counter is shared state of the run (checkpoints restore it; two queues of one
  // engine can share a counter through setSeq / nextSeq).
  std::uint64_t nextSeq() const { return seq_; }
  void setSeq(std::uint64_t s) { seq_ = s; }
  void setSharedCounter(std::uint64_t* counter) { shared_ = counter; }

  // Flat dump / restore of the whole structure (slot table, heap array, free list, counter), so a
  // reloaded queue pops in the same order with the same handles.
  void save(std::vector<double>& reals, std::vector<std::int64_t>& ints) const;
  // Reads what save() wrote starting at the given cursors, which it advances.
  void load(const std::vector<double>& reals, std::size_t& ri, const std::vector<std::int64_t>& ints,
            std::size_t& ii);

  // Heap property and slot / position consistency (tests).
  bool valid() const;

  // The least bound(time, event) over the queued events, for a bound with bound(t, e) >= t, and
  // at most `limit`: a walk of the heap that skips every subtree whose root time is >= the best
  // value found so far (its events cannot lower it). `stack` is the caller's scratch space.
  template <class Bound>
  double minBound(Bound bound, double limit, std::vector<std::int32_t>& stack) const {
    double best = limit;
    stack.clear();
    if (!heap_.empty()) stack.push_back(0);
    const auto n = static_cast<std::int32_t>(heap_.size());
    while (!stack.empty()) {
      const std::int32_t i = stack.back();
      stack.pop_back();
      const Slot& s = slots_[heap_[i]];
      if (!(s.time < best)) continue;
      best = std::min(best, bound(s.time, s.event));
      for (std::int32_t c = 2 * i + 1; c <= 2 * i + 2 && c < n; ++c) stack.push_back(c);
    }
    return best;
  }

 private:
  struct Slot {
    double time = 0.0;
    std::uint64_t seq = 0;
    Event event;
    std::int32_t pos = -1;  // index in heap_, -1 when free
  };
  bool less(Handle a, Handle b) const {
    const Slot& x = slots_[a];
    const Slot& y = slots_[b];
    return x.time < y.time || (x.time == y.time && x.seq < y.seq);
  }
  std::uint64_t takeSeq() { return shared_ ? (*shared_)++ : seq_++; }
  void siftUp(std::int32_t i);
  void siftDown(std::int32_t i);
  void place(std::int32_t i, Handle h) {
    heap_[i] = h;
    slots_[h].pos = i;
  }

  std::vector<Slot> slots_;
  std::vector<Handle> heap_;
  std::vector<Handle> free_;
  std::uint64_t seq_ = 0;
  std::uint64_t* shared_ = nullptr;
};

}  // namespace kinema::avi
