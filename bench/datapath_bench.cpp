// Microbenchmarks of the datapath lookup: flow-cache hits, classifier lookups
// with N distinct tuples (masks), and a whole batch through process_batch.
#include <benchmark/benchmark.h>

#include "datapath/classifier.h"
#include "datapath/datapath.h"
#include "packet/builder.h"

namespace flowlab::dp {
namespace {

struct NullOut : OutputSink {
  uint64_t n = 0;
  void output(const Packet&, uint32_t, uint32_t) override { ++n; }
};
struct NullCtl : ControllerSink {
  void packet_in(const PacketInInfo&, const Packet&) override {}
};

Bytes frame(uint32_t dst, uint16_t dport) {
  return FrameBuilder()
      .eth(MacAddr::from_u64(2), MacAddr::from_u64(1))
      .ipv4(Ipv4Addr{0x0a000001}, Ipv4Addr{dst})
      .tcp(1234, dport)
      .payload(10)
      .build();
}

// N flows, each with a different prefix length on ipv4_dst -> N tuples.
std::vector<FlowEntryPtr> make_rules(int tuples) {
  std::vector<FlowEntryPtr> v;
  for (int i = 0; i < tuples; ++i) {
    auto e = std::make_shared<FlowEntry>();
    uint32_t mask = i == 0 ? 0xffffffffu : ~((1u << (i % 32)) - 1);
    of::Match m;
    m.add(of::OxmField::basic(of::OxmId::kEthType, 0x0800));
    m.add(of::OxmField::basic_masked(of::OxmId::kIpv4Dst, 0x0b000000 & mask, mask));
    if (i >= 32) m.add(of::OxmField::basic(of::OxmId::kInPort, uint64_t(i)));
    e->priority = uint16_t(100 + i);
    e->match = m;
    e->key = *compile_match(m);
    e->counters = std::make_shared<FlowCounters>();
    e->decode();
    v.push_back(e);
  }
  return v;
}

void BM_ClassifierLookup(benchmark::State& state) {
  auto c = Classifier::build(make_rules(int(state.range(0))));
  Bytes b = frame(0x0c000001, 80);  // matches no rule: visits every subtable
  FlowKey k;
  PacketLayers l;
  extract_flow_key(b.data(), b.size(), 1, 0, 0, k, l);
  for (auto _ : state) benchmark::DoNotOptimize(c.lookup(k));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ClassifierLookup)->Arg(1)->Arg(4)->Arg(16)->Arg(64);

void BM_ExtractFlowKey(benchmark::State& state) {
  Bytes b = frame(0x0a000002, 80);
  FlowKey k;
  PacketLayers l;
  for (auto _ : state) {
    extract_flow_key(b.data(), b.size(), 1, 0, 0, k, l);
    benchmark::DoNotOptimize(k);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ExtractFlowKey);

// Whole pipeline per batch of 32: mostly cache hits (one flow) with `tuples` masks installed.
void BM_ProcessBatchCacheHit(benchmark::State& state) {
  Datapath dp;
  for (const auto& e : make_rules(int(state.range(0)))) {
    of::FlowMod fm;
    fm.priority = e->priority;
    fm.match = e->match;
    fm.instructions.push_back(of::Instruction::apply({of::Action::output(2)}));
    (void)dp.flow_mod(fm, 1);
  }
  NullOut out;
  NullCtl ctl;
  ForwardingContext ctx(dp, out, ctl);
  Bytes b = frame(0x0b000000, 80);
  std::vector<Packet> pkts;
  for (size_t i = 0; i < PacketBatch::kMax; ++i) pkts.emplace_back(2048);
  PacketBatch batch;
  for (auto& p : pkts) {
    p.assign(b.data(), b.size());
    p.in_port = 1;
    batch.pkts.push_back(&p);
  }
  for (auto _ : state) dp.process_batch(ctx, batch, 5);
  state.SetItemsProcessed(state.iterations() * int64_t(batch.size()));
}
BENCHMARK(BM_ProcessBatchCacheHit)->Arg(1)->Arg(16)->Arg(64);

}  // namespace
}  // namespace flowlab::dp

BENCHMARK_MAIN();
