// StreamFramer: byte-by-byte feeding, several messages per chunk, partial
// headers and bodies, bad lengths (sticky error naming the stream offset), and
// buffer compaction over a long stream.
#include "openflow/framing.h"

#include <gtest/gtest.h>

namespace flowlab::of {
namespace {

Bytes hex(std::string_view s) {
  Bytes b;
  EXPECT_TRUE(from_hex(s, b)) << s;
  return b;
}

// An echo request of `total` bytes whose payload bytes are `fill`.
Bytes echo(uint16_t total, uint8_t fill, uint32_t xid = 1) {
  Bytes b(total, fill);
  b[0] = 0x04;
  b[1] = 2;
  store_be16(&b[2], total);
  store_be32(&b[4], xid);
  return b;
}

TEST(StreamFramer, EmptyNeedsMore) {
  StreamFramer f;
  ByteSpan out;
  EXPECT_EQ(f.next(out), StreamFramer::State::kNeedMore);
  EXPECT_EQ(f.buffered(), 0u);
}

TEST(StreamFramer, ByteByByte) {
  Bytes stream = echo(8, 0);
  Bytes second = echo(13, 0xab, 2);
  stream.insert(stream.end(), second.begin(), second.end());
  StreamFramer f;
  std::vector<Bytes> got;
  for (size_t i = 0; i < stream.size(); ++i) {
    f.append(ByteSpan(&stream[i], 1));
    ByteSpan out;
    StreamFramer::State s = f.next(out);
    if (i == 7 || i == stream.size() - 1) {
      ASSERT_EQ(s, StreamFramer::State::kMessage) << "at byte " << i;
      got.emplace_back(out.begin(), out.end());
      EXPECT_EQ(f.next(out), StreamFramer::State::kNeedMore);
    } else {
      ASSERT_EQ(s, StreamFramer::State::kNeedMore) << "at byte " << i;
    }
  }
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], echo(8, 0));
  EXPECT_EQ(got[1], second);
  EXPECT_EQ(f.buffered(), 0u);
}

TEST(StreamFramer, SeveralMessagesInOneChunkPlusAPartialOne) {
  Bytes chunk;
  for (uint8_t i = 0; i < 5; ++i) {
    Bytes m = echo(static_cast<uint16_t>(8 + i), i, i);
    chunk.insert(chunk.end(), m.begin(), m.end());
  }
  Bytes tail = echo(20, 9, 9);
  chunk.insert(chunk.end(), tail.begin(), tail.begin() + 11);  // header + 3 bytes
  StreamFramer f;
  f.append(chunk);
  for (uint8_t i = 0; i < 5; ++i) {
    ByteSpan out;
    ASSERT_EQ(f.next(out), StreamFramer::State::kMessage);
    EXPECT_EQ(Bytes(out.begin(), out.end()), echo(static_cast<uint16_t>(8 + i), i, i));
  }
  ByteSpan out;
  EXPECT_EQ(f.next(out), StreamFramer::State::kNeedMore);  // partial body
  EXPECT_EQ(f.buffered(), 11u);
  f.append(ByteSpan(tail).subspan(11));
  ASSERT_EQ(f.next(out), StreamFramer::State::kMessage);
  EXPECT_EQ(Bytes(out.begin(), out.end()), tail);
}

TEST(StreamFramer, PartialHeaderNeedsMore) {
  StreamFramer f;
  f.append(hex("04 02 00"));
  ByteSpan out;
  EXPECT_EQ(f.next(out), StreamFramer::State::kNeedMore);
  f.append(hex("08 00 00 00"));
  EXPECT_EQ(f.next(out), StreamFramer::State::kNeedMore);
  f.append(hex("07"));
  ASSERT_EQ(f.next(out), StreamFramer::State::kMessage);
  EXPECT_EQ(to_hex(out), "0402000800000007");
}

TEST(StreamFramer, LengthBelowHeaderIsAStickyErrorWithOffset) {
  StreamFramer f;
  Bytes good = echo(12, 1);
  f.append(good);
  f.append(hex("01 00 0004 00000001"));
  ByteSpan out;
  ASSERT_EQ(f.next(out), StreamFramer::State::kMessage);
  ASSERT_EQ(f.next(out), StreamFramer::State::kError);
  EXPECT_EQ(f.error().type, ErrorType::kBadRequest);
  EXPECT_EQ(f.error().code, static_cast<uint16_t>(BadRequestCode::kBadLen));
  EXPECT_EQ(f.error().offset, 12u);
  EXPECT_NE(f.error().message.find("header length 4 < 8"), std::string::npos) << f.error().message;
  EXPECT_NE(f.error().message.find("stream offset 12"), std::string::npos) << f.error().message;
  f.append(echo(8, 0));
  EXPECT_EQ(f.next(out), StreamFramer::State::kError);  // cannot resynchronise
}

TEST(StreamFramer, ZeroLength) {
  StreamFramer f;
  f.append(hex("04 00 0000 00000000"));
  ByteSpan out;
  EXPECT_EQ(f.next(out), StreamFramer::State::kError);
  EXPECT_EQ(f.error().offset, 0u);
}

TEST(StreamFramer, MaximumLengthMessage) {
  StreamFramer f;
  Bytes big = echo(65535, 0x5a);
  f.append(ByteSpan(big).first(65534));
  ByteSpan out;
  EXPECT_EQ(f.next(out), StreamFramer::State::kNeedMore);
  f.append(ByteSpan(big).subspan(65534));
  ASSERT_EQ(f.next(out), StreamFramer::State::kMessage);
  EXPECT_EQ(out.size(), 65535u);
  EXPECT_EQ(out[65534], 0x5a);
}

TEST(StreamFramer, LongStreamInOddChunksCompacts) {
  // 3000 messages of varying size, fed in 997-byte chunks.
  Bytes stream;
  std::vector<size_t> sizes;
  for (int i = 0; i < 3000; ++i) {
    const uint16_t len = static_cast<uint16_t>(8 + (i * 37) % 300);
    Bytes m = echo(len, static_cast<uint8_t>(i), static_cast<uint32_t>(i));
    stream.insert(stream.end(), m.begin(), m.end());
    sizes.push_back(len);
  }
  StreamFramer f;
  size_t n = 0, max_buffered = 0;
  for (size_t pos = 0; pos < stream.size(); pos += 997) {
    f.append(ByteSpan(stream).subspan(pos, std::min<size_t>(997, stream.size() - pos)));
    max_buffered = std::max(max_buffered, f.buffered());
    ByteSpan out;
    while (f.next(out) == StreamFramer::State::kMessage) {
      ASSERT_LT(n, sizes.size());
      ASSERT_EQ(out.size(), sizes[n]);
      EXPECT_EQ(load_be32(&out[4]), n);
      ++n;
    }
  }
  EXPECT_EQ(n, sizes.size());
  EXPECT_EQ(f.buffered(), 0u);
  EXPECT_LT(max_buffered, 997u + 308u);
}

}  // namespace
}  // namespace flowlab::of
