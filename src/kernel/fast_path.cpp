// FastPath (see the design comment in fast_path.h): skeleton load, TC
// attachment (tcx link, else clsact + cls_bpf direct-action), map access.
#include "kernel/fast_path.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/pkt_cls.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/log.h"
#include "kernel/fast_path.skel.h"

namespace flowlab::kernel {
namespace {

// BPF_TCX_INGRESS (Linux 6.6) is newer than the uapi headers of Debian 12;
// its value is fixed by the kernel ABI.
constexpr int kTcxIngress = 46;

int libbpf_to_log(enum libbpf_print_level level, const char* fmt, va_list ap) {
  if (level == LIBBPF_DEBUG) return 0;
  char buf[512];
  int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  std::string_view s(buf, n > 0 ? std::min<size_t>(size_t(n), sizeof buf - 1) : 0);
  while (!s.empty() && s.back() == '\n') s.remove_suffix(1);
  log::debug("kernel", "libbpf: {}", s);
  return n;
}

std::string refusal(int err) {
  if (err == EPERM || err == EACCES)
    return "the kernel refused to load BPF (needs CAP_BPF + CAP_NET_ADMIN, or root)";
  return fmt::format("the kernel refused the BPF program: {}", std::strerror(err));
}

}  // namespace

Result<AttachMode> attach_mode_from_env() {
  const char* v = std::getenv("FLOWLAB_TC_ATTACH");
  if (!v || !*v) return AttachMode::kAuto;
  std::string_view s(v);
  if (s == "tcx") return AttachMode::kTcx;
  if (s == "clsact") return AttachMode::kClsact;
  return fail("FLOWLAB_TC_ATTACH={}: expected tcx or clsact", s);
}

struct FastPath::Attachment {
  int ifindex = 0;
  int link_fd = -1;        // tcx link
  bool tc_filter = false;  // cls_bpf filter on clsact
  bool created_qdisc = false;

  ~Attachment() {
    if (link_fd >= 0) ::close(link_fd);
    if (tc_filter) {
      bpf_tc_hook hook{};
      hook.sz = sizeof hook;
      hook.ifindex = ifindex;
      hook.attach_point = BPF_TC_INGRESS;
      bpf_tc_opts opts{};
      opts.sz = sizeof opts;
      opts.handle = 1;
      opts.priority = 1;
      (void)bpf_tc_detach(&hook, &opts);
      if (created_qdisc) {
        hook.attach_point = static_cast<bpf_tc_attach_point>(BPF_TC_INGRESS | BPF_TC_EGRESS);
        (void)bpf_tc_hook_destroy(&hook);
      }
    }
  }
};

// One loaded program and its maps, shared by the datapaths that opened it.
struct FastPathProgram {
  fast_path_bpf* skel = nullptr;
  int ncpus = 1;
  uint32_t verified_insns = 0;
  double load_ms = 0;
  fl_count* counters = nullptr;  // fl_counters, mmap'd
  size_t counters_bytes = 0;

  std::mutex mu;  // what follows
  uint64_t dps_used = 0;
  size_t ports_used = 0;
  std::vector<uint32_t> free_slots;

  static_assert(FL_MAX_DPS <= 64, "dps_used is a 64-bit set");

  FastPathProgram() = default;
  FastPathProgram(const FastPathProgram&) = delete;
  FastPathProgram& operator=(const FastPathProgram&) = delete;
  ~FastPathProgram() {
    if (counters) ::munmap(counters, counters_bytes);
    if (skel) fast_path_bpf__destroy(skel);
  }

  static Result<std::shared_ptr<FastPathProgram>> load() {
    libbpf_set_print(libbpf_to_log);
    auto p = std::make_shared<FastPathProgram>();
    const auto t0 = std::chrono::steady_clock::now();
    int n = libbpf_num_possible_cpus();
    p->ncpus = n > 0 ? n : 1;
    p->skel = fast_path_bpf__open();
    if (!p->skel) return fail("cannot open the BPF object: {}", std::strerror(errno));
    // fl_counters holds every possible CPU's counters, CPU-major (fast_path_abi.h).
    const size_t n_counters = size_t(FL_MAX_ENTRIES) * size_t(p->ncpus);
    if (int err = bpf_map__set_max_entries(p->skel->maps.fl_counters, uint32_t(n_counters)); err != 0)
      return fail("cannot size the fast path counters: {}", std::strerror(-err));
    if (int err = fast_path_bpf__load(p->skel); err != 0) return fail("{}", refusal(-err));
    const size_t bytes = n_counters * sizeof(fl_count);
    void* mem =
        ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(p->skel->maps.fl_counters), 0);
    if (mem == MAP_FAILED) return fail("cannot map the fast path counters: {}", std::strerror(errno));
    p->counters = static_cast<fl_count*>(mem);
    p->counters_bytes = bytes;
    p->load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    bpf_prog_info info{};
    uint32_t info_len = sizeof info;
    if (bpf_obj_get_info_by_fd(bpf_program__fd(p->skel->progs.fl_ingress), &info, &info_len) == 0)
      p->verified_insns = info.verified_insns;
    p->free_slots.reserve(FL_MAX_ENTRIES);
    for (uint32_t s = FL_MAX_ENTRIES; s-- > 0;) p->free_slots.push_back(s);
    log::debug("kernel", "fast path loaded in {:.1f} ms ({} instructions verified, {} possible CPUs)",
               p->load_ms, p->verified_insns, p->ncpus);
    return p;
  }

  // A free datapath index with room for `ports` more ports, its epoch and masks cleared.
  std::optional<uint32_t> take_dp(size_t ports) {
    std::lock_guard lock(mu);
    if (ports_used + ports > FL_MAX_PORTS) return std::nullopt;
    for (uint32_t d = 0; d < FL_MAX_DPS; ++d) {
      if (dps_used & (uint64_t(1) << d)) continue;
      dps_used |= uint64_t(1) << d;
      ports_used += ports;
      skel->bss->fl_n_masks[d] = 0;
      skel->bss->fl_epoch[d] = 0;
      return d;
    }
    return std::nullopt;
  }
  void give_dp(uint32_t d, size_t ports) {
    std::lock_guard lock(mu);
    dps_used &= ~(uint64_t(1) << d);
    ports_used -= std::min(ports_used, ports);
  }
};

Result<std::unique_ptr<FastPath>> FastPath::load() {
  FLOWLAB_TRY(attach_mode_from_env());
  FLOWLAB_ASSIGN_OR_RETURN(auto prog, FastPathProgram::load());
  FLOWLAB_ASSIGN_OR_RETURN(auto fp, open(prog, 0));
  if (!fp) return fail("internal: a new fast path program has no free datapath");
  fp->load_ms_ = prog->load_ms;
  return fp;
}

Result<std::unique_ptr<FastPath>> FastPath::open(const std::shared_ptr<FastPathProgram>& program,
                                                 size_t ports) {
  std::unique_ptr<FastPath> fp(new FastPath());
  FLOWLAB_ASSIGN_OR_RETURN(fp->forced_, attach_mode_from_env());
  auto dp = program->take_dp(ports);
  if (!dp) return std::unique_ptr<FastPath>();
  fp->prog_ = program;
  fp->dp_ = *dp;
  fp->ports_reserved_ = ports;
  fp->verified_insns_ = program->verified_insns;
  return fp;
}

Result<std::unique_ptr<FastPath>> FastPathPool::open(size_t ports) {
  std::lock_guard lock(mu_);
  for (auto& w : programs_) {
    auto prog = w.lock();
    if (!prog) continue;
    FLOWLAB_ASSIGN_OR_RETURN(auto fp, FastPath::open(prog, ports));
    if (fp) return fp;
  }
  std::erase_if(programs_, [](const auto& w) { return w.expired(); });
  FLOWLAB_ASSIGN_OR_RETURN(auto prog, FastPathProgram::load());
  programs_.push_back(prog);
  FLOWLAB_ASSIGN_OR_RETURN(auto fp, FastPath::open(prog, ports));
  if (!fp)
    return fail("a switch of {} ports is more than one fast path program serves ({})", ports, FL_MAX_PORTS);
  fp->load_ms_ = prog->load_ms;
  return fp;
}

FastPath::~FastPath() {
  attachments_.clear();  // detach before the ports go from the map
  if (!prog_) return;
  for (int ifx : registered_) {
    uint32_t key = uint32_t(ifx);
    (void)bpf_map_delete_elem(bpf_map__fd(prog_->skel->maps.fl_ports), &key);
  }
  prog_->give_dp(dp_, ports_reserved_);
}

std::optional<uint32_t> FastPath::take_slot() {
  std::lock_guard lock(prog_->mu);
  if (prog_->free_slots.empty()) return std::nullopt;
  uint32_t s = prog_->free_slots.back();
  prog_->free_slots.pop_back();
  return s;
}

void FastPath::give_slot(uint32_t slot) {
  if (slot >= FL_MAX_ENTRIES) return;
  reset_counter(slot);
  std::lock_guard lock(prog_->mu);
  prog_->free_slots.push_back(slot);
}

Status FastPath::set_port_active(int ifindex, int upcall_ifindex, uint32_t tag, bool active) {
  if (tag > FL_MAX_PORT_TAG)
    return fail("port ifindex {}: a switch has at most {} fast-path ports", ifindex, FL_MAX_PORT_TAG + 1);
  uint32_t key = uint32_t(ifindex);
  fl_port v{uint32_t(upcall_ifindex), active ? FL_PORT_ACTIVE : 0u, dp_, tag};
  if (bpf_map_update_elem(bpf_map__fd(prog_->skel->maps.fl_ports), &key, &v, BPF_ANY) != 0)
    return fail("cannot register port ifindex {} in the fast path: {}", ifindex, std::strerror(errno));
  if (std::find(registered_.begin(), registered_.end(), ifindex) == registered_.end())
    registered_.push_back(ifindex);
  return ok_status();
}

Status FastPath::attach(int ifindex, std::string_view name, int upcall_ifindex, uint32_t tag) {
  {
    uint32_t key = uint32_t(ifindex);
    fl_port old{};
    if (bpf_map_lookup_elem(bpf_map__fd(prog_->skel->maps.fl_ports), &key, &old) == 0)
      return fail("{}: the fast path serves this interface already (datapath {}; another switch on it?)",
                  name, old.dp);
  }
  FLOWLAB_TRY(set_port_active(ifindex, upcall_ifindex, tag, true));
  int prog = bpf_program__fd(prog_->skel->progs.fl_ingress);
  auto a = std::make_unique<Attachment>();
  a->ifindex = ifindex;
  int tcx_err = EOPNOTSUPP;
  if (forced_ != AttachMode::kClsact) {
    a->link_fd = bpf_link_create(prog, ifindex, static_cast<bpf_attach_type>(kTcxIngress), nullptr);
    tcx_err = errno;
    if (a->link_fd < 0 && forced_ == AttachMode::kTcx)
      return fail("{}: FLOWLAB_TC_ATTACH=tcx: cannot create a tcx link: {}", name, std::strerror(tcx_err));
  }
  if (a->link_fd >= 0) {
    attach_mode_ = "tcx";
  } else {
    bpf_tc_hook hook{};
    hook.sz = sizeof hook;
    hook.ifindex = ifindex;
    hook.attach_point = BPF_TC_INGRESS;
    int r = bpf_tc_hook_create(&hook);
    if (r != 0 && r != -EEXIST)
      return fail("{}: cannot create a clsact qdisc: {} (tcx: {})", name, std::strerror(-r),
                  std::strerror(tcx_err));
    a->created_qdisc = r == 0;
    bpf_tc_opts opts{};
    opts.sz = sizeof opts;
    opts.handle = 1;
    opts.priority = 1;
    opts.prog_fd = prog;
    opts.flags = BPF_TC_F_REPLACE;
    r = bpf_tc_attach(&hook, &opts);
    a->tc_filter = r == 0 || a->created_qdisc;
    if (r != 0) return fail("{}: cannot attach the TC program: {}", name, std::strerror(-r));
    a->tc_filter = true;
    attach_mode_ = "clsact";
  }
  log::debug("kernel", "{}: fast path attached at TC ingress ({}), misses to ifindex {} tag {}", name,
             attach_mode_, upcall_ifindex, tag);
  attachments_.push_back(std::move(a));
  return ok_status();
}

void FastPath::set_epoch(uint64_t e) { prog_->skel->bss->fl_epoch[dp_] = e; }
uint64_t FastPath::epoch() const { return prog_->skel->bss->fl_epoch[dp_]; }

size_t FastPath::mask_count() const { return prog_->skel->bss->fl_n_masks[dp_]; }

Status FastPath::add_mask(const fl_key& mask) {
  uint32_t n = prog_->skel->bss->fl_n_masks[dp_];
  if (n >= FL_MAX_MASKS) return fail("fast path: all {} megaflow masks in use", FL_MAX_MASKS);
  std::memcpy(&prog_->skel->bss->fl_masks[dp_][n], &mask, sizeof mask);
  // The program reads the count, then the masks below it: the mask must be
  // whole in memory before the count that publishes it.
  std::atomic_thread_fence(std::memory_order_release);
  prog_->skel->bss->fl_n_masks[dp_] = n + 1;
  return ok_status();
}

Status FastPath::install(const fl_key& k, const fl_value& v) {
  if (bpf_map_update_elem(bpf_map__fd(prog_->skel->maps.fl_cache), &k, &v, BPF_ANY) != 0)
    return fail("fast path cache update: {}", std::strerror(errno));
  return ok_status();
}

void FastPath::remove(const fl_key& k) {
  (void)bpf_map_delete_elem(bpf_map__fd(prog_->skel->maps.fl_cache), &k);
}

// The program adds to its CPU's copy without atomics (one writer per copy);
// a read may miss a packet being counted at that instant, as a PERCPU map's.
fl_count FastPath::read_counter(uint32_t slot) const {
  fl_count sum{};
  if (slot >= FL_MAX_ENTRIES) return sum;
  for (int cpu = 0; cpu < prog_->ncpus; ++cpu) {
    const volatile fl_count& c = prog_->counters[size_t(cpu) * FL_MAX_ENTRIES + slot];
    sum.packets += c.packets;
    sum.bytes += c.bytes;
  }
  return sum;
}

void FastPath::reset_counter(uint32_t slot) {
  if (slot >= FL_MAX_ENTRIES) return;
  for (int cpu = 0; cpu < prog_->ncpus; ++cpu) {
    volatile fl_count& c = prog_->counters[size_t(cpu) * FL_MAX_ENTRIES + slot];
    c.packets = 0;
    c.bytes = 0;
  }
}

FastPathStats FastPath::stats() const {
  FastPathStats s;
  std::vector<uint64_t> per_cpu(static_cast<size_t>(prog_->ncpus));
  uint64_t* out[FL_STAT_COUNT] = {&s.hits,     &s.upcalls,      &s.drops,     &s.errors,
                                  &s.out_peer, &s.out_redirect, &s.out_clone, &s.gso};
  for (uint32_t i = 0; i < FL_STAT_COUNT; ++i) {
    uint32_t key = dp_ * FL_STAT_COUNT + i;
    if (bpf_map_lookup_elem(bpf_map__fd(prog_->skel->maps.fl_stats), &key, per_cpu.data()) != 0) continue;
    for (uint64_t v : per_cpu) *out[i] += v;
  }
  bpf_prog_info info{};
  uint32_t info_len = sizeof info;
  if (bpf_obj_get_info_by_fd(bpf_program__fd(prog_->skel->progs.fl_ingress), &info, &info_len) == 0) {
    s.prog_runs = info.run_cnt;
    s.prog_ns = info.run_time_ns;
  }
  return s;
}

}  // namespace flowlab::kernel
