// The lab's commands across machines (across.h): run, up's builder, exec, status.
#include "lab/machines/across.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "lab/format/json_access.h"
#include "lab/host/process.h"
#include "lab/machines/agent_status.h"
#include "lab/machines/coordinator.h"
#include "lab/machines/emulation.h"
#include "lab/machines/keys.h"
#include "lab/machines/remote_exec.h"
#include "lab/run/runner.h"

namespace flowlab::lab {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// What a run or an up across machines holds while it stands.
struct Machines {
  std::unique_ptr<EmulatedMachines> emulated;  // --machines N
  std::unique_ptr<Coordinator> coordinator;
  ~Machines() {
    coordinator.reset();  // the run out of etcd before the machines go
    emulated.reset();
  }
};

Result<CoordinatorOptions> coordinator_options(const std::string& file, const std::string& text,
                                               const MachinesOptions& m) {
  if (m.etcd.empty() == (m.machines == 0)) return fail("give --etcd ENDPOINTS or --machines N (not both)");
  if (m.vxlan_port < 1 || m.vxlan_port > 65535) return fail("--vxlan-port {} out of range", m.vxlan_port);
  CoordinatorOptions co;
  co.file = file;
  co.scenario_text = text;
  if (co.scenario_text.empty()) {
    std::ifstream in(file);
    if (!in) return fail("{}: cannot read the scenario", file);
    std::stringstream ss;
    ss << in.rdbuf();
    co.scenario_text = ss.str();
    co.file = fs::absolute(file).string();
  }
  co.etcd = m.etcd;
  co.vxlan_port = m.vxlan_port;
  co.underlay_mtu = m.underlay_mtu;
  co.exec_on_agents = m.exec_on_agents;
  co.underlay_rate_bps = m.underlay_rate_bps;
  return co;
}

// The scenario's `underlay: {rate, mtu}` where the command line gave none.
Result<MachinesOptions> with_scenario_underlay(const std::string& file, const std::string& text,
                                               MachinesOptions m) {
  FLOWLAB_ASSIGN_OR_RETURN(Scenario sc, text.empty() ? load_scenario(file) : parse_scenario(text, file));
  if (m.underlay_rate_bps <= 0) m.underlay_rate_bps = sc.underlay_rate_bps;
  if (m.underlay_mtu <= 0) m.underlay_mtu = sc.underlay_mtu > 0 ? sc.underlay_mtu : 1500;
  return m;
}

// The emulated machines when asked for, then the coordinator on their etcd (or E's).
Result<std::unique_ptr<Machines>> start_machines(CoordinatorOptions co, const MachinesOptions& m,
                                                 const std::string& log_dir) {
  auto out = std::make_unique<Machines>();
  if (m.machines > 0) {
    EmulationOptions eo;
    eo.machines = m.machines;
    eo.underlay_mtu = m.underlay_mtu;
    eo.underlay_rate_bps = m.underlay_rate_bps;
    eo.log_dir = log_dir;
    FLOWLAB_ASSIGN_OR_RETURN(out->emulated, EmulatedMachines::start(eo));
    co.etcd = out->emulated->etcd();
  }
  FLOWLAB_ASSIGN_OR_RETURN(out->coordinator, Coordinator::connect(co));
  if (m.machines > 0) FLOWLAB_TRY(out->coordinator->wait_agents(size_t(m.machines), 20));
  return out;
}

class MachinesBuilder : public LabBuilder {
 public:
  explicit MachinesBuilder(std::unique_ptr<Machines> m) : m_(std::move(m)) {}
  Status build(RunContext& rc, const CaseSpec& cs, size_t ci, const std::string& case_out,
               CaseTopology& topo) override {
    Status st = m_->coordinator->build(rc, cs, ci, case_out, topo);
    if (!st.ok() && m_->emulated) return fail("{}{}", st.error().message, m_->emulated->agent_logs());
    return st;
  }
  json across() const override {
    const Coordinator& c = *m_->coordinator;
    return {
        {"etcd", c.etcd()}, {"run", c.run_id()}, {"machines", c.machines()}, {"placement", c.placement()}};
  }

 private:
  std::unique_ptr<Machines> m_;
};

}  // namespace

Result<int> run_across_machines(const std::string& file, RunOptions opts, const MachinesOptions& given) {
  FLOWLAB_ASSIGN_OR_RETURN(MachinesOptions m, with_scenario_underlay(file, opts.scenario_text, given));
  FLOWLAB_ASSIGN_OR_RETURN(auto co, coordinator_options(file, opts.scenario_text, m));
  FLOWLAB_TRY(validate_scenario(file, opts.scenario_text));  // before any machine is touched
  FLOWLAB_ASSIGN_OR_RETURN(auto machines, start_machines(std::move(co), m, opts.out_dir));
  Coordinator* c = machines->coordinator.get();
  opts.build = [c](RunContext& rc, const CaseSpec& cs, size_t ci, const std::string& out,
                   CaseTopology& topo) { return c->build(rc, cs, ci, out, topo); };
  auto r = run_scenario(file, opts);
  machines->coordinator.reset();
  if (!r.ok() && machines->emulated) return fail("{}{}", r.error().message, machines->emulated->agent_logs());
  return r;
}

Result<LabBuilderFactory> machines_builder(const std::string& file, const std::string& text,
                                           const MachinesOptions& given) {
  FLOWLAB_ASSIGN_OR_RETURN(MachinesOptions m, with_scenario_underlay(file, text, given));
  FLOWLAB_ASSIGN_OR_RETURN(auto co, coordinator_options(file, text, m));
  return LabBuilderFactory([co, m](const std::string& out_dir) -> Result<std::unique_ptr<LabBuilder>> {
    FLOWLAB_ASSIGN_OR_RETURN(auto machines, start_machines(co, m, out_dir));
    return std::unique_ptr<LabBuilder>(new MachinesBuilder(std::move(machines)));
  });
}

Result<int> exec_across(const json& across, const std::string& host, const std::string& netns,
                        const std::vector<std::string>& argv) {
  std::string etcd = str(across, "etcd"), run = str(across, "run");
  auto placement = string_map(across, "placement");
  auto at = placement.find(host);
  if (etcd.empty() || run.empty() || at == placement.end())
    return fail("the lab's record does not say which machine {} is on", host);
  FLOWLAB_ASSIGN_OR_RETURN(auto cfg, coord::parse_endpoints(etcd));
  install_signal_handlers();  // Ctrl-C: the agent stops the command
  AgentExec agent(cfg, run, at->second);
  CommandResult r = agent.run(argv, in_ns(netns, 3600));
  std::fwrite(r.out.data(), 1, r.out.size(), stdout);
  std::fflush(stdout);
  if (r.interrupted) return 130;
  if (r.exit_code < 0)
    return fail("{} on machine {}: {}", host, at->second, r.err.empty() ? r.describe() : r.err);
  std::fwrite(r.err.data(), 1, r.err.size(), stderr);
  return r.exit_code;
}

Result<std::string> runs_status(const std::string& etcd) {
  FLOWLAB_ASSIGN_OR_RETURN(auto cfg, coord::parse_endpoints(etcd));
  coord::EtcdClient client(cfg);
  auto agents = client.get_prefix(keys::kAgents);
  if (!agents.ok()) return fail("etcd {}: {}", etcd, agents.error().message);
  std::string out = fmt::format("{} agent(s) in etcd {}\n", agents->kvs.size(), etcd);
  for (const auto& kv : agents->kvs) {
    auto a = decode_agent(kv.value);
    out += a.ok() ? fmt::format("  agent {}  underlay {}  host {} pid {}\n", a->name, a->underlay, a->host,
                                a->pid)
                  : fmt::format("  {}: {}\n", kv.key, a.error().message);
  }
  FLOWLAB_ASSIGN_OR_RETURN(auto runs, client.get_prefix(keys::kRuns));
  std::map<std::string, json> records;                                 // run -> its record
  std::map<std::string, std::map<std::string, std::string>> reported;  // run -> machine -> what it says
  for (const auto& kv : runs.kvs) {
    std::string id = keys::run_of(kv.key);
    if (kv.key == keys::record(id)) {
      json j = json::parse(kv.value, nullptr, false);
      records[id] = j.is_object() ? j : json::object();
    } else if (kv.key.rfind(keys::statuses(id), 0) == 0) {
      auto s = decode_status(kv.value);
      std::string machine = kv.key.substr(keys::statuses(id).size());
      reported[id][machine] = !s.ok()                ? "unreadable"
                              : s->state == "failed" ? "failed: " + s->error
                                                     : s->state + " " + s->case_name;
    }
  }
  if (records.empty()) return out + "no run in etcd\n";
  for (const auto& [id, rec] : records) {
    const json& coordinator = member(rec, "coordinator");
    out += fmt::format("run {}  {}  coordinator {} pid {}\n", id, str(rec, "scenario"),
                       str(coordinator, "host"), num(coordinator, "pid"));
    for (const auto& m : array_member(rec, "machines")) {
      if (!m.is_string()) continue;
      auto said = reported[id].find(m.get<std::string>());
      out += fmt::format("  {}  {}\n", m.get<std::string>(),
                         said == reported[id].end() ? "nothing built" : said->second);
    }
  }
  return out;
}

}  // namespace flowlab::lab
