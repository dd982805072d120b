// libpcap captures of the lab's links (see pcap_capture.h for the design).
#include "lab/capture/pcap_capture.h"

#include <fcntl.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>

#include "core/clock.h"
#include "lab/capture/link_select.h"

namespace flowlab::lab {

namespace fs = std::filesystem;

namespace {

constexpr int kSnaplen = 262144;           // a whole GSO super-frame
constexpr int kBlockTimeoutMs = 20;        // how long a TPACKET_V3 block waits to be handed over
constexpr int kRingBytes = 4 << 20;        // per end
constexpr uint64_t kDrainNs = 80'000'000;  // after finish(): > kBlockTimeoutMs, every block handed over
constexpr uint64_t kPcapHeaderBytes = 24;
constexpr uint64_t kRecordHeaderBytes = 16;

struct PcapClose {
  void operator()(pcap_t* p) const { pcap_close(p); }
};
using PcapPtr = std::unique_ptr<pcap_t, PcapClose>;

Result<PcapPtr> open_here(const std::string& where, const std::string& ifname, bool immediate) {
  char err[PCAP_ERRBUF_SIZE] = "";
  PcapPtr p(pcap_create(ifname.c_str(), err));
  if (!p) return fail("capture on {}: {}", where, err);
  pcap_set_snaplen(p.get(), kSnaplen);
  pcap_set_promisc(p.get(), 0);
  pcap_set_timeout(p.get(), kBlockTimeoutMs);
  pcap_set_buffer_size(p.get(), kRingBytes);
  if (immediate) pcap_set_immediate_mode(p.get(), 1);
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
  sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, uint32_t(SKF_AD_OFF + SKF_AD_PKTTYPE)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OUTGOING, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, 0),
      BPF_STMT(BPF_RET | BPF_K, 0xffffffffu),
  };
  sock_fprog prog{static_cast<unsigned short>(sizeof code / sizeof code[0]), code};
  if (setsockopt(pcap_fileno(p.get()), SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog) != 0)
    return fail("capture on {}: socket filter: {}", where, std::strerror(errno));
  if (pcap_setnonblock(p.get(), 1, err) != 0) return fail("capture on {}: {}", where, err);
  return p;
}

// Opens `ifname` inside namespace `ns` (/run/netns/NS) on a thread of its own: the
// socket stays in that namespace, the caller's thread never leaves its own.
Result<PcapPtr> open_end(const std::string& ns, const std::string& ifname, bool immediate) {
  std::string where = ns.empty() ? ifname : ns + "/" + ifname;
  if (ns.empty()) return open_here(where, ifname, immediate);
  Result<PcapPtr> out = fail("capture on {}: not opened", where);
  std::thread([&] {
    int fd = open(("/run/netns/" + ns).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      out = fail("capture on {}: no namespace {}: {}", where, ns, std::strerror(errno));
      return;
    }
    int r = setns(fd, CLONE_NEWNET);
    int e = errno;
    close(fd);
    if (r != 0) {
      out = fail("capture on {}: entering namespace {}: {}", where, ns, std::strerror(e));
      return;
    }
    out = open_here(where, ifname, immediate);
  }).join();
  return out;
}

const char* precision_name(pcap_t* p) {
  return pcap_get_tstamp_precision(p) == PCAP_TSTAMP_PRECISION_NANO ? "ns" : "us";
}

}  // namespace

struct LinkCaptures::Link {
  CaptureTarget target;
  std::string path, previous_path;
  PcapPtr ends[2];  // ends[1] null: one end only (the other on another machine)
  pcap_dumper_t* dumper = nullptr;
  uint64_t half = 0;  // cut the file past this many bytes; 0: never
  uint64_t file_bytes = 0, packets = 0, bytes = 0, rotations = 0;
  uint64_t last_said_ns = 0;
  std::string error;
  std::thread thread;

  ~Link() {
    if (thread.joinable()) thread.join();
    if (dumper) pcap_dump_close(dumper);
  }

  void rotate() {
    pcap_dump_close(dumper);
    dumper = nullptr;
    std::error_code ec;
    fs::rename(path, previous_path, ec);
    dumper = pcap_dump_open(ends[0].get(), path.c_str());
    if (!dumper && error.empty()) error = std::string("reopening after a cut: ") + pcap_geterr(ends[0].get());
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

  static void on_packet(u_char* user, const pcap_pkthdr* h, const u_char* data) {
    auto& l = *reinterpret_cast<Link*>(user);
    uint64_t rec = kRecordHeaderBytes + h->caplen;
    if (l.half && l.file_bytes + rec > l.half && l.file_bytes > kPcapHeaderBytes) l.rotate();
    ++l.packets;
    l.bytes += h->len;
    if (!l.dumper) return;
    pcap_dump(reinterpret_cast<u_char*>(l.dumper), h, data);
    l.file_bytes += rec;
  }

  void run(const std::atomic<uint64_t>& stop_at) {
    pollfd fds[2];
    nfds_t n = ends[1] ? 2 : 1;
    for (nfds_t k = 0; k < n; ++k) fds[k] = {pcap_get_selectable_fd(ends[k].get()), POLLIN, 0};
    while (true) {
      uint64_t s = stop_at.load(std::memory_order_acquire);
      if (s && monotonic_ns() >= s) break;
      (void)poll(fds, n, 10);
      for (auto& e : ends)
        if (e &&
            pcap_dispatch(e.get(), -1, &Link::on_packet, reinterpret_cast<u_char*>(this)) == PCAP_ERROR) {
          if (error.empty()) error = pcap_geterr(e.get());
          return;
        }
    }
  }

  nlohmann::json record() {
    nlohmann::json j = {{"link", target.name},    {"file", path},
                        {"packets", packets},     {"bytes", bytes},
                        {"rotations", rotations}, {"timestamps", precision_name(ends[0].get())}};
    if (rotations) j["previous_file"] = previous_path;
    uint64_t drops = 0;
    for (auto& e : ends) {
      pcap_stat st{};
      if (e && pcap_stats(e.get(), &st) == 0) drops += st.ps_drop;
    }
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
  // On an error, the files opened so far go again (the handles close with `c`).
  auto undo = [&](Status st) -> Result<std::unique_ptr<LinkCaptures>> {
    for (auto& l : c->links_) {
      pcap_dump_close(l->dumper);
      l->dumper = nullptr;
      fs::remove(l->path, ec);
    }
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
    int k = 0;  // the ends here, the first in ends[0]
    for (const auto& [ns, ifname] : {std::pair{t.a_ns, t.a_if}, std::pair{t.b_ns, t.b_if}}) {
      if (ifname.empty()) continue;
      auto e = open_end(ns, ifname, false);
      if (!e.ok()) return undo(fail("{}", e.error().message));
      l->ends[k++] = std::move(*e);
    }
    if (!k) return undo(fail("capture {}: no end of it here", t.name));
    fs::remove(l->previous_path, ec);
    l->dumper = pcap_dump_open(l->ends[0].get(), l->path.c_str());
    if (!l->dumper) return undo(fail("capture {}: {}", l->path, pcap_geterr(l->ends[0].get())));
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
    if (l->dumper) {
      pcap_dump_close(l->dumper);
      l->dumper = nullptr;
    }
    if (l->rotations > 1)
      std::fprintf(stderr,
                   "lab: capture %s: cut %llu times in all (--capture-max): %s and %s hold the newest\n",
                   l->target.name.c_str(), static_cast<unsigned long long>(l->rotations),
                   l->previous_path.c_str(), l->path.c_str());
    record_.push_back(l->record());
  }
  links_.clear();  // the handles close
  return record_;
}

Status stream_link_capture(const CaptureTarget& t, FILE* out, const std::function<bool()>& should_stop) {
  std::vector<PcapPtr> ends;  // the ends here (an end with no interface is on another machine)
  for (auto [ns, ifname] : {std::pair{&t.a_ns, &t.a_if}, std::pair{&t.b_ns, &t.b_if}}) {
    if (ifname->empty()) continue;
    auto e = open_end(*ns, *ifname, true);
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
