// The echo sweep's packets: the Internet checksum (RFC 1071's worked example) and
// an echo request as ping sends it, whose checksum verifies.
#include "lab/traffic/echo_sweep.h"

#include <gtest/gtest.h>

namespace flowlab::lab {
namespace {

TEST(EchoSweep, InternetChecksumOfRfc1071sExample) {
  // RFC 1071 section 3: 00 01 f2 03 f4 f5 f6 f7 sums (one's complement) to ddf2.
  const uint8_t data[] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
  EXPECT_EQ(inet_checksum(data, sizeof data), uint16_t(~0xddf2));
  // An odd length pads the last byte with zero.
  const uint8_t odd[] = {0x01, 0x02, 0x03};
  EXPECT_EQ(inet_checksum(odd, sizeof odd), uint16_t(~(0x0102 + 0x0300)));
}

TEST(EchoSweep, EchoRequestCarriesIdSequenceAndAChecksumThatVerifies) {
  auto p = icmp_echo_request(0x1234, 0x0102);
  ASSERT_EQ(p.size(), 64u);  // ping's default: 8 header + 56 data
  EXPECT_EQ(p[0], 8);        // echo request
  EXPECT_EQ(p[1], 0);
  EXPECT_EQ(p[4] << 8 | p[5], 0x1234);
  EXPECT_EQ(p[6] << 8 | p[7], 0x0102);
  EXPECT_EQ(p[8], 0x10);                            // the data pattern
  EXPECT_EQ(inet_checksum(p.data(), p.size()), 0);  // a packet with its checksum sums to zero
  EXPECT_NE(icmp_echo_request(0x1234, 0x0103)[2] << 8 | icmp_echo_request(0x1234, 0x0103)[3],
            p[2] << 8 | p[3]);
  EXPECT_EQ(icmp_echo_request(1, 2, 0).size(), 8u);
}

}  // namespace
}  // namespace flowlab::lab
