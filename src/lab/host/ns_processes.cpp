// Ending the processes inside the lab's namespaces (see ns_processes.h).
#include "lab/host/ns_processes.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <thread>
#include <utility>

namespace flowlab::lab {

namespace fs = std::filesystem;

std::vector<pid_t> processes_in_namespaces(const std::vector<std::string>& names) {
  std::set<std::pair<dev_t, ino_t>> wanted;  // the namespaces' nsfs (device, inode)
  for (const auto& n : names) {
    struct stat st {};
    if (!n.empty() && n.find('/') == std::string::npos && ::stat(("/run/netns/" + n).c_str(), &st) == 0)
      wanted.insert({st.st_dev, st.st_ino});
  }
  std::vector<pid_t> out;
  if (wanted.empty()) return out;
  std::error_code ec;
  const pid_t self = getpid();
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    char* end = nullptr;
    long pid = std::strtol(name.c_str(), &end, 10);
    if (pid <= 0 || *end != '\0' || pid == self) continue;
    struct stat st {};
    if (::stat(("/proc/" + name + "/ns/net").c_str(), &st) != 0) continue;  // gone, or a kernel thread
    if (wanted.count({st.st_dev, st.st_ino})) out.push_back(pid_t(pid));
  }
  return out;
}

size_t kill_processes_in_namespaces(const std::vector<std::string>& names, double wait_s) {
  auto pids = processes_in_namespaces(names);
  for (pid_t p : pids) ::kill(p, SIGKILL);
  if (pids.empty()) return 0;
  // SIGKILL is final, but a process releases its namespace only once it has exited
  // (a zombie holds none): wait until none of ours is left inside, bounded.
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_s);
  while (std::chrono::steady_clock::now() < end && !processes_in_namespaces(names).empty())
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return pids.size();
}

}  // namespace flowlab::lab
