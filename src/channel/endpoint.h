// OpenFlow connection strings in the OVS style, parsed into an Endpoint.
//
//   ptcp:PORT[:IP]   listen on TCP (IP defaults to 0.0.0.0)
//   pssl:PORT[:IP]   listen with TLS
//   tcp:HOST:PORT    connect over TCP
//   ssl:HOST:PORT    connect with TLS
// Port 0 on a listener means "any free port" (Listener::port() tells which).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace flowlab::channel {

struct Endpoint {
  bool passive = false;  // ptcp/pssl
  bool tls = false;      // ssl/pssl
  std::string host;      // connect target, or bind address for passive endpoints
  uint16_t port = 0;

  std::string to_string() const;  // back to "ptcp:6653:0.0.0.0" form
};

Result<Endpoint> parse_endpoint(std::string_view s);

// TLS material (PEM files); all three are needed for ssl:/pssl:.
struct TlsConfig {
  std::string cert_file;
  std::string key_file;
  std::string ca_file;  // peer certificates are verified against this CA
  bool empty() const { return cert_file.empty() && key_file.empty() && ca_file.empty(); }
};

}  // namespace flowlab::channel
