// static-flows: installs a fixed list of flows, read from a file in
// ovs-ofctl add-flows syntax, on every switch that connects.
//
// The file is read and every line checked when the app is made (an error
// names FILE:LINE); each line is kept as text and as its OF1.3 flow-mod,
// encoded once (~150 bytes a flow in all, not a decoded FlowMod), so the
// same flows go to any number of switches without being parsed again. On
// OpenFlow 1.3 switches the flows go in bundles of `bundle_size` flow-mods
// (ONF bundle extension, Datapath::bundle_flow_mods_wire: the encoded
// flow-mods wrapped in bundle adds): each bundle is applied whole or
// not at all; at most two bundles are in flight, the next is sent when a
// commit is answered, so the connection's output stays bounded whatever the
// file's size. On OF1.0 switches, or with bundle_size 0, the same chunks
// (4096 flows when 0) go as plain flow-mods, each chunk followed by a
// barrier. When the last chunk is answered the app logs one info line:
//   static-flows: dpid ...: 1000000 flows installed in 245 bundles in 12.31 s
// (or a warning with what was refused). A refused bundle (a flow-mod in it
// failed: nothing of it applied) is logged with the file lines it held and
// counted; the others still go. Errors answering plain flow-mods are counted.
// Consumes nothing: every event goes on to the next app.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "controller/app.h"
#include "core/result.h"

namespace flowlab::controller {

class StaticFlows : public App {
 public:
  static constexpr size_t kDefaultBundleSize = 4096;
  static constexpr size_t kInFlight = 2;

  // Reads and checks FILE (blank lines and lines starting with '#' skipped).
  static Result<std::unique_ptr<StaticFlows>> load(const std::string& file, size_t bundle_size);

  std::string_view name() const override { return "static-flows"; }
  void switch_connected(Datapath& dp) override;
  void switch_disconnected(Datapath& dp) override;
  Verdict error(Datapath& dp, const of::Message& m, const of::ErrorMsg& e) override;

  size_t flow_count() const { return lines_.size(); }

 private:
  struct Progress {
    size_t next = 0;       // index of the first flow not sent yet
    size_t in_flight = 0;  // chunks sent and not answered
    size_t chunks = 0, answered = 0;
    size_t refused = 0, refused_flows = 0;  // chunks answered with an error, their flows
    size_t errors = 0;                      // other errors while chunks were in flight
    size_t skipped = 0;                     // lines this switch's version cannot take
    std::chrono::steady_clock::time_point start;
  };

  StaticFlows(std::vector<std::string> lines, std::vector<uint32_t> line_numbers, Bytes wire13,
              std::vector<size_t> at13, size_t bundle_size)
      : lines_(std::move(lines)),
        line_numbers_(std::move(line_numbers)),
        wire13_(std::move(wire13)),
        at13_(std::move(at13)),
        bundle_size_(bundle_size) {}
  void send_more(Datapath& dp);
  Result<uint32_t> send_bundle(Datapath& dp, size_t first, size_t count, Datapath::ReplyCallback cb);
  Result<uint32_t> send_plain(Datapath& dp, Progress& p, size_t first, size_t count,
                              Datapath::ReplyCallback cb);
  void chunk_answered(Datapath& dp, size_t first, size_t count, const of::Message& reply);

  std::vector<std::string> lines_;      // the flows, as text
  std::vector<uint32_t> line_numbers_;  // their lines in the file
  Bytes wire13_;                        // their OF1.3 flow-mods (xid 0), back to back
  std::vector<size_t> at13_;            // where flow i starts in wire13_ (and one past the last)
  size_t bundle_size_;                  // 0: no bundles
  std::mutex mu_;
  std::unordered_map<const Datapath*, Progress> progress_;  // switches connected
};

}  // namespace flowlab::controller
