// A thread's visit to another network namespace, there and back, and errno as
// text for the errors of lab/host.
//
// setns(2) of a network namespace changes only the calling thread; a socket keeps
// the namespace it was opened in, and /proc/sys/net resolves the namespace of the
// thread that opens the file. So "open a socket (or a sysctl) in NS" is: enter NS,
// do it, come back. netns.h's run_in_netns does the same on a short-lived thread.
#pragma once

#include <functional>
#include <string>

#include "core/result.h"

namespace flowlab::lab {

// "No such file or directory (errno 2)".
std::string errno_text(int e);

// Runs fn on the calling thread inside the network namespace at `path`
// (/run/netns/NAME, /proc/PID/ns/net), then returns the thread to the namespace
// it was in. fn does not run when the namespace cannot be opened or entered; the
// error names the path and the step ("opening namespace P", "entering namespace
// P", "returning from namespace P").
Status visit_netns(const std::string& path, const std::function<void()>& fn);

}  // namespace flowlab::lab
