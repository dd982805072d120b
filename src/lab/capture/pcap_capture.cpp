// libpcap captures of the lab's links (see pcap_capture.h for the design).
#include "lab/capture/pcap_capture.h"

#include <fcntl.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <sched.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <thread>

#include "core/clock.h"
#include "lab/capture/link_select.h"
#include "lab/capture/packet_ring.h"
#include "lab/host/netns.h"

namespace flowlab::lab {

namespace fs = std::filesystem;

namespace {

constexpr int kSnaplen = 262144;  // a whole GSO super-frame (the files' header says so)
constexpr int kStreamTimeoutMs = 20;
constexpr int kStreamRingBytes = 4 << 20;  // per end, the live stream's (libpcap's ring)
// After finish(): longer than a block's timeout, so every block is handed over.
constexpr uint64_t kDrainNs = 4 * PacketRing::kBlockTimeoutMs * 1'000'000ull;
constexpr uint64_t kPcapHeaderBytes = 24;
constexpr uint64_t kRecordHeaderBytes = 16;
constexpr uint32_t kPcapMagicNs = 0xa1b23c4d;  // pcap with nanosecond timestamps, in the writer's byte order
constexpr uint32_t kLinktypeEthernet = 1;

struct PcapRecordHeader {
  uint32_t sec, nsec, caplen, len;
};

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

// A link's two files, written straight from the rings: per block, the record
// headers are built beside the frames and everything goes out in one writev (the
// frames are not copied in user space; write() copies them once into the page
// cache). The file header is the one libpcap writes for an Ethernet link with
// nanosecond timestamps: the lab's links are veth pairs and the like, all Ethernet.
//
// A cut makes the current file the previous one and starts the current one over
// the older half: the two swap names (RENAME_EXCHANGE) and the new current file is
// written from its start over the older half's pages, cut to its length when it is
// cut again or closed. Dropping the older half's pages and allocating new ones
// instead (a new file) cost the capture more than the copy itself, at every cut.
// Until then, past its newest record the current file still holds older bytes.
class PcapFilePair {
 public:
  PcapFilePair() = default;
  PcapFilePair(const PcapFilePair&) = delete;
  PcapFilePair& operator=(const PcapFilePair&) = delete;
  ~PcapFilePair() { close_files(0); }

  // A new current file (PATH, truncated), no previous one (PREVIOUS removed).
  bool open_files(const std::string& path, const std::string& previous) {
    path_ = path;
    previous_ = previous;
    std::error_code ec;
    fs::remove(previous_, ec);
    cur_ = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    return cur_ >= 0 && write_header();
  }
  // The current file ends at `length` bytes and becomes the previous one.
  bool cut(uint64_t length) {
    if (!flush() || ftruncate(cur_, off_t(length)) != 0) return false;
    if (prev_ >= 0 && renameat2(AT_FDCWD, path_.c_str(), AT_FDCWD, previous_.c_str(), RENAME_EXCHANGE) == 0) {
      std::swap(cur_, prev_);
      return lseek(cur_, 0, SEEK_SET) == 0 && write_header();
    }
    // The first cut (or a file system without RENAME_EXCHANGE): a new current file.
    if (prev_ >= 0) close(prev_);
    prev_ = cur_;
    cur_ = -1;
    if (rename(path_.c_str(), previous_.c_str()) != 0) return false;
    cur_ = open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    return cur_ >= 0 && write_header();
  }
  // Writes what is left; the current file ends at `length` bytes (0: left as it is).
  void close_files(uint64_t length) {
    if (cur_ >= 0) {
      (void)flush();
      if (length) (void)ftruncate(cur_, off_t(length));
      close(cur_);
    }
    if (prev_ >= 0) close(prev_);
    cur_ = prev_ = -1;
    iov_.clear();
  }
  // Removes both files (a capture that failed to start).
  void remove_files() {
    close_files(0);
    std::error_code ec;
    fs::remove(path_, ec);
    fs::remove(previous_, ec);
  }
  bool is_open() const { return cur_ >= 0; }
  void add(const void* p, size_t n) { iov_.push_back({const_cast<void*>(p), n}); }
  // Writes what was added; false on a write error (errno says which).
  bool flush() {
    size_t at = 0;
    bool ok = cur_ >= 0;
    while (ok && at < iov_.size()) {
      int n = int(std::min<size_t>(iov_.size() - at, IOV_MAX));
      ssize_t w = writev(cur_, &iov_[at], n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        ok = false;
        break;
      }
      auto left = size_t(w);  // a short write: step over what went out
      while (left && at < iov_.size()) {
        if (left >= iov_[at].iov_len) {
          left -= iov_[at++].iov_len;
        } else {
          iov_[at].iov_base = static_cast<uint8_t*>(iov_[at].iov_base) + left;
          iov_[at].iov_len -= left;
          left = 0;
        }
      }
    }
    iov_.clear();
    return ok;
  }

 private:
  bool write_header() {
    static constexpr uint32_t kHeader[6] = {kPcapMagicNs,       2u | (4u << 16),  0, 0,
                                            uint32_t(kSnaplen), kLinktypeEthernet};
    add(kHeader, sizeof kHeader);
    return flush();
  }
  std::string path_, previous_;
  int cur_ = -1, prev_ = -1;
  std::vector<iovec> iov_;
};

}  // namespace

struct LinkCaptures::Link {
  CaptureTarget target;
  std::string path, previous_path;
  std::vector<PacketRing> ends;  // one: the other end is on another machine
  PcapFilePair file;
  uint64_t half = 0;  // cut the file past this many bytes; 0: never
  uint64_t file_bytes = 0, packets = 0, bytes = 0, rotations = 0;
  uint64_t last_said_ns = 0;
  double cpu_seconds = 0;  // the thread's own CPU time (the kernel's copy into the rings is not in it)
  std::string error;
  std::thread thread;
  // A block's record headers and re-inserted VLAN tags, alive until its writev.
  std::vector<PcapRecordHeader> headers;
  std::vector<std::array<uint8_t, 4>> tags;

  ~Link() {
    if (thread.joinable()) thread.join();
  }

  void write_failed(const char* what) {
    if (error.empty()) error = fmt::format("{} {}: {}", what, path, std::strerror(errno));
  }

  void rotate() {
    if (!file.cut(file_bytes)) write_failed("cutting");
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

  // One block of one end into the file: its records in one writev, then the block
  // goes back to the kernel.
  void write_block(PacketRing& ring) {
    uint32_t n = ring.frames_in_block();
    headers.resize(n);
    tags.resize(n);
    RingFrame f;
    for (uint32_t k = 0; k < n && ring.next_frame(&f); ++k) {
      uint32_t tag = f.has_vlan && f.caplen >= 12 ? 4 : 0;  // the tag back in the frame, as on the wire
      uint64_t rec = kRecordHeaderBytes + f.caplen + tag;
      if (half && file_bytes + rec > half && file_bytes > kPcapHeaderBytes) rotate();
      ++packets;
      bytes += f.len + tag;
      if (!file.is_open()) continue;
      headers[k] = {f.sec, f.nsec, f.caplen + tag, f.len + tag};
      file.add(&headers[k], sizeof headers[k]);
      if (tag) {
        tags[k] = {uint8_t(f.vlan_tpid >> 8), uint8_t(f.vlan_tpid), uint8_t(f.vlan_tci >> 8),
                   uint8_t(f.vlan_tci)};
        file.add(f.data, 12);  // the MAC addresses, the tag, the rest
        file.add(tags[k].data(), 4);
        file.add(f.data + 12, f.caplen - 12);
      } else {
        file.add(f.data, f.caplen);
      }
      file_bytes += rec;
    }
    if (!file.flush()) write_failed("writing");
    ring.release_block();
  }

  void run(const std::atomic<uint64_t>& stop_at) {
    pollfd fds[2];
    auto n = nfds_t(ends.size());
    for (nfds_t k = 0; k < n; ++k) fds[k] = {ends[k].fd(), POLLIN, 0};
    while (true) {
      uint64_t s = stop_at.load(std::memory_order_acquire);
      if (s && monotonic_ns() >= s) break;
      (void)poll(fds, n, 10);
      for (auto& e : ends)
        while (e.next_block()) write_block(e);
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
    if (!l->file.open_files(l->path, l->previous_path))
      return undo(fail("capture {}: {}", l->path, std::strerror(errno)));
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
    l->file.close_files(l->file_bytes);
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
  if (!d) {
    std::fclose(out);
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
