// The bpf() system call for programs written as raw instructions (the lab's
// tc loss program, lab/net/tc_bpf.h; pktgen's XDP program, loadgen/pktgen/xdp_program.h):
// no clang, libbpf or bpffs. One loader, so both get the verifier's log when
// the kernel refuses a program.
#pragma once

#include <linux/bpf.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"

namespace flowlab::lab {

long sys_bpf(int cmd, bpf_attr& attr);

// Why BPF_PROG_LOAD refused a program: errno and what the verifier said.
struct BpfLoadError {
  int err = 0;
  std::string log;                // empty when the verifier said nothing
  std::string to_string() const;  // "Permission denied: <log>"
};

// Loads `insns` (8-byte struct bpf_insn records) as a GPL program of
// `prog_type` named `name` (at most 15 characters); the caller owns the fd.
Result<int, BpfLoadError> load_bpf_program(bpf_prog_type prog_type, const std::vector<uint64_t>& insns,
                                           const char* name);

}  // namespace flowlab::lab
