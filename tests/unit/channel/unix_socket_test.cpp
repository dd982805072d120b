// Unix stream sockets at any path length (src/channel/unix_socket.h): a
// listener under a folder deeper than a socket address holds, reached by a
// client; the errors of a missing folder, a long file name, no listener.
#include "channel/unix_socket.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <thread>

#include "support/unix_ask.h"

namespace flowlab::channel {
namespace {

namespace fs = std::filesystem;

class UnixSocket : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("flowlab-unix-" + std::to_string(::getpid()));
    deep_ = root_;
    while (deep_.string().size() < 150) deep_ /= "a-folder-name-of-some-length";
    fs::create_directories(deep_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_, deep_;
};

TEST_F(UnixSocket, ListenerAtAPathPastTheAddressLimitIsReachedAndAnswers) {
  const std::string path = (deep_ / "control.sock").string();
  ASSERT_GT(path.size(), 108u);
  auto l = unix_listen(path, 4, 077);
  ASSERT_TRUE(l.ok()) << l.error().message;
  // The socket file is in its folder, under the mask asked for.
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 077, 0u);
  std::string answer;
  std::thread server([&] {
    int c = ::accept(*l, nullptr, nullptr);
    char buf[64];
    ssize_t n = ::read(c, buf, sizeof buf);
    std::string reply = "got " + std::string(buf, size_t(std::max<ssize_t>(n, 0)));
    (void)!::write(c, reply.data(), reply.size());
    ::close(c);
  });
  answer = test::unix_ask(path, "ping\n");
  server.join();
  EXPECT_EQ(answer, "got ping\n");
  // A listener again at the same path replaces the old file.
  ::close(*l);
  auto again = unix_listen(path, 4);
  ASSERT_TRUE(again.ok()) << again.error().message;
  ::close(*again);
}

TEST_F(UnixSocket, ErrorsNameThePathAndTheCause) {
  auto none = unix_connect((deep_ / "nobody.sock").string());
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("nobody.sock: No such file or directory"), std::string::npos)
      << none.error().message;
  auto missing = unix_listen((deep_ / "no-such-folder" / "x.sock").string(), 1);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("its folder: No such file or directory"), std::string::npos)
      << missing.error().message;
  auto long_name = unix_listen((root_ / std::string(120, 'n')).string(), 1);
  ASSERT_FALSE(long_name.ok());
  EXPECT_NE(long_name.error().message.find("its file name is too long (120 characters)"), std::string::npos)
      << long_name.error().message;
  EXPECT_FALSE(unix_connect("").ok());
}

}  // namespace
}  // namespace flowlab::channel
