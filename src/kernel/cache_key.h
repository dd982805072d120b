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
#include "packet/flow_key.h"

namespace flowlab::kernel {

// False when the program would send such a frame to the slow path without a
// lookup (VLAN-tagged, not IPv4, IPv4 fragment, truncated headers). On true, k
// is fully written (padding zero).
bool extract_cache_key(const uint8_t* frame, size_t len, uint32_t ifindex, fl_key& k);

// Megaflow: the fl_key mask that keeps the bits of `flow_mask` (a FlowKey of
// the bits a pipeline decision read) the kernel key carries, with ifindex
// whole. FlowKey fields outside fl_key are constant for cacheable packets.
fl_key cache_mask_of(const FlowKey& flow_mask);
// k & mask, mask_id = id: the key of a cache entry under mask `id`, exactly as
// the program computes it before its lookup.
fl_key masked_key(const fl_key& k, const fl_key& mask, uint16_t id);
// True when every bit of `narrow` is in `wide`.
bool mask_covers(const fl_key& wide, const fl_key& narrow);

}  // namespace flowlab::kernel
