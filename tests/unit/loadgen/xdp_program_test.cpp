// The XDP program of `flowlab pktgen --mode xdp` (src/loadgen/pktgen/xdp_program.h),
// instruction by instruction (no kernel): the encoding of each kind, the map
// load, every jump landing on `drop`, the constants baked in; the checksum
// arithmetic against a frame rebuilt for each port. As root, the kernel's
// verifier loads it and plain BPF_PROG_RUN runs it: the frames it makes
// carry the ports in turn with valid checksums, and a short frame is dropped.
#include "loadgen/pktgen/xdp_program.h"

#include <gtest/gtest.h>
#include <linux/bpf.h>
#include <sched.h>
#include <unistd.h>

#include <thread>

#include "packet/builder.h"

namespace flowlab::loadgen {
namespace {

struct Insn {
  uint8_t code, dst, src;
  int16_t off;
  int32_t imm;
};
Insn decode(uint64_t v) {
  return {uint8_t(v), uint8_t(v >> 8 & 0xf), uint8_t(v >> 12 & 0xf), int16_t(uint16_t(v >> 16)),
          int32_t(uint32_t(v >> 32))};
}

Bytes template_frame(uint16_t dport, size_t payload = 18) {
  return FrameBuilder()
      .eth(*MacAddr::parse("02:00:00:00:00:02"), *MacAddr::parse("02:00:00:00:00:01"))
      .ipv4(*Ipv4Addr::parse("10.0.0.1"), *Ipv4Addr::parse("10.0.0.2"))
      .udp(49152, dport)
      .payload(payload, 0x5a)
      .build();
}

TEST(XdpProgram, EncodesEachInstructionKind) {
  auto p = xdp_flow_program({9000, 64, 0x1234}, 7);
  ASSERT_GE(p.size(), 30u);
  // r6 = r1: ALU64 | MOV | X (0xbf), dst 6, src 1.
  EXPECT_EQ(p[0], 0x16bfu);
  // *(u32 *)(r10 - 4) = 0: ST | MEM | W (0x62), dst 10, off -4.
  EXPECT_EQ(p[1], 0x0000'0000'fffc'0062u | 0xa00u);
  // r1 = map fd 7: LD | DW | IMM (0x18), src BPF_PSEUDO_MAP_FD, then an all-zero slot.
  Insn ld = decode(p[4]);
  EXPECT_EQ(ld.code, BPF_LD | BPF_DW | BPF_IMM);
  EXPECT_EQ(ld.dst, 1);
  EXPECT_EQ(ld.src, BPF_PSEUDO_MAP_FD);
  EXPECT_EQ(ld.imm, 7);
  EXPECT_EQ(p[5], 0u);
  Insn call = decode(p[6]);
  EXPECT_EQ(call.code, BPF_JMP | BPF_CALL);
  EXPECT_EQ(call.imm, BPF_FUNC_map_lookup_elem);
  // The end: r0 = XDP_TX; exit; drop: r0 = XDP_DROP; exit.
  size_t n = p.size();
  EXPECT_EQ(p[n - 4], 0x0000'0003'0000'00b7u);
  EXPECT_EQ(p[n - 3], 0x95u);
  EXPECT_EQ(p[n - 2], 0x0000'0001'0000'00b7u);
  EXPECT_EQ(p[n - 1], 0x95u);
}

TEST(XdpProgram, JumpsLandInsideAndDropJumpsOnDrop) {
  auto p = xdp_flow_program({9000, 64, 0x1234}, 3);
  const size_t drop = p.size() - 2;
  int to_drop = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    Insn x = decode(p[i]);
    uint8_t cls = x.code & 0x07, op = x.code & 0xf0;
    if (cls != BPF_JMP || op == BPF_CALL || op == BPF_EXIT) continue;
    size_t target = i + 1 + size_t(x.off);
    ASSERT_LT(target, p.size()) << "jump at " << i;
    if (x.off > 1) {
      EXPECT_EQ(target, drop) << "jump at " << i;
      ++to_drop;
    } else {
      EXPECT_EQ(x.off, 1) << "a skip over one instruction at " << i;
    }
  }
  EXPECT_EQ(to_drop, 2) << "the map lookup's null check and the bounds check";
}

TEST(XdpProgram, ConstantsAreBakedIn) {
  auto p = xdp_flow_program({9000, 64, 0x1234}, 3);
  int flows_compares = 0, base = 0, sum = 0, bounds = 0;
  for (uint64_t v : p) {
    Insn x = decode(v);
    if (x.code == (BPF_JMP | BPF_JLT | BPF_K) && x.imm == 64) ++flows_compares;
    if (x.code == (BPF_ALU64 | BPF_ADD | BPF_K) && x.imm == 9000) ++base;
    if (x.code == (BPF_ALU64 | BPF_ADD | BPF_K) && x.imm == (~0x1234 & 0xffff)) ++sum;
    if (x.code == (BPF_ALU64 | BPF_ADD | BPF_K) && x.imm == int32_t(kUdpHeaderEnd)) ++bounds;
    if (x.code == (BPF_STX | BPF_MEM | BPF_H)) {
      EXPECT_TRUE(x.off == int16_t(kUdpDportOffset) || x.off == int16_t(kUdpCsumOffset)) << x.off;
    }
  }
  EXPECT_EQ(flows_compares, 2);
  EXPECT_EQ(base, 1);
  EXPECT_EQ(sum, 1);
  EXPECT_EQ(bounds, 1);
}

TEST(XdpProgram, ChecksumOfEachFlowIsTheRebuiltFramesChecksum) {
  for (uint16_t base : {uint16_t(9000), uint16_t(1), uint16_t(65000)}) {
    Bytes t = template_frame(base);
    uint16_t csum = load_be16(t.data() + kUdpCsumOffset);
    for (uint32_t i = 0; i < 500 && base + i <= 65535; i += (i < 70 ? 1 : 7)) {
      Bytes f = template_frame(uint16_t(base + i));
      EXPECT_EQ(flow_udp_checksum(csum, i), load_be16(f.data() + kUdpCsumOffset)) << base << "+" << i;
    }
  }
}

TEST(XdpProgram, LoadRefusesPortsPast65535) {
  auto r = XdpFlowProgram::load({65500, 100, 0});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("65535"), std::string::npos) << r.error().message;
}

// As root: the kernel's verifier takes the program and it writes what it should.
TEST(XdpProgram, KernelRunsItPortsInTurnChecksumsValid) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (BPF_PROG_LOAD of an XDP program)";
  const uint32_t flows = 5;
  Bytes t = template_frame(7000);
  auto prog = XdpFlowProgram::load({7000, flows, load_be16(t.data() + kUdpCsumOffset)});
  ASSERT_TRUE(prog.ok()) << prog.error().message;
  // The counter is per CPU: run every test run on one.
  std::thread([&] {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(sched_getcpu(), &set);
    ASSERT_EQ(sched_setaffinity(0, sizeof set, &set), 0);
    for (uint32_t k = 0; k < 2 * flows + 1; ++k) {
      auto r = prog->run_once(t);
      ASSERT_TRUE(r.ok()) << r.error().message;
      auto& [ret, f] = *r;
      EXPECT_EQ(ret, 3u) << "XDP_TX";
      ASSERT_EQ(f.size(), t.size());
      EXPECT_EQ(load_be16(f.data() + kUdpDportOffset), 7000 + k % flows) << k;
      EXPECT_EQ(load_be16(f.data() + kUdpCsumOffset), l4_checksum(f.data(), f.size(), 14, 34, false, 17))
          << k;
      Bytes rest_a(f.begin(), f.begin() + kUdpDportOffset), rest_b(t.begin(), t.begin() + kUdpDportOffset);
      EXPECT_EQ(rest_a, rest_b) << "only the port and the checksum change";
    }
  }).join();
  Bytes runt(t.begin(), t.begin() + 30);
  auto r = prog->run_once(runt);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->first, 1u) << "XDP_DROP for a frame shorter than its UDP header";
}

// The owner moves its descriptors (program, map, the resident attachment and
// its namespace); the moved-from one holds none.
TEST(XdpProgram, MovedFromOwnerHoldsNothing) {
  XdpFlowProgram a;
  EXPECT_FALSE(a.loaded());
  if (geteuid() != 0) GTEST_SKIP() << "needs root to load";
  auto p = XdpFlowProgram::load({9000, 4, 0});
  ASSERT_TRUE(p.ok()) << p.error().message;
  Status st = p->keep_resident();
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_TRUE(p->resident());
  XdpFlowProgram b = std::move(*p);
  EXPECT_TRUE(b.loaded());
  EXPECT_TRUE(b.resident());
  EXPECT_FALSE(p->loaded());
  EXPECT_FALSE(p->resident());
  a = std::move(b);
  EXPECT_TRUE(a.loaded());
  EXPECT_TRUE(a.resident());
  EXPECT_FALSE(b.loaded());  // NOLINT(bugprone-use-after-move): the moved-from state is the point
}

}  // namespace
}  // namespace flowlab::loadgen
