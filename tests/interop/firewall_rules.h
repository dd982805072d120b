// The firewall rules the interop tests give flowlab controller's firewall app:
// h2 (10.0.0.2) accepts TCP 5201 and ICMP echo, h1 (10.0.0.1) may send
// anything, everything else is denied (TCP 5202 among it).
#pragma once

namespace flowlab::interop {

inline constexpr const char* kAllowTcp5201Rules =
    "default: deny\n"
    "security_groups:\n"
    "  - name: server\n"
    "    targets: [{ip: 10.0.0.2}]\n"
    "    ingress:\n"
    "      - {protocol: tcp, port: 5201}\n"
    "      - {protocol: icmp, icmp_type: 8}\n"
    "  - name: client\n"
    "    targets: [{ip: 10.0.0.1}]\n"
    "    egress:\n"
    "      - {protocol: any}\n";

}  // namespace flowlab::interop
