// Local unix stream sockets at a path of any length: the control sockets of a
// lab's supervisor and of `flowlab switch-host`. A socket's address holds at
// most 107 characters; a longer path is reached through its folder, opened
// O_PATH for the call, as /proc/self/fd/N/NAME (the socket file is made, or
// found, in the folder itself). Only the file's name must be short.
#pragma once

#include <string>

#include "core/result.h"

namespace flowlab::channel {

// A listening socket (close-on-exec) at `path`; a file already there is
// removed first. `mode_mask`, if not 0, is the umask the socket file is made
// under (077: its owner's alone).
Result<int> unix_listen(const std::string& path, int backlog, unsigned mode_mask = 0);

// A connected socket (close-on-exec) to the listener at `path`; the error
// names the path and errno's text.
Result<int> unix_connect(const std::string& path);

}  // namespace flowlab::channel
