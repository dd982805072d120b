// The control socket of a lab that is up: what `flowlab lab cli` asks of the
// supervisor holding the case, which alone owns its switches' processes and the
// handles on its links. STATE/<id>/control.sock (mode 0600), one request per
// connection, one JSON line each way:
//   {"op": "link", "a": "s1", "b": "s2", "up": false}   both ends' carrier (ip link set)
//   {"op": "switch", "name": "s1", "start": false}      SIGKILL / start again (events' kill/start)
//   {"op": "dpctl", "args": ["dump-flows"]}             ovs-ofctl syntax on every switch
//   {"op": "dpctl", "args": [...], "switch": "s1"}       on s1 alone (no header line)
// reply {"ok": true, "out": "..."} or {"ok": false, "error": "..."}.
#pragma once

#include <atomic>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "core/result.h"
#include "lab/run/case_events.h"

namespace flowlab::lab {

std::string control_socket_path(const std::string& lab_id);

class ControlServer {
 public:
  // Binds `path` (an old socket there is replaced).
  static Result<std::unique_ptr<ControlServer>> listen(const std::string& path);
  // Stops answering (a request under way is finished first), removes the socket.
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;
  // Answers requests one at a time, on a thread of its own, until destroyed; `h`
  // must outlive this server.
  void start(CaseHandles& h);

 private:
  ControlServer(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  void serve(CaseHandles& h);
  int fd_;
  std::string path_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

// What a request does to the case (exposed for tests): the reply object.
nlohmann::json handle_control(const nlohmann::json& request, CaseHandles& h);

// Sends `request` to the lab's supervisor and returns its "out" (or its error).
Result<std::string> control_request(const std::string& lab_id, const nlohmann::json& request,
                                    double timeout_s = 90);

}  // namespace flowlab::lab
