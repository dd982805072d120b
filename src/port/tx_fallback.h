// Software offload fallback for transmit: turns one packet into the frames an
// output that cannot take its metadata should send (private to src/port).
//
// for_each_wire_frame(pkt, caps, scratch, emit): if caps accept pkt.offload,
// emit(pkt) once; a GSO frame the port cannot take is segmented (one segment
// at a time into `scratch`, with full checksums or partial ones when caps.csum);
// a lone partial checksum is completed in place. Returns false (nothing or only
// part emitted) when the packet is malformed or scratch is too small.
#pragma once

#include "packet/checksum.h"
#include "packet/gso.h"
#include "port/port.h"

namespace flowlab::port_detail {

template <typename Emit>
bool for_each_wire_frame(Packet& pkt, const PortCapabilities& caps, Packet& scratch, Emit&& emit) {
  if (caps.accepts(pkt.offload)) {
    emit(pkt);
    return true;
  }
  if (pkt.offload.is_gso()) {
    size_t n = gso::segment_count(pkt);
    if (n == 0) return false;
    auto mode = caps.vnet_hdr && caps.csum ? gso::CsumMode::kPartial : gso::CsumMode::kFull;
    for (size_t i = 0; i < n; ++i) {
      if (!gso::build_segment(pkt, i, scratch, mode)) return false;
      emit(scratch);
    }
    return true;
  }
  if (!csum::complete_partial(pkt)) return false;
  if (!caps.vnet_hdr) pkt.offload.clear();
  emit(pkt);
  return true;
}

}  // namespace flowlab::port_detail
