// Agent: the switch's OpenFlow agent. Turns controller requests into datapath
// and port operations, and datapath/port events into asynchronous messages.
//
// Transport-free: a peer is whatever can take an of::Message (in the switch, a
// channel::Connection that has negotiated its version; in unit tests, a
// vector). The channel does HELLO, echo keepalive, framing and decode errors;
// the agent gets decoded requests in order and answers them in order, so a
// barrier reply is honest by construction: every change before it has been
// applied and published by the datapath when its handler returned.
//
// Runs on one thread (the switch's asio thread); nothing here locks except
// through the datapath's control-path API.
//
// Controllers and roles (OF1.3 6.3.6): every peer starts EQUAL; a MASTER
// request demotes the previous master to SLAVE; MASTER/SLAVE requests carry a
// generation id checked against the last one seen (stale -> OFPRRFC_STALE).
// SLAVE peers get OFPBRC_IS_SLAVE for packet-out, flow/group/port/table/meter
// mods. Asynchronous messages go to a peer only when its async config allows
// the reason for its role (defaults of OF1.3 6.1.1). Peers accepted on a
// --listen endpoint (ofctl, ovs-ofctl) are "service" peers: they get replies
// but no asynchronous messages until they ask with set-async, and they do not
// count as a controller for fail-mode standalone.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/bytes.h"
#include "datapath/datapath.h"
#include "openflow/message.h"
#include "openflow/of13/bundle.h"
#include "switch/buffer_store.h"
#include "switch/forwarding.h"
#include "switch/options.h"
#include "switch/switch_ports.h"

namespace flowlab::sw {

struct AgentCounters {
  uint64_t requests = 0;
  uint64_t errors_sent = 0;
  uint64_t packet_ins_sent = 0;
  uint64_t packet_ins_unsent = 0;     // no peer wanted it
  uint64_t packet_ins_congested = 0;  // not sent to a peer whose output backlog was full
  uint64_t packet_outs = 0;           // packet-outs run (by buffer id or with data)
  uint64_t flow_removed_sent = 0;
  uint64_t port_status_sent = 0;
  uint64_t bundles_committed = 0;
  uint64_t bundles_failed = 0;          // commits refused (a flow-mod failed: nothing applied)
  uint64_t role_status_sent = 0;        // OF1.4: to a master demoted by another's request
  uint64_t requests_forwarded = 0;      // OF1.4: group/meter mods forwarded to other controllers
  uint64_t table_status_sent = 0;       // OF1.4: vacancy events
  uint64_t flow_updates_sent = 0;       // OF1.4 flow monitoring: updates (full and abbreviated)
  uint64_t controller_status_sent = 0;  // OF1.5: OFPT_CONTROLLER_STATUS
};

class Agent {
 public:
  using SendFn = std::function<void(of::Message)>;
  // Bytes queued toward a peer and not yet written (the connection's output).
  using BacklogFn = std::function<size_t()>;

  // Packet-in pacing (design). A controller slower than the packet-in rate
  // would otherwise hold megabytes of packet-ins in socket buffers (the
  // switch's, the kernel's on both sides), and its echo requests, barriers
  // and flow-mods, and its replies to the switch's keepalive, wait behind all
  // of them: seconds of delay and dead-peer false alarms. So the agent keeps
  // a window of packet-in bytes a peer may have unread. After every quarter
  // window of packet-ins it sends an echo request of its own (a probe:
  // "flpinprb" + sequence number); the controller answers it once it has
  // read every packet-in before it, which acknowledges those bytes. While the
  // unacknowledged bytes fill the window, or more than kPacketInBacklogBytes
  // wait in the connection's output (below its read pause,
  // channel::ConnectionOptions::pause_read_bytes, so a flood never makes the
  // switch stop reading its controller), packet-ins toward that peer are shed
  // and counted (packet_ins_congested), never queued. The window follows the
  // probes' round trip (AIMD on delay): halved when a probe took more than
  // kPacketInTargetNs (at most once per round trip: only for a probe sent
  // after the last cut), grown by an eighth when it took less than a fifth of
  // it, between kPacketInMinWindow and kPacketInMaxWindow. So what a
  // controller has unread stays about kPacketInTargetNs of its own work,
  // whatever its speed, and a fast controller is not throttled (1 MB per
  // round trip: 20 GB/s on loopback, 2 GB/s at 0.5 ms). A buffered packet-in
  // holds a buffer id until its packet-out, so a peer may also have at most
  // half the buffer store's ids unacknowledged: a window of 128-byte
  // packet-ins never evicts the buffers its own packet-outs are about to name
  // (1 MB of them is 6,500 packet-ins).
  static constexpr size_t kPacketInBacklogBytes = 128 * 1024;
  static constexpr size_t kPacketInMinWindow = 8 * 1024;
  static constexpr size_t kPacketInMaxWindow = 1024 * 1024;
  static constexpr uint64_t kPacketInTargetNs = 50'000'000;

  // Flow monitoring's flow control (OpenFlow 1.4 7.3.5.19): above
  // kMonitorPauseBytes waiting in a monitoring peer's output the agent sends it
  // OFPFME_PAUSED and holds its updates; once the output is under
  // kMonitorResumeBytes it sends them (the changes of the pause, in order, in
  // full) and OFPFME_RESUMED.
  static constexpr size_t kMonitorPauseBytes = 256 * 1024;
  static constexpr size_t kMonitorResumeBytes = 64 * 1024;

  // Bundle limits (memory exhaustion): bundles open per peer, bytes held per
  // bundle, and over all bundles of all peers. Beyond them an add gets
  // OFPBFC_MSG_TOO_MANY and an open OFPBFC_OUT_OF_BUNDLES. A flow-mod held
  // counts its wire bytes and kPreparedFlowModBytes for the entry prepared
  // from it (what the table keeps of a flow, ~1 KB measured), so a bundle
  // holds up to ~1.9M flow-mods and all bundles together ~3.8M.
  static constexpr size_t kMaxBundlesPerPeer = 64;
  static constexpr size_t kPreparedFlowModBytes = 1024;
  static constexpr size_t kMaxBundleBytes = size_t(2) << 30;
  static constexpr size_t kMaxBundleBytesTotal = size_t(4) << 30;

  Agent(const SwitchOptions& opts, dp::Datapath& dp, SwitchPorts& ports, ForwardingShared& shared);
  ~Agent();
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  // A peer whose version is negotiated. Returns its id. With `backlog`, packet-ins toward it are shed above
  // kPacketInBacklogBytes.
  uint64_t add_peer(uint8_t version, bool service, std::string name, SendFn send, BacklogFn backlog = {});
  void remove_peer(uint64_t id);
  size_t peer_count() const { return peers_.size(); }
  bool has_controller() const;  // any non-service peer

  // One decoded request from a peer; `raw` is its wire form (error replies quote it).
  void handle(uint64_t peer, const of::Message& msg, ByteSpan raw);

  // Packets queued by the forwarding threads (and by packet-out) for the controller.
  void deliver_packet_in(ToController item);
  // Periodic work: timeouts (flow-removed), buffer expiry. Call about once a second.
  void expire(uint64_t now_ns);
  // A port changed (link up/down): port-status to the peers that want it.
  void port_changed(size_t port_index, of::PortStatusReason reason);

  // Batching: with a scheduler set, the flow/group/meter mods of one burst
  // (in the switch: one socket read) are published as one datapath version.
  // The first change opens a batch and calls `schedule` once; whoever runs it
  // later (the switch: a handler posted behind the read) calls end_batch().
  // Any other request (barrier, packet-out, multipart, ...) and expiry end the
  // batch first, so what they answer or run sees every change before them.
  // Without a scheduler every change is published when its handler returns.
  //
  // The frames packet-outs send are batched the same way (agent_packet_out.cpp):
  // with a scheduler, each is copied into a staging batch of its output port,
  // and end_batch() sends every staged batch with one Port::tx_batch per port,
  // so the packet-outs of one socket read cost one sendmmsg per port, not one
  // per packet (a hub answering 85k packet-ins/s paid 85k syscalls/s). A
  // packet-out does not end the staging, any other request does (a barrier
  // reply leaves after the frames of the packet-outs before it); a staging
  // batch is also sent when it is full (PacketBatch::kMax).
  void set_batch_scheduler(std::function<void()> schedule) { schedule_batch_end_ = std::move(schedule); }
  void end_batch();
  // Called once every 256 requests: the switch checks there whether the heap
  // has grown and, if so, has its pages faulted in off this thread
  // (HeapPrefaulter), before a stream of flow-mods or bundle adds reaches them.
  void set_request_tick(std::function<void()> tick) { request_tick_ = std::move(tick); }
  bool batch_open() const { return batch_ != nullptr; }

  const AgentCounters& counters() const { return counters_; }
  const BufferStore& buffers() const { return buffers_; }
  // Aggregate to-controller counters of the forwarding threads (for logs/stats).
  void set_forwarding_threads(std::vector<ForwardingThread*> t) { threads_ = std::move(t); }
  // With the kernel fast path on: whether a port can bypass the slow path
  // (KernelDatapath::port_usable); traces then say whether a flow is cacheable.
  void set_fast_path_ports(std::function<bool(uint32_t)> usable) { fast_path_ports_ = std::move(usable); }

 private:
  struct Peer {
    uint64_t id = 0;
    std::string name;
    bool service = false;
    uint8_t version = of::kOf13;
    of::ControllerRole role = of::ControllerRole::kEqual;
    of::AsyncConfig async;
    SendFn send;
    BacklogFn backlog;
    // Packet-in pacing (above): bytes sent, acknowledged by a probe, and at the
    // last probe; the same counted in packet-ins.
    uint64_t pin_sent = 0, pin_acked = 0, pin_probed = 0;
    uint64_t pin_sent_n = 0, pin_acked_n = 0, pin_probed_n = 0;
    size_t pin_window = 64 * 1024;
    struct Probe {
      uint64_t seq, bytes, count, sent_ns;
    };
    std::deque<Probe> probes;  // unanswered, oldest first
    uint64_t next_probe = 1;
    uint64_t pin_cut_ns = 0;  // when the window was last halved
    // Bundles this peer opened (ONF extension, agent_bundle.cpp): the inner
    // flow-mods prepared as they came (checked, entries built), applied at
    // commit, and their wire bytes back to back (an error quotes them).
    struct Bundle {
      uint16_t flags = 0;
      bool closed = false;
      Bytes wire;
      std::vector<dp::PreparedFlowMod> mods;
      size_t bytes = 0;  // what it holds, as counted against the limits
    };
    std::map<uint32_t, Bundle> bundles;
    // OF1.4 flow monitors of this connection, by monitor id (agent_monitor.cpp).
    struct Monitor {
      of::FlowMonitorRequest request;
      dp::FlowSelector selector;
    };
    std::map<uint32_t, Monitor> monitors;
    // Flow control: paused (PAUSED sent), the flow changes held since (own:
    // made by this connection).
    struct HeldChange {
      dp::FlowChange change;
      bool own = false;
    };
    bool monitors_paused = false;
    std::vector<HeldChange> held_changes;
  };
  class AgentSinks;

  void reply(Peer& p, uint32_t xid, of::MessageBody body);
  void send_error(Peer& p, const of::OfError& err, ByteSpan raw);
  bool writable(Peer& p, ByteSpan raw);  // false (IS_SLAVE sent) for a slave

  void on_features(Peer& p, const of::Message& m);
  void on_set_config(Peer& p, const of::SetConfig& c, ByteSpan raw);
  void on_packet_out(Peer& p, const of::PacketOut& po, ByteSpan raw);
  void on_flow_mod(Peer& p, const of::FlowMod& fm, ByteSpan raw);
  void on_group_mod(Peer& p, const of::GroupMod& gm, ByteSpan raw);
  void on_meter_mod(Peer& p, const of::MeterMod& mm, ByteSpan raw);
  void on_port_mod(Peer& p, const of::PortMod& pm, ByteSpan raw);
  void on_table_mod(Peer& p, const of::TableMod& tm, ByteSpan raw);  // agent_table.cpp
  // A table features request's body (OF1.5: the first egress table); false
  // when it answered an error (then no reply follows).
  bool on_table_features(Peer& p, const of::TableFeaturesRequest& req, ByteSpan raw);
  Result<uint8_t, of::OfError> requested_first_egress(const of::TableFeaturesRequest& req) const;
  void on_role(Peer& p, const of::Message& m, ByteSpan raw);
  void on_multipart(Peer& p, const of::Message& m, ByteSpan raw);     // agent_multipart.cpp
  void on_experimenter(Peer& p, const of::Message& m, ByteSpan raw);  // agent_bundle.cpp
  void on_trace(Peer& p, const of::Message& m, ByteSpan raw);         // agent_trace.cpp
  void on_bundle_control(Peer& p, uint32_t xid, const of::BundleControl& c, ByteSpan raw);
  void on_bundle_add(Peer& p, uint32_t xid, const of::BundleAddView& a, ByteSpan raw);
  void commit_bundle(Peer& p, uint32_t xid, uint32_t id, Peer::Bundle& b, ByteSpan raw);
  void send_bundle_error(Peer& p, of::BundleFailedCode code, ByteSpan raw, std::string_view why);
  void drop_bundles(Peer& p);

  // Sends a multipart reply, split into several (OFPMPF_REPLY_MORE) when one
  // message would exceed 64 KB.
  void send_multipart(Peer& p, uint32_t xid, of::MultipartReplyBody body);
  template <typename Reply, typename Elem>
  void send_chunked(Peer& p, uint32_t xid, Reply reply, std::vector<Elem> Reply::*items);

  void send_flow_removed(const std::vector<of::FlowRemoved>& frs);
  // OF1.4 flow monitoring (agent_monitor.cpp): a monitor request (add,
  // modify, delete; INITIAL flows in the reply), and the updates for the
  // flow changes the datapath recorded, made by request `xid` of peer
  // `origin` (0: the switch itself, expiry). Recording is on while any
  // monitor exists.
  void on_flow_monitor(Peer& p, uint32_t xid, const of::FlowMonitorRequest& rq, ByteSpan raw);
  void send_flow_updates(uint64_t origin, uint32_t xid);
  // How one change reaches peer p's monitors (own: made by p's request).
  struct UpdateForm {
    bool selected = false;      // a monitor asks for its event and selects the flow
    bool full = false;          // in full; else one ABBREV for the request
    bool instructions = false;  // with the flow's instructions
  };
  UpdateForm update_form(const Peer& p, const dp::FlowChange& c, bool own) const;
  // The updates `changes` give peer p's monitors (own: made by p's request
  // xid, abbreviated to one ABBREV where no monitor asks NO_ABBREV).
  of::FlowMonitorReply flow_updates_for(const Peer& p, const std::vector<dp::FlowChange>& changes, bool own,
                                        uint32_t xid) const;
  void update_flow_recording();
  size_t monitor_count_ = 0;  // over all peers
  // OF1.5 controller status (agent_controller_status.cpp): a controller
  // connection (not a service peer) came up or went down (reason
  // CHANNEL_STATUS) or changed its role (ROLE): OFPT_CONTROLLER_STATUS to
  // every 1.5 controller connection; and the multipart reply listing every
  // controller connection (reason REQUEST), one per message.
  void send_controller_status(const Peer& subject, of::ControllerStatusReason reason,
                              of::ChannelStatus channel);
  void send_controller_status_reply(Peer& p, uint32_t xid);
  // Vacancy events of the datapath since the last call, as table status (agent_table.cpp).
  void send_table_status();
  // kind: 0 pin, 1 port status, 2 flow removed, 3 role status, 4 table status
  bool wants(const Peer& p, int kind, uint8_t reason) const;
  // OF1.4 7.4.5: a group-mod or meter-mod `from` had applied goes to every
  // other 1.4 controller whose async config asks for its reason.
  void forward_request(const Peer& from, ByteSpan raw, of::RequestForwardReason reason);
  // Tells the datapath whether an OF1.0 controller is connected (its table-miss semantics).
  void note_of10_controllers();
  // Runs a packet through `actions` as a packet-out (on the agent thread).
  void run_packet_out(Packet& pkt, const of::ActionList& actions);
  void flush_local_packet_ins();
  void begin_batch();
  void schedule_end();  // end_batch() runs after this read (once per opening)
  // A packet-out's frame to `sp`: staged (with a scheduler) or sent now.
  void transmit(SwitchPort& sp, const Packet& pkt);
  void flush_tx();  // sends every staged frame
  // Packet-in pacing: may this peer take a packet-in now; account one sent.
  bool pin_room(const Peer& p) const;
  void pin_sent(Peer& p, size_t bytes);
  // Buffer ids a peer may hold unacknowledged (half the store's); 0 without buffers.
  uint64_t pin_ids() const;
  void on_echo_reply(Peer& p, const of::EchoReply& r);

  SwitchOptions opts_;
  dp::Datapath& dp_;
  SwitchPorts& ports_;
  ForwardingShared& shared_;
  BufferStore buffers_;
  std::map<uint64_t, Peer> peers_;
  uint64_t next_peer_id_ = 1;
  bool generation_valid_ = false;
  uint64_t generation_id_ = 0;
  AgentCounters counters_;
  std::vector<ForwardingThread*> threads_;
  size_t bundle_bytes_ = 0;  // inner-message bytes held by all open bundles

  std::unique_ptr<AgentSinks> sinks_;
  std::unique_ptr<dp::ForwardingContext> ctx_;
  std::vector<ToController> local_packet_ins_;
  std::unique_ptr<Packet> scratch_;
  std::unique_ptr<Packet> packet_out_;  // the frame of the packet-out being run
  struct TxStage {
    SwitchPort* port = nullptr;
    std::vector<std::unique_ptr<Packet>> bufs;  // grown to PacketBatch::kMax at most
    PacketBatch batch;
  };
  std::vector<TxStage> tx_stage_;  // one per switch port, same index
  std::vector<TxStage*> tx_dirty_;
  bool end_scheduled_ = false;
  std::function<void()> schedule_batch_end_;
  std::function<void()> request_tick_;
  std::function<bool(uint32_t)> fast_path_ports_;  // set_fast_path_ports
  std::unique_ptr<dp::DeferredPublish> batch_;     // destroyed first: publishes before the rest goes
};

}  // namespace flowlab::sw
