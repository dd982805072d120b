// What pingall changes on the hosts for its test, each put back by its destructor
// (pingall.cpp): room in the kernel's neighbour table, the hosts' ARP patience
// through controllers, and their announcements at scale (PingallPacing).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "lab/host/arp_announce.h"
#include "lab/host/netns.h"
#include "lab/host/process.h"
#include "lab/traffic/pingall.h"

namespace flowlab::lab {

// The kernel's ARP table is one for all namespaces, capped by gc_thresh3 (1024 by
// default): n hosts that all talk need n(n-1) entries, and past the cap resolution
// fails ("neighbor table overflow"), so 40+ hosts would lose most pairs. This raises
// gc_thresh2/3 for the test when needed and puts the old values back after.
class NeighbourTableRoom {
 public:
  explicit NeighbourTableRoom(size_t entries) {
    for (const char* k : {"gc_thresh2", "gc_thresh3"}) {
      std::string path = std::string("/proc/sys/net/ipv4/neigh/default/") + k;
      auto r = run_command({"cat", path}, uninterruptible(5));
      long old = std::strtol(r.out.c_str(), nullptr, 10);
      if (!r.ok() || old <= 0 || size_t(old) >= entries) continue;
      if (write(path, std::to_string(entries))) saved_.emplace_back(path, std::to_string(old));
      note_ = fmt::format("; kernel neighbour table cap gc_thresh3 raised to {} for the test", entries);
    }
  }
  ~NeighbourTableRoom() {
    for (const auto& [p, v] : saved_) write(p, v);
  }
  NeighbourTableRoom(const NeighbourTableRoom&) = delete;
  NeighbourTableRoom& operator=(const NeighbourTableRoom&) = delete;
  const std::string& note() const { return note_; }

 private:
  static bool write(const std::string& path, const std::string& v) {
    std::ofstream f(path);
    f << v << "\n";
    return bool(f);
  }
  std::vector<std::pair<std::string, std::string>> saved_;
  std::string note_;
};

// The hosts' ARP retransmit interval for the test (PingallPacing::arp_retrans_ms),
// put back to the kernel's 1000 ms after (the lab made these namespaces with it).
class HostArpPatience {
 public:
  HostArpPatience(const std::vector<PingallHost>& hosts, int retrans_ms) {
    if (retrans_ms <= 0) return;
    for (const auto& h : hosts)
      for (const auto& i : h.ifnames) {
        if (i.find('.') != std::string::npos) continue;  // a sysctl key cannot name it
        if (write_sysctl_in(h.ns, key(i), std::to_string(retrans_ms)).ok()) set_.emplace_back(h.ns, i);
      }
    if (!set_.empty())
      note_ = fmt::format("; hosts' ARP retransmit {} ms for the test ({} probes: {} s to resolve)",
                          retrans_ms, kArpProbes, retrans_ms * kArpProbes / 1000.0);
  }
  ~HostArpPatience() {
    for (const auto& [ns, i] : set_) (void)write_sysctl_in(ns, key(i), "1000");
  }
  HostArpPatience(const HostArpPatience&) = delete;
  HostArpPatience& operator=(const HostArpPatience&) = delete;
  const std::string& note() const { return note_; }

 private:
  static std::string key(const std::string& ifname) {
    return "net.ipv4.neigh." + ifname + ".retrans_time_ms";
  }
  std::vector<std::pair<std::string, std::string>> set_;
  std::string note_;
};

// The hosts' announcements (PingallPacing::announce): arp_accept on in every host
// namespace, then one gratuitous ARP from each host, a millisecond apart (a
// broadcast reaches every host: all at once would overrun the bridges' backlog);
// arp_accept back to the kernel's 0 after the test. The neighbours learned so wait
// unused until their source's turn, minutes at 1,024 hosts, and the kernel's
// garbage collector drops an entry unused for gc_stale_time (60 s): the hosts'
// interfaces get an hour for the test, 60 s again after. `per_ms` hosts announce
// each millisecond (a broadcast reaches every host: n deliveries in the kernel's
// backlog of 1,000 a CPU), and the last ones get `settle_s` to arrive.
class HostsAnnounced {
 public:
  HostsAnnounced(const std::vector<PingallHost>& hosts, bool announce, size_t per_ms = 1,
                 double settle_s = 0.2) {
    if (!announce) return;
    for (const auto& h : hosts) {
      if (write_sysctl_in(h.ns, kAccept, "1").ok()) accepting_.push_back(h.ns);
      for (const auto& i : h.ifnames)
        if (i.find('.') == std::string::npos && write_sysctl_in(h.ns, stale_key(i), "3600").ok())
          patient_.emplace_back(h.ns, i);
    }
    size_t announced = 0, k = 0;
    for (const auto& ns : accepting_) {
      if (interrupted()) break;
      auto sent = announce_addresses_in(ns);
      announced += sent.ok() && *sent > 0;
      if (++k % std::max<size_t>(per_ms, 1) == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    sleep_unless_interrupted(settle_s);  // the last broadcasts reach everyone
    note_ = fmt::format(
        "; {} of {} hosts announced their addresses first (gratuitous ARP, arp_accept on for the test)",
        announced, hosts.size());
  }
  ~HostsAnnounced() {
    for (const auto& ns : accepting_) (void)write_sysctl_in(ns, kAccept, "0");
    for (const auto& [ns, i] : patient_) (void)write_sysctl_in(ns, stale_key(i), "60");
  }
  HostsAnnounced(const HostsAnnounced&) = delete;
  HostsAnnounced& operator=(const HostsAnnounced&) = delete;
  const std::string& note() const { return note_; }

 private:
  static constexpr const char* kAccept = "net.ipv4.conf.all.arp_accept";
  static std::string stale_key(const std::string& ifname) {
    return "net.ipv4.neigh." + ifname + ".gc_stale_time";
  }
  std::vector<std::string> accepting_;
  std::vector<std::pair<std::string, std::string>> patient_;
  std::string note_;
};

}  // namespace flowlab::lab
