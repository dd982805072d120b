// VXLAN ends through iproute2 (a handful per machine and run; the veths, by the
// thousand, go through rtnetlink batches instead).
#include "lab/net/vxlan.h"

#include <fmt/format.h>

#include "lab/host/process.h"

namespace flowlab::lab {

namespace {

std::vector<std::string> ip_in(const std::string& ns, std::vector<std::string> args) {
  std::vector<std::string> argv = {"ip"};
  if (!ns.empty()) argv.insert(argv.end(), {"-n", ns});
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

}  // namespace

Status create_vxlan(const VxlanEnd& e) {
  if (e.remotes.empty()) return fail("vxlan {}: no remote underlay address", e.ifname);
  if (e.tmp_name.empty() || e.tmp_name.size() > 15) return fail("vxlan: bad device name '{}'", e.tmp_name);
  std::vector<std::string> add = {"link", "add", e.tmp_name, "type", "vxlan", "id", std::to_string(e.vni),
                                  "local", e.local, "dstport", std::to_string(e.port)};
  if (e.remotes.size() == 1) add.insert(add.end(), {"remote", e.remotes.front()});
  FLOWLAB_TRY(run_checked(ip_in(e.underlay_ns, add), with_timeout(5)));
  auto undo = [&] { (void)run_command(ip_in(e.underlay_ns, {"link", "del", e.tmp_name}), uninterruptible(5)); };
  Status st = run_checked(ip_in(e.underlay_ns, {"link", "set", e.tmp_name, "netns", e.ns}), with_timeout(5));
  if (!st.ok()) {
    undo();
    return st;
  }
  std::vector<std::string> set = {"link", "set", e.tmp_name, "name", e.ifname};
  if (e.mtu) set.insert(set.end(), {"mtu", std::to_string(e.mtu)});
  set.push_back("up");
  FLOWLAB_TRY(run_checked(ip_in(e.ns, set), with_timeout(5)));
  if (e.remotes.size() > 1)
    for (const auto& r : e.remotes) {
      std::vector<std::string> fdb = {"bridge", "-n", e.ns, "fdb", "append", "00:00:00:00:00:00",
                                      "dev", e.ifname, "dst", r};
      FLOWLAB_TRY(run_checked(fdb, with_timeout(5)));
    }
  return ok_status();
}

}  // namespace flowlab::lab
