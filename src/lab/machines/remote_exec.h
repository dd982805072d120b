// Commands for hosts on another machine, through etcd (keys.h, exec_wire.h).
//
// The coordinator routes a host's namespace it cannot enter to an AgentExec
// (host/process.h's route_netns): run_command and Process::spawn there become a
// request key that machine's agent serves and a reply key polled for the answer.
// The agent's ExecServer runs each request in the namespace it names: a `run` on
// a thread of its own, its output back in the reply; a `spawn` supervised until
// its request key goes, its log's tail kept in the reply. Tests on real machines
// run this way; on emulated ones the coordinator enters the namespaces itself.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "coord/etcd_client.h"
#include "lab/capture/pcap_capture.h"
#include "lab/host/process.h"
#include "lab/machines/exec_wire.h"

namespace flowlab::lab {

class AgentExec : public RemoteExec {
 public:
  AgentExec(coord::EtcdConfig cfg, std::string run, std::string machine)
      : cfg_(std::move(cfg)), run_(std::move(run)), machine_(std::move(machine)) {}
  CommandResult run(const std::vector<std::string>& argv, const CommandOptions& opts) override;
  Result<std::unique_ptr<RemoteChild>> spawn(const std::string& label, const std::vector<std::string>& argv,
                                             const CommandOptions& opts) override;
  // An event fired on the machine's part of the case, and its events undone.
  Status fire(const ExecEvent& e);
  Status restore();
  // Its part's captures and delay lines stopped: {"capture": their record
  // (pcap_capture.h's, each with "machine"), "links": its shaped links' records}.
  Result<nlohmann::json> finish_part();
  // Up to kFetchPiece bytes of capture file `file` from `offset` (shorter: its end).
  Result<std::string> fetch(const std::string& file, uint64_t offset);
  // A live capture of `t`'s ends on the machine (live_capture.h), started: its
  // request and reply keys (erasing the request stops it) and its pieces' prefix.
  struct CaptureKeys {
    std::string exec_key, reply_key, piece_prefix;
  };
  Result<CaptureKeys> capture(const CaptureTarget& t);

 private:
  std::string next_seq();
  // One request: its first reply, or why there is none within `wait_s` (a gone
  // agent is said within a second). With `keep` (a spawn), the request and reply
  // keys are left for the child's life and named there.
  Result<ExecReply> call(const ExecRequest& q, double wait_s,
                         std::pair<std::string, std::string>* keep = nullptr, std::string* seq_out = nullptr);
  coord::EtcdConfig cfg_;
  std::string run_, machine_;
  std::atomic<uint64_t> seq_{0};
};

class RunState;

// What the agent does with an event request: fire it on its part, or undo
// what the run's events changed there; at the end of the tests: stop its
// captures and delay lines (their records: AgentExec::finish_part), and read a
// piece of a capture file. A live capture (mode "capture") needs no hook: the
// server streams it itself (live_capture.h).
struct EventHooks {
  std::function<Status(const ExecEvent&)> fire;
  std::function<Status()> restore;
  std::function<Result<nlohmann::json>()> finish;
  std::function<Result<std::string>(const std::string& file, uint64_t offset, size_t bytes)> read_capture;
};

class ExecServer {
 public:
  ExecServer(coord::EtcdConfig cfg, std::string run, std::string machine, RunState* state,
             std::string log_dir, EventHooks events);
  ~ExecServer();  // stops every child and capture, waits for every command (each is bounded)
  ExecServer(const ExecServer&) = delete;
  ExecServer& operator=(const ExecServer&) = delete;

  // One look at the run's keys (the agent's reconcile): new requests started,
  // children whose requests went stopped, exits and new log lines answered.
  void serve(const std::vector<coord::KeyValue>& run_keys);
  size_t jobs() const { return jobs_.size(); }
  // The replies are left in etcd at destruction: the caller erases
  // keys::replies(run, machine) with its status, in one write.
  void leave_replies() { erase_replies_ = false; }

 private:
  struct Job;
  void start(const std::string& seq, const std::string& text);
  void answer(const std::string& seq, const ExecReply& r);

  coord::EtcdConfig cfg_;
  coord::EtcdClient etcd_;
  std::string run_, machine_, log_dir_;
  RunState* state_;
  EventHooks events_;
  std::map<std::string, std::unique_ptr<Job>> jobs_;
  size_t served_ = 0;
  bool erase_replies_ = true;
};

}  // namespace flowlab::lab
