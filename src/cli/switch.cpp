// `flowlab switch`: not implemented yet.
#include <cstdio>

#include "cli/commands.h"

namespace flowlab::cli {

int run_switch(int, char**) {
  std::fputs("flowlab switch: not implemented yet\n", stderr);
  return 2;
}

}  // namespace flowlab::cli
