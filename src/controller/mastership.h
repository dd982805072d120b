// Mastership: how a controller cluster (src/cluster) decides this controller's
// OF1.3 role switch by switch, instead of one --role for all.
//
// With ControllerOptions::mastership set, a switch that finishes its handshake
// is a slave here (not attached to the apps) and switch_up() tells the cluster;
// the cluster answers through Controller::assign_role() (MASTER or SLAVE with a
// generation id), and the controller reports what the switch granted through
// role_result(): a refused or lost MASTER (OFPRRFC_STALE, OFPBRC_IS_SLAVE) is a
// result with master = false. Every call comes from a controller event-loop
// thread and must not block.
#pragma once

#include <cstdint>

namespace flowlab::controller {

class Mastership {
 public:
  virtual ~Mastership() = default;
  virtual void switch_up(uint64_t dpid) = 0;
  virtual void switch_down(uint64_t dpid) = 0;
  virtual void role_result(uint64_t dpid, bool master, uint64_t generation_id) = 0;
};

}  // namespace flowlab::controller
