// Packet capture on the lab's links: a .pcap per link, from the moment the links
// are up until the case is torn down, and a live stream of one link for
// `flowlab lab capture`.
//
// A link is captured at both of its ends, each read inbound only, into one file:
// end a's inbound is the b -> a direction, end b's the a -> b one, so every frame
// that crosses the link is written once, as the receiving end got it. Reading
// inbound at both ends rather than both directions at one end is what makes this
// hold whoever sends: a switch that transmits with PACKET_QDISC_BYPASS is
// invisible to taps on its own port, never to its peer's receive path.
// Frames are written as the kernel hands them: with offloads on, a GSO super-frame
// (up to 64 KiB) is one record. Timestamps are the kernel's, in nanoseconds.
//
// Files: each end is a TPACKET_V3 ring of its own (packet_ring.h) and the link's
// thread hands each frame of a block to libpcap (pcap_dump, a dumper opened for
// Ethernet with nanosecond timestamps) on a stdio stream with a 1 MiB buffer: the
// kernel's copy into the ring, the record's into the buffer and write()'s into the
// page cache are the copies (docs/performance/capture.md). The file is flushed
// after every round of blocks, so it holds what the kernel handed over. The live
// stream reads through libpcap in immediate mode (a frame at a time, flushed after
// every batch).
//
// Threads, not processes: a packet socket belongs to the namespace it was opened
// in, so each end is opened on a short-lived thread that entered the namespace
// (setns), and the caller's namespace never changes. One thread per link then
// reads its two ends and writes its file. Nothing is forked, so nothing can outlive
// the lab: the sockets close with it, and finish() (also run by the destructor)
// joins every thread and closes every file on every path.
//
// Bounded: with max_bytes, a link's file is cut at half of it: its dumper is
// closed, the file becomes NAME.1.pcap (the one before is dropped: a new dumper
// writes the new NAME.pcap over it) and a new NAME.pcap begins, so the two files
// hold the newest packets and at most max_bytes, each a whole pcap once the case
// ends. Each cut is said on stderr (the run's log).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result.h"

namespace flowlab::lab {

// One link to capture: its name ("s1-s2") and both ends. An end with no
// interface is not captured here (across machines: it is on another machine,
// which captures it); the file then holds the direction the other end receives.
struct CaptureTarget {
  std::string name;
  std::string a_ns, a_if;  // namespace (empty: the caller's) and interface of each end
  std::string b_ns, b_if;
  std::string file;  // the file's stem; empty: the name's (link_file_stem)
};

class LinkCaptures {
 public:
  // Opens both ends of every target (or its one end here) and starts the threads
  // writing DIR/<stem>.pcap (DIR is created). All or nothing: on error, nothing is left open or running.
  // max_bytes 0: unbounded.
  static Result<std::unique_ptr<LinkCaptures>> start(const std::vector<CaptureTarget>& targets,
                                                     const std::string& dir, uint64_t max_bytes);
  LinkCaptures(const LinkCaptures&) = delete;
  LinkCaptures& operator=(const LinkCaptures&) = delete;
  ~LinkCaptures();

  // Reads what the kernel still holds (a few tens of ms), stops every thread and
  // closes every file. Per link: {link, file, previous_file?, packets, bytes,
  // rotations, kernel_drops, timestamps, error?}. Idempotent (later calls return
  // the same record).
  nlohmann::json finish();

  struct Link;  // one link's handles, file and counters (pcap_capture.cpp)

 private:
  LinkCaptures() = default;
  std::vector<std::unique_ptr<Link>> links_;
  std::atomic<uint64_t> stop_at_ns_{0};
  nlohmann::json record_;
  bool finished_ = false;
};

// Streams both ends of `t` to `out` as one pcap (header first, flushed after every
// batch) until should_stop() is true, the reader goes away (EPIPE: ignore SIGPIPE
// first) or the interfaces vanish (the lab went down). An end with no interface is
// left out (across machines: another machine streams it). Closes `out`, also on error.
Status stream_link_capture(const CaptureTarget& t, FILE* out, const std::function<bool()>& should_stop);

}  // namespace flowlab::lab
