// The processes left inside network namespaces the lab is about to delete.
//
// Deleting a namespace (unmounting /run/netns/NAME) does not end what runs in it: a
// process started in a host (`lab exec LAB h1 iperf -s &`, a Mininet script's
// `h1.cmd('... &')` or popen whose script was killed) keeps the namespace, its veths
// and addresses alive after the lab is gone. The lab ends them first: every process
// whose network namespace is one of the lab's (the same nsfs inode as
// /run/netns/NAME), never one by its name.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace flowlab::lab {

// The pids of the processes (not this one) whose network namespace is one of
// /run/netns/NAME of `names`; one pass over /proc for all of them.
std::vector<pid_t> processes_in_namespaces(const std::vector<std::string>& names);

// SIGKILLs those processes and waits up to `wait_s` for them to be gone; returns how
// many were killed.
size_t kill_processes_in_namespaces(const std::vector<std::string>& names, double wait_s = 2);

}  // namespace flowlab::lab
