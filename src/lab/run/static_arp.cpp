// Static ARP entries on every host (see static_arp.h): one `ip -batch` per host.
#include "lab/run/static_arp.h"

#include <arpa/inet.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "lab/host/netns.h"
#include "lab/host/process.h"

namespace flowlab::lab {

namespace {

struct Addressed {
  std::string ifname, ip, mac;
  uint32_t net = 0, mask = 0;
};

// "10.0.0.1/8" -> address, its network and mask (host order); false if not IPv4/len.
bool parse_cidr(const std::string& cidr, std::string& ip, uint32_t& net, uint32_t& mask) {
  auto slash = cidr.find('/');
  ip = cidr.substr(0, slash);
  in_addr a{};
  if (slash == std::string::npos || inet_pton(AF_INET, ip.c_str(), &a) != 1) return false;
  int len = std::atoi(cidr.c_str() + slash + 1);
  mask = len <= 0 ? 0 : len >= 32 ? 0xffffffffu : ~((1u << (32 - len)) - 1);
  net = ntohl(a.s_addr) & mask;
  return true;
}

}  // namespace

Result<size_t> add_static_arp(const Scenario& sc, const std::map<std::string, std::string>& host_ns,
                              const std::string& scratch_dir) {
  std::map<std::string, std::vector<Addressed>> ifs;  // host -> its addressed interfaces
  for (const auto& h : sc.hosts) {
    auto ns = host_ns.find(h.name);
    for (const auto& i : h.interfaces) {
      Addressed a;
      a.ifname = i.name;
      a.mac = i.mac;
      if (i.addr.empty() || !parse_cidr(i.addr, a.ip, a.net, a.mask)) continue;
      if (a.mac.empty() && ns != host_ns.end()) {
        auto r = run_command({"cat", "/sys/class/net/" + i.name + "/address"}, in_ns(ns->second));
        if (!r.ok()) return fail("static ARP: the MAC of {}:{}: {}", h.name, i.name, r.describe());
        a.mac = r.out.substr(0, r.out.find('\n'));
      }
      if (!a.mac.empty()) ifs[h.name].push_back(std::move(a));
    }
  }
  std::vector<std::pair<std::string, std::string>> jobs;  // namespace, batch file
  size_t entries = 0;
  std::error_code ec;
  std::filesystem::create_directories(scratch_dir, ec);
  for (const auto& [host, ns] : host_ns) {
    const auto& mine = ifs[host];
    if (mine.empty()) continue;
    std::string file = scratch_dir + "/arp-" + host;
    std::ofstream out(file);
    for (const auto& [other, theirs] : ifs) {
      if (other == host) continue;
      for (const auto& t : theirs) {
        in_addr a{};
        inet_pton(AF_INET, t.ip.c_str(), &a);
        const Addressed* dev = &mine.front();
        for (const auto& m : mine)
          if ((ntohl(a.s_addr) & m.mask) == m.net) {
            dev = &m;
            break;
          }
        out << "neigh replace " << t.ip << " lladdr " << t.mac << " dev " << dev->ifname
            << " nud permanent\n";
        ++entries;
      }
    }
    if (!out) return fail("static ARP: cannot write {}", file);
    jobs.emplace_back(ns, file);
  }
  Status st = parallel_for(jobs.size(), 4, [&](size_t i) -> Status {
    auto r = run_command({"ip", "-batch", jobs[i].second}, in_ns(jobs[i].first, 30));
    std::filesystem::remove(jobs[i].second);
    if (!r.ok()) return fail("static ARP in {}: ip -batch: {}", jobs[i].first, r.describe());
    return ok_status();
  });
  FLOWLAB_TRY(st);
  return entries;
}

}  // namespace flowlab::lab
