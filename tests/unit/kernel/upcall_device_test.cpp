// UpcallDevice::pop_port_tag: the ingress port's tag the fast path pushes on a
// miss comes off again, the frame and its offload metadata as before the push.
#include "kernel/upcall_device.h"

#include <gtest/gtest.h>

#include <vector>

#include "kernel/fast_path_abi.h"

namespace flowlab::kernel {
namespace {

std::vector<uint8_t> frame() {
  std::vector<uint8_t> f = {0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0x08, 0x00};
  for (int i = 0; i < 46; ++i) f.push_back(uint8_t(i));
  return f;
}

std::vector<uint8_t> tagged(const std::vector<uint8_t>& f, uint16_t tci) {
  std::vector<uint8_t> t(f.begin(), f.begin() + 12);
  t.insert(t.end(), {uint8_t(FL_UPCALL_TPID >> 8), uint8_t(FL_UPCALL_TPID), uint8_t(tci >> 8), uint8_t(tci)});
  t.insert(t.end(), f.begin() + 12, f.end());
  return t;
}

TEST(UpcallDevice, PopsThePortTagAndKeepsTheFrame) {
  const auto f = frame();
  for (uint16_t tag : {0, 1, 7, 4095}) {
    Packet p;
    const auto t = tagged(f, tag);
    ASSERT_TRUE(p.assign(t.data(), t.size()));
    p.offload.flags = OffloadInfo::kNeedsCsum;
    p.offload.csum_start = 14 + 4 + 20;  // the kernel counts the tag it inserted
    p.offload.csum_offset = 16;
    EXPECT_EQ(UpcallDevice::pop_port_tag(p), tag);
    ASSERT_EQ(p.size(), f.size());
    EXPECT_EQ(std::vector<uint8_t>(p.data(), p.data() + p.size()), f);
    EXPECT_EQ(p.offload.csum_start, 14 + 20);
    EXPECT_EQ(p.offload.csum_offset, 16);
  }
}

TEST(UpcallDevice, AFrameTaggedBeforeKeepsItsOwnTag) {
  // A frame that arrived with VLAN 10: the program's tag is outside it.
  const auto inner = tagged(frame(), 10);
  const auto t = tagged(inner, 3);
  Packet p;
  ASSERT_TRUE(p.assign(t.data(), t.size()));
  EXPECT_EQ(UpcallDevice::pop_port_tag(p), 3);
  EXPECT_EQ(std::vector<uint8_t>(p.data(), p.data() + p.size()), inner);
}

TEST(UpcallDevice, AnUntaggedOrShortFrameIsLeftAlone) {
  const auto f = frame();
  Packet p;
  ASSERT_TRUE(p.assign(f.data(), f.size()));
  EXPECT_EQ(UpcallDevice::pop_port_tag(p), -1);
  EXPECT_EQ(std::vector<uint8_t>(p.data(), p.data() + p.size()), f);
  const auto t = tagged(f, 5);
  for (size_t n = 0; n < 18; ++n) {
    ASSERT_TRUE(p.assign(t.data(), n));
    EXPECT_EQ(UpcallDevice::pop_port_tag(p), -1) << n;
    EXPECT_EQ(p.size(), n);
  }
}

}  // namespace
}  // namespace flowlab::kernel
