// The end of a case's tests across machines: what each machine's part holds
// that the run's results need, brought to the coordinator.
//
// Each agent, asked once the tests are done, stops its captures and its shaped
// links' delay lines (their counters final, as the runner does on one machine)
// and answers with their records. The shaped links' records replace those the
// agent gave when its part was ready (results.json's cases[].links, each with
// its "machine"); a machine that cannot answer keeps those.
//
// Captures: each machine captures the ends of the captured links it holds (a
// link between two machines: at its end on each, each file the direction
// arriving there, LINK@MACHINE.pcap; a link on one machine: LINK.pcap, as on one
// machine). Every file comes over etcd, the one state the agents and the
// coordinator share, in kFetchPiece (1 MiB) pieces, kFetchesInFlight asked at
// once: the agent puts each piece under a key of its own (keys.h: outside the
// runs' keys the agents watch), the coordinator takes and erases it in one
// transaction, so etcd holds at most kFetchesInFlight pieces at a time. The files
// land in DIR under the same names. A signal does
// not stop the transfer: the teardown of `lab down` (a SIGTERM) is when a
// persistent lab's files come.
//
// Bounded: a case brings at most kCaptureShipCap bytes over etcd; a file past it
// stays out (its record says so; it goes with the agent's part). etcd keeps the
// history of the pieces until it compacts (a Debian etcd-server: set
// --auto-compaction-retention), so a case's captures cost its etcd that much
// space until then; `--capture-max` bounds each file pair as on one machine.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace flowlab::lab {

class AgentExec;

inline constexpr uint64_t kCaptureShipCap = 512'000'000;
inline constexpr int kFetchesInFlight = 4;

struct MachineFinish {
  std::shared_ptr<AgentExec> agent;
  nlohmann::json ready_links;  // its shaped links as it said when ready (the fallback)
};

// {"links": every machine's shaped links, "capture": every machine's capture
// record (pcap_capture.h's, each entry with "machine" and "captured_at"), its
// files written into `capture_dir` and named there, or null when `captures` is
// false}. A machine that could not answer, or a file that could not come, has
// an "error" entry in "capture".
nlohmann::json finish_parts(const std::map<std::string, MachineFinish>& machines, bool captures,
                            const std::string& capture_dir, uint64_t cap = kCaptureShipCap);

}  // namespace flowlab::lab
