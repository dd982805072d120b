// Small, fast subsets of the OpenFlow 1.3, 1.4 and 1.5 conformance suites
// (tests/conformance/smoke, smoke14, smoke15, os-ken's switch tester format)
// run through scripts/conformance.sh against `flowlab switch`: a tester OVS
// (dpid 2, OpenFlow 1.3) wired to flowlab switch (dpid 1) by three veth pairs
// in a namespace the script creates and removes. Asserts every case passes
// (or is a known difference the runner lists with its reason). Needs root,
// Open vSwitch and os-ken; the full suites and the OVS comparison are in
// docs/CONFORMANCE.md.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "switch_topology.h"

namespace flowlab::switch_interop {
namespace {

const std::string kTester = "/usr/lib/python3/dist-packages/os_ken/tests/switch/tester.py";

// A temporary directory removed on every path.
struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/flowlab-conf-XXXXXX";
    if (char* p = ::mkdtemp(tmpl)) path = p;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Runs the cases of tests/conformance/<dir> with the target switch at
// OpenFlow <version> (13, 14, 15); every case must pass or be a known difference listed
// in tests/conformance/known-differences.tsv (with its reason).
void run_subset(const std::string& dir, int version, int min_cases) {
  if (!is_root()) GTEST_SKIP() << "needs root (namespaces, AF_PACKET)";
  if (!have("/usr/bin/osken-manager") || ::access(kTester.c_str(), R_OK) != 0)
    GTEST_SKIP() << "os-ken or its switch tester is not installed";
  for (const char* t : {"/usr/sbin/ovs-vswitchd", "/usr/sbin/ovsdb-server", "/usr/bin/ovs-vsctl"})
    if (!have(t)) GTEST_SKIP() << "Open vSwitch is not installed (" << t << ")";
  const std::string src = FLOWLAB_SOURCE_DIR;
  const std::string cases = src + "/tests/conformance/" + dir;
  ASSERT_TRUE(std::filesystem::is_directory(cases)) << cases;
  TempDir out;
  ASSERT_FALSE(out.path.empty());

  // The script bounds the tester itself (--timeout) and removes its namespace,
  // OVS and switch on exit; the outer timeout is a last resort.
  int status = -1;
  std::string log =
      run_output("timeout --kill-after=10 110 " + src + "/scripts/conformance.sh --switch flowlab" +
                     " --version " + std::to_string(version) + " --flowlab " + FLOWLAB_BINARY + " --cases " +
                     cases + " --out " + out.path + " --timeout 80 --interval 0",
                 &status);
  std::string results = read_file(out.path + "/results.tsv");
  std::string diag = "harness output:\n" + log + "\nresults:\n" + results + "\nswitch log (tail):\n" +
                     read_file(out.path + "/flowlab.log").substr(0, 4000);
  EXPECT_EQ(status, 0) << diag;

  // One line per test: file, test, OK|ERROR|KNOWN, detail.
  int ok = 0, known = 0, failed = 0;
  std::istringstream lines(results);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("\tOK\t") != std::string::npos)
      ++ok;
    else if (line.find("\tKNOWN\t") != std::string::npos)
      ++known;
    else
      ++failed;
  }
  EXPECT_EQ(failed, 0) << diag;
  EXPECT_GE(ok + known, min_cases) << diag;  // every case of the directory must have run
  std::printf(
      "[ conformance ] %s (OpenFlow %d.%d) on flowlab switch: %d passed, %d known differences, %d failed\n",
      dir.c_str(), version / 10, version % 10, ok, known, failed);
}

TEST(Conformance, SmokeSubsetPassesOnFlowlabSwitch) { run_subset("smoke", 13, 8); }

// OpenFlow 1.4 at the target: 1.3's cases at version 5, importance, standard
// bundles (through tests/conformance/tester_ext.py).
TEST(Conformance, Of14SubsetPassesOnFlowlabSwitch) { run_subset("smoke14", 14, 11); }

// OpenFlow 1.5 at the target: flow/group descriptions at 1.5, tcp_flags,
// packet_type, 1.5 bucket properties, bundles of 1.5 flow-mods.
TEST(Conformance, Of15SubsetPassesOnFlowlabSwitch) { run_subset("smoke15", 15, 15); }

}  // namespace
}  // namespace flowlab::switch_interop
