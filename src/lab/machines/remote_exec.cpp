// Both ends of a command on another machine: AgentExec (the coordinator) and
// ExecServer (the agent).
#include "lab/machines/remote_exec.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "core/clock.h"
#include "lab/host/run_state.h"
#include "lab/machines/keys.h"
#include "lab/machines/live_capture.h"

namespace flowlab::lab {

namespace {

using namespace std::chrono_literals;

// Past a command's own timeout, how long its answer may take: the agent's poll,
// etcd's round trips, the child's stop.
constexpr double kAnswerMargin = 15;
constexpr double kSpawnAnswer = 15;  // a spawn says running (or failed) within this

ExecRequest request_for(const std::string& mode, const std::string& label,
                        const std::vector<std::string>& argv, const CommandOptions& o) {
  ExecRequest r;
  r.mode = mode;
  r.label = label;
  r.ns = o.netns;
  r.argv = argv;
  r.self = !argv.empty() && argv[0] == self_binary();
  r.timeout_s = o.timeout_s;
  r.interruptible = o.interruptible;
  r.env = o.env;
  return r;
}

std::string tail_of(const std::string& s, size_t bytes) {
  return s.size() > bytes ? s.substr(s.size() - bytes) : s;
}

// A spawned child on the agent: its reply key says whether it runs and what it logged.
class AgentChild : public RemoteChild {
 public:
  AgentChild(coord::EtcdConfig cfg, std::string machine, std::string exec_key, std::string reply_key,
             ExecReply first)
      : etcd_(cfg),
        machine_(std::move(machine)),
        exec_key_(std::move(exec_key)),
        reply_key_(std::move(reply_key)) {
    take(first);
  }
  ~AgentChild() override { stop(2); }

  bool running() override {
    if (!exited_ && !stopped_) refresh();
    return !exited_ && !stopped_;
  }
  int exit_code() const override { return exit_code_; }
  void stop(double grace_s) override {
    if (stopped_) return;
    stopped_ = true;
    (void)etcd_.erase(exec_key_);  // the agent stops the child and erases the reply
    uint64_t t0 = monotonic_ns();
    while (seconds_since(t0) < grace_s + 5) {
      auto got = etcd_.get(reply_key_);
      if (!got.ok() || !*got) break;
      std::this_thread::sleep_for(20ms);
    }
    (void)etcd_.erase(reply_key_);
  }
  std::string log_tail(size_t bytes) const override {
    if (!exited_ && !stopped_) const_cast<AgentChild*>(this)->refresh();
    return tail_of(log_, bytes);
  }

 private:
  void refresh() {
    auto got = etcd_.get(reply_key_);
    if (!got.ok() || !*got) return;  // etcd slow or the key not there yet: as it was
    auto r = decode_exec_reply((*got)->value);
    if (r.ok()) take(*r);
  }
  void take(const ExecReply& r) {
    log_ = r.log;
    if (r.state == "exited" || r.state == "failed") {
      exited_ = true;
      exit_code_ = r.exit_code;
      if (!r.error.empty()) log_ += "\n" + r.error;
    }
  }

  coord::EtcdClient etcd_;
  std::string machine_, exec_key_, reply_key_;
  std::string log_;
  bool exited_ = false, stopped_ = false;
  int exit_code_ = -1;
};

}  // namespace

std::string AgentExec::next_seq() { return fmt::format("{}-{:08}", getpid(), ++seq_); }

Result<ExecReply> AgentExec::call(const ExecRequest& q, double wait_s,
                                  std::pair<std::string, std::string>* keep, std::string* seq_out) {
  coord::EtcdClient etcd(cfg_);
  std::string seq = next_seq();
  if (seq_out) *seq_out = seq;
  std::string exec_key = keys::exec(run_, machine_, seq), reply_key = keys::reply(run_, machine_, seq);
  auto put = etcd.put(exec_key, encode_exec_request(q));
  if (!put.ok()) return fail("machine {}: asking its agent: {}", machine_, put.error().message);
  Result<ExecReply> out = fail(
      "machine {}'s agent did not answer within {:.0f} s (gone, or cut off from etcd)", machine_, wait_s);
  uint64_t t0 = monotonic_ns(), last_look = t0;
  for (auto pause = 2ms;; pause = std::min<std::chrono::milliseconds>(pause * 2, 20ms)) {
    auto got = etcd.get(reply_key);
    if (got.ok() && *got) {
      auto rep = decode_exec_reply((*got)->value);
      if (!rep.ok())
        out = fail("machine {}: {}", machine_, rep.error().message);
      else if (rep->state == "failed")
        out = fail("machine {}: {}", machine_, rep->error);
      else
        out = std::move(*rep);
      break;
    }
    if (q.interruptible && interrupted()) {
      out = fail("interrupted");
      break;
    }
    if (seconds_since(t0) > wait_s) break;
    // Once a second: an agent whose lease went will never answer.
    if (uint64_t now = monotonic_ns(); now - last_look > 1'000'000'000) {
      last_look = now;
      if (auto agent = etcd.get(keys::agent(machine_)); agent.ok() && !*agent) {
        out = fail("machine {}'s agent is gone (its lease expired: killed, or cut off from etcd)", machine_);
        break;
      }
    }
    std::this_thread::sleep_for(pause);
  }
  if (keep && out.ok()) {
    *keep = {exec_key, reply_key};
    return out;
  }
  // The agent erases the reply it wrote once the request is gone; both go in one round trip.
  (void)etcd.txn({{}, {coord::TxnOp::erase(exec_key), coord::TxnOp::erase(reply_key)}, {}});
  return out;
}

CommandResult AgentExec::run(const std::vector<std::string>& argv, const CommandOptions& o) {
  CommandResult r;
  auto rep = call(request_for("run", "", argv, o), o.timeout_s + kAnswerMargin);
  if (!rep.ok()) {
    r.interrupted = rep.error().message == "interrupted";
    r.timed_out = !r.interrupted && rep.error().message.find("did not answer") != std::string::npos;
    r.err = rep.error().message;
    return r;
  }
  r.exit_code = rep->exit_code;
  r.timed_out = rep->timed_out;
  r.interrupted = rep->interrupted;
  r.out = std::move(rep->out);
  r.err = std::move(rep->err);
  return r;
}

Status AgentExec::fire(const ExecEvent& e) {
  ExecRequest q;
  q.mode = "event";
  q.event = e;
  q.interruptible = false;
  FLOWLAB_TRY(call(q, 60));
  return ok_status();
}

Status AgentExec::restore() {
  ExecRequest q;
  q.mode = "restore";
  q.interruptible = false;
  FLOWLAB_TRY(call(q, 90));
  return ok_status();
}

Result<nlohmann::json> AgentExec::finish_part() {
  ExecRequest q;
  q.mode = "finish";
  q.interruptible = false;
  FLOWLAB_ASSIGN_OR_RETURN(auto rep, call(q, 60));
  auto j = nlohmann::json::parse(rep.out, nullptr, false);
  if (!j.is_object()) return fail("machine {}: its part's record is not a JSON object", machine_);
  return j;
}

Result<std::string> AgentExec::fetch(const std::string& file, uint64_t offset) {
  ExecRequest q;
  q.mode = "fetch";
  q.file = file;
  q.offset = offset;
  q.interruptible = false;
  std::string seq;
  FLOWLAB_ASSIGN_OR_RETURN(auto rep, call(q, 60, nullptr, &seq));
  coord::EtcdClient etcd(cfg_);
  std::string key = keys::piece(run_, machine_, seq);
  // Taken and erased in one round trip.
  auto got = etcd.txn({{}, {coord::TxnOp::get(key), coord::TxnOp::erase(key)}, {}});
  if (!got.ok()) return fail("machine {}: capture {}: {}", machine_, file, got.error().message);
  if (got->responses.empty() || got->responses[0].range.kvs.empty())
    return fail("machine {}: capture {}: its piece at {} is not in etcd", machine_, file, offset);
  std::string& value = got->responses[0].range.kvs[0].value;
  if (value.size() != std::strtoull(rep.out.c_str(), nullptr, 10))
    return fail("machine {}: capture {}: a piece of {} bytes where {} were said", machine_, file,
                value.size(), rep.out);
  return std::move(value);
}

Result<AgentExec::CaptureKeys> AgentExec::capture(const CaptureTarget& t) {
  ExecRequest q;
  q.mode = "capture";
  q.label = t.name;
  q.argv = {t.a_ns, t.a_if, t.b_ns, t.b_if};
  std::pair<std::string, std::string> kept;  // the request and reply keys, for the capture's life
  std::string seq;
  FLOWLAB_TRY(call(q, kSpawnAnswer, &kept, &seq));
  return CaptureKeys{kept.first, kept.second, keys::piece(run_, machine_, seq) + "/"};
}

Result<std::unique_ptr<RemoteChild>> AgentExec::spawn(const std::string& label,
                                                      const std::vector<std::string>& argv,
                                                      const CommandOptions& o) {
  std::pair<std::string, std::string> kept;  // the child's request and reply keys, for its life
  auto rep = call(request_for("spawn", label, argv, o), kSpawnAnswer, &kept);
  if (!rep.ok()) return fail("starting {}: {}", label, rep.error().message);
  return std::unique_ptr<RemoteChild>(
      new AgentChild(cfg_, machine_, kept.first, kept.second, std::move(*rep)));
}

// ---- the agent's side ----

struct ExecServer::Job {
  ExecRequest req;
  std::thread worker;              // run
  std::atomic<bool> done{false};   // run, fetch, capture: answered
  std::atomic<bool> stop{false};   // capture: its request went
  std::unique_ptr<Process> child;  // spawn
  bool exit_answered = false;
  uintmax_t logged = 0;  // spawn: the log's size last answered
};

ExecServer::ExecServer(coord::EtcdConfig cfg, std::string run, std::string machine, RunState* state,
                       std::string log_dir, EventHooks events)
    : cfg_(cfg),
      etcd_(cfg),
      run_(std::move(run)),
      machine_(std::move(machine)),
      log_dir_(std::move(log_dir)),
      state_(state),
      events_(std::move(events)) {}

ExecServer::~ExecServer() {
  for (auto& [seq, j] : jobs_) {
    j->stop = true;  // a live capture ends with its part
    if (j->child) j->child->stop();
    if (j->worker.joinable()) j->worker.join();
    if (erase_replies_) (void)etcd_.erase(keys::reply(run_, machine_, seq));
  }
  if (served_)
    std::fprintf(stderr, "lab agent %s: run %s: %zu command(s) of the tests served\n", machine_.c_str(),
                 run_.c_str(), served_);
}

void ExecServer::answer(const std::string& seq, const ExecReply& r) {
  auto st = etcd_.put(keys::reply(run_, machine_, seq), encode_exec_reply(r));
  if (!st.ok())
    std::fprintf(stderr, "lab agent %s: run %s: answering %s: %s\n", machine_.c_str(), run_.c_str(),
                 seq.c_str(), st.error().message.c_str());
}

void ExecServer::start(const std::string& seq, const std::string& text) {
  ++served_;
  auto job = std::make_unique<Job>();
  auto req = decode_exec_request(text);
  if (!req.ok()) {
    job->done = true;
    answer(seq, {"failed", req.error().message, -1, false, false, {}, {}, {}});
    jobs_.emplace(seq, std::move(job));
    return;
  }
  job->req = std::move(*req);
  ExecRequest& q = job->req;
  if (q.self && !q.argv.empty()) q.argv[0] = self_binary();
  CommandOptions o = in_ns(q.ns, q.timeout_s);
  o.interruptible = q.interruptible;
  o.env = q.env;
  if (q.mode == "finish") {
    job->done = true;
    ExecReply r{"exited", "", 0, false, false, {}, {}, {}};
    auto rec =
        events_.finish ? events_.finish() : Result<nlohmann::json>(fail("this agent has nothing to finish"));
    if (rec.ok())
      r.out = rec->dump();
    else
      r = {"failed", rec.error().message, -1, false, false, {}, {}, {}};
    answer(seq, r);
  } else if (q.mode == "fetch") {
    // On a thread of its own, as a run: the coordinator keeps several pieces in
    // flight (finish_parts.h), and their reads and puts overlap.
    Job* j = job.get();
    coord::EtcdConfig cfg = cfg_;
    std::string piece_key = keys::piece(run_, machine_, seq), reply_key = keys::reply(run_, machine_, seq);
    auto read = events_.read_capture;
    job->worker = std::thread([j, cfg, piece_key, reply_key, read] {
      auto piece = read ? read(j->req.file, j->req.offset, kFetchPiece)
                        : Result<std::string>(fail("this agent captures nothing"));
      coord::EtcdClient etcd(cfg);
      std::string why = piece.ok() ? "" : piece.error().message;
      if (piece.ok())
        if (auto put = etcd.put(piece_key, *piece); !put.ok()) why = put.error().message;
      ExecReply r{"exited", "", 0, false, false, {}, {}, {}};
      if (why.empty())
        r.out = std::to_string(piece->size());
      else
        r = {"failed", why, -1, false, false, {}, {}, {}};
      (void)etcd.put(reply_key, encode_exec_reply(r));
      j->done = true;
    });
  } else if (q.mode == "capture") {
    // Streamed on a thread of its own until the request goes (live_capture.h).
    answer(seq, {"running", "", -1, false, false, {}, {}, {}});
    Job* j = job.get();
    coord::EtcdConfig cfg = cfg_;
    std::string prefix = keys::piece(run_, machine_, seq) + "/", reply_key = keys::reply(run_, machine_, seq);
    CaptureTarget t{q.label, q.argv[0], q.argv[1], q.argv[2], q.argv[3], {}};
    job->worker = std::thread([j, cfg, prefix, reply_key, t] {
      std::string why = serve_capture(cfg, prefix, t, [j] { return j->stop.load(); });
      if (!j->stop) {  // ended by itself (the lab went down) or failed: the reader is told
        coord::EtcdClient etcd(cfg);
        ExecReply r{"exited", "", 0, false, false, {}, {}, {}};
        if (!why.empty()) r = {"failed", why, -1, false, false, {}, {}, {}};
        (void)etcd.put(reply_key, encode_exec_reply(r));
      }
      j->done = true;
    });
  } else if (q.mode == "event" || q.mode == "restore") {
    // Here, on the agent's own thread: a switch started again is its child, and
    // a child dies with the thread that forked it (PR_SET_PDEATHSIG).
    job->done = true;
    Status st = !events_.fire       ? fail("this agent fires no events")
                : q.mode == "event" ? events_.fire(q.event)
                                    : events_.restore();
    if (st.ok())
      answer(seq, {"exited", "", 0, false, false, {}, {}, {}});
    else
      answer(seq, {"failed", st.error().message, -1, false, false, {}, {}, {}});
  } else if (!std::filesystem::exists("/run/netns/" + q.ns)) {
    job->done = true;
    answer(seq, {"failed",
                 fmt::format("no namespace {} on machine {}", q.ns, machine_),
                 -1,
                 false,
                 false,
                 {},
                 {},
                 {}});
  } else if (q.mode == "run") {
    Job* j = job.get();
    coord::EtcdConfig cfg = cfg_;
    std::string key = keys::reply(run_, machine_, seq);
    job->worker = std::thread([j, o, cfg, key] {
      CommandResult r = run_command(j->req.argv, o);
      coord::EtcdClient etcd(cfg);
      (void)etcd.put(
          key, encode_exec_reply({"exited", "", r.exit_code, r.timed_out, r.interrupted, r.out, r.err, {}}));
      j->done = true;
    });
  } else {
    std::string log = log_dir_ + "/exec-" + seq + ".log";
    auto p = Process::spawn(q.label.empty() ? q.argv[0] : q.label, q.argv, o, log, state_);
    if (!p.ok()) {
      job->done = true;
      answer(seq, {"failed", p.error().message, -1, false, false, {}, {}, {}});
    } else {
      job->child = std::make_unique<Process>(std::move(*p));
      answer(seq, {"running", "", -1, false, false, {}, {}, {}});
    }
  }
  jobs_.emplace(seq, std::move(job));
}

void ExecServer::serve(const std::vector<coord::KeyValue>& run_keys) {
  const std::string prefix = keys::execs(run_, machine_);
  std::map<std::string, const std::string*> wanted;
  for (const auto& kv : run_keys)
    if (kv.key.compare(0, prefix.size(), prefix) == 0) wanted[kv.key.substr(prefix.size())] = &kv.value;
  for (const auto& [seq, text] : wanted)
    if (!jobs_.count(seq)) start(seq, *text);
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    Job& j = *it->second;
    const std::string& seq = it->first;
    if (!wanted.count(seq)) {  // the coordinator is done with it
      j.stop = true;
      if (j.child) j.child->stop();
      if (j.worker.joinable()) {
        if (!j.done) {
          ++it;
          continue;
        }
        j.worker.join();
      }
      (void)etcd_.erase(keys::reply(run_, machine_, seq));
      it = jobs_.erase(it);
      continue;
    }
    if (j.child && !j.exit_answered) {
      std::error_code ec;
      uintmax_t size = std::filesystem::file_size(j.child->log_path(), ec);
      bool alive = j.child->running();
      if (!alive || (!ec && size != j.logged)) {
        j.logged = ec ? 0 : size;
        ExecReply r{alive ? "running" : "exited", "", alive ? -1 : j.child->exit_code(), false, false, {}, {},
                    j.child->log_tail(16 * 1024)};
        j.exit_answered = !alive;
        answer(seq, r);
      }
    }
    ++it;
  }
}

}  // namespace flowlab::lab
