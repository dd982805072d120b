// What the tests of Mininet's CLI share: a lab brought up with `flowlab lab up`
// (own state dir, taken down and cleaned after), the controller's stats file, and
// a tmux server of the test's own to drive the CLI in a real terminal.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "lab/host/process.h"
#include "lab_dir_test.h"

namespace flowlab::lab {

// A tmux server on a socket of its own (-L), one session running `command`.
class TmuxTerminal {
 public:
  explicit TmuxTerminal(std::string socket) : socket_(std::move(socket)) {}
  ~TmuxTerminal() { run_command({"tmux", "-L", socket_, "kill-server"}, with_timeout(10)); }
  TmuxTerminal(const TmuxTerminal&) = delete;
  TmuxTerminal& operator=(const TmuxTerminal&) = delete;

  bool start(const std::string& command) {
    return run_command({"tmux", "-L", socket_, "-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "220",
                        "-y", "50", command},
                       with_timeout(10))
        .ok();
  }
  // Types `text` literally, then Enter unless `enter` is false.
  void type(const std::string& text, bool enter = true) {
    if (!text.empty())
      run_command({"tmux", "-L", socket_, "send-keys", "-t", "t", "-l", text}, with_timeout(10));
    if (enter) key("Enter");
  }
  void key(const std::string& name) {
    run_command({"tmux", "-L", socket_, "send-keys", "-t", "t", name}, with_timeout(10));
  }
  // The whole pane, history included, wrapped lines joined.
  std::string screen() const {
    return run_command({"tmux", "-L", socket_, "capture-pane", "-p", "-J", "-S", "-", "-t", "t"},
                       with_timeout(10))
        .out;
  }
  static size_t count(const std::string& text, const std::string& needle) {
    size_t n = 0;
    for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + needle.size())) ++n;
    return n;
  }
  // Waits until `needle` appears at least `n` times on the pane; the pane at the end.
  std::string wait_for(const std::string& needle, size_t n = 1, double timeout_s = 60) const {
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    std::string s;
    while (std::chrono::steady_clock::now() < end) {
      s = screen();
      if (count(s, needle) >= n) return s;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ADD_FAILURE() << "waited " << timeout_s << " s for " << n << " x '" << needle << "'; the pane:\n" << s;
    return s;
  }

 private:
  std::string socket_;
};

class MininetCliTest : public LabDirTest {
 protected:
  MininetCliTest() : LabDirTest("mncli", {"fping", "iperf3", "tmux"}, 60) {}

  void TearDown() override {
    if (!id_.empty()) run_command({FLOWLAB_BINARY, "lab", "down", id_}, opts(60));
    LabDirTest::TearDown();
  }

  // `flowlab lab up ARGS...`: the lab's id.
  std::string up(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {FLOWLAB_BINARY, "lab", "up", "--out", out()};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run_command(argv, opts(120));
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    if (r.out.rfind("lab ", 0) == 0) id_ = r.out.substr(4, r.out.find(' ', 4) - 4);
    return id_;
  }

  // The environment of a flowlab command of this test, as a shell prefix.
  std::string env_prefix() const {
    return fmt::format("env FLOWLAB_STATE_DIR='{}' HOME='{}'", (dir_ / "state").string(), dir_.string());
  }

  // The flowlab controller's stats file (null: none written yet).
  nlohmann::json controller_stats() const {
    std::error_code ec;
    for (const auto& e : std::filesystem::recursive_directory_iterator(out(), ec)) {
      std::string name = e.path().filename().string();
      if (name.size() < 11 || name.substr(name.size() - 11) != "-stats.json" ||
          name.find("-switch-stats") != std::string::npos)
        continue;
      std::ifstream in(e.path());
      auto j = nlohmann::json::parse(in, nullptr, false);
      if (j.is_object()) return j;
    }
    return nullptr;
  }
  // handling_time.port_status.count in the controller's stats file (-1: no file yet).
  long port_status_seen() const {
    auto j = controller_stats();
    if (!j.is_object()) return -1;
    auto h = j.value("handling_time", nlohmann::json::object());
    if (!h.contains("port_status")) return 0;
    return h["port_status"].value("count", 0L);
  }
  // `lab up` returns once every switch's TCP connection to the controller stands; the
  // first pingall also needs the controller to have finished each handshake (its
  // table-miss flows installed), which an ASan controller on a loaded machine can
  // take seconds to do. Waits (bounded) until the controller counts `n` switches.
  void wait_controller_has(long n, double timeout_s = 30) const {
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    nlohmann::json j;
    while (std::chrono::steady_clock::now() < end) {
      j = controller_stats();
      if (j.is_object() && j.value("switches_connected", 0L) >= n) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    ADD_FAILURE() << "the controller did not count " << n << " switches in " << timeout_s
                  << " s: " << j.dump();
  }
  // Waits (bounded) until the controller counted more than `before` port-status messages.
  long wait_port_status_above(long before, double timeout_s = 10) const {
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    long n = port_status_seen();
    while (n <= before && std::chrono::steady_clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      n = port_status_seen();
    }
    return n;
  }

  std::string id_;
};

}  // namespace flowlab::lab
