// libcurl owners for etcd's JSON gateway: `CurlSession` does one blocking POST
// (or GET: the lab's queries of Prometheus) at a time on a reused connection; `CurlStream` runs one streaming
// POST (a watch) whose chunks go to a callback and which another thread can stop at once (curl_multi_wakeup).
// Both are move-only RAII owners of their handles; neither knows etcd.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/result.h"

namespace flowlab::coord {

struct HttpReply {
  long status = 0;
  std::string body;
};

class CurlSession {
 public:
  CurlSession();
  ~CurlSession();
  CurlSession(CurlSession&&) noexcept;
  CurlSession& operator=(CurlSession&&) noexcept;
  CurlSession(const CurlSession&) = delete;
  CurlSession& operator=(const CurlSession&) = delete;

  // POSTs `body` (JSON) to `url`; a transport failure (refused, timed out,
  // reset) is an error naming the url, an HTTP status is a reply.
  Result<HttpReply> post(const std::string& url, std::string_view body, std::chrono::milliseconds timeout);
  // GETs `url` (its query already escaped, see escape()); errors as post's.
  Result<HttpReply> get(const std::string& url, std::chrono::milliseconds timeout);
  // `text` percent-encoded for a URL's query string.
  static std::string escape(std::string_view text);
  // Whether the last post/get failed by running out of its timeout (the peer
  // accepted or was silent, but did not answer in time).
  bool timed_out() const { return timed_out_; }

 private:
  Result<HttpReply> perform(const std::string& url, const std::string_view* body,
                            std::chrono::milliseconds timeout);
  void* handle_ = nullptr;  // CURL*
  bool timed_out_ = false;
};

class CurlStream {
 public:
  CurlStream();
  ~CurlStream();
  CurlStream(const CurlStream&) = delete;
  CurlStream& operator=(const CurlStream&) = delete;

  // Called on each chunk; returning false ends the stream.
  using OnChunk = std::function<bool(std::string_view)>;
  // Called when no byte arrived for `idle`; returning false ends the stream.
  using OnIdle = std::function<bool()>;

  // Runs the POST until the server ends it, a callback says stop, stop() is
  // called, or the connection fails (an error naming the url). `connect_timeout`
  // bounds the connection only; the stream itself has no end.
  Status run(const std::string& url, std::string_view body, std::chrono::milliseconds connect_timeout,
             std::chrono::milliseconds idle, const OnChunk& on_chunk, const OnIdle& on_idle);
  // From any thread: makes run() return soon.
  void stop();
  bool stopped() const { return stop_.load(); }

 private:
  void* multi_ = nullptr;  // CURLM*
  std::atomic<bool> stop_{false};
};

}  // namespace flowlab::coord
