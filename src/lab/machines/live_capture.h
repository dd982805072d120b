// `flowlab lab capture LAB LINK` of a lab across machines: the live pcap of a
// link comes from the agents that hold its ends, through etcd (keys.h), as the
// rest of the commands across machines do; agents never talk to each other.
//
// The reader (any machine that reaches the lab's etcd) asks each machine holding
// an end for a capture (exec request mode "capture", exec_wire.h). That machine's
// agent opens its end(s) (pcap_capture.h's stream_link_capture, threads in the
// agent: nothing forked, no file) and puts what it captured under
// /flowlab/lab/pieces/ID/NAME/SEQ/N, N = 0, 1, ..., a piece at most every
// kStreamFlushMs or kStreamPiece bytes, at most kStreamAhead pieces not yet taken
// (past that its pipe fills and the kernel drops, as a slow reader of a local
// capture makes it). The reader takes and erases each piece in one transaction
// and writes its pcap records to its output: one link end on each of two machines
// (a link between machines) is two streams spliced record by record into one pcap.
//
// It ends on the reader's should_stop (Ctrl-C), a reader of its output that left
// (EPIPE), the agent's end of the stream (the interfaces went: the lab went down)
// or the agent's lease. Then the request is erased: the agent stops the capture,
// erases what it put and its reply, and the reader waits for that reply to go.
#pragma once

#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "coord/etcd_client.h"
#include "core/result.h"
#include "lab/capture/pcap_capture.h"

namespace flowlab::lab {

inline constexpr size_t kStreamPiece = 256 * 1024;
inline constexpr int kStreamFlushMs = 100;
inline constexpr uint64_t kStreamAhead = 16;

// The reader: link `t` of the lab whose record's "across" is `across` (etcd, run,
// placement), its ends on the machines holding nodes `node_a` and `node_b`,
// streamed to `out` (closed at the end) until should_stop() or the stream ends.
Status capture_across(const nlohmann::json& across, const CaptureTarget& t, const std::string& node_a,
                      const std::string& node_b, FILE* out, const std::function<bool()>& should_stop);

// The agent: streams `t`'s ends on this machine into etcd under `piece_prefix`
// (keys::piece(run, machine, seq) + "/") until `stop` or the capture ends, then
// erases what the reader did not take. Its outcome: empty, or why it failed.
std::string serve_capture(const coord::EtcdConfig& cfg, const std::string& piece_prefix,
                          const CaptureTarget& t, const std::function<bool()>& stop);

}  // namespace flowlab::lab
