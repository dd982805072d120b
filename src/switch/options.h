// The switch's configuration and its parsers: what `flowlab switch` accepts on
// the command line, checked before anything starts.
//
// The CLI (src/cli/switch.cpp) only collects strings; every rule lives here so a
// unit test can check it: port specs `IFNAME[=N]` / `tap:NAME[=N]` (unnumbered
// ports take the lowest free numbers 1, 2, ...), controller targets
// `tcp:HOST[:PORT]`, listeners `ptcp:PORT[:HOST]`, the LOCAL port `--local IFNAME|tap:NAME`, `--protocols
// OpenFlow13,OpenFlow10`, dpids in decimal or 0x-hex. validate_options() also checks what the system says:
// every non-TAP interface exists.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace flowlab::sw {

struct PortSpec {
  std::string ifname;    // Linux interface name (for TAP: the TAP device name)
  bool tap = false;      // `tap:NAME`: a TAP device we create/attach
  uint32_t port_no = 0;  // OpenFlow port number; 0 = assign the next free one
  bool operator==(const PortSpec&) const = default;
};

// An OpenFlow endpoint: `tcp:HOST:PORT` / `ssl:HOST:PORT` (active) or
// `ptcp:PORT[:HOST]` (passive).
struct ChannelTarget {
  bool passive = false;
  bool tls = false;  // ssl: (needs SwitchOptions cert/key/CA files)
  std::string host;  // IPv4/IPv6 literal or name; passive default 0.0.0.0
  uint16_t port = 6653;
  std::string text;  // as given, for logs
  bool operator==(const ChannelTarget&) const = default;
};

enum class FailMode { kSecure, kStandalone };

// Which datapath forwards: the eBPF/TC kernel fast path in front of the
// user-space pipeline, or the pipeline alone on AF_PACKET rings. kAuto is tc
// where the kernel allows it, else af-packet with one log line saying why;
// an explicit kTc that cannot run is a start-up error.
enum class DatapathKind { kAuto, kTc, kAfPacket };

struct SwitchOptions {
  std::string name = "s1";
  uint64_t dpid = 1;
  std::vector<PortSpec> ports;
  // The switch's own port (OFPP_LOCAL, 0xfffffffe), as Open vSwitch's bridge
  // device: usually `tap:NAME`, a TAP device the host stack sits on, so the
  // switch's host can take an address on the switched network. FLOOD and ALL
  // include it, as in OVS. Unset: no LOCAL port (outputs to it are dropped).
  std::optional<PortSpec> local_port;
  std::vector<ChannelTarget> controllers;  // active connections
  // --controller-failover: one controller at a time, in the order given; when the
  // connection to it fails or dies (no echo reply: 3 x echo_interval) the switch
  // moves to the next, round the list, as Mininet's user switch (ofprotocol) does.
  // Off: a connection to every controller at once (Open vSwitch's way).
  bool controller_failover = false;
  // --connection-log FILE: one line per controller connection event (trying,
  // connected, failed, dropped), "TARGET: EVENT" as ofprotocol's log writes them;
  // truncated at start. Empty: none.
  std::string connection_log;
  // PEM files for ssl: controllers: this switch's certificate and key, and the
  // CA the controller's certificate must be signed by (OVS's -p/-c/-C).
  std::string cert_file, key_file, ca_file;
  std::vector<ChannelTarget> listeners;  // passive listeners (ofctl, ovs-ofctl)
  FailMode fail_mode = FailMode::kSecure;
  DatapathKind datapath = DatapathKind::kAuto;
  unsigned threads = 1;  // forwarding threads
  // Nice value of the forwarding threads (-20..19). Below 0 they preempt
  // ordinary processes on wakeup, the way the kernel's softirq forwarding of a
  // Linux bridge does; needs CAP_SYS_NICE (ignored without it). 0 = leave as is.
  int forwarding_nice = -10;
  // Packet-in coalescing (forwarding.h, "Packet-in coalescing"): while table
  // misses arrive faster than one per 50 us, a forwarding thread that queued
  // some for the controller waits this long before it looks for more, so one
  // wake-up of it, of the agent and of the controller carries several
  // packet-ins instead of one. Adds at most this much to a packet-in's latency,
  // and only under such a flood. 0 = off.
  uint32_t packet_in_coalesce_us = 100;
  uint32_t version_bitmap = (1u << 6) | (1u << 5) | (1u << 4) | (1u << 1);  // OF1.5, 1.4, 1.3 and 1.0
  uint8_t n_tables = 64;
  uint32_t table_size = 1u << 20;  // flows per table (OF1.4 vacancy and eviction count against it)
  // Packet-in buffer ids held at once (and at most 64 MB of their data): as
  // many as the to-controller queue, so a controller answering a whole queued
  // batch finds every packet still buffered.
  uint32_t n_buffers = 16384;
  uint32_t buffer_timeout_ms = 5000;   // a buffered packet-in is dropped after this
  size_t to_controller_queue = 16384;  // packets waiting for the agent
  uint32_t echo_interval_ms = 5000;    // keepalive period; dead after 3 missed
  uint32_t reconnect_max_ms = 8000;    // backoff cap for active connections
  // When set, the counters (ports, to-controller queue, packet-ins, buffers)
  // are written there as JSON every 500 ms and at stop (write + rename, so a
  // reader never sees half a file). The lab reads it to explain its figures.
  std::string stats_file;
};

Result<PortSpec> parse_port_spec(std::string_view s);
// `--local IFNAME` or `--local tap:NAME` (no `=N`: its number is LOCAL).
Result<PortSpec> parse_local_port_spec(std::string_view s);
Result<ChannelTarget> parse_controller_target(std::string_view s);  // tcp:|ssl:HOST[:PORT]
Result<ChannelTarget> parse_listen_target(std::string_view s);      // ptcp:PORT[:HOST]
Result<uint64_t> parse_dpid(std::string_view s);
Result<FailMode> parse_fail_mode(std::string_view s);
// "OpenFlow15,OpenFlow14,OpenFlow13,OpenFlow10" -> bitmap (bit n = wire version n).
Result<uint32_t> parse_protocols(std::string_view s);
std::string_view to_string(FailMode m);
Result<DatapathKind> parse_datapath(std::string_view s);  // tc | af-packet | auto
std::string_view to_string(DatapathKind k);

// Assigns numbers to unnumbered ports, rejects duplicates (interface or
// number), reserved numbers and a switch with no port. Pure: no system calls.
Status assign_port_numbers(std::vector<PortSpec>& ports);

// assign_port_numbers() plus the checks that ask the system: every non-TAP
// interface exists (the LOCAL one too, and it is not also a --port). Error
// messages name the offending option.
Status validate_options(SwitchOptions& opts);

}  // namespace flowlab::sw
