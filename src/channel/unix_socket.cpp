// Unix stream sockets at long paths (unix_socket.h).
#include "channel/unix_socket.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace flowlab::channel {

namespace {

// The address of `path`; `dir_fd` holds the folder open while a long path is
// used through /proc/self/fd (the caller closes it after the call).
Result<sockaddr_un> address_of(const std::string& path, int& dir_fd) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  dir_fd = -1;
  if (path.empty()) return fail("an empty unix socket path");
  std::string reach = path;
  if (path.size() >= sizeof a.sun_path) {
    auto slash = path.rfind('/');
    std::string dir = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
    std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    dir_fd = ::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0) return fail("unix socket {}: its folder: {}", path, std::strerror(errno));
    reach = "/proc/self/fd/" + std::to_string(dir_fd) + "/" + name;
    if (reach.size() >= sizeof a.sun_path) {
      ::close(dir_fd);
      dir_fd = -1;
      return fail("unix socket {}: its file name is too long ({} characters)", path, name.size());
    }
  }
  std::memcpy(a.sun_path, reach.data(), reach.size());
  return a;
}

struct DirFd {
  int fd = -1;
  ~DirFd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

Result<int> unix_listen(const std::string& path, int backlog, unsigned mode_mask) {
  DirFd dir;
  FLOWLAB_ASSIGN_OR_RETURN(sockaddr_un a, address_of(path, dir.fd));
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return fail("unix socket {}: {}", path, std::strerror(errno));
  ::unlink(a.sun_path);
  mode_t old = mode_mask ? ::umask(mode_t(mode_mask)) : 0;
  int rc = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  int err = errno;
  if (mode_mask) ::umask(old);
  if (rc == 0 && ::listen(fd, backlog) != 0) {
    rc = -1;
    err = errno;
  }
  if (rc != 0) {
    ::close(fd);
    return fail("unix socket {}: {}", path, std::strerror(err));
  }
  return fd;
}

Result<int> unix_connect(const std::string& path) {
  DirFd dir;
  FLOWLAB_ASSIGN_OR_RETURN(sockaddr_un a, address_of(path, dir.fd));
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return fail("unix socket {}: {}", path, std::strerror(errno));
  while (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    if (errno == EINTR) continue;
    int err = errno;
    ::close(fd);
    return fail("{}: {}", path, std::strerror(err));
  }
  return fd;
}

}  // namespace flowlab::channel
