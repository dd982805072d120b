// SwitchHost: many switches in one process, as ovs-vswitchd hosts every bridge
// of a machine (`flowlab switch-host`). Each hosted switch is a whole
// sw::Switch of its own — dpid, ports, OpenFlow agent, controller connections
// and listeners, tables, counters, its eBPF fast path and forwarding threads —
// built from the same arguments `flowlab switch` takes; what the process pays
// once instead of once per switch is its start (exec, the dynamic loader, the
// libraries' initialisation) and the lab's wait for each process.
//
// Control: a unix stream socket, one request per line, fields separated by a
// tab, one answer line each (`ok[\tTEXT]` or `error\tMESSAGE`):
//   add NAME ARG...   create and start switch NAME from `flowlab switch ARG...`
//                     (with `--name NAME` unless ARG... names it)
//                     (answers once it listens and its ports are attached)
//   stop NAME         stop it (threads joined, ports, TC attachments, BPF
//                     objects, listeners and connections closed); kept by name
//   start NAME        start a stopped switch again with the same arguments
//   remove NAME       stop it and forget it
//   list              `ok\tNAME=running,NAME=stopped,...`
// Requests on one connection run in order; connections run in parallel, so a
// client may start several switches at once.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/result.h"
#include "switch/unique_fd.h"

namespace flowlab::sw {

// One hosted switch as the factory built it (the switch and what serves it,
// e.g. its --metrics server). Destroying it stops the switch.
class HostedSwitch {
 public:
  virtual ~HostedSwitch() = default;
};

// Builds and starts a switch from `flowlab switch` arguments (args[0] is
// "switch"); the error is what `flowlab switch` would print.
using HostedSwitchFactory =
    std::function<Result<std::unique_ptr<HostedSwitch>>(const std::vector<std::string>& args)>;

class SwitchHost {
 public:
  // Binds the control socket at `path` (an old socket file there is replaced).
  static Result<std::unique_ptr<SwitchHost>> open(const std::string& path, HostedSwitchFactory factory);
  ~SwitchHost();
  SwitchHost(const SwitchHost&) = delete;
  SwitchHost& operator=(const SwitchHost&) = delete;

  void start();  // the accept thread
  // Stops accepting and answering, then stops every hosted switch, all at once
  // (their closes wait for the kernel's grace periods in parallel). Idempotent.
  void close();

  Status add(const std::string& name, std::vector<std::string> args);
  Status stop(const std::string& name);
  Status start_again(const std::string& name);
  Status remove(const std::string& name);
  std::string list() const;
  // One request line -> its answer line (without the newline).
  std::string handle_line(std::string_view line);

 private:
  SwitchHost(std::string path, UniqueFd fd, HostedSwitchFactory factory)
      : path_(std::move(path)), listen_fd_(std::move(fd)), factory_(std::move(factory)) {}
  struct Entry {
    std::vector<std::string> args;
    std::unique_ptr<HostedSwitch> sw;
    bool busy = false;  // being created or stopped by a request
  };
  // Runs the factory for an entry marked busy; `fresh`: added now (erased if it fails).
  Status build(const std::string& name, const std::vector<std::string>& args, bool fresh);
  void accept_loop();
  void serve(int fd);

  std::string path_;
  UniqueFd listen_fd_;
  HostedSwitchFactory factory_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> switches_;
  std::vector<int> client_fds_;  // open connections, shut down by close()
  std::vector<std::thread> threads_;
  std::thread accept_thread_;
  bool closed_ = false;
};

}  // namespace flowlab::sw
