// A wait on a file descriptor that a SIGINT/SIGTERM/SIGHUP ends too (the signal pipe
// of process.h's handlers): the supervisor of `lab up --owner` waits on its owner's
// pidfd with it.
#pragma once

namespace flowlab::lab {

// Waits up to `seconds` for `fd` to become readable (a pidfd: its process has exited);
// true when it did, false on the timeout or when interrupted (interrupted() tells).
bool wait_readable_unless_interrupted(int fd, double seconds);

}  // namespace flowlab::lab
