// Agent: multipart (OF1.0 stats) requests and their replies, split across
// several messages with OFPMPF_REPLY_MORE when one would pass 64 KB.
#include <type_traits>

#include "core/clock.h"
#include "core/log.h"
#include "openflow/codec.h"
#include "switch/agent.h"

namespace flowlab::sw {

using of::OfError;

namespace {

constexpr size_t kReplyBudget = 60000;  // bytes of body per message, under the 64 KB limit

// Encoded size of one element inside a reply of this version, measured with
// the codec (0 when the codec cannot encode it: then no splitting).
template <typename Reply, typename Elem>
size_t element_size(uint8_t version, std::vector<Elem> Reply::*items, const Elem& e, size_t empty_size) {
  Reply one{};
  (one.*items).push_back(e);
  auto enc = of::encode_message(of::make_message(version, 0, of::MultipartReply{0, one}));
  if (!enc.ok() || enc->size() < empty_size) return 0;
  return enc->size() - empty_size;
}

}  // namespace

template <typename Reply, typename Elem>
void Agent::send_chunked(Peer& p, uint32_t xid, Reply reply, std::vector<Elem> Reply::*items) {
  auto empty = of::encode_message(of::make_message(p.version, 0, of::MultipartReply{0, Reply{}}));
  std::vector<Elem>& all = reply.*items;
  if (!empty.ok() || all.size() <= 1) {
    send_multipart(p, xid, std::move(reply));
    return;
  }
  size_t base = empty->size();
  std::vector<Elem> items_left = std::move(all);
  (reply.*items).clear();
  const Reply shell = std::move(reply);  // what each chunk says besides its items (1.5's stats_only)
  Reply chunk = shell;
  size_t bytes = 0;
  for (size_t i = 0; i < items_left.size(); ++i) {
    size_t sz = element_size(p.version, items, items_left[i], base);
    if (!(chunk.*items).empty() && bytes + sz > kReplyBudget) {
      p.send(of::make_message(p.version, xid, of::MultipartReply{of::kMultipartMore, std::move(chunk)}));
      chunk = shell;
      bytes = 0;
    }
    (chunk.*items).push_back(std::move(items_left[i]));
    bytes += sz;
  }
  send_multipart(p, xid, std::move(chunk));
}

// Flow monitor replies are sent from agent_monitor.cpp.
template void Agent::send_chunked(Peer& p, uint32_t xid, of::FlowMonitorReply reply,
                                  std::vector<of::FlowUpdate> of::FlowMonitorReply::*items);

void Agent::send_multipart(Peer& p, uint32_t xid, of::MultipartReplyBody body) {
  p.send(of::make_message(p.version, xid, of::MultipartReply{0, std::move(body)}));
}

void Agent::on_multipart(Peer& p, const of::Message& m, ByteSpan raw) {
  const auto& req = m.as<of::MultipartRequest>();
  const uint32_t xid = m.xid;
  const uint64_t now = monotonic_ns();
  const bool of10 = p.version == of::kOf10;
  // OF1.0 peers see one table: table 0.
  auto restrict_table = [&](of::FlowStatsRequest r) {
    if (of10) r.table_id = 0;
    return r;
  };
  std::visit(
      [&](const auto& body) {
        using T = std::decay_t<decltype(body)>;
        if constexpr (std::is_same_v<T, of::DescRequest>) {
          of::DescReply d;
          d.mfr_desc = "flowlab";
          d.hw_desc = "flowlab userspace switch";
          d.sw_desc = "flowlab 0.1.0";
          d.serial_num = "none";
          d.dp_desc = opts_.name;
          send_multipart(p, xid, d);
        } else if constexpr (std::is_same_v<T, of::FlowStatsRequest>) {
          auto r = dp_.flow_stats(restrict_table(body), now);
          if (!r.ok()) return send_error(p, r.error(), raw);
          send_chunked(p, xid, std::move(*r), &of::FlowStatsReply::stats);
        } else if constexpr (std::is_same_v<T, of::AggregateStatsRequest>) {
          auto r = dp_.aggregate_stats(restrict_table(body));
          if (!r.ok()) return send_error(p, r.error(), raw);
          send_multipart(p, xid, *r);
        } else if constexpr (std::is_same_v<T, of::TableStatsRequest>) {
          of::TableStatsReply r = dp_.table_stats();
          if (of10) {
            std::erase_if(r.stats, [](const of::TableStats& t) { return t.table_id != 0; });
            for (auto& t : r.stats) {
              if (t.name.empty()) t.name = "classifier";
              if (t.wildcards == 0) t.wildcards = 0x3fffff;
              if (t.max_entries == 0) t.max_entries = 1000000;
            }
          }
          send_chunked(p, xid, std::move(r), &of::TableStatsReply::stats);
        } else if constexpr (std::is_same_v<T, of::PortStatsRequest>) {
          of::PortStatsReply r;
          if (shared_.sync_counters) shared_.sync_counters();  // kernel fast-path hits
          for (size_t i = 0; i < ports_.size(); ++i) {
            const SwitchPort& sp = ports_.at(i);
            if (body.port_no == of::port::kAny || body.port_no == sp.port_no)
              r.stats.push_back(ports_.stats(sp, now));
          }
          if (body.port_no != of::port::kAny && r.stats.empty() && body.port_no != of::port::kLocal)
            return send_error(p,
                              OfError::make(of::BadRequestCode::kBadPort,
                                            fmt::format("port_stats: no port {}", body.port_no)),
                              raw);
          send_chunked(p, xid, std::move(r), &of::PortStatsReply::stats);
        } else if constexpr (std::is_same_v<T, of::QueueStatsRequest> ||
                             std::is_same_v<T, of::QueueDescRequest>) {  // queue desc: OF1.4
          // No queues are configured: an empty list, but unknown ports and any
          // one queue are errors.
          constexpr bool kDesc = std::is_same_v<T, of::QueueDescRequest>;
          const char* what = kDesc ? "queue_desc" : "queue_stats";
          if (body.port_no != of::port::kAny && !ports_.find(body.port_no))
            return send_error(p,
                              OfError::make(of::QueueOpFailedCode::kBadPort,
                                            fmt::format("{}: no port {}", what, body.port_no)),
                              raw);
          if (body.queue_id != 0xffffffff)
            return send_error(p,
                              OfError::make(of::QueueOpFailedCode::kBadQueue,
                                            fmt::format("{}: no queue {}", what, body.queue_id)),
                              raw);
          if constexpr (kDesc)
            send_multipart(p, xid, of::QueueDescReply{});
          else
            send_multipart(p, xid, of::QueueStatsReply{});
        } else if constexpr (std::is_same_v<T, of::GroupStatsRequest>) {
          send_chunked(p, xid, dp_.group_stats(body, now), &of::GroupStatsReply::stats);
        } else if constexpr (std::is_same_v<T, of::GroupDescRequest>) {
          send_chunked(p, xid, dp_.group_desc(), &of::GroupDescReply::groups);
        } else if constexpr (std::is_same_v<T, of::GroupFeaturesRequest>) {
          send_multipart(p, xid, dp_.group_features());
        } else if constexpr (std::is_same_v<T, of::MeterStatsRequest>) {
          send_chunked(p, xid, dp_.meter_stats(body, now), &of::MeterStatsReply::stats);
        } else if constexpr (std::is_same_v<T, of::MeterConfigRequest>) {
          send_chunked(p, xid, dp_.meter_config(body), &of::MeterConfigReply::configs);
        } else if constexpr (std::is_same_v<T, of::MeterFeaturesRequest>) {
          send_multipart(p, xid, dp_.meter_features());
        } else if constexpr (std::is_same_v<T, of::TableFeaturesRequest>) {
          if (!on_table_features(p, body, raw)) return;  // agent_table.cpp
          of::TableFeaturesReply r = dp_.table_features();
          if (p.version < of::kOf15)
            for (of::TableFeatures& t : r.tables) t.features = 0;  // padding before 1.5
          send_chunked(p, xid, std::move(r), &of::TableFeaturesReply::tables);
        } else if constexpr (std::is_same_v<T, of::PortDescRequest>) {
          send_chunked(p, xid, of::PortDescReply{ports_.descs()}, &of::PortDescReply::ports);
        } else if constexpr (std::is_same_v<T, of::TableDescRequest>) {  // OF1.4
          send_chunked(p, xid, dp_.table_desc(), &of::TableDescReply::tables);
        } else if constexpr (std::is_same_v<T, of::FlowMonitorRequest>) {  // OF1.4
          on_flow_monitor(p, xid, body, raw);
        } else if constexpr (std::is_same_v<T, of::ControllerStatusRequest>) {  // OF1.5
          send_controller_status_reply(p, xid);
        } else {
          send_error(
              p,
              OfError::make(of::BadRequestCode::kBadExperimenter, "experimenter multipart is not supported"),
              raw);
        }
      },
      req.body);
}

}  // namespace flowlab::sw
