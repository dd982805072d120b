// A command the coordinator asks an agent to run in one of its namespaces, and
// the agent's answer (keys.h: .../exec/NAME/SEQ and .../reply/NAME/SEQ). Pure;
// the decoders are fuzzed.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"
#include "lab/scenario/shaping.h"

namespace flowlab::lab {

// An event (mode "event") as the agent fires it on its own part.
struct ExecEvent {
  std::string action;  // down | up | kill | start | set (events.h's EventAction)
  std::string node, link_a, link_b;
  LinkShapes set;  // set: the shape laid over the link's, per direction
};

struct ExecRequest {
  // run (to the end, output back) | spawn (supervised until the request goes) |
  // event (fired on the agent's part of the case) | restore (what its events changed, undone) |
  // finish (its captures and delay lines stopped, their records back) | fetch (a piece
  // of a capture file) | capture (a live capture of a link's ends, label its name and
  // argv {a_ns, a_if, b_ns, b_if}, streamed until the request goes: live_capture.h)
  std::string mode;
  std::string label;
  std::string ns;
  std::vector<std::string> argv;
  bool self = false;  // argv[0] is the flowlab binary: the agent's own stands in for it
  double timeout_s = 10;
  bool interruptible = true;
  std::vector<std::pair<std::string, std::string>> env;
  ExecEvent event;   // mode event
  std::string file;  // mode fetch: a file the capture record named (no '/')
  uint64_t offset = 0;
};

struct ExecReply {
  std::string state;  // running (spawn) | exited | failed (could not start; `error` says why)
  std::string error;
  int exit_code = -1;
  bool timed_out = false, interrupted = false;
  std::string out, err;  // run: its output
  std::string log;       // spawn: the tail of its log
};

// What an answer may carry of a command's output, each of out/err/log: etcd's
// requests are bounded (1.5 MiB by default).
inline constexpr size_t kExecOutputCap = 512 * 1024;
// A fetch puts this much of the file at most under its piece key (keys.h) and
// answers with its size in `out`; a shorter piece is the file's end. Within
// etcd's bound on a request (1.5 MiB by default).
inline constexpr size_t kFetchPiece = 1 << 20;

std::string encode_exec_request(const ExecRequest& r);
Result<ExecRequest> decode_exec_request(std::string_view text);
std::string encode_exec_reply(const ExecReply& r);
Result<ExecReply> decode_exec_reply(std::string_view text);

}  // namespace flowlab::lab
