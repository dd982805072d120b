// Cache key extraction, user-space side: the fl_key the TC program
// (bpf/fast_path.bpf.c, extract()) builds for a frame, computed from the frame
// bytes the slow path received through the upcall device. The two must agree
// byte for byte for an entry installed by the slow path to be hit; the fuzz
// target tests/fuzz/fuzz_cache_key.cpp checks that whatever this accepts has
// an OpenFlow FlowKey whose every other field is constant (so the pipeline's
// decision is a function of the key).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernel/fast_path_abi.h"

namespace flowlab::kernel {

// False when the program would send such a frame to the slow path without a
// lookup (VLAN-tagged, not IPv4, IPv4 fragment, truncated headers). On true, k
// is fully written (padding zero).
bool extract_cache_key(const uint8_t* frame, size_t len, uint32_t ifindex, fl_key& k);

}  // namespace flowlab::kernel
