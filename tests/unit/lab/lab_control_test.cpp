// The control requests of a lab that is up (src/lab/run/lab_control.h), on a case
// with no switches: each bad request gets its own message, never a crash.
#include "lab/run/lab_control.h"

#include <gtest/gtest.h>

namespace flowlab::lab {
namespace {

std::string error_of(const nlohmann::json& request) {
  CaseHandles h;
  auto reply = handle_control(request, h);
  EXPECT_FALSE(reply.value("ok", true)) << reply.dump();
  return reply.value("error", "");
}

TEST(LabControl, BadRequestsAreNamed) {
  EXPECT_EQ(error_of({{"op", "reboot"}}), "unknown request 'reboot'");
  EXPECT_EQ(error_of({{"op", "dpctl"}}), "usage: dpctl command [arg1] [arg2] ...");
  EXPECT_EQ(error_of({{"op", "dpctl"}, {"args", {"dump-flows"}}, {"switch", "s9"}}),
            "dpctl: no switch named s9");
  EXPECT_EQ(error_of({{"op", "dpctl"}, {"args", {"dump-flows"}}, {"switch", 3}}),
            "dpctl: switch must be a name");
  EXPECT_NE(error_of({{"op", "switch"}, {"name", "s9"}, {"start", false}}).find("s9"), std::string::npos);
  EXPECT_NE(error_of({{"op", "link"}, {"a", "s1"}, {"b", "s2"}, {"up", false}}).find("s1"),
            std::string::npos);
}

TEST(LabControl, DpctlOnEveryOrOneSwitchOfAnEmptyCaseAnswersNothing) {
  CaseHandles h;
  auto reply = handle_control({{"op", "dpctl"}, {"args", {"dump-flows"}}}, h);
  EXPECT_TRUE(reply.value("ok", false)) << reply.dump();
  EXPECT_EQ(reply.value("out", "?"), "");
}

}  // namespace
}  // namespace flowlab::lab
