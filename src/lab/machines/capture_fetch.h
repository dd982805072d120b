// The captures of a case across machines, brought to the coordinator's run dir.
//
// Each machine captures the ends of the captured links it holds (a link between
// two machines: at its end on each, each file the direction arriving there,
// LINK@MACHINE.pcap; a link on one machine: LINK.pcap, as on one machine). When
// the tests are done, each agent stops its captures and says what it wrote; every
// file then comes over etcd, the one state the agents and the coordinator share, a
// kFetchPiece (1 MiB) at a time: the agent puts the piece under a key of its own
// (keys.h: outside the runs' keys the agents watch), the coordinator takes it and
// erases it before asking for the next, so etcd holds one piece at a time. The
// files land in DIR under the same names. Ctrl-C stops the transfer (the files
// not brought say so).
//
// Bounded: a case brings at most kCaptureShipCap bytes over etcd; a file past it
// stays out (its record says so; it goes with the agent's part). etcd keeps the
// history of the pieces until it compacts (a Debian etcd-server: set
// --auto-compaction-retention), so a case's captures cost its etcd that much
// space until then; `--capture-max` bounds each file as on one machine.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace flowlab::lab {

class AgentExec;

inline constexpr uint64_t kCaptureShipCap = 512'000'000;

// Every machine's capture record (pcap_capture.h's, each entry with "machine"
// and "captured_at"), its files written into `dir` and named there; a machine
// that could not answer, or a file that could not come, has an "error".
nlohmann::json collect_captures(const std::map<std::string, std::shared_ptr<AgentExec>>& agents,
                                const std::string& dir, uint64_t cap = kCaptureShipCap);

}  // namespace flowlab::lab
