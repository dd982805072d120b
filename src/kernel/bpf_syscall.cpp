// The bpf() system call and the raw-instruction loader (see bpf_syscall.h).
#include "kernel/bpf_syscall.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace flowlab::lab {

long sys_bpf(int cmd, bpf_attr& attr) { return syscall(__NR_bpf, cmd, &attr, sizeof attr); }

std::string BpfLoadError::to_string() const {
  std::string s = std::strerror(err);
  if (!log.empty()) s += ": " + log;
  return s;
}

Result<int, BpfLoadError> load_bpf_program(bpf_prog_type prog_type, const std::vector<uint64_t>& insns,
                                           const char* name) {
  static const char kLicense[] = "GPL";
  std::string log(16384, '\0');
  bpf_attr a{};
  a.prog_type = prog_type;
  a.insn_cnt = uint32_t(insns.size());
  a.insns = reinterpret_cast<uint64_t>(insns.data());
  a.license = reinterpret_cast<uint64_t>(kLicense);
  a.log_level = 1;
  a.log_size = uint32_t(log.size());
  a.log_buf = reinterpret_cast<uint64_t>(log.data());
  std::strncpy(a.prog_name, name, sizeof a.prog_name - 1);
  const int fd = int(sys_bpf(BPF_PROG_LOAD, a));
  if (fd < 0) {
    const int e = errno;
    log.resize(std::strlen(log.c_str()));
    return unexpected(BpfLoadError{e, std::move(log)});
  }
  return fd;
}

}  // namespace flowlab::lab
