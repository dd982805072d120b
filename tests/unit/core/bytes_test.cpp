#include "core/bytes.h"

#include <gtest/gtest.h>

#include "core/result.h"

namespace flowlab {
namespace {

TEST(ByteReader, ReadsBigEndianAndStopsAtEnd) {
  const uint8_t data[] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07};
  ByteReader r(data);
  uint16_t a = 0;
  uint32_t b = 0;
  ASSERT_TRUE(r.u16(a));
  EXPECT_EQ(a, 0x0102);
  ASSERT_TRUE(r.u32(b));
  EXPECT_EQ(b, 0x03040506u);
  EXPECT_FALSE(r.u16(a));  // only one byte left
  EXPECT_EQ(r.remaining(), 1u);
}

TEST(ByteWriter, PadsAndPatches) {
  ByteWriter w;
  w.u16(0);
  w.u8(7);
  w.pad_to(0, 8);
  w.patch_u16(0, 0xabcd);
  Bytes b = w.take();
  ASSERT_EQ(b.size(), 8u);
  EXPECT_EQ(b[0], 0xab);
  EXPECT_EQ(b[2], 7);
}

TEST(Hex, RoundTrip) {
  Bytes b;
  ASSERT_TRUE(from_hex("04 00 00:08", b));
  EXPECT_EQ(to_hex(b), "04000008");
  EXPECT_FALSE(from_hex("0", b));
  EXPECT_FALSE(from_hex("zz", b));
}

Result<int> half(int x) {
  if (x % 2) return fail("{} is odd", x);
  return x / 2;
}
Result<int> quarter(int x) {
  FLOWLAB_ASSIGN_OR_RETURN(int h, half(x));
  return half(h);
}

TEST(Result, PropagatesErrors) {
  EXPECT_EQ(*quarter(8), 2);
  auto r = quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "3 is odd");
}

}  // namespace
}  // namespace flowlab
