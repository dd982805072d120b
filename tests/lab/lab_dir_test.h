// The fixture most lab tests share: root and the programs they run, a folder of
// their own with its own lab state (FLOWLAB_STATE_DIR, so a test sees only its own
// runs), and `flowlab lab clean` afterwards for whatever a failed test left.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "lab/host/process.h"

namespace flowlab::lab {

class LabDirTest : public ::testing::Test {
 protected:
  // `name` goes into the folder's name; `programs` must all be on PATH or the test
  // is skipped; `clean_timeout_s` bounds the final `lab clean`.
  LabDirTest(std::string name, std::vector<std::string> programs, double clean_timeout_s = 30)
      : name_(std::move(name)), programs_(std::move(programs)), clean_timeout_s_(clean_timeout_s) {}

  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (network namespaces)";
    for (const auto& p : programs_)
      if (!have_program(p)) GTEST_SKIP() << "needs " << p;
    dir_ = std::filesystem::temp_directory_path() /
           fmt::format("flowlab-{}-{}-{}", name_, getpid(),
                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "state");
  }
  void TearDown() override {
    if (dir_.empty()) return;
    run_command({FLOWLAB_BINARY, "lab", "clean", "--force"}, opts(clean_timeout_s_));
    std::filesystem::remove_all(dir_);
  }
  // The options every `flowlab` command of the test runs with: its own lab state.
  CommandOptions opts(double timeout) const {
    CommandOptions o = with_timeout(timeout);
    o.env = {{"FLOWLAB_STATE_DIR", (dir_ / "state").string()}};
    o.env.insert(o.env.end(), extra_env_.begin(), extra_env_.end());
    return o;
  }
  std::string out() const { return (dir_ / "out").string(); }
  // out()/results.json, or a null json when there is none.
  nlohmann::json results() const {
    std::ifstream in(out() + "/results.json");
    return in ? nlohmann::json::parse(in, nullptr, false) : nlohmann::json();
  }
  // A file's text ("" when it cannot be read): logs the run wrote.
  static std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  std::filesystem::path dir_;
  std::vector<std::pair<std::string, std::string>> extra_env_;

 private:
  std::string name_;
  std::vector<std::string> programs_;
  double clean_timeout_s_;
};

}  // namespace flowlab::lab
