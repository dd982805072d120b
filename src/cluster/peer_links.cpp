// PeerLinks (peer_links.h) on a standalone-asio event loop of its own.
#include "cluster/peer_links.h"

#include <array>
#include <asio.hpp>
#include <atomic>
#include <charconv>
#include <list>
#include <thread>

#include "core/log.h"

namespace flowlab::cluster {

bool split_host_port(const std::string& s, std::string& host, uint16_t& port, bool allow_zero) {
  auto colon = s.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == s.size()) return false;
  host = s.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  unsigned v = 0;
  auto [end, ec] = std::from_chars(s.data() + colon + 1, s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v > 65535 || (v == 0 && !allow_zero)) return false;
  port = uint16_t(v);
  return true;
}

using asio::ip::tcp;

// Links are a field of PeerLinks::State, so not in an anonymous namespace (a type of
// internal linkage in a member is a warning once a unity batch includes this file).
namespace peer_links_detail {

struct Link {
  std::string node;
  PeerTarget target;
  tcp::socket socket;
  asio::steady_timer retry;
  bool established = false;
  bool wanted = true;
  std::array<char, 256> buf{};
  std::string hello;
  Link(asio::io_context& io, std::string n, PeerTarget t)
      : node(std::move(n)), target(std::move(t)), socket(io), retry(io) {}
};

}  // namespace peer_links_detail

using peer_links_detail::Link;

struct PeerLinks::State : std::enable_shared_from_this<PeerLinks::State> {
  std::string self;
  OnGone on_gone;
  asio::io_context io;
  tcp::acceptor acceptor{io};
  std::list<tcp::socket> accepted;
  std::map<std::string, std::shared_ptr<Link>> links;
  std::atomic<size_t> n_established{0};
  std::thread thread;
  bool stopped = false;

  void accept() {
    acceptor.async_accept([this](const asio::error_code& ec, tcp::socket sock) {
      if (ec) return;  // closed at stop
      accepted.push_back(std::move(sock));
      hold(std::prev(accepted.end()));
      accept();
    });
  }

  // Reads (and ignores) what a peer sends until it closes.
  void hold(std::list<tcp::socket>::iterator it) {
    auto buf = std::make_shared<std::array<char, 256>>();
    it->async_read_some(asio::buffer(*buf), [this, it, buf](const asio::error_code& ec, size_t) {
      if (ec) {
        if (ec != asio::error::operation_aborted) accepted.erase(it);
        return;
      }
      hold(it);
    });
  }

  void connect(const std::shared_ptr<Link>& l) {
    std::string host;
    uint16_t port = 0;
    if (!split_host_port(l->target.address, host, port)) {
      log::warn("cluster", "node {}: peer address '{}' is not HOST:PORT; not linked", l->node,
                l->target.address);
      return;
    }
    asio::error_code ec;
    tcp::resolver resolver(io);
    auto eps = resolver.resolve(host, std::to_string(port), ec);
    if (ec) return retry_later(l);
    asio::async_connect(l->socket, eps, [this, l](const asio::error_code& ec, const tcp::endpoint&) {
      if (!l->wanted) return;
      if (ec) return retry_later(l);
      l->established = true;
      n_established++;
      asio::error_code ignore;
      l->socket.set_option(tcp::no_delay(true), ignore);
      l->hello = "flowlab-cluster " + self + "\n";
      asio::async_write(l->socket, asio::buffer(l->hello), [](const asio::error_code&, size_t) {});
      watch(l);
    });
  }

  void retry_later(const std::shared_ptr<Link>& l) {
    asio::error_code ignore;
    l->socket.close(ignore);
    l->retry.expires_after(std::chrono::milliseconds(300));
    l->retry.async_wait([this, l](const asio::error_code& ec) {
      if (!ec && l->wanted) connect(l);
    });
  }

  void watch(const std::shared_ptr<Link>& l) {
    l->socket.async_read_some(asio::buffer(l->buf), [this, l](const asio::error_code& ec, size_t) {
      if (!l->wanted) return;
      if (!ec) return watch(l);
      l->established = false;
      n_established--;
      l->wanted = false;
      asio::error_code ignore;
      l->socket.close(ignore);
      std::string why = ec == asio::error::eof ? "closed its connection" : "connection " + ec.message();
      links.erase(l->node);
      if (on_gone) on_gone(l->node, l->target.lease, why);
    });
  }

  void drop(const std::shared_ptr<Link>& l) {
    l->wanted = false;
    if (l->established) n_established--;
    l->established = false;
    asio::error_code ignore;
    l->retry.cancel();
    l->socket.close(ignore);
  }
};

PeerLinks::PeerLinks(std::string self, OnGone on_gone) : s_(std::make_shared<State>()) {
  s_->self = std::move(self);
  s_->on_gone = std::move(on_gone);
}

PeerLinks::~PeerLinks() { stop(); }

Result<uint16_t> PeerLinks::start(const std::string& host_port) {
  std::string host;
  uint16_t port = 0;
  if (!split_host_port(host_port, host, port, true))
    return fail("peer listener '{}': expected HOST:PORT", host_port);
  asio::error_code ec;
  auto addr = asio::ip::make_address(host, ec);
  if (ec) return fail("peer listener '{}': '{}' is not an IP address", host_port, host);
  tcp::endpoint ep(addr, port);
  s_->acceptor.open(ep.protocol(), ec);
  if (!ec) s_->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) s_->acceptor.bind(ep, ec);
  if (!ec) s_->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return fail("peer listener on {}: {}", host_port, ec.message());
  uint16_t bound = s_->acceptor.local_endpoint().port();
  s_->accept();
  s_->thread = std::thread([s = s_] { s->io.run(); });
  return bound;
}

void PeerLinks::set_peers(std::map<std::string, PeerTarget> peers) {
  peers.erase(s_->self);
  asio::post(s_->io, [s = s_, peers = std::move(peers)] {
    if (s->stopped) return;
    for (auto it = s->links.begin(); it != s->links.end();) {
      auto p = peers.find(it->first);
      if (p == peers.end() || !(p->second == it->second->target)) {
        s->drop(it->second);
        it = s->links.erase(it);
      } else {
        ++it;
      }
    }
    for (const auto& [node, target] : peers) {
      if (s->links.count(node)) continue;
      auto l = std::make_shared<Link>(s->io, node, target);
      s->links[node] = l;
      s->connect(l);
    }
  });
}

size_t PeerLinks::established() const { return s_->n_established.load(); }

void PeerLinks::stop() {
  if (!s_->thread.joinable()) return;
  asio::post(s_->io, [s = s_] {
    s->stopped = true;
    asio::error_code ignore;
    s->acceptor.close(ignore);
    for (auto& [n, l] : s->links) s->drop(l);
    s->links.clear();
    for (auto& sock : s->accepted) sock.close(ignore);
    s->accepted.clear();
  });
  s_->thread.join();
}

}  // namespace flowlab::cluster
