// EmulatedSwitch: one fake OpenFlow switch of the cbench method.
//
// It owns a non-blocking TCP socket to the controller under test, answers the
// controller's handshake (hello, features, get-config, barrier, echo, desc and
// port-desc multiparts, role), announces its hosts with gratuitous-ARP
// packet-ins, then sends 64-byte IPv4 packet-ins with cycling source MACs, the
// cbench way. Packet-ins are stamped from one pre-encoded template (only xid,
// buffer id and MAC bytes change), and answers are counted by looking at the
// OpenFlow header and a few fixed offsets, so the emulator costs far less per
// message than the controller it measures.
//
// What counts as a response (as in cbench): flow-mod add/modify, and
// packet-out unless it carries LLDP.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/bytes.h"
#include "core/result.h"

namespace flowlab::loadgen {

struct EmulatedSwitchConfig {
  uint64_t dpid = 1;
  uint8_t version = 4;     // 1 = OpenFlow 1.0, 4 = OpenFlow 1.3
  uint32_t macs = 100000;  // hosts behind this switch
  uint32_t ports = 4;      // data ports 1..N (packet-ins arrive on 1)
  bool buffered = true;    // packet-ins carry a buffer id (cbench does)
};

class EmulatedSwitch {
 public:
  explicit EmulatedSwitch(EmulatedSwitchConfig cfg);
  ~EmulatedSwitch();
  EmulatedSwitch(const EmulatedSwitch&) = delete;
  EmulatedSwitch& operator=(const EmulatedSwitch&) = delete;

  // Blocking connect with a timeout, then non-blocking with TCP_NODELAY; sends hello.
  Status connect_to(const std::string& host, uint16_t port, int timeout_ms);
  int fd() const { return fd_; }

  // Reads what the socket has and processes every whole message. Error = the
  // controller closed the connection or sent something we cannot frame.
  Status on_readable();
  // Flushes pending output; true when everything queued has been written.
  Result<bool> flush();
  bool want_write() const { return out_pos_ < out_.size(); }

  // Handshake done: features sent and, for OF1.3, the port description asked
  // for, so the controller is past its configuration phase.
  bool ready() const { return features_sent_ && (cfg_.version == 1 || port_desc_sent_); }
  bool features_sent() const { return features_sent_; }

  // Latency mode: one packet-in outstanding; each answer sends the next one
  // and records the round trip.
  void set_latency_mode(bool on) { latency_mode_ = on; }
  void set_sending(bool on) { sending_ = on; }
  // Sends the first packet-in of latency mode (when none is outstanding).
  void kick();
  const std::vector<uint32_t>& rtt_ns() const { return rtt_ns_; }
  void clear_rtts() { rtt_ns_.clear(); }

  // Queues the gratuitous ARPs announcing every host (once).
  void queue_arps();
  // Queues n packet-ins (bytes are written on the next flush()).
  void queue_packet_ins(uint32_t n);
  size_t queued_bytes() const { return out_.size() - out_pos_; }

  uint64_t responses() const { return responses_; }
  uint64_t packet_ins_sent() const { return packet_ins_; }
  uint64_t flow_mods() const { return flow_mods_; }
  uint64_t packet_outs() const { return packet_outs_; }
  void reset_counts() { responses_ = flow_mods_ = packet_outs_ = 0; }
  const std::string& last_error() const { return last_error_; }
  uint64_t dpid() const { return cfg_.dpid; }

 private:
  void handle_message(ByteSpan msg);
  void count_response(ByteSpan msg);
  void reply(Bytes bytes);
  void build_templates();

  EmulatedSwitchConfig cfg_;
  int fd_ = -1;
  Bytes in_;
  Bytes out_;
  size_t out_pos_ = 0;
  Bytes pin_template_;        // one packet-in, patched per send
  size_t pin_frame_off_ = 0;  // offset of the Ethernet frame in the template
  uint32_t next_xid_ = 1;
  uint32_t next_buffer_ = 1;
  uint32_t mac_cursor_ = 0;
  bool hello_received_ = false;
  bool features_sent_ = false;
  bool arps_queued_ = false;
  bool port_desc_sent_ = false;
  bool latency_mode_ = false;
  bool sending_ = false;
  bool waiting_ = false;
  uint64_t sent_ns_ = 0;
  uint32_t outstanding_buffer_ = 0;
  std::vector<uint32_t> rtt_ns_;
  uint64_t responses_ = 0, flow_mods_ = 0, packet_outs_ = 0, packet_ins_ = 0;
  std::string last_error_;
};

}  // namespace flowlab::loadgen
