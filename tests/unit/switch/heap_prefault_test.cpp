// HeapPrefaulter: the pages the heap grows by become resident on its thread,
// without the caller touching them; a heap that shrank and grows again over
// the same addresses is populated again; nothing happens while the heap's
// end stays where it is.
#include "switch/heap_prefault.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bit>
#include <chrono>
#include <cstdint>
#include <thread>

namespace flowlab::sw {
namespace {

constexpr uintptr_t kPage = 4096;
constexpr size_t kGrow = size_t(8) << 20;

// Static: counting pages must not allocate (the heap is what is measured).
unsigned char g_vec[kGrow / kPage + 1];
void* const kSbrkFailed = std::bit_cast<void*>(intptr_t(-1));  // sbrk's (void*)-1

// The whole pages of [p, p + n), and how many of them are resident.
struct Pages {
  char* first;
  size_t count;
};
Pages whole_pages(char* p, size_t n) {
  uintptr_t a = (reinterpret_cast<uintptr_t>(p) + kPage - 1) & ~(kPage - 1);
  uintptr_t b = (reinterpret_cast<uintptr_t>(p) + n) & ~(kPage - 1);
  return {p + (a - reinterpret_cast<uintptr_t>(p)), size_t((b - a) / kPage)};
}
size_t resident(Pages r) {
  if (mincore(r.first, r.count * kPage, g_vec) != 0) return SIZE_MAX;
  size_t k = 0;
  for (size_t i = 0; i < r.count; ++i) k += g_vec[i] & 1;
  return k;
}
// Polls until every page is resident; the count at the end.
size_t wait_resident(Pages r) {
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  size_t k = resident(r);
  while (k != r.count && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    k = resident(r);
  }
  return k;
}

TEST(HeapPrefaulter, PopulatesWhatTheHeapGrowsByAndAgainAfterAShrink) {
  HeapPrefaulter pf;
  pf.poke();  // the heap as it is: nothing to do
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(pf.populated_bytes(), 0u);

  char* base = static_cast<char*>(sbrk(0));
  ASSERT_NE(sbrk(intptr_t(kGrow)), kSbrkFailed);
  const Pages grown = whole_pages(base, kGrow);
  ASSERT_GT(grown.count, 2000u);
  // Fresh brk pages are not resident until someone touches them.
  EXPECT_LT(resident(grown), grown.count / 2);
  pf.poke();
  EXPECT_EQ(wait_resident(grown), grown.count) << "the grown heap was not populated";
  EXPECT_GE(pf.populated_bytes(), grown.count * kPage);

  // Shrunk (the kernel frees the pages) and grown again over the same
  // addresses: populated again.
  ASSERT_NE(sbrk(-intptr_t(kGrow)), kSbrkFailed);
  pf.poke();
  ASSERT_NE(sbrk(intptr_t(kGrow)), kSbrkFailed);
  EXPECT_LT(resident(grown), grown.count / 2);
  pf.poke();
  EXPECT_EQ(wait_resident(grown), grown.count) << "the heap grown again was not populated";
  EXPECT_GE(pf.populated_bytes(), 2 * grown.count * kPage);

  // The contents are the zeros a new heap has: populating writes nothing.
  for (size_t i = 0; i < grown.count; i += 97) EXPECT_EQ(grown.first[i * kPage], 0);
  ASSERT_NE(sbrk(-intptr_t(kGrow)), kSbrkFailed);
}

}  // namespace
}  // namespace flowlab::sw
