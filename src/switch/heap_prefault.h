// HeapPrefaulter: faults in the heap's fresh pages on a thread of its own.
//
// A table of a million flows is ~1 GB of small allocations: the agent's thread
// touching each new 4 KB page of the heap for the first time takes a page
// fault, a quarter of its time while a million flows arrive. glibc grows the
// heap M_TOP_PAD (32 MB, cli/main.cpp) at a time, ahead of use; poke() notices
// the growth (sbrk(0), no system call) and this thread populates the new range
// (MADV_POPULATE_WRITE, 1 MB a call) while the agent is still filling the
// pages before it. The agent's faults become a plain memory write; the cost
// moves to a core the agent does not use. Only the heap's own fresh range is
// touched: up to one pad (32 MB) becomes resident before malloc hands it out,
// and only once the heap has grown past its first pad (a switch with a small
// table never gets there). Where the heap does not move (ASan's allocator) it
// does nothing.
//
// The heap is the process's: every switch of a process (a switch host runs a
// lab's hundred) pokes the one instance shared() returns, so a growth is
// populated once, not once per switch.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

namespace flowlab::sw {

class HeapPrefaulter {
 public:
  // The process's instance, made on first use and kept until the process
  // exits (its thread waits, idle, when nothing grows).
  static HeapPrefaulter& shared();

  HeapPrefaulter();
  ~HeapPrefaulter();  // stops and joins the thread
  HeapPrefaulter(const HeapPrefaulter&) = delete;
  HeapPrefaulter& operator=(const HeapPrefaulter&) = delete;

  // Cheap enough to call every few hundred requests: a lock, and a wake-up
  // only when the heap's end has moved up.
  void poke();
  // Bytes this thread has populated so far.
  uint64_t populated_bytes() const;

 private:
  void run();

  mutable std::mutex mu_;
  std::condition_variable cv_;
  // Guarded by mu_:
  uintptr_t seen_end_ = 0;             // the heap's end at the last poke
  uintptr_t shrunk_to_ = UINTPTR_MAX;  // lowest end seen shrinking since the thread last looked
  uint64_t populated_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace flowlab::sw
