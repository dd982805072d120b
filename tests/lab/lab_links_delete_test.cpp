// LabLinksDelete against a real kernel: the socket opened before the unmount
// still reaches the namespace after it, and its delete removes the lab's links
// between two switches (both ends in the namespace) and nothing else. The
// namespace is read back through an fd the test holds; both namespaces are the
// test's own, deleted even when an assertion fails.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <set>
#include <string>

#include "lab/host/netlink.h"
#include "lab/host/netns.h"

namespace flowlab::lab {
namespace {

std::set<std::string> link_names(const std::string& ns_path) {
  std::set<std::string> out;
  auto sock = RtnlSocket::open_in(ns_path);
  EXPECT_TRUE(sock.ok()) << sock.error().message;
  if (!sock.ok()) return out;
  auto links = sock->dump_links();
  EXPECT_TRUE(links.ok()) << links.error().message;
  if (links.ok())
    for (const auto& l : *links) out.insert(l.name);
  return out;
}

TEST(LabLinksDelete, DeletesTheSwitchLinksAfterTheNamespaceIsUnmounted) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (network namespaces)";
  std::string core = fmt::format("flld{}-sw", getpid()), host = fmt::format("flld{}-h", getpid());
  auto made = create_namespaces({core, host}, nullptr);
  ASSERT_TRUE(made.ok()) << made.error().message;
  // s1-eth1 <-> s2-eth1 between two switches (the group); h-eth0 <-> s1-eth2 to a host (not).
  ASSERT_TRUE(create_veths({{core, "s1-eth1", core, "s2-eth1", 0, "", ""},
                            {host, "h-eth0", core, "s1-eth2", 0, "", ""}})
                  .ok());
  int fd = open(("/run/netns/" + core).c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  std::string held = fmt::format("/proc/self/fd/{}", fd);
  EXPECT_EQ(link_names(held), (std::set<std::string>{"lo", "s1-eth1", "s2-eth1", "s1-eth2"}));

  auto later = LabLinksDelete::open(core);
  ASSERT_TRUE(later.ok()) << later.error().message;
  (*made)[0].destroy();  // the switches' namespace unmounted; the host's stays
  EXPECT_NE(access(("/run/netns/" + core).c_str(), F_OK), 0);
  Status st = later->run();
  EXPECT_TRUE(st.ok()) << st.error().message;
  // The pair between switches is gone; the host's link is not the delete's.
  EXPECT_EQ(link_names(held), (std::set<std::string>{"lo", "s1-eth2"}));
  close(fd);
}

}  // namespace
}  // namespace flowlab::lab
