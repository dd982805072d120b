// A thread's visit to another network namespace (see netns_visit.h).
#include "lab/host/netns_visit.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace flowlab::lab {

std::string errno_text(int e) { return fmt::format("{} (errno {})", std::strerror(e), e); }

Status visit_netns(const std::string& path, const std::function<void()>& fn) {
  int target = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (target < 0) return fail("opening namespace {}: {}", path, errno_text(errno));
  int home = ::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
  if (home < 0) {
    int e = errno;
    close(target);
    return fail("opening this thread's namespace: {}", errno_text(e));
  }
  Status st = ok_status();
  if (setns(target, CLONE_NEWNET) != 0) {
    st = fail("entering namespace {}: {}", path, errno_text(errno));
  } else {
    fn();
    if (setns(home, CLONE_NEWNET) != 0) st = fail("returning from namespace {}: {}", path, errno_text(errno));
  }
  close(target);
  close(home);
  return st;
}

}  // namespace flowlab::lab
