// TapPort: a switch port on a TAP device (`--port tap:NAME`), opened through
// /dev/net/tun with IFF_TAP | IFF_NO_PI | IFF_VNET_HDR and TUNSETOFFLOAD, so the
// kernel hands us (and takes from us) GSO super-frames and partial checksums.
// Creates the device when it does not exist (non-persistent: it disappears when
// the port closes); attaches to an existing persistent tap and leaves it.
// One read()/writev() per frame (a tun fd has no batch calls).
#pragma once

#include <sys/uio.h>

#include <memory>
#include <mutex>
#include <string>

#include "port/netdev.h"
#include "port/port.h"

namespace flowlab {

class TapPort final : public Port {
 public:
  static Result<std::unique_ptr<TapPort>> open(std::string_view tapname, const PortOptions& opts = {});
  // One queue of a multi-queue device (IFF_MULTI_QUEUE; every queue of the
  // device is opened so): the first open creates the device, each one after
  // adds a queue. The kernel spreads the device's frames over the queues by
  // flow hash.
  static Result<std::unique_ptr<TapPort>> open_queue(std::string_view tapname, const PortOptions& opts);
  ~TapPort() override = default;

  std::string_view name() const override { return name_; }
  int ifindex() const override { return ifindex_; }
  MacAddr mac() const override;
  uint32_t mtu() const override;
  bool link_up() const override;
  int poll_fd() const override { return fd_.get(); }
  PortCapabilities capabilities() const override { return caps_; }
  size_t rx_batch(PacketBatch& batch, size_t max) override;
  size_t tx_batch(PacketBatch& batch) override;

  bool created() const { return created_; }  // true when this port made the device

 private:
  TapPort() = default;
  Status setup(std::string_view tapname, const PortOptions& opts, bool multi_queue);
  bool write_frame(Packet& pkt);

  struct VnetHdr {
    uint8_t flags, gso_type;
    uint16_t hdr_len, gso_size, csum_start, csum_offset;
  };
  static_assert(sizeof(VnetHdr) == 10);

  UniqueFd fd_;
  UniqueFd ctl_;  // ioctl socket in the namespace the port was opened in
  std::string name_;
  int ifindex_ = 0;
  bool created_ = false;
  PortCapabilities caps_;
  std::mutex tx_mu_;
  std::unique_ptr<Packet> tx_scratch_;
};

}  // namespace flowlab
