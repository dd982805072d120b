// Software GSO: split a virtio-net GSO super-frame (TCPv4/TCPv6 TSO, UDP L4
// segmentation, IPv4 UDP fragmentation offload) into wire-sized frames, for
// outputs that cannot take the metadata (or the controller path).
//
// Usage (no allocation; the caller owns the output buffers):
//   size_t n = gso::segment_count(pkt);            // 0: not a valid GSO frame
//   for (size_t i = 0; i < n; ++i) gso::build_segment(pkt, i, out[i], gso::CsumMode::kFull);
//
// Each TCP segment gets: IPv4 total length / IPv6 payload length for its size,
// IPv4 id = original id + i (and a new header checksum), sequence number
// advanced by i*gso_size, FIN/PSH only on the last segment, CWR only on the
// first, and a complete TCP checksum (kFull) or a pseudo-header sum with
// kNeedsCsum metadata (kPartial, for outputs that take partial checksums).
// UDP L4 segments are independent datagrams; UFO (kGsoUdp, IPv4 only) produces
// IP fragments of one UDP datagram whose checksum is computed over all of it.
#pragma once

#include <cstddef>

#include "packet/packet.h"

namespace flowlab::gso {

enum class CsumMode { kFull, kPartial };

// Number of frames the GSO packet splits into; 0 when it is not a GSO frame, the
// headers cannot be parsed, gso_size is 0 or the type is unsupported.
size_t segment_count(const Packet& in);

// Builds segment `index` (< segment_count(in)) into `out` (reset first; in_port,
// metadata and tunnel_id are copied). false if `out` is too small or `in` is bad.
bool build_segment(const Packet& in, size_t index, Packet& out, CsumMode mode = CsumMode::kFull);

}  // namespace flowlab::gso
