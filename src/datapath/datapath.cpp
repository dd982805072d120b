// Datapath: stub implementation so the switch links while the pipeline lands.
#include "datapath/datapath.h"

namespace flowlab::dp {

struct DatapathImpl {
  DatapathConfig cfg;
  const PortView* ports = nullptr;
  of::SwitchConfig sw;
};
struct ForwardingState {};

of::Match PacketInInfo::match() const {
  of::Match m;
  return m;
}

ForwardingContext::ForwardingContext(Datapath& dp, OutputSink&, ControllerSink&)
    : dp_(dp), state_(std::make_unique<ForwardingState>()) {}
ForwardingContext::~ForwardingContext() = default;

Datapath::Datapath(DatapathConfig cfg, const PortView* ports) : impl_(std::make_unique<DatapathImpl>()) {
  impl_->cfg = cfg;
  impl_->ports = ports;
}
Datapath::~Datapath() = default;

static of::OfError not_yet() { return of::OfError::make(of::BadRequestCode::kEperm, "datapath not implemented yet"); }

Result<std::vector<of::FlowRemoved>, of::OfError> Datapath::flow_mod(const of::FlowMod&, uint64_t) { return unexpected(not_yet()); }
Result<std::vector<of::FlowRemoved>, of::OfError> Datapath::group_mod(const of::GroupMod&, uint64_t) { return unexpected(not_yet()); }
Result<std::vector<of::FlowRemoved>, of::OfError> Datapath::meter_mod(const of::MeterMod&, uint64_t) { return unexpected(not_yet()); }
OfStatus Datapath::table_mod(const of::TableMod&) { return {}; }
std::vector<of::FlowRemoved> Datapath::expire(uint64_t) { return {}; }
void Datapath::set_switch_config(const of::SwitchConfig& c) { impl_->sw = c; }
of::SwitchConfig Datapath::switch_config() const { return impl_->sw; }
OfStatus Datapath::validate_packet_out(const of::ActionList&) const { return {}; }
Result<of::FlowStatsReply, of::OfError> Datapath::flow_stats(const of::FlowStatsRequest&, uint64_t) const { return of::FlowStatsReply{}; }
Result<of::AggregateStatsReply, of::OfError> Datapath::aggregate_stats(const of::FlowStatsRequest&) const { return of::AggregateStatsReply{}; }
of::TableStatsReply Datapath::table_stats() const { return {}; }
of::GroupStatsReply Datapath::group_stats(const of::GroupStatsRequest&, uint64_t) const { return {}; }
of::GroupDescReply Datapath::group_desc() const { return {}; }
of::GroupFeaturesReply Datapath::group_features() const { return {}; }
of::MeterStatsReply Datapath::meter_stats(const of::MeterStatsRequest&, uint64_t) const { return {}; }
of::MeterConfigReply Datapath::meter_config(const of::MeterConfigRequest&) const { return {}; }
of::MeterFeaturesReply Datapath::meter_features() const { return {}; }
of::TableFeaturesReply Datapath::table_features() const { return {}; }
DatapathCounters Datapath::counters() const { return {}; }
uint8_t Datapath::n_tables() const { return impl_->cfg.n_tables; }
size_t Datapath::flow_count() const { return 0; }
uint64_t Datapath::version() const { return 0; }
void Datapath::process_batch(ForwardingContext&, PacketBatch&, uint64_t) {}
void Datapath::packet_out(ForwardingContext&, Packet&, const of::ActionList&, uint64_t) {}

}  // namespace flowlab::dp
