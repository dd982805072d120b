#include "switch/heap_prefault.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

namespace flowlab::sw {
namespace {

constexpr uintptr_t kPage = 4096;
// Per call: the populate holds the process's mmap lock (read) this long,
// ~0.25 ms, and a malloc that grows the heap meanwhile (brk takes it to
// write) waits that long at most.
constexpr uintptr_t kStep = uintptr_t(1) << 20;

// glibc's record of the heap's end, no system call: brk(0) would take the
// mmap lock to write and wait for a populate under way.
uintptr_t heap_end() { return reinterpret_cast<uintptr_t>(sbrk(0)); }

}  // namespace

HeapPrefaulter::HeapPrefaulter() : seen_end_(heap_end()), thread_([this] { run(); }) {}

HeapPrefaulter::~HeapPrefaulter() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_one();
  thread_.join();
}

HeapPrefaulter& HeapPrefaulter::shared() {
  // Never destroyed: switches may still poke it while the process exits.
  static HeapPrefaulter* const instance = new HeapPrefaulter();
  return *instance;
}

void HeapPrefaulter::poke() {
  const uintptr_t end = heap_end();
  std::lock_guard lock(mu_);
  if (end == seen_end_) return;
  const bool grew = end > seen_end_;
  if (!grew) shrunk_to_ = std::min(shrunk_to_, end);
  seen_end_ = end;
  if (grew) cv_.notify_one();
}

uint64_t HeapPrefaulter::populated_bytes() const {
  std::lock_guard lock(mu_);
  return populated_;
}

void HeapPrefaulter::run() {
  auto page = [](uintptr_t a) { return a & ~(kPage - 1); };
  std::unique_lock lock(mu_);
  uintptr_t done = page(seen_end_);  // populated (or in use before we started) below this
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || page(seen_end_) > done || page(shrunk_to_) < done; });
    if (stop_) return;
    // Where glibc trimmed the heap, what grows again is fresh.
    done = std::min(done, page(shrunk_to_));
    shrunk_to_ = UINTPTR_MAX;
    const uintptr_t end = page(seen_end_);
    if (end > done) {
      lock.unlock();
      // A failure (the heap shrank meanwhile: ENOMEM; a kernel before 5.14:
      // EINVAL) leaves the rest of the range to ordinary page faults.
      uintptr_t at = done;
      for (; at < end; at += kStep)
        if (madvise(std::bit_cast<void*>(at), std::min(kStep, end - at), MADV_POPULATE_WRITE) != 0) break;
      lock.lock();
      populated_ += std::min(at, end) - done;
    }
    done = end;
  }
}

}  // namespace flowlab::sw
