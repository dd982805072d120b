// Validation of instructions and actions against the current tables, groups and
// meters, returning the OFPT_ERROR a controller should get (OFPBIC_*, OFPBAC_*,
// OFPMMFC_UNKNOWN_METER, ...). Used by flow-mod, group-mod and packet-out.
#pragma once

#include "datapath/groups.h"
#include "datapath/match_key.h"
#include "datapath/meters.h"

namespace flowlab::dp {

struct ValidationContext {
  uint8_t n_tables = kDefaultTables;
  uint8_t table_id = 0;  // table of the flow (goto must go forward)
  const GroupTable* groups = nullptr;
  const MeterTable* meters = nullptr;
  const of::Match* match = nullptr;  // the flow's match: set-field prerequisites
  bool packet_out = false;           // OFPP_TABLE allowed
  bool in_group = false;             // bucket actions: group must exist unless it is being added
  uint8_t first_egress = 0;          // OF1.5 egress tables from here (0: none), see validate.cpp
  bool of10 = false;  // OF1.0: no set-field prerequisites (a setter the packet lacks is skipped)
};

OfStatus validate_actions(const of::ActionList& actions, const ValidationContext& vc);
OfStatus validate_instructions(const of::InstructionList& insts, const ValidationContext& vc);

}  // namespace flowlab::dp
