// Microbenchmarks for the software offload fallbacks and the in-memory port:
// checksum over a 64 KB frame, completing a partial checksum, segmenting a 64 KB
// TSO frame (full and partial checksums), MemoryPort rx/tx of a 32-packet batch.
#include <benchmark/benchmark.h>

#include "packet/builder.h"
#include "packet/checksum.h"
#include "packet/gso.h"
#include "port/memory_port.h"

namespace flowlab {
namespace {

const MacAddr kMacA = *MacAddr::parse("02:00:00:00:00:01");
const MacAddr kMacB = *MacAddr::parse("02:00:00:00:00:02");
const Ipv4Addr kIpA = *Ipv4Addr::parse("10.0.0.1");
const Ipv4Addr kIpB = *Ipv4Addr::parse("10.0.0.2");

void make_tso(Packet& p, size_t payload) {
  FrameBuilder()
      .eth(kMacB, kMacA)
      .ipv4(kIpA, kIpB)
      .tcp(1, 2, 0x10, 1)
      .payload(payload)
      .partial_csum()
      .build_into(p);
  p.offload.gso_type = OffloadInfo::kGsoTcpv4;
  p.offload.gso_size = 1448;
}

void BM_SumBytes(benchmark::State& st) {
  std::vector<uint8_t> buf(size_t(st.range(0)), 0x5a);
  for (auto _ : st) benchmark::DoNotOptimize(csum::sum_bytes(buf.data(), buf.size()));
  st.SetBytesProcessed(int64_t(st.iterations()) * st.range(0));
}
BENCHMARK(BM_SumBytes)->Arg(64)->Arg(1500)->Arg(65536);

void BM_CompletePartial(benchmark::State& st) {
  Packet p;
  FrameBuilder()
      .eth(kMacB, kMacA)
      .ipv4(kIpA, kIpB)
      .tcp(1, 2)
      .payload(size_t(st.range(0)))
      .partial_csum()
      .build_into(p);
  OffloadInfo o = p.offload;
  for (auto _ : st) {
    p.offload = o;
    benchmark::DoNotOptimize(csum::complete_partial(p));
  }
  st.SetBytesProcessed(int64_t(st.iterations()) * int64_t(p.size()));
}
BENCHMARK(BM_CompletePartial)->Arg(1448)->Arg(65000);

void BM_GsoSegment64K(benchmark::State& st) {
  Packet in;
  make_tso(in, 65000);
  Packet out;
  auto mode = st.range(0) ? gso::CsumMode::kPartial : gso::CsumMode::kFull;
  for (auto _ : st) {
    size_t n = gso::segment_count(in);
    for (size_t i = 0; i < n; ++i) benchmark::DoNotOptimize(gso::build_segment(in, i, out, mode));
  }
  st.SetBytesProcessed(int64_t(st.iterations()) * int64_t(in.size()));
}
BENCHMARK(BM_GsoSegment64K)->Arg(0)->Arg(1);

void BM_MemoryPortBatch(benchmark::State& st) {
  MemoryPort port("bench");
  std::vector<uint8_t> frame(64, 1);
  std::vector<std::unique_ptr<Packet>> pool;
  for (size_t i = 0; i < PacketBatch::kMax; ++i) pool.push_back(std::make_unique<Packet>(2048));
  PacketBatch b;
  for (auto _ : st) {
    for (size_t i = 0; i < PacketBatch::kMax; ++i) port.inject(frame);
    b.clear();
    for (auto& p : pool) b.pkts.push_back(p.get());
    port.rx_batch(b, PacketBatch::kMax);
    port.tx_batch(b);
    benchmark::DoNotOptimize(port.take_tx());
  }
  st.SetItemsProcessed(int64_t(st.iterations()) * int64_t(PacketBatch::kMax));
}
BENCHMARK(BM_MemoryPortBatch);

}  // namespace
}  // namespace flowlab
BENCHMARK_MAIN();
