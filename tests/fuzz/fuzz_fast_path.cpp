// libFuzzer target for the user-space side of the kernel fast path.
//
// Input: a few control bytes that pick flows (from a vocabulary of matches and
// actions, as flow text) and a frame. Properties:
//  1. Cache key extraction: whatever extract_cache_key accepts has an
//     OpenFlow FlowKey equal to the FlowKey of a canonical frame rebuilt from
//     the cache key alone (so nothing outside the key can change a decision).
//  2. Action translation (FLOOD / ALL and groups included): when decide_for_fast_path hands a decision over,
//  the
//     ops run on the frame (the way the BPF program runs them) give the same
//     outputs, in the same order, with the same bytes (checksum fields aside)
//     as the real pipeline on the same frame.
//  3. Megaflow masks: a second frame that differs from the first only in key
//     bits outside the decision's mask (cache_mask_of(read_mask)) has the
//     same masked key, and the pipeline does to it exactly what the same
//     ops do (one entry is exact for every packet it covers).
#include <arpa/inet.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "datapath/datapath.h"
#include "datapath/fast_path_decision.h"
#include "kernel/cache_key.h"
#include "openflow/text/flow_text.h"
#include "packet/flow_key.h"

namespace {

using namespace flowlab;

const char* kMatches[] = {"ip",
                          "icmp",
                          "tcp",
                          "udp",
                          "ip,in_port=1",
                          "ip,in_port=2",
                          "tcp,tp_dst=80",
                          "udp,tp_src=53",
                          "ip,nw_dst=10.0.0.2",
                          "ip,nw_src=10.0.0.0/8",
                          "ip,nw_tos=32",
                          "dl_dst=00:00:00:00:00:02",
                          "ip,metadata=0x1",
                          "icmp,icmp_type=8",
                          "ip,ip_ecn=1"};
const char* kActions[] = {"output:2",
                          "output:1",
                          "output:3",
                          "in_port",
                          "drop",
                          "dec_ttl,output:2",
                          "mod_dl_src:02:00:00:00:00:09,output:3",
                          "set_field:10.1.2.3->ip_dst,output:2",
                          "set_field:10.9.9.9->ip_src,output:2,output:3",
                          "mod_tp_dst:8080,output:2",
                          "mod_tp_src:4444,output:1",
                          "controller",
                          "flood",
                          "write_actions(output:2)",
                          "write_actions(dec_ttl,output:3),goto_table:1",
                          "write_metadata:0x1,goto_table:1",
                          "set_field:10.1.1.1->ip_dst,goto_table:1",
                          "group:1",
                          "group:2",
                          "group:3",
                          "group:4",
                          "all",
                          "write_actions(group:1)",
                          "write_actions(group:2,output:1)"};
// Groups of the datapath: ALL and INDIRECT that only output (translated), ALL
// with a bucket that modifies and SELECT (kept in the slow path).
const char* kGroups[] = {"group_id=1,type=all,bucket=output:2,bucket=output:3",
                         "group_id=2,type=indirect,bucket=output:3",
                         "group_id=3,type=all,bucket=mod_dl_src:02:00:00:00:00:07,output:2,bucket=output:3",
                         "group_id=4,type=select,bucket=weight:1,actions=output:2"};

class Ports final : public dp::PortView {
 public:
  void list_ports(std::vector<uint32_t>& out) const override { out = {1, 2, 3}; }
  bool is_live(uint32_t) const override { return true; }
};

struct Out {
  uint32_t port;
  std::vector<uint8_t> bytes;
};

class Sink final : public dp::OutputSink, public dp::ControllerSink {
 public:
  void output(const Packet& p, uint32_t port, uint32_t) override {
    outs.push_back({port, std::vector<uint8_t>(p.data(), p.data() + p.size())});
  }
  void packet_in(const dp::PacketInInfo&, const Packet&) override { ++packet_ins; }
  std::vector<Out> outs;
  int packet_ins = 0;
};

// The TC program's op semantics on bytes (checksums not modelled).
std::vector<Out> run_ops(const dp::FastPathDecision& d, std::vector<uint8_t> f) {
  std::vector<Out> outs;
  const size_t l4 = 14 + size_t(f[14] & 0xf) * 4;
  auto put16 = [&](size_t off, uint64_t v) {
    if (off + 2 <= f.size()) {
      f[off] = uint8_t(v >> 8);
      f[off + 1] = uint8_t(v);
    }
  };
  for (size_t i = 0; i < d.n_ops; ++i) {
    const dp::FastPathOp& op = d.ops[i];
    using K = dp::FastPathOp::Kind;
    switch (op.kind) {
      case K::kOutput:
        outs.push_back({op.port, f});
        break;
      case K::kSetEthDst:
      case K::kSetEthSrc:
        for (int b = 0; b < 6; ++b)
          f[(op.kind == K::kSetEthSrc ? 6 : 0) + b] = uint8_t(op.value >> (40 - 8 * b));
        break;
      case K::kSetIpv4Src:
      case K::kSetIpv4Dst: {
        uint32_t be = htonl(uint32_t(op.value));
        std::memcpy(&f[op.kind == K::kSetIpv4Src ? 26 : 30], &be, 4);
        break;
      }
      case K::kSetTpSrc:
        put16(l4, op.value);
        break;
      case K::kSetTpDst:
        put16(l4 + 2, op.value);
        break;
      case K::kDecTtl:
        f[22] = uint8_t(f[22] - 1);
        break;
    }
  }
  return outs;
}

void clear_checksums(std::vector<uint8_t>& f) {
  if (f.size() < 34) return;
  f[24] = f[25] = 0;
  size_t l4 = 14 + size_t(f[14] & 0xf) * 4;
  size_t c = f[23] == 6 ? l4 + 16 : f[23] == 17 ? l4 + 6 : 0;
  if (c && c + 2 <= f.size()) f[c] = f[c + 1] = 0;
}

[[noreturn]] void fail_with(const char* what) {
  std::fprintf(stderr, "fuzz_fast_path: %s\n", what);
  std::abort();
}

// The frame offset of each fl_key byte (-1: not from the frame), for a frame
// whose L4 header starts at l4 with protocol proto.
void key_offsets(size_t l4, uint8_t proto, int (&off)[sizeof(fl_key)]) {
  for (int& o : off) o = -1;
  for (int i = 0; i < 6; ++i) {
    off[offsetof(fl_key, eth_dst) + i] = i;
    off[offsetof(fl_key, eth_src) + i] = 6 + i;
  }
  for (int i = 0; i < 4; ++i) {
    off[offsetof(fl_key, ipv4_src) + i] = 26 + i;
    off[offsetof(fl_key, ipv4_dst) + i] = 30 + i;
  }
  off[offsetof(fl_key, ip_tos)] = 15;
  if (proto == 6 || proto == 17 || proto == 132) {
    for (int i = 0; i < 2; ++i) {
      off[offsetof(fl_key, tp_src) + i] = int(l4) + i;
      off[offsetof(fl_key, tp_dst) + i] = int(l4) + 2 + i;
    }
  } else if (proto == 1) {
    off[offsetof(fl_key, tp_src)] = int(l4);
    off[offsetof(fl_key, tp_dst)] = int(l4) + 1;
  }
}

// Outputs of the pipeline for one frame on in_port 1.
Sink run_pipeline(dp::Datapath& dp, const std::vector<uint8_t>& f) {
  Sink sink;
  dp::ForwardingContext ctx(dp, sink, sink);
  Packet pkt;
  if (!pkt.assign(f.data(), f.size())) fail_with("frame does not fit a packet");
  pkt.in_port = 1;
  PacketBatch batch;
  batch.pkts.push_back(&pkt);
  dp.process_batch(ctx, batch, 2);
  return sink;
}

void expect_same(std::vector<Out> mine, std::vector<Out> theirs, const char* what) {
  if (mine.size() != theirs.size()) fail_with(what);
  for (size_t i = 0; i < mine.size(); ++i) {
    clear_checksums(mine[i].bytes);
    clear_checksums(theirs[i].bytes);
    if (mine[i].port != theirs[i].port || mine[i].bytes != theirs[i].bytes) {
      if (std::getenv("FUZZ_DEBUG"))
        std::fprintf(stderr, "output %zu: translated %zu bytes to %u, pipeline %zu bytes to %u\n", i,
                     mine[i].bytes.size(), mine[i].port, theirs[i].bytes.size(), theirs[i].port);
      fail_with(what);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  const uint8_t n_flows = data[0] % 5;
  if (size < 1 + size_t(n_flows) * 3) return 0;
  const uint8_t* ctl = data + 1;
  const size_t len = size - 1 - size_t(n_flows) * 3;
  // data[0] / 5 picks header values of the flow vocabulary to write into the
  // frame, so matches (and the fields a mask must keep) are hit often.
  std::vector<uint8_t> biased(ctl + n_flows * 3, ctl + n_flows * 3 + len);
  const uint8_t bias = data[0] / 5;
  if (biased.size() >= 38 && biased[12] == 0x08 && biased[13] == 0 && (biased[14] >> 4) == 4) {
    const size_t l4 = 14 + size_t(biased[14] & 0xf) * 4;
    if (bias & 1) biased[30] = 10, biased[31] = 0, biased[32] = 0, biased[33] = 2;
    if (bias & 2) biased[26] = 10;
    if ((bias & 4) && l4 + 4 <= biased.size()) biased[l4 + 2] = 0, biased[l4 + 3] = 80;
    if ((bias & 8) && l4 + 2 <= biased.size()) biased[l4] = 0, biased[l4 + 1] = 53;
    if (bias & 16) biased[0] = biased[1] = biased[2] = biased[3] = biased[4] = 0, biased[5] = 2;
    if (bias & 32) biased[15] = 32;
  }
  const uint8_t* frame = biased.data();

  // 1. key extraction
  fl_key k;
  if (!kernel::extract_cache_key(frame, len, 7, k)) return 0;
  FlowKey fk;
  PacketLayers layers;
  extract_flow_key(frame, len, 1, 0, 0, fk, layers);
  uint8_t canon[14 + 20 + 4] = {};
  std::memcpy(canon, k.eth_dst, 6);
  std::memcpy(canon + 6, k.eth_src, 6);
  canon[12] = 0x08;
  canon[14] = 0x45;
  canon[15] = k.ip_tos;
  canon[22] = 64;
  canon[23] = k.ip_proto;
  std::memcpy(canon + 26, &k.ipv4_src, 4);
  std::memcpy(canon + 30, &k.ipv4_dst, 4);
  if (k.ip_proto == 1) {
    canon[34] = uint8_t(k.tp_src);
    canon[35] = uint8_t(k.tp_dst);
  } else {
    std::memcpy(canon + 34, &k.tp_src, 2);
    std::memcpy(canon + 36, &k.tp_dst, 2);
  }
  FlowKey ck;
  PacketLayers cl;
  extract_flow_key(canon, sizeof canon, 1, 0, 0, ck, cl);
  // tcp_flags is outside the kernel's key: a decision that read it is never installed
  // there (kernel_datapath.cpp), so the key determines every other field.
  fk.tcp_flags = 0;
  ck.tcp_flags = 0;
  if (!(ck == fk)) fail_with("cache key does not determine the FlowKey");

  // 2. action translation against the pipeline
  Ports ports;
  dp::Datapath dp({.n_tables = 2}, &ports);
  for (const char* g : kGroups) {
    auto gm = of::parse_group_mod(g, of::GroupModCommand::kAdd);
    if (!gm.ok() || !dp.group_mod(*gm, 1).ok()) fail_with("a vocabulary group does not parse");
  }
  for (uint8_t i = 0; i < n_flows; ++i) {
    std::string text = "table=" + std::to_string(ctl[i * 3] & 1) +
                       ",priority=" + std::to_string(ctl[i * 3] >> 1) + "," +
                       kMatches[ctl[i * 3 + 1] % std::size(kMatches)] +
                       ",actions=" + kActions[ctl[i * 3 + 2] % std::size(kActions)];
    auto fm = of::parse_flow_mod(text);
    if (!fm.ok()) continue;
    if (std::getenv("FUZZ_DEBUG")) std::fprintf(stderr, "flow: %s\n", text.c_str());
    (void)dp.flow_mod(*fm, 1);
  }
  Sink sink;
  dp::ForwardingContext ctx(dp, sink, sink);
  Packet pkt;
  if (!pkt.assign(frame, len)) return 0;
  pkt.in_port = 1;
  PacketBatch batch;
  batch.pkts.push_back(&pkt);
  dp.process_batch(ctx, batch, 2);
  auto d = dp::decide_for_fast_path(ctx, fk, [](uint32_t p) { return p >= 1 && p <= 3; });
  if (!d) return 0;
  if (sink.packet_ins)
    fail_with("decision handed over for a packet the pipeline sent up");  // the slow path sent it up: the
                                                                          // kernel must not forward it
  bool ttl_miss = false;
  uint8_t ttl = frame[22];
  for (size_t i = 0; i < d->n_ops; ++i)
    if (d->ops[i].kind == dp::FastPathOp::Kind::kDecTtl && ttl-- <= 1) ttl_miss = true;
  if (ttl_miss) return 0;                // the program sends such packets up
  if (len < FL_ETH_MIN_FRAME) return 0;  // and frames the slow path pads to the Ethernet minimum
  expect_same(run_ops(*d, std::vector<uint8_t>(frame, frame + len)), sink.outs, "output differs");

  // 3. megaflow: flip key bits the decision did not read
  const fl_key mask = kernel::cache_mask_of(d->read_mask);
  if (mask.ifindex != 0xffffffffu || mask.mask_id != 0) fail_with("the mask must keep the whole ifindex");
  int off[sizeof(fl_key)];
  key_offsets(14 + size_t(frame[14] & 0xf) * 4, frame[23], off);
  std::vector<uint8_t> other(frame, frame + len);
  const auto* mb = reinterpret_cast<const uint8_t*>(&mask);
  uint8_t salt = uint8_t(len * 131 + n_flows);
  for (size_t i = 0; i < sizeof(fl_key); ++i) {
    salt = uint8_t(salt * 29 + 7);
    if (off[i] >= 0 && size_t(off[i]) < other.size()) other[size_t(off[i])] ^= uint8_t(salt & ~mb[i]);
  }
  fl_key k2;
  if (!kernel::extract_cache_key(other.data(), other.size(), 7, k2))
    fail_with("a masked-out change made the frame uncacheable");
  const fl_key a = kernel::masked_key(k, mask, 3), b = kernel::masked_key(k2, mask, 3);
  if (std::memcmp(&a, &b, sizeof a) != 0) fail_with("a masked-out change changed the masked key");
  Sink again = run_pipeline(dp, other);
  if (again.packet_ins) fail_with("a packet covered by the entry goes to the controller in the pipeline");
  expect_same(run_ops(*d, other), again.outs,
              "megaflow entry differs from the pipeline for a covered packet");
  return 0;
}
