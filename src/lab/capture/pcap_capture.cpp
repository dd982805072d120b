// libpcap captures of the lab's links (see pcap_capture.h for the design).
#include "lab/capture/pcap_capture.h"

#include <fcntl.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <thread>
#include <utility>

#include "core/clock.h"
#include "lab/capture/link_select.h"
#include "lab/capture/packet_ring.h"
#include "lab/host/netns.h"

namespace flowlab::lab {

namespace fs = std::filesystem;

// Not an anonymous namespace: DumpFilePair (and the pcap handle it holds) is a field of
// LinkCaptures::Link, and a type of internal linkage in a member is a warning once a
// unity batch includes this file.
namespace capture_detail {

constexpr int kSnaplen = 262144;  // a whole GSO super-frame (the files' header says so)
constexpr int kStreamTimeoutMs = 20;
constexpr int kStreamRingBytes = 4 << 20;  // per end, the live stream's (libpcap's ring)
// After finish(): longer than a block's timeout, so every block is handed over.
constexpr uint64_t kDrainNs = 4 * PacketRing::kBlockTimeoutMs * 1'000'000ull;
// A file's bytes as libpcap writes them: its header, then per record a header and the frame.
constexpr uint64_t kPcapHeaderBytes = 24;
constexpr uint64_t kRecordHeaderBytes = 16;
constexpr size_t kFileBufferBytes = 1 << 20;  // per link: a ring block's worth of records per write()

struct PcapClose {
  void operator()(pcap_t* p) const { pcap_close(p); }
};
using PcapPtr = std::unique_ptr<pcap_t, PcapClose>;

// The live stream's end: libpcap in immediate mode (every frame handed over at once).
Result<PcapPtr> open_here(const std::string& where, const std::string& ifname) {
  char err[PCAP_ERRBUF_SIZE] = "";
  PcapPtr p(pcap_create(ifname.c_str(), err));
  if (!p) return fail("capture on {}: {}", where, err);
  pcap_set_snaplen(p.get(), kSnaplen);
  pcap_set_promisc(p.get(), 0);
  pcap_set_timeout(p.get(), kStreamTimeoutMs);
  pcap_set_buffer_size(p.get(), kStreamRingBytes);
  pcap_set_immediate_mode(p.get(), 1);
  (void)pcap_set_tstamp_precision(p.get(), PCAP_TSTAMP_PRECISION_NANO);  // microseconds if refused
  int rc = pcap_activate(p.get());
  if (rc < 0) {
    std::string msg = pcap_geterr(p.get());
    return fail("capture on {}: {}", where, msg.empty() ? pcap_statustostr(rc) : msg);
  }
  if (pcap_setdirection(p.get(), PCAP_D_IN) != 0)
    return fail("capture on {}: {}", where, pcap_geterr(p.get()));
  // The same in the kernel, so an outbound frame is not copied into the ring only
  // for libpcap to skip it: a socket filter on the packet type, attached past
  // libpcap (its own `inbound` filter would make it re-run the filter in user space
  // over the ring's first blocks, where the packet type reads as 0: frames lost).
  FLOWLAB_TRY(drop_outgoing(pcap_fileno(p.get()), where));
  if (pcap_setnonblock(p.get(), 1, err) != 0) return fail("capture on {}: {}", where, err);
  return p;
}

// Runs open(where, ifname) inside namespace `ns` (/run/netns/NS) on a thread of its
// own: the socket it makes stays in that namespace, the caller's thread never leaves its own.
template <typename T, typename Open>
Result<T> in_namespace(const std::string& ns, const std::string& ifname, Open open_fn) {
  std::string where = ns.empty() ? ifname : ns + "/" + ifname;
  if (ns.empty()) return open_fn(where, ifname);
  Result<T> out = fail("capture on {}: not opened", where);
  Status entered = run_in_netns(ns, [&] { out = open_fn(where, ifname); });
  if (!entered.ok()) return fail("capture on {}: {}", where, entered.error().message);
  return out;
}

Result<PcapPtr> open_end(const std::string& ns, const std::string& ifname) {
  return in_namespace<PcapPtr>(
      ns, ifname, [](const std::string& where, const std::string& i) { return open_here(where, i); });
}

// A link's two files, written by libpcap: a dumper for an Ethernet link (the
// lab's links are veth pairs and the like) with nanosecond timestamps, on a stdio
// stream with a buffer of kFileBufferBytes, so a record costs one copy into the
// buffer and the file gets the buffer in large write()s.
//
// Both files stay open; each dumper writes through a dup of the current file's
// descriptor. A cut closes the dumper, cuts the file to its length, swaps the two
// files' names (RENAME_EXCHANGE) and opens a new dumper at the start of the older
// half, which it writes over: its pages are reused, none freed or allocated. Until
// the next cut or the close, past its newest record the current file still holds
// older bytes. Removing the older half and starting a new file instead cost the
// capture twice the CPU per byte at 10 Gbit/s; renaming over it has ext4 write the
// renamed file out at once (docs/performance/capture.md).
class DumpFilePair {
 public:
  DumpFilePair() = default;
  DumpFilePair(const DumpFilePair&) = delete;
  DumpFilePair& operator=(const DumpFilePair&) = delete;
  ~DumpFilePair() { (void)close(0); }

  // A new current file PATH (truncated), no previous one (PREVIOUS removed).
  Status open(const std::string& path, const std::string& previous) {
    path_ = path;
    previous_ = previous;
    dead_.reset(pcap_open_dead_with_tstamp_precision(DLT_EN10MB, kSnaplen, PCAP_TSTAMP_PRECISION_NANO));
    if (!dead_) return fail("{}: no memory for libpcap", path_);
    buffer_ = std::make_unique<char[]>(kFileBufferBytes);
    std::error_code ec;
    fs::remove(previous_, ec);
    cur_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (cur_ < 0) return fail("{}: {}", path_, std::strerror(errno));
    return start_dumper();
  }
  // The current file, `length` bytes long, becomes the previous one (the one
  // before is dropped) and a new one begins.
  Status cut(uint64_t length) {
    Status ended = end_dumper(length);
    if (prev_ >= 0 && renameat2(AT_FDCWD, path_.c_str(), AT_FDCWD, previous_.c_str(), RENAME_EXCHANGE) == 0) {
      std::swap(cur_, prev_);
      if (lseek(cur_, 0, SEEK_SET) != 0) return fail("rewinding {}: {}", path_, std::strerror(errno));
    } else {  // the first cut (or a file system without RENAME_EXCHANGE): a new current file
      if (prev_ >= 0) ::close(prev_);
      prev_ = std::exchange(cur_, -1);
      if (std::rename(path_.c_str(), previous_.c_str()) != 0)
        return fail("renaming {}: {}", path_, std::strerror(errno));
      cur_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (cur_ < 0) return fail("{}: {}", path_, std::strerror(errno));
    }
    FLOWLAB_TRY(start_dumper());
    return ended;
  }
  // One record; an error shows at the next flush().
  void write(const pcap_pkthdr& h, const uint8_t* data) {
    if (dumper_) pcap_dump(reinterpret_cast<u_char*>(dumper_), &h, data);
  }
  // What is buffered into the file; an error of this write or of an earlier one.
  Status flush() {
    if (!dumper_) return fail("writing {}: not open", path_);
    if (pcap_dump_flush(dumper_) != 0 || std::ferror(pcap_dump_file(dumper_)))
      return fail("writing {}: {}", path_, std::strerror(errno));
    return ok_status();
  }
  // Writes what is left; the current file ends at `length` bytes (0: left as it is).
  Status close(uint64_t length) {
    Status ended = end_dumper(length);
    if (cur_ >= 0) ::close(cur_);
    if (prev_ >= 0) ::close(prev_);
    cur_ = prev_ = -1;
    return ended;
  }
  // Removes both files (a capture that failed to start).
  void remove_files() {
    (void)close(0);
    std::error_code ec;
    fs::remove(path_, ec);
    fs::remove(previous_, ec);
  }
  bool is_open() const { return dumper_ != nullptr; }

 private:
  // A dumper on the current file from where its descriptor stands (libpcap writes the header there).
  Status start_dumper() {
    int fd = fcntl(cur_, F_DUPFD_CLOEXEC, 0);
    FILE* f = fd < 0 ? nullptr : fdopen(fd, "wb");
    if (!f) {
      if (fd >= 0) ::close(fd);
      return fail("{}: {}", path_, std::strerror(errno));
    }
    (void)std::setvbuf(f, buffer_.get(), _IOFBF, kFileBufferBytes);  // stdio's own if refused
    // On failure libpcap has closed the stream (its header could not be written):
    // the link type is Ethernet, which pcap files always carry.
    dumper_ = pcap_dump_fopen(dead_.get(), f);
    if (!dumper_) return fail("{}: {}", path_, pcap_geterr(dead_.get()));
    return ok_status();
  }
  // Flushes and closes the dumper (the file stays open) and cuts the file to `length` bytes (0: not).
  Status end_dumper(uint64_t length) {
    if (!dumper_) return ok_status();
    Status flushed = flush();
    pcap_dump_close(dumper_);  // nothing left to write: closing cannot fail on data
    dumper_ = nullptr;
    if (length && ftruncate(cur_, off_t(length)) != 0 && flushed.ok())
      return fail("cutting {}: {}", path_, std::strerror(errno));
    return flushed;
  }
  std::string path_, previous_;
  int cur_ = -1, prev_ = -1;
  PcapPtr dead_;                    // no interface: what the files' headers say
  std::unique_ptr<char[]> buffer_;  // the streams' buffer, kept across cuts
  pcap_dumper_t* dumper_ = nullptr;
};

}  // namespace capture_detail

using namespace capture_detail;

struct LinkCaptures::Link {
  CaptureTarget target;
  std::string path, previous_path;
  std::vector<PacketRing> ends;  // one: the other end is on another machine
  DumpFilePair file;
  uint64_t half = 0;  // cut the file past this many bytes; 0: never
  uint64_t file_bytes = 0, packets = 0, bytes = 0, rotations = 0;
  uint64_t last_said_ns = 0;
  double cpu_seconds = 0;  // the thread's own CPU time (the kernel's copy into the rings is not in it)
  std::string error;
  std::thread thread;
  std::vector<uint8_t> tagged;  // a frame with the VLAN tag the kernel took out put back

  ~Link() {
    if (thread.joinable()) thread.join();
  }

  void note(const Status& st) {
    if (!st.ok() && error.empty()) error = st.error().message;
  }

  void rotate() {
    note(file.cut(file_bytes));
    file_bytes = kPcapHeaderBytes;
    ++rotations;
    // Said in the log at the first cut, then at most once a second (a fast link cuts often).
    uint64_t now = monotonic_ns();
    if (rotations == 1 || now - last_said_ns >= 1'000'000'000) {
      last_said_ns = now;
      std::fprintf(stderr,
                   "lab: capture %s: cut %llu time(s) at %.3g MB (--capture-max %.3g MB): %s holds the half "
                   "before the current %s, the oldest packets were dropped\n",
                   target.name.c_str(), static_cast<unsigned long long>(rotations), double(half) / 1e6,
                   double(half) * 2 / 1e6, fs::path(previous_path).filename().c_str(),
                   fs::path(path).filename().c_str());
    }
  }

  // One block of one end into the file, a record per frame; then the block goes back
  // to the kernel. True if it held a frame.
  bool write_block(PacketRing& ring) {
    bool any = false;
    RingFrame f;
    while (ring.next_frame(&f)) {
      any = true;
      uint32_t tag = f.has_vlan && f.caplen >= 12 ? 4 : 0;  // the tag back in the frame, as on the wire
      pcap_pkthdr h{};
      h.ts.tv_sec = f.sec;
      h.ts.tv_usec = f.nsec;  // nanoseconds: the dumper was opened with that precision
      h.caplen = std::min(f.caplen + tag, uint32_t(kSnaplen));
      h.len = f.len + tag;
      uint64_t rec = kRecordHeaderBytes + h.caplen;
      if (half && file_bytes + rec > half && file_bytes > kPcapHeaderBytes) rotate();
      ++packets;
      bytes += h.len;
      if (!file.is_open()) continue;
      const uint8_t* data = f.data;
      if (tag) {
        tagged.resize(f.caplen + tag);
        std::memcpy(tagged.data(), f.data, 12);  // the MAC addresses, the tag, the rest
        tagged[12] = uint8_t(f.vlan_tpid >> 8);
        tagged[13] = uint8_t(f.vlan_tpid);
        tagged[14] = uint8_t(f.vlan_tci >> 8);
        tagged[15] = uint8_t(f.vlan_tci);
        std::memcpy(tagged.data() + 16, f.data + 12, f.caplen - 12);
        data = tagged.data();
      }
      file.write(h, data);
      file_bytes += rec;
    }
    ring.release_block();
    return any;
  }

  void run(const std::atomic<uint64_t>& stop_at) {
    pollfd fds[2];
    auto n = nfds_t(ends.size());
    for (nfds_t k = 0; k < n; ++k) fds[k] = {ends[k].fd(), POLLIN, 0};
    while (true) {
      uint64_t s = stop_at.load(std::memory_order_acquire);
      if (s && monotonic_ns() >= s) break;
      (void)poll(fds, n, 10);
      bool wrote = false;
      for (auto& e : ends)
        while (e.next_block()) wrote |= write_block(e);
      // The file holds what the kernel handed over, a block's timeout after the frames came.
      if (wrote && file.is_open()) note(file.flush());
    }
    timespec cpu{};
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0)
      cpu_seconds = double(cpu.tv_sec) + double(cpu.tv_nsec) / 1e9;
  }

  nlohmann::json record() {
    nlohmann::json j = {{"link", target.name}, {"file", path},           {"packets", packets},
                        {"bytes", bytes},      {"rotations", rotations}, {"timestamps", "ns"}};
    if (rotations) j["previous_file"] = previous_path;
    j["cpu_seconds"] = cpu_seconds;
    uint64_t drops = 0;
    for (auto& e : ends) drops += e.take_drops();
    j["kernel_drops"] = drops;
    if (!error.empty()) j["error"] = error;
    return j;
  }
};

Result<std::unique_ptr<LinkCaptures>> LinkCaptures::start(const std::vector<CaptureTarget>& targets,
                                                          const std::string& dir, uint64_t max_bytes) {
  std::unique_ptr<LinkCaptures> c(new LinkCaptures());
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return fail("capture: cannot create {}: {}", dir, ec.message());
  // On an error, the files opened so far go again (the rings close with `c`).
  auto undo = [&](Status st) -> Result<std::unique_ptr<LinkCaptures>> {
    for (auto& l : c->links_) l->file.remove_files();
    c->links_.clear();
    c->finished_ = true;
    return fail("{}", st.error().message);
  };
  for (const auto& t : targets) {
    auto l = std::make_unique<Link>();
    l->target = t;
    std::string stem = dir + "/" + (t.file.empty() ? link_file_stem(t.name) : t.file);
    l->path = stem + ".pcap";
    l->previous_path = stem + ".1.pcap";
    l->half = max_bytes / 2;
    for (const auto& [ns, ifname] : {std::pair{t.a_ns, t.a_if}, std::pair{t.b_ns, t.b_if}}) {
      if (ifname.empty()) continue;
      auto e = in_namespace<PacketRing>(ns, ifname, [](const std::string& where, const std::string& i) {
        return PacketRing::open(where, i);
      });
      if (!e.ok()) return undo(fail("{}", e.error().message));
      l->ends.push_back(std::move(*e));
    }
    if (l->ends.empty()) return undo(fail("capture {}: no end of it here", t.name));
    Status opened = l->file.open(l->path, l->previous_path);
    if (!opened.ok()) {
      l->file.remove_files();
      return undo(fail("capture {}", opened.error().message));
    }
    l->file_bytes = kPcapHeaderBytes;
    c->links_.push_back(std::move(l));
  }
  // Every end is open before the first thread runs: an error above left no thread.
  for (auto& l : c->links_) l->thread = std::thread([l = l.get(), c = c.get()] { l->run(c->stop_at_ns_); });
  return c;
}

LinkCaptures::~LinkCaptures() { (void)finish(); }

nlohmann::json LinkCaptures::finish() {
  if (finished_) return record_;
  finished_ = true;
  stop_at_ns_.store(monotonic_ns() + kDrainNs, std::memory_order_release);
  record_ = nlohmann::json::array();
  for (auto& l : links_) {
    if (l->thread.joinable()) l->thread.join();
    l->note(l->file.close(l->file_bytes));
    if (l->rotations > 1)
      std::fprintf(stderr,
                   "lab: capture %s: cut %llu times in all (--capture-max): %s and %s hold the newest\n",
                   l->target.name.c_str(), static_cast<unsigned long long>(l->rotations),
                   l->previous_path.c_str(), l->path.c_str());
    record_.push_back(l->record());
  }
  links_.clear();  // the rings close
  return record_;
}

Status stream_link_capture(const CaptureTarget& t, FILE* out, const std::function<bool()>& should_stop) {
  std::vector<PcapPtr> ends;  // the ends here (an end with no interface is on another machine)
  for (auto [ns, ifname] : {std::pair{&t.a_ns, &t.a_if}, std::pair{&t.b_ns, &t.b_if}}) {
    if (ifname->empty()) continue;
    auto e = open_end(*ns, *ifname);
    if (!e.ok()) {
      std::fclose(out);
      return fail("{}", e.error().message);
    }
    ends.push_back(std::move(*e));
  }
  if (ends.empty()) {
    std::fclose(out);
    return fail("capture {}: no end of it here", t.name);
  }
  pcap_dumper_t* d = pcap_dump_fopen(ends[0].get(), out);
  if (!d) {  // its header could not be written: libpcap closed `out` already (unless stdout)
    return fail("capture: writing the pcap stream: {}", pcap_geterr(ends[0].get()));
  }
  if (pcap_dump_flush(d) != 0) {  // the header now: a reader waits for it
    pcap_dump_close(d);
    return ok_status();
  }
  // The reader's end last: a pipe whose reader left polls POLLERR.
  std::vector<pollfd> fds;
  for (auto& e : ends) fds.push_back({pcap_get_selectable_fd(e.get()), POLLIN, 0});
  fds.push_back({fileno(out), 0, 0});
  auto write_one = [](u_char* user, const pcap_pkthdr* h, const u_char* data) { pcap_dump(user, h, data); };
  while (!should_stop()) {
    (void)poll(fds.data(), nfds_t(fds.size()), 100);
    if (fds.back().revents & (POLLERR | POLLHUP)) break;
    bool gone = false;
    for (auto& e : ends)
      if (pcap_dispatch(e.get(), -1, write_one, reinterpret_cast<u_char*>(d)) == PCAP_ERROR) gone = true;
    if (pcap_dump_flush(d) != 0 || gone) break;  // reader gone, or the interfaces (lab down)
  }
  pcap_dump_close(d);
  return ok_status();
}

}  // namespace flowlab::lab
