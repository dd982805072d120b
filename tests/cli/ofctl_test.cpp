// Golden tests of `flowlab ofctl`: the built binary is run on the shared OpenFlow
// vectors and on malformed input; stdout is compared with tests/cli/golden/*.txt,
// exit codes and error lines are checked. FLOWLAB_UPDATE_GOLDEN=1 rewrites the
// golden files (review the diff before committing).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const std::string kVectors = std::string(FLOWLAB_SHARED_DIR) + "/testdata/openflow-vectors";
const std::string kGolden = std::string(FLOWLAB_SOURCE_DIR) + "/tests/cli/golden";

struct CmdResult {
  int exit_code = -1;
  bool signaled = false;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'')
      q += "'\\''";
    else
      q += c;
  }
  return q + "'";
}

CmdResult run(const std::vector<std::string>& args) {
  fs::path dir = fs::temp_directory_path() / ("flowtext-cli-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string cmd = "timeout 30 " + quote(FLOWLAB_BINARY) + " ofctl";
  for (const auto& a : args) cmd += " " + quote(a);
  cmd += " >" + quote((dir / "out").string()) + " 2>" + quote((dir / "err").string()) + " </dev/null";
  int status = std::system(cmd.c_str());
  CmdResult r;
  if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
    r.signaled = r.exit_code > 128;  // the shell reports a child's signal as 128+N
  }
  r.out = slurp(dir / "out");
  r.err = slurp(dir / "err");
  fs::remove_all(dir);
  return r;
}

void expect_golden(const std::string& name, const std::string& actual) {
  fs::path p = fs::path(kGolden) / (name + ".txt");
  if (std::getenv("FLOWLAB_UPDATE_GOLDEN")) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << actual;
  }
  ASSERT_TRUE(fs::exists(p)) << "missing golden file " << p;
  EXPECT_EQ(actual, slurp(p)) << "golden " << p;
}

std::string hex_of_file(const std::string& path) {
  std::string b = slurp(path), h;
  static const char* kDigits = "0123456789abcdef";
  for (unsigned char c : b) {
    h += kDigits[c >> 4];
    h += kDigits[c & 15];
  }
  return h;
}

class OfpParseGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(OfpParseGolden, PrintsLikeTheGoldenFile) {
  std::string file = kVectors + "/" + GetParam() + ".packet";
  CmdResult r = run({"ofp-parse", file});
  ASSERT_FALSE(r.signaled);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  std::string name = GetParam();
  for (char& c : name)
    if (c == '/') c = '_';
  expect_golden("ofp-parse_" + name, r.out);
  // ofp-print of the same bytes as hex prints the same text.
  CmdResult p = run({"ofp-print", hex_of_file(file)});
  EXPECT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.out, r.out);
}

INSTANTIATE_TEST_SUITE_P(
    Vectors, OfpParseGolden,
    ::testing::Values(
        "of13/4-0-ofp_desc_reply", "of13/4-1-ofp_packet_out", "of13/4-10-ofp_hello",
        "of13/4-11-ofp_flow_stats_request", "of13/4-12-ofp_flow_stats_reply", "of13/4-15-ofp_error_msg",
        "of13/4-19-ofp_role_request", "of13/4-2-ofp_flow_mod", "of13/4-21-ofp_group_mod",
        "of13/4-26-ofp_aggregate_stats_reply", "of13/4-28-ofp_table_stats_reply", "of13/4-3-ofp_flow_mod",
        "of13/4-30-ofp_port_stats_reply", "of13/4-34-ofp_group_desc_reply", "of13/4-38-ofp_queue_stats_reply",
        "of13/4-39-ofp_port_status", "of13/4-4-ofp_packet_in", "of13/4-40-ofp_flow_removed",
        "of13/4-43-ofp_get_async_reply", "of13/4-45-ofp_meter_mod", "of13/4-48-ofp_meter_config_reply",
        "of13/4-50-ofp_meter_stats_reply", "of13/4-52-ofp_meter_features_reply",
        "of13/4-54-ofp_port_desc_reply", "of13/4-6-ofp_features_reply", "of13/4-9-ofp_get_config_reply",
        "of13/libofproto-OFP13-flow_mod", "of13/libofproto-OFP13-flow_removed", "of10/1-1-ofp_packet_out",
        "of10/1-2-ofp_flow_mod", "of10/1-4-ofp_packet_in", "of10/1-6-ofp_switch_features"),
    [](const ::testing::TestParamInfo<std::string>& i) {
      std::string n;
      for (char c : i.param) n += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return n;
    });

TEST(OfctlCli, OfpParseOfAConcatenationPrintsEveryMessage) {
  fs::path f = fs::temp_directory_path() / ("flowtext-cat-" + std::to_string(::getpid()));
  {
    std::ofstream o(f, std::ios::binary);
    for (const char* v : {"of13/4-10-ofp_hello", "of13/4-3-ofp_flow_mod", "of10/1-2-ofp_flow_mod",
                          "of13/4-17-ofp_barrier_request"})
      o << slurp(kVectors + "/" + v + ".packet");
  }
  CmdResult r = run({"ofp-parse", f.string()});
  fs::remove(f);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_golden("ofp-parse_concatenated", r.out);
}

TEST(OfctlCli, TruncatedFileNamesMessageAndOffset) {
  fs::path f = fs::temp_directory_path() / ("flowtext-trunc-" + std::to_string(::getpid()));
  std::string whole = slurp(kVectors + "/of13/4-2-ofp_flow_mod.packet");
  ASSERT_GT(whole.size(), 20u);
  std::ofstream(f, std::ios::binary) << whole.substr(0, 20);
  CmdResult r = run({"ofp-parse", f.string()});
  fs::remove(f);
  ASSERT_FALSE(r.signaled);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(
      r.err.find("message 1 (OFPT_FLOW_MOD) at byte offset 0: header length 280 but only 20 bytes left"),
      std::string::npos)
      << r.err;
}

TEST(OfctlCli, MalformedHexFailsWithMessageAndOffset) {
  // A flow-mod whose match claims a 3-byte OXM list (shorter than its header).
  CmdResult bad_len = run({"ofp-print", "040e0008000000aa"});  // flow-mod with only a header
  ASSERT_FALSE(bad_len.signaled);
  EXPECT_EQ(bad_len.exit_code, 1);
  EXPECT_NE(bad_len.err.find("flowlab ofctl: message 1 (OFPT_FLOW_MOD) at byte offset"), std::string::npos)
      << bad_len.err;
  EXPECT_NE(bad_len.err.find("OFPBRC_BAD_LEN"), std::string::npos) << bad_len.err;

  CmdResult short_hdr = run({"ofp-print", "0414000c0000000100"});  // length 12, 9 bytes given
  EXPECT_EQ(short_hdr.exit_code, 1);
  EXPECT_EQ(short_hdr.err,
            "flowlab ofctl: message 1 (OFPT_BARRIER_REQUEST) at byte offset 0: header length 12 but only 9 "
            "bytes left\n");

  CmdResult second = run({"ofp-print",
                          "0414000800000001"
                          "0414000400000002"});
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_EQ(second.out, "OFPT_BARRIER_REQUEST (OF1.3) (xid=0x1):\n");
  EXPECT_EQ(second.err,
            "flowlab ofctl: message 2 (OFPT_BARRIER_REQUEST) at byte offset 8: header length 4 < 8\n");

  CmdResult version = run({"ofp-print", "0914000800000001"});
  EXPECT_EQ(version.exit_code, 1);
  EXPECT_NE(version.err.find("OFPBRC_BAD_VERSION"), std::string::npos) << version.err;

  CmdResult not_hex = run({"ofp-print", "04zz"});
  EXPECT_EQ(not_hex.exit_code, 1);
  EXPECT_EQ(not_hex.err, "flowlab ofctl: ofp-print: '04zz' is not an even number of hex digits\n");

  CmdResult empty = run({"ofp-print", ""});
  EXPECT_EQ(empty.exit_code, 1);
  EXPECT_EQ(empty.err, "flowlab ofctl: no OpenFlow message: the input is empty\n");
}

TEST(OfctlCli, RandomGarbageNeverKillsTheProcess) {
  unsigned seed = 12345;
  for (int i = 0; i < 40; ++i) {
    std::string hex = "04";  // keep the version plausible so the decoder goes deep
    int len = 8 + int(seed % 120);
    for (int j = 1; j < len; ++j) {
      seed = seed * 1103515245u + 12345u;
      static const char* kDigits = "0123456789abcdef";
      unsigned byte = (seed >> 16) & 0xff;
      if (j == 2) byte = 0;
      if (j == 3) byte = unsigned(len);
      hex += kDigits[byte >> 4];
      hex += kDigits[byte & 15];
    }
    CmdResult r = run({"ofp-print", hex});
    ASSERT_FALSE(r.signaled) << hex;
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << hex << " exit " << r.exit_code << " " << r.err;
  }
}

TEST(OfctlCli, UsageErrorsExit2) {
  CmdResult unknown = run({"frobnicate", "tcp:127.0.0.1:1"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown command 'frobnicate'"), std::string::npos);
  CmdResult missing = run({"add-flow", "tcp:127.0.0.1:1"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("usage: flowlab ofctl add-flow SWITCH FLOW"), std::string::npos);
  CmdResult none = run({});
  EXPECT_EQ(none.exit_code, 2);
  CmdResult proto = run({"-O", "OpenFlow99", "show", "tcp:127.0.0.1:1"});
  EXPECT_EQ(proto.exit_code, 2);
  EXPECT_NE(proto.err.find("unknown protocol"), std::string::npos);
  CmdResult help = run({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("dump-flows SWITCH [MATCH]"), std::string::npos);
}

TEST(OfctlCli, RuntimeErrorsExit1) {
  CmdResult missing_file = run({"ofp-parse", "/nonexistent/flowtext"});
  EXPECT_EQ(missing_file.exit_code, 1);
  EXPECT_EQ(missing_file.err, "flowlab ofctl: cannot open '/nonexistent/flowtext'\n");
  // Nothing listens on port 1 of loopback: the connection is refused.
  CmdResult refused = run({"-t", "2", "dump-flows", "tcp:127.0.0.1:1"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("tcp:127.0.0.1:1: cannot connect: Connection refused"), std::string::npos)
      << refused.err;
  CmdResult passive = run({"show", "ptcp:6653"});
  EXPECT_EQ(passive.exit_code, 1);
  EXPECT_NE(passive.err.find("needs an active connection string"), std::string::npos) << passive.err;
}

}  // namespace
