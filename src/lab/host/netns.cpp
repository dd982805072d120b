// Namespaces, veths, offloads and stack counters (see netns.h).
#include "lab/host/netns.h"

#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "lab/host/netlink.h"
#include "lab/host/netns_visit.h"
#include "lab/host/process.h"
#include "lab/host/run_state.h"

namespace flowlab::lab {

namespace {

constexpr const char* kNetnsDir = "/run/netns";
constexpr size_t kWorkers = 8;  // namespace creation is mostly kernel time; more threads only queue

// /run/netns exists and is a shared mount, as `ip netns add` leaves it, so the bind
// mounts under it propagate to other mount namespaces (`ip netns exec` makes one).
Status prepare_netns_dir() {
  static std::once_flag once;
  static Status result = ok_status();
  std::call_once(once, [] {
    if (mkdir(kNetnsDir, 0755) != 0 && errno != EEXIST) {
      result = fail("creating {}: {}", kNetnsDir, errno_text(errno));
      return;
    }
    if (mount("", kNetnsDir, "none", MS_SHARED | MS_REC, nullptr) == 0) return;
    if (errno != EINVAL) {
      result = fail("making {} a shared mount: {}", kNetnsDir, errno_text(errno));
      return;
    }
    // Not a mount point yet: bind it onto itself first.
    if (mount(kNetnsDir, kNetnsDir, "none", MS_BIND | MS_REC, nullptr) != 0 ||
        mount("", kNetnsDir, "none", MS_SHARED | MS_REC, nullptr) != 0)
      result = fail("making {} a shared mount: {}", kNetnsDir, errno_text(errno));
  });
  return result;
}

// On the calling thread: a fresh network namespace with lo up, bind-mounted at
// /run/netns/NAME; the thread returns to its own namespace before this returns.
Status make_netns(const std::string& name) {
  std::string path = std::string(kNetnsDir) + "/" + name;
  int fd = open(path.c_str(), O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
  if (fd < 0) return fail("creating namespace {}: {}: {}", name, path, errno_text(errno));
  close(fd);
  int home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
  if (home < 0) {
    int e = errno;
    unlink(path.c_str());
    return fail("creating namespace {}: this thread's namespace: {}", name, errno_text(e));
  }
  Status st = ok_status();
  if (unshare(CLONE_NEWNET) != 0) {
    st = fail("creating namespace {}: unshare: {}", name, errno_text(errno));
  } else {
    if (mount("/proc/thread-self/ns/net", path.c_str(), "none", MS_BIND, nullptr) != 0)
      st = fail("creating namespace {}: bind mount on {}: {}", name, path, errno_text(errno));
    if (st.ok()) {
      auto sock = RtnlSocket::open();
      if (!sock.ok())
        st = unexpected(sock.error());
      else
        st = sock->run({link_up_request(1, "setting lo up in " + name)});
    }
    if (setns(home, CLONE_NEWNET) != 0 && st.ok())
      st = fail("creating namespace {}: returning to the lab's namespace: {}", name, errno_text(errno));
  }
  close(home);
  if (!st.ok()) remove_netns_mount(name);
  return st;
}

}  // namespace

NamespaceFds::~NamespaceFds() {
  for (auto& kv : fds_) close(kv.second);
}

Result<int> NamespaceFds::get(const std::string& ns) {
  if (auto it = fds_.find(ns); it != fds_.end()) return it->second;
  int fd = open((std::string(kNetnsDir) + "/" + ns).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail("opening namespace {}: {}", ns, errno_text(errno));
  fds_[ns] = fd;
  return fd;
}

bool remove_netns_mount(const std::string& name, std::string* error) {
  std::string path = std::string(kNetnsDir) + "/" + name;
  struct stat sb;
  if (lstat(path.c_str(), &sb) != 0) return false;
  umount2(path.c_str(), MNT_DETACH);  // EINVAL when never mounted: nothing to undo
  if (unlink(path.c_str()) != 0 && error) *error = fmt::format("removing {}: {}", path, errno_text(errno));
  return true;
}

Status parallel_for(size_t n, size_t workers, const std::function<Status(size_t)>& fn) {
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mu;
  Status first = ok_status();
  auto work = [&] {
    for (size_t i; !failed && (i = next++) < n;) {
      Status st = fn(i);
      if (st.ok()) continue;
      std::lock_guard<std::mutex> lock(mu);
      if (!failed.exchange(true)) first = st;
    }
  };
  std::vector<std::thread> threads;
  for (size_t w = 1; w < std::min(workers, n); ++w) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  return first;
}

Result<Netns> Netns::create(const std::string& name, RunState* state) {
  FLOWLAB_ASSIGN_OR_RETURN(auto v, create_namespaces({name}, state));
  return std::move(v.front());
}

Result<std::vector<Netns>> create_namespaces(const std::vector<std::string>& names, RunState* state) {
  FLOWLAB_TRY(prepare_netns_dir());
  // Record first: if we die between creating and recording, clean would miss it.
  if (state) state->add_netns(names);
  std::vector<char> made(names.size(), 0);
  Status st = parallel_for(names.size(), kWorkers, [&](size_t i) -> Status {
    FLOWLAB_TRY(make_netns(names[i]));
    made[i] = 1;
    return ok_status();
  });
  std::vector<Netns> out(names.size());
  std::vector<std::string> never;
  for (size_t i = 0; i < names.size(); ++i) {
    if (!made[i]) {
      never.push_back(names[i]);
      continue;
    }
    out[i].name_ = names[i];
    out[i].state_ = state;
  }
  if (state && !never.empty()) state->remove_netns(never);
  if (!st.ok()) {
    destroy_namespaces(out);
    return unexpected(st.error());
  }
  return out;
}

void destroy_namespaces(std::vector<Netns>& namespaces) {
  std::vector<std::string> names;
  RunState* state = nullptr;
  for (auto& n : namespaces) {
    if (n.name_.empty()) continue;
    names.push_back(std::exchange(n.name_, {}));
    state = state ? state : n.state_;
  }
  namespaces.clear();
  std::vector<std::string> errors(names.size());
  (void)parallel_for(names.size(), kWorkers, [&](size_t i) {
    remove_netns_mount(names[i], &errors[i]);
    return ok_status();
  });
  std::vector<std::string> gone;
  for (size_t i = 0; i < names.size(); ++i) {
    if (errors[i].empty())
      gone.push_back(names[i]);
    else
      std::fprintf(stderr, "lab: %s\n", errors[i].c_str());
  }
  if (state) state->remove_netns(gone);
}

Netns& Netns::operator=(Netns&& o) noexcept {
  if (this != &o) {
    destroy();
    name_ = std::exchange(o.name_, {});
    state_ = std::exchange(o.state_, nullptr);
  }
  return *this;
}

void Netns::destroy() {
  if (name_.empty()) return;
  std::string err;
  remove_netns_mount(name_, &err);
  if (err.empty() && state_) state_->remove_netns(std::vector<std::string>{name_});
  if (!err.empty()) std::fprintf(stderr, "lab: %s\n", err.c_str());
  name_.clear();
}

Status create_veth(const std::string& ns_a, const std::string& if_a, const std::string& ns_b,
                   const std::string& if_b, int mtu) {
  std::vector<VethSpec> v = {VethSpec{ns_a, if_a, ns_b, if_b, mtu, {}, {}}};
  FLOWLAB_TRY(create_veths(v));
  return set_peers_up(v);
}

Status create_veths(const std::vector<VethSpec>& veths) {
  FLOWLAB_ASSIGN_OR_RETURN(auto sock, RtnlSocket::open());
  // Batches of a few hundred: each needs its namespaces' fds open while it is sent.
  constexpr size_t kBatch = 256;
  for (size_t from = 0; from < veths.size(); from += kBatch) {
    NamespaceFds fds;
    std::vector<RtnlRequest> reqs;
    for (size_t i = from; i < std::min(veths.size(), from + kBatch); ++i) {
      const VethSpec& v = veths[i];
      FLOWLAB_ASSIGN_OR_RETURN(int fa, fds.get(v.ns_a));
      FLOWLAB_ASSIGN_OR_RETURN(int fb, fds.get(v.ns_b));
      uint32_t group = v.ns_a == v.ns_b ? kLabLinkGroup : 0;  // netlink.h: why
      FLOWLAB_ASSIGN_OR_RETURN(
          auto r, veth_request({v.if_a, fa, v.mtu, v.mac_a, group}, {v.if_b, fb, v.mtu, v.mac_b, group},
                               fmt::format("creating veth {} (in {}) <-> {} (in {})", v.if_a, v.ns_a, v.if_b,
                                           v.ns_b)));
      reqs.push_back(std::move(r));
    }
    FLOWLAB_TRY(sock.run(std::move(reqs)));
  }
  return ok_status();
}

Status delete_lab_links(const std::string& ns) {
  FLOWLAB_ASSIGN_OR_RETURN(auto d, LabLinksDelete::open(ns));
  return d.run();
}

Result<LabLinksDelete> LabLinksDelete::open(const std::string& ns) {
  LabLinksDelete d;
  d.ns_ = ns;
  FLOWLAB_ASSIGN_OR_RETURN(d.sock_, RtnlSocket::open_in(std::string(kNetnsDir) + "/" + ns));
  return d;
}

Status LabLinksDelete::run() {
  Status st =
      sock_.run({group_delete_request(kLabLinkGroup, fmt::format("deleting the lab's links in {}", ns_))});
  sock_ = RtnlSocket();  // the namespace goes now if it was unmounted
  return st;
}

Status set_peers_up(const std::vector<VethSpec>& veths, const AddressesByNs& addresses) {
  // From a socket in each namespace, one per namespace, in parallel: the peers up
  // and the addresses on, in one batch.
  struct Work {
    std::vector<std::string> up;
    std::vector<std::pair<std::string, std::string>> addrs;
  };
  std::map<std::string, Work> by_ns;
  for (const auto& v : veths) by_ns[v.ns_b].up.push_back(v.if_b);
  for (const auto& [ns, list] : addresses) by_ns[ns].addrs = list;
  std::vector<const std::pair<const std::string, Work>*> items;
  for (const auto& kv : by_ns) items.push_back(&kv);
  return parallel_for(items.size(), kWorkers, [&](size_t i) -> Status {
    const std::string& ns = items[i]->first;
    const Work& w = items[i]->second;
    FLOWLAB_ASSIGN_OR_RETURN(auto sock, RtnlSocket::open_in(std::string(kNetnsDir) + "/" + ns));
    std::vector<RtnlRequest> reqs;
    for (const auto& ifn : w.up) {
      FLOWLAB_ASSIGN_OR_RETURN(int idx, sock.link_index(ifn));
      reqs.push_back(link_up_request(idx, fmt::format("setting {} up in {}", ifn, ns)));
    }
    for (const auto& ia : w.addrs) {
      FLOWLAB_ASSIGN_OR_RETURN(int idx, sock.link_index(ia.first));
      FLOWLAB_ASSIGN_OR_RETURN(
          auto r,
          addr_request(idx, ia.second, fmt::format("adding {} to {} in {}", ia.second, ia.first, ns)));
      reqs.push_back(std::move(r));
    }
    return sock.run(std::move(reqs));
  });
}

Status add_addresses(const AddressesByNs& by_ns) { return set_peers_up({}, by_ns); }

Status create_bridge(const std::string& ns, const std::string& name, bool stp,
                     const std::vector<std::string>& ports) {
  FLOWLAB_ASSIGN_OR_RETURN(auto sock, RtnlSocket::open_in(std::string(kNetnsDir) + "/" + ns));
  FLOWLAB_TRY(sock.run({bridge_request(name, stp, fmt::format("creating bridge {} in {}", name, ns))}));
  FLOWLAB_ASSIGN_OR_RETURN(int br, sock.link_index(name));
  std::vector<RtnlRequest> reqs;
  for (const auto& p : ports) {
    FLOWLAB_ASSIGN_OR_RETURN(int idx, sock.link_index(p));
    reqs.push_back(set_master_request(idx, br, fmt::format("adding {} to bridge {} in {}", p, name, ns)));
  }
  return sock.run(std::move(reqs));
}

Status run_in_netns(const std::string& ns, const std::function<void()>& fn) {
  if (ns.empty()) {
    fn();
    return ok_status();
  }
  Status st = ok_status();
  std::thread([&] {
    int fd = ::open((std::string(kNetnsDir) + "/" + ns).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      st = fail("namespace {}: {}", ns, errno_text(errno));
      return;
    }
    int r = setns(fd, CLONE_NEWNET);
    int e = errno;
    close(fd);
    if (r != 0) {
      st = fail("entering namespace {}: {}", ns, errno_text(e));
      return;
    }
    fn();
  }).join();
  return st;
}

Status write_sysctl_in(const std::string& ns, const std::string& key, const std::string& value,
                       bool optional) {
  // /proc/sys/net resolves the namespace of the thread that opens the file.
  Status st = ok_status();
  FLOWLAB_TRY(visit_netns(std::string(kNetnsDir) + "/" + ns, [&] {
    std::string file = "/proc/sys/" + key;  // "net.ipv4.x" as sysctl(8) names it, or "net/ipv4/x"
    std::replace(file.begin() + 10, file.end(), '.', '/');
    int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
      if (!(optional && errno == ENOENT)) st = fail("sysctl {} in {}: {}", key, ns, errno_text(errno));
    } else {
      if (::write(fd, value.data(), value.size()) != ssize_t(value.size()))
        st = fail("sysctl {}={} in {}: {}", key, value, ns, errno_text(errno));
      close(fd);
    }
  }));
  return st;
}

Status prepare_switch_namespace(const std::string& ns) {
  FLOWLAB_TRY(write_sysctl_in(ns, "net/ipv6/conf/default/disable_ipv6", "1", true));
  for (const char* k : {"net/bridge/bridge-nf-call-iptables", "net/bridge/bridge-nf-call-ip6tables",
                        "net/bridge/bridge-nf-call-arptables"})
    FLOWLAB_TRY(write_sysctl_in(ns, k, "0", true));  // only there when br_netfilter is loaded
  return ok_status();
}

Result<std::vector<LinkInfo>> namespace_links(const std::string& ns) {
  FLOWLAB_ASSIGN_OR_RETURN(auto sock, RtnlSocket::open_in(std::string(kNetnsDir) + "/" + ns));
  return sock.dump_links();
}

namespace {

// The offloads `ethtool -k/-K` shows and sets, by their legacy ioctls (one value each).
struct Offload {
  const char* name;
  uint32_t get, set;
};
constexpr Offload kOffloads[] = {
    {"tcp-segmentation-offload", ETHTOOL_GTSO, ETHTOOL_STSO},
    {"generic-segmentation-offload", ETHTOOL_GGSO, ETHTOOL_SGSO},
    {"generic-receive-offload", ETHTOOL_GGRO, ETHTOOL_SGRO},
    {"scatter-gather", ETHTOOL_GSG, ETHTOOL_SSG},
    {"tx-checksumming", ETHTOOL_GTXCSUM, ETHTOOL_STXCSUM},
    {"rx-checksumming", ETHTOOL_GRXCSUM, ETHTOOL_SRXCSUM},
};

// A datagram socket of namespace `ns`: its ioctls act there, whatever thread calls.
class NsSocket {
 public:
  static Result<NsSocket> open(const std::string& ns) {
    NsSocket s;
    int e = 0;
    FLOWLAB_TRY(visit_netns(std::string(kNetnsDir) + "/" + ns, [&] {
      s.fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      e = errno;
    }));
    if (s.fd_ < 0) return fail("a socket in namespace {}: {}", ns, errno_text(e));
    return s;
  }
  NsSocket() = default;
  NsSocket(NsSocket&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  NsSocket& operator=(NsSocket&&) = delete;
  NsSocket(const NsSocket&) = delete;
  NsSocket& operator=(const NsSocket&) = delete;
  ~NsSocket() {
    if (fd_ >= 0) close(fd_);
  }
  // One ethtool value command on `ifname`; the value read (or written).
  Result<uint32_t> ethtool(const std::string& ifname, uint32_t cmd, uint32_t data = 0) {
    ethtool_value ev{cmd, data};
    ifreq ifr{};
    std::snprintf(ifr.ifr_name, IFNAMSIZ, "%s", ifname.c_str());
    ifr.ifr_data = reinterpret_cast<char*>(&ev);
    if (ioctl(fd_, SIOCETHTOOL, &ifr) != 0) return fail("ethtool on {}: {}", ifname, errno_text(errno));
    return ev.data;
  }

 private:
  int fd_ = -1;
};

}  // namespace

Status set_offloads(const std::string& ns, const std::string& ifname, bool on) {
  FLOWLAB_ASSIGN_OR_RETURN(auto sock, NsSocket::open(ns));
  for (const Offload& o : kOffloads) {
    auto r = sock.ethtool(ifname, o.set, on ? 1 : 0);
    if (!r.ok()) return fail("setting {} {} in {}: {}", o.name, on ? "on" : "off", ns, r.error().message);
  }
  return ok_status();
}

std::map<std::string, std::string> offload_state(const std::string& ns, const std::string& ifname) {
  auto sock = NsSocket::open(ns);
  if (!sock.ok()) return {{"error", sock.error().message}};
  std::map<std::string, std::string> out;
  for (const Offload& o : kOffloads) {
    auto r = sock->ethtool(ifname, o.get);
    out[o.name] = !r.ok() ? "?" : *r ? "on" : "off";
  }
  return out;
}

std::map<std::string, std::string> parse_ethtool_features(const std::string& text) {
  static const char* kKeep[] = {"rx-checksumming",
                                "tx-checksumming",
                                "scatter-gather",
                                "tcp-segmentation-offload",
                                "generic-segmentation-offload",
                                "generic-receive-offload"};
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    while (!key.empty() && (key.front() == ' ' || key.front() == '\t')) key.erase(0, 1);
    for (const char* k : kKeep) {
      if (key != k) continue;
      std::istringstream vs(line.substr(colon + 1));
      std::string val;
      vs >> val;
      out[key] = val;
    }
  }
  return out;
}

std::map<std::string, long long> parse_snmp(const std::string& text) {
  // Pairs of lines: "Tcp: Name1 Name2 ..." then "Tcp: 1 2 ...".
  std::map<std::string, long long> out;
  std::istringstream in(text);
  std::string names, values;
  while (std::getline(in, names) && std::getline(in, values)) {
    std::istringstream ns(names), vs(values);
    std::string proto, p2;
    ns >> proto;
    vs >> p2;
    if (proto != p2 || proto.empty()) continue;
    proto.pop_back();  // trailing ':'
    std::string n;
    long long v;
    while (ns >> n && vs >> v) out[proto + "." + n] = v;
  }
  return out;
}

std::map<std::string, long long> snmp_counters(const std::string& ns) {
  auto r = run_command({"cat", "/proc/net/snmp"}, in_ns(ns, 5));
  if (!r.ok()) return {};
  return parse_snmp(r.out);
}

}  // namespace flowlab::lab
