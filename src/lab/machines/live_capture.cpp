// A link's live pcap from the agents holding its ends, through etcd (see live_capture.h).
#include "lab/machines/live_capture.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "lab/format/json_access.h"
#include "lab/host/process.h"
#include "lab/machines/keys.h"
#include "lab/machines/remote_exec.h"

namespace flowlab::lab {

namespace {

using namespace std::chrono_literals;
using nlohmann::json;

constexpr size_t kPcapHeader = 24, kRecordHeader = 16;

std::string piece_key(const std::string& prefix, uint64_t n) { return prefix + fmt::format("{:010}", n); }

// One machine's pcap stream cut into its global header and whole records, so that
// two streams interleave record by record into one file.
class PcapSplice {
 public:
  void feed(const std::string& bytes) { buf_ += bytes; }
  // The global header once it has come (empty before, and after it was taken).
  std::string take_header() {
    if (header_taken_ || buf_.size() < kPcapHeader) return {};
    uint32_t magic = 0;
    std::memcpy(&magic, buf_.data(), 4);
    swapped_ = magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1;
    header_taken_ = true;
    std::string h = buf_.substr(0, kPcapHeader);
    buf_.erase(0, kPcapHeader);
    return h;
  }
  // The records complete so far (none before the header was taken).
  std::string take_records() {
    if (!header_taken_) return {};
    size_t at = 0;
    while (buf_.size() - at >= kRecordHeader) {
      uint32_t len = 0;
      std::memcpy(&len, buf_.data() + at + 8, 4);  // incl_len
      if (swapped_) len = __builtin_bswap32(len);
      if (buf_.size() - at - kRecordHeader < len) break;
      at += kRecordHeader + len;
    }
    std::string out = buf_.substr(0, at);
    buf_.erase(0, at);
    return out;
  }

 private:
  std::string buf_;
  bool header_taken_ = false, swapped_ = false;
};

// The reader's side of one machine's stream.
struct Stream {
  std::string machine;
  std::unique_ptr<AgentExec> agent;
  AgentExec::CaptureKeys keys;
  uint64_t next = 0;
  PcapSplice splice;
  uint64_t last_look = 0;
  bool ended = false;  // the agent said the stream ended: drain, then done
  bool done = false;
  std::string error;
};

// The request erased (the agent stops its capture and erases its reply and what
// the reader did not take), its reply waited for, and the pieces erased anyway.
void close_stream(coord::EtcdClient& etcd, const Stream& s) {
  (void)etcd.erase(s.keys.exec_key);
  uint64_t t0 = monotonic_ns();
  while (seconds_since(t0) < 10) {
    auto got = etcd.get(s.keys.reply_key);
    if (!got.ok() || !*got) break;
    std::this_thread::sleep_for(20ms);
  }
  (void)etcd.erase(s.keys.reply_key);
  (void)etcd.erase_prefix(s.keys.piece_prefix);
}

// One look at the stream's reply (and its agent): ended or failed.
void look(coord::EtcdClient& etcd, Stream& s) {
  auto got = etcd.get(s.keys.reply_key);
  if (!got.ok()) return;  // etcd slow: as it was
  if (!*got) {            // the run's keys went: the lab is going down, and the stream with it
    s.ended = true;
    return;
  }
  auto r = decode_exec_reply((*got)->value);
  if (r.ok() && r->state == "failed") {
    s.ended = true;
    s.error = fmt::format("machine {}: {}", s.machine, r->error);
  } else if (r.ok() && r->state == "exited") {
    s.ended = true;
  }
  if (auto a = etcd.get(keys::agent(s.machine)); a.ok() && !*a) {
    s.ended = true;
    s.error = fmt::format("machine {}'s agent is gone (its lease expired)", s.machine);
  }
}

}  // namespace

Status capture_across(const json& across, const CaptureTarget& t, const std::string& node_a,
                      const std::string& node_b, FILE* out, const std::function<bool()>& should_stop) {
  std::string etcd_list = str(across, "etcd"), run = str(across, "run");
  auto placement = string_map(across, "placement");
  auto a = placement.find(node_a), b = placement.find(node_b);
  if (etcd_list.empty() || run.empty() || a == placement.end() || b == placement.end()) {
    std::fclose(out);
    return fail("the lab's record does not say which machines hold {} and {}", node_a, node_b);
  }
  auto cfg = coord::parse_endpoints(etcd_list);
  if (!cfg.ok()) {
    std::fclose(out);
    return fail("{}", cfg.error().message);
  }
  // One stream per machine holding an end: both ends on one machine are one stream.
  std::vector<std::pair<std::string, CaptureTarget>> parts;
  if (a->second == b->second) {
    parts.emplace_back(a->second, t);
  } else {
    CaptureTarget ta = t, tb = t;
    ta.b_ns.clear(), ta.b_if.clear();
    tb.a_ns.clear(), tb.a_if.clear();
    if (!ta.a_if.empty()) parts.emplace_back(a->second, ta);
    if (!tb.b_if.empty()) parts.emplace_back(b->second, tb);
  }
  coord::EtcdClient etcd(*cfg);
  std::vector<Stream> streams;
  for (const auto& [machine, target] : parts) {
    Stream s;
    s.machine = machine;
    s.agent = std::make_unique<AgentExec>(*cfg, run, machine);
    auto k = s.agent->capture(target);
    if (!k.ok()) {
      for (const auto& started : streams) close_stream(etcd, started);
      std::fclose(out);
      return fail("capture {} on machine {}: {}", t.name, machine, k.error().message);
    }
    s.keys = *k;
    streams.push_back(std::move(s));
  }
  bool header = false, reader_gone = false;
  auto write = [&](const std::string& bytes) {
    if (!bytes.empty() && !reader_gone)
      reader_gone = std::fwrite(bytes.data(), 1, bytes.size(), out) != bytes.size() || std::fflush(out) != 0;
  };
  auto pause = 5ms;
  while (!reader_gone && !should_stop()) {
    bool progressed = false, all_done = true;
    for (auto& s : streams) {
      if (s.done) continue;
      all_done = false;
      std::string key = piece_key(s.keys.piece_prefix, s.next);
      auto got = etcd.txn({{}, {coord::TxnOp::get(key), coord::TxnOp::erase(key)}, {}});
      if (got.ok() && !got->responses.empty() && !got->responses[0].range.kvs.empty()) {
        s.splice.feed(got->responses[0].range.kvs[0].value);
        ++s.next;
        progressed = true;
      } else if (s.ended) {
        s.done = true;  // said ended, and nothing more came after
      } else if (uint64_t now = monotonic_ns(); now - s.last_look > 200'000'000) {
        s.last_look = now;
        look(etcd, s);
      }
      std::string h = s.splice.take_header();
      if (!h.empty() && !header) {
        write(h);
        header = true;
      }
      if (header) write(s.splice.take_records());
    }
    if (all_done) break;
    // A pipe whose reader left polls POLLERR: seen here while no packet comes to write.
    pollfd pf{fileno(out), 0, 0};
    if (poll(&pf, 1, 0) > 0 && (pf.revents & (POLLERR | POLLHUP))) reader_gone = true;
    pause = progressed ? 5ms : std::min<std::chrono::milliseconds>(pause * 2, 50ms);
    if (!progressed) std::this_thread::sleep_for(pause);
  }
  std::string error;
  for (const auto& s : streams) {
    close_stream(etcd, s);
    if (error.empty() && !s.error.empty()) error = s.error;
  }
  std::fclose(out);
  if (!error.empty() && !reader_gone) return fail("capture {}: {}", t.name, error);
  return ok_status();
}

std::string serve_capture(const coord::EtcdConfig& cfg, const std::string& piece_prefix,
                          const CaptureTarget& t, const std::function<bool()>& stop) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) return fmt::format("pipe: {}", std::strerror(errno));
  FILE* w = fdopen(p[1], "w");
  if (!w) {
    close(p[0]);
    close(p[1]);
    return fmt::format("fdopen: {}", std::strerror(errno));
  }
  std::atomic<bool> quit{false};
  Status captured = ok_status();
  std::thread capture([&] { captured = stream_link_capture(t, w, [&] { return stop() || quit.load(); }); });
  coord::EtcdClient etcd(cfg);
  std::string buf, why;
  uint64_t n = 0, last_put = monotonic_ns();
  auto put = [&] {
    // Room first: the piece kStreamAhead back taken by the reader.
    while (n >= kStreamAhead && !stop() && why.empty()) {
      auto old = etcd.get(piece_key(piece_prefix, n - kStreamAhead));
      if (!old.ok()) why = old.error().message;
      if (!old.ok() || !*old) break;
      std::this_thread::sleep_for(20ms);
    }
    if (!stop() && why.empty()) {
      if (auto st = etcd.put(piece_key(piece_prefix, n), buf); st.ok())
        ++n;
      else
        why = st.error().message;
    }
    buf.clear();
    last_put = monotonic_ns();
  };
  std::vector<char> chunk(64 * 1024);
  for (bool eof = false; !eof;) {
    pollfd pf{p[0], POLLIN, 0};
    (void)poll(&pf, 1, 50);
    if (pf.revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t r = read(p[0], chunk.data(), chunk.size());
      if (r <= 0)
        eof = true;
      else if (!stop() && why.empty())
        buf.append(chunk.data(), size_t(r));
    }
    if (!why.empty()) quit = true;  // the capture stops; its pipe is read to the end
    if (!buf.empty() &&
        (eof || buf.size() >= kStreamPiece || seconds_since(last_put) * 1000 >= kStreamFlushMs))
      put();
  }
  capture.join();
  close(p[0]);
  if (stop()) (void)etcd.erase_prefix(piece_prefix);  // the reader is gone: what it did not take
  if (why.empty() && !captured.ok()) why = captured.error().message;
  return why;
}

}  // namespace flowlab::lab
