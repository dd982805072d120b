// Internet checksum helpers for rewriting headers in place (RFC 1071 / RFC 1624).
//
// Two kinds of 16-bit checksum fields are updated here:
//  * a normal (complemented) checksum, e.g. the IPv4 header checksum or a TCP
//    checksum of a frame whose checksum is complete: update_csum16/32/bytes use
//    RFC 1624 eqn. 3, HC' = ~(~HC + ~m + m'), which never yields 0xffff->0 drift;
//  * a partial checksum (virtio-net NEEDS_CSUM / CHECKSUM_PARTIAL): the L4 field
//    holds the *uncomplemented* folded pseudo-header sum S. Rewriting an address
//    in the pseudo-header changes it to S' = S + ~m + m' (update_sum16/...).
// All values are 16-bit words as loaded with load_be16 (network order words).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/bytes.h"

namespace flowlab::incsum {

// Ones'-complement accumulate of a byte range (odd tail padded with zero).
inline uint32_t accumulate(const uint8_t* p, size_t n, uint32_t sum = 0) {
  uint64_t s = sum;
  size_t i = 0;
  for (; i + 1 < n; i += 2) s += load_be16(p + i);
  if (i < n) s += uint32_t(p[i]) << 8;
  while (s >> 32) s = (s & 0xffffffff) + (s >> 32);
  return uint32_t(s);
}
inline uint16_t fold(uint32_t sum) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return uint16_t(sum);
}
// Final checksum of a range: ~fold(sum).
inline uint16_t finish(uint32_t sum) { return uint16_t(~fold(sum)); }

// --- complemented checksum field ---
inline uint16_t update_csum16(uint16_t hc, uint16_t old_w, uint16_t new_w) {
  uint32_t s = uint32_t(uint16_t(~hc)) + uint16_t(~old_w) + new_w;
  return uint16_t(~fold(s));
}
inline uint16_t update_csum32(uint16_t hc, uint32_t old_v, uint32_t new_v) {
  hc = update_csum16(hc, uint16_t(old_v >> 16), uint16_t(new_v >> 16));
  return update_csum16(hc, uint16_t(old_v), uint16_t(new_v));
}
// n must be even; old and new are the field's bytes before and after.
inline uint16_t update_csum_bytes(uint16_t hc, const uint8_t* old_b, const uint8_t* new_b, size_t n) {
  for (size_t i = 0; i + 1 < n; i += 2) hc = update_csum16(hc, load_be16(old_b + i), load_be16(new_b + i));
  return hc;
}

// --- uncomplemented pseudo-header sum (partial checksum) field ---
inline uint16_t update_sum16(uint16_t s, uint16_t old_w, uint16_t new_w) {
  return uint16_t(~update_csum16(uint16_t(~s), old_w, new_w));
}
inline uint16_t update_sum32(uint16_t s, uint32_t old_v, uint32_t new_v) {
  return uint16_t(~update_csum32(uint16_t(~s), old_v, new_v));
}
inline uint16_t update_sum_bytes(uint16_t s, const uint8_t* old_b, const uint8_t* new_b, size_t n) {
  return uint16_t(~update_csum_bytes(uint16_t(~s), old_b, new_b, n));
}

// In-place helpers on a checksum field at `field` (2 bytes, big-endian).
inline void patch16(uint8_t* field, uint16_t old_w, uint16_t new_w, bool partial) {
  uint16_t c = load_be16(field);
  store_be16(field, partial ? update_sum16(c, old_w, new_w) : update_csum16(c, old_w, new_w));
}
inline void patch32(uint8_t* field, uint32_t old_v, uint32_t new_v, bool partial) {
  uint16_t c = load_be16(field);
  store_be16(field, partial ? update_sum32(c, old_v, new_v) : update_csum32(c, old_v, new_v));
}
inline void patch_bytes(uint8_t* field, const uint8_t* old_b, const uint8_t* new_b, size_t n, bool partial) {
  uint16_t c = load_be16(field);
  store_be16(field, partial ? update_sum_bytes(c, old_b, new_b, n) : update_csum_bytes(c, old_b, new_b, n));
}

}  // namespace flowlab::incsum
