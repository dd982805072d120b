// Building Connections from sockets (used by Listener, Connector and tests that
// make loopback pairs). TLS contexts are built from PEM files.
#pragma once

#include <asio/ip/tcp.hpp>
#include <asio/ssl.hpp>
#include <memory>

#include "channel/connection.h"
#include "channel/endpoint.h"
#include "core/result.h"

namespace flowlab::channel {

using TlsStream = asio::ssl::stream<asio::ip::tcp::socket>;

// Takes a connected socket; sets TCP_NODELAY. The connection is not started.
ConnectionPtr make_connection(asio::ip::tcp::socket sock, ConnectionOptions opts);
// Takes a TLS stream whose handshake is done; `ctx` is kept alive with it.
ConnectionPtr make_tls_connection(std::shared_ptr<asio::ssl::context> ctx, std::unique_ptr<TlsStream> stream,
                                  ConnectionOptions opts);
// Server or client context from cert/key/CA files; the peer is verified against the CA.
Result<std::shared_ptr<asio::ssl::context>> make_tls_context(const TlsConfig& tls, bool server);

}  // namespace flowlab::channel
