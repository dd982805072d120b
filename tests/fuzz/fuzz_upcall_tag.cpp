// libFuzzer target for UpcallDevice::pop_port_tag: whatever a frame read from
// the upcall device holds (its first two bytes pick the offload metadata), the
// pop either leaves the frame as it was (-1) or takes exactly the 4 bytes at
// offset 12 off, keeps the addresses, returns a tag <= FL_MAX_PORT_TAG and
// leaves the checksum start and header length within the frame's old bounds.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "kernel/fast_path_abi.h"
#include "kernel/upcall_device.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using flowlab::Packet;
  if (size < 2 + 14) return 0;  // a frame has its Ethernet header (the TAP's reads do)
  const uint8_t ctl0 = data[0], ctl1 = data[1];
  data += 2;
  size -= 2;
  static Packet pkt(4096);
  if (!pkt.assign(data, size)) return 0;
  pkt.offload.flags = ctl0 & 1 ? flowlab::OffloadInfo::kNeedsCsum : 0;
  pkt.offload.csum_start = ctl1;
  pkt.offload.hdr_len = uint16_t(ctl0 >> 1);
  std::vector<uint8_t> before(data, data + size);
  int tag = flowlab::kernel::UpcallDevice::pop_port_tag(pkt);
  if (tag < 0) {
    if (pkt.size() != size || std::memcmp(pkt.data(), before.data(), size) != 0) std::abort();
    return 0;
  }
  if (tag > FL_MAX_PORT_TAG || size < 18 || pkt.size() != size - 4) std::abort();
  if (std::memcmp(pkt.data(), before.data(), 12) != 0) std::abort();
  if (std::memcmp(pkt.data() + 12, before.data() + 16, size - 16) != 0) std::abort();
  if (pkt.offload.hdr_len > pkt.size() || pkt.offload.csum_start > ctl1) std::abort();
  return 0;
}
