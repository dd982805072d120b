// Pacer: spaces a sender's chunks of frames so it offers an exact rate. The
// schedule is absolute (frame n is due at start + n / rate), so rounding and
// the time a chunk takes never accumulate into drift; a sender that falls
// behind (preempted, a slow system call) catches up at full speed, but never
// by more than `max_backlog` seconds' worth: past that the schedule moves on
// and the lost time stays lost (the offered rate then reads below the target,
// which is the truth).
//
//   Pacer p(500'000, steady_clock::now());
//   for (;;) { uint32_t n = p.chunk(); send(n); p.sent(n); p.wait(); }
//
// rate 0 means as fast as possible: wait() returns at once and chunk() is
// kMaxChunk.
#pragma once

#include <chrono>
#include <cstdint>

namespace flowlab::loadgen {

class Pacer {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr uint32_t kMaxChunk = 16384;
  // Chunks of about this long at the target rate (then a sleep). Each chunk
  // of the xdp mode is one test run, which makes and destroys a page pool;
  // with frames still queued at the receiver its release is deferred to a
  // kworker that walks every pending pool: at 0.5 ms (4,000 runs a second
  // for 1 Mpps on 2 threads) those kworkers took 14 % of the 2-core VM, at
  // 2 ms 2 %. 5 ms bursts overflowed the receiving veth's ring more.
  static constexpr double kChunkSeconds = 0.002;

  Pacer(double rate, Clock::time_point start, double max_backlog = 0.05)
      : rate_(rate), start_(start), max_backlog_(max_backlog) {}

  // Frames to send next: ~kChunkSeconds at the rate, 1..kMaxChunk.
  uint32_t chunk() const {
    if (!(rate_ > 0)) return kMaxChunk;
    double n = rate_ * kChunkSeconds;
    return n < 1 ? 1 : n > kMaxChunk ? kMaxChunk : uint32_t(n);
  }
  void sent(uint64_t n) { due_ += n; }
  // When the next frame is due (start + frames scheduled so far / rate).
  Clock::time_point next_due() const {
    return start_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(due_ / rate_));
  }
  // Sleeps until the next frame is due; drops backlog beyond max_backlog.
  void wait();

 private:
  double rate_;
  Clock::time_point start_;
  double max_backlog_;
  double due_ = 0;  // frames scheduled so far (fractional after a skip)
};

}  // namespace flowlab::loadgen
