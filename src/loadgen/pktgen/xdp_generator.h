// The xdp mode of the packet generator (packet_generator.h): one template
// frame, Ethernet / IPv4 / UDP from the interface's address and port 49152
// to --dst's port base_port, `payload` bytes of 0x5a, built in user space
// (FrameBuilder) with correct lengths and checksums; then, per thread (one
// per CPU, pinned), BPF_PROG_RUN of XdpFlowProgram (xdp_program.h) in
// live-frame mode with ingress_ifindex = the sending interface, so every copy
// leaves by XDP_TX out of it with the next of `flows` destination ports.
//
// Each test run transmits `repeat` frames in kernel batches of 64; the Pacer
// sizes runs to ~2 ms of the thread's share of `rate` and sleeps between
// them (rate 0: runs of 16384 frames back to back). On a veth the peer's
// receive path (its NAPI: the frame becomes an skb there, runs its tc
// programs and reaches its sockets) runs in the softirq at the end of each
// kernel batch on the sender's own CPU, so the generator's rate includes the
// receiver's cost, as with the udp mode.
//
// Before the threads start: the kernel's version, the interface (up, carrier,
// MTU, driver) and, on a veth, one probe batch whose frames must not all be
// dropped by the sender (a peer without NAPI on Linux 5.18-6.2: xdp_device.h). The probe's 64
// frames are counted in `sent`.
#pragma once

#include "core/result.h"
#include "loadgen/pktgen/packet_generator.h"

namespace flowlab::loadgen {

Result<PacketGeneratorResult> run_xdp_generator(const PacketGeneratorOptions& o);

}  // namespace flowlab::loadgen
