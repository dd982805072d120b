// extract_cache_key: the user-space mirror of the TC program's key extraction.
#include "kernel/cache_key.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace flowlab::kernel {
namespace {

std::vector<uint8_t> ipv4(uint8_t proto, std::vector<uint8_t> l4, uint16_t frag = 0) {
  std::vector<uint8_t> f = {0,
                            0,
                            0,
                            0,
                            0,
                            2,
                            0,
                            0,
                            0,
                            0,
                            0,
                            1,
                            0x08,
                            0x00,
                            0x45,
                            0x2c,
                            0,
                            0,
                            0,
                            1,
                            uint8_t(frag >> 8),
                            uint8_t(frag),
                            64,
                            proto,
                            0,
                            0,
                            10,
                            0,
                            0,
                            1,
                            10,
                            0,
                            0,
                            2};
  f.insert(f.end(), l4.begin(), l4.end());
  return f;
}

TEST(CacheKey, UdpKeyHasEveryField) {
  auto f = ipv4(17, {0x13, 0x88, 0x00, 0x50, 0, 8, 0, 0});
  fl_key k;
  ASSERT_TRUE(extract_cache_key(f.data(), f.size(), 7, k));
  EXPECT_EQ(k.ifindex, 7u);
  EXPECT_EQ(k.ip_proto, 17);
  EXPECT_EQ(k.ip_tos, 0x2c);
  EXPECT_EQ(ntohs(k.tp_src), 5000);
  EXPECT_EQ(ntohs(k.tp_dst), 80);
  EXPECT_EQ(k.ipv4_dst, htonl(0x0a000002));
  EXPECT_EQ(k.eth_dst[5], 2);
  EXPECT_EQ(k.mask_id, 0);
}

TEST(CacheKey, IcmpTypeAndCode) {
  auto f = ipv4(1, {8, 3});
  fl_key k;
  ASSERT_TRUE(extract_cache_key(f.data(), f.size(), 1, k));
  EXPECT_EQ(k.tp_src, 8);
  EXPECT_EQ(k.tp_dst, 3);
}

TEST(CacheKey, WhatTheProgramSendsUp) {
  fl_key k;
  auto frag = ipv4(17, {0, 1, 0, 2}, 0x2000);  // MF
  EXPECT_FALSE(extract_cache_key(frag.data(), frag.size(), 1, k));
  auto later = ipv4(17, {0, 1, 0, 2}, 0x0010);  // offset
  EXPECT_FALSE(extract_cache_key(later.data(), later.size(), 1, k));
  auto short_l4 = ipv4(6, {0, 1});
  EXPECT_FALSE(extract_cache_key(short_l4.data(), short_l4.size(), 1, k));
  auto icmp6 = ipv4(58, {135, 0, 0, 0});
  EXPECT_FALSE(extract_cache_key(icmp6.data(), icmp6.size(), 1, k));
  auto vlan = ipv4(17, {0, 1, 0, 2});
  vlan[12] = 0x81;
  EXPECT_FALSE(extract_cache_key(vlan.data(), vlan.size(), 1, k));
  auto opts = ipv4(17, {0, 1, 0, 2});
  opts[14] = 0x46;  // IHL 6 but no room for the option and the ports
  EXPECT_FALSE(extract_cache_key(opts.data(), opts.size() - 4, 1, k));
  EXPECT_FALSE(extract_cache_key(opts.data(), 20, 1, k));
}

TEST(CacheMask, KeepsTheFlowKeyBitsInWireOrderAndTheWholeIfindex) {
  FlowKey m;
  m.clear();
  m.ipv4_dst = 0xffffff00;  // a /24, host order in a FlowKey
  m.tp_dst = 0xffff;
  m.ip_proto = 0xff;
  m.ip_dscp = 0x3f;
  m.eth_src[5] = 0xff;
  m.vlan_vid = 0x1fff;  // not in the kernel key (constant for cacheable packets)
  fl_key k = cache_mask_of(m);
  EXPECT_EQ(k.ifindex, 0xffffffffu);
  EXPECT_EQ(k.ipv4_dst, htonl(0xffffff00));
  EXPECT_EQ(k.ipv4_src, 0u);
  EXPECT_EQ(k.tp_dst, 0xffff);
  EXPECT_EQ(k.tp_src, 0);
  EXPECT_EQ(k.ip_proto, 0xff);
  EXPECT_EQ(k.ip_tos, 0xfc);
  EXPECT_EQ(k.eth_src[5], 0xff);
  EXPECT_EQ(k.eth_dst[5], 0);
  EXPECT_EQ(k.mask_id, 0);
}

TEST(CacheMask, IcmpTypeLivesInTheFirstByteOfTpSrc) {
  FlowKey m;
  m.clear();
  m.icmp_type = 0xff;
  fl_key mask = cache_mask_of(m);
  fl_key k;
  auto echo = ipv4(1, {8, 0});
  auto reply = ipv4(1, {0, 0});
  ASSERT_TRUE(extract_cache_key(echo.data(), echo.size(), 1, k));
  fl_key a = masked_key(k, mask, 2);
  ASSERT_TRUE(extract_cache_key(reply.data(), reply.size(), 1, k));
  fl_key b = masked_key(k, mask, 2);
  EXPECT_NE(std::memcmp(&a, &b, sizeof a), 0) << "echo and reply must be different entries";
  EXPECT_EQ(a.mask_id, 2);
}

TEST(CacheMask, MaskedKeysOfTwoMicroflowsOfOneMegaflowAreEqual) {
  FlowKey m;
  m.clear();
  m.in_port = 0xffffffff;  // a table of in_port flows: nothing else read
  fl_key mask = cache_mask_of(m);
  auto f1 = ipv4(17, {0x13, 0x88, 0x00, 0x50});
  auto f2 = ipv4(17, {0x13, 0x89, 0x00, 0x51});
  fl_key k1, k2;
  ASSERT_TRUE(extract_cache_key(f1.data(), f1.size(), 4, k1));
  ASSERT_TRUE(extract_cache_key(f2.data(), f2.size(), 4, k2));
  fl_key a = masked_key(k1, mask, 1), b = masked_key(k2, mask, 1);
  EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0);
  EXPECT_EQ(a.ifindex, 4u);
  ASSERT_TRUE(extract_cache_key(f2.data(), f2.size(), 5, k2));  // another port: another entry
  b = masked_key(k2, mask, 1);
  EXPECT_NE(std::memcmp(&a, &b, sizeof a), 0);
}

TEST(CacheMask, Covers) {
  FlowKey m;
  m.clear();
  m.tp_dst = 0xffff;
  fl_key narrow = cache_mask_of(m);
  m.ipv4_src = 0xffffffff;
  fl_key wide = cache_mask_of(m);
  EXPECT_TRUE(mask_covers(wide, narrow));
  EXPECT_FALSE(mask_covers(narrow, wide));
  EXPECT_TRUE(mask_covers(narrow, narrow));
}

}  // namespace
}  // namespace flowlab::kernel
