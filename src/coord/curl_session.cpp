// libcurl owners (curl_session.h).
#include "coord/curl_session.h"

#include <curl/curl.h>

#include <cctype>
#include <mutex>

namespace flowlab::coord {

namespace {

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

size_t append_body(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

struct StreamState {
  const CurlStream::OnChunk* on_chunk = nullptr;
  bool ended_by_callback = false;
  std::chrono::steady_clock::time_point last_byte;
};

size_t stream_body(char* data, size_t size, size_t n, void* user) {
  auto* st = static_cast<StreamState*>(user);
  st->last_byte = std::chrono::steady_clock::now();
  if (!(*st->on_chunk)(std::string_view(data, size * n))) {
    st->ended_by_callback = true;
    return 0;  // aborts the transfer
  }
  return size * n;
}

void common_options(CURL* h, const std::string& url, std::string_view body, curl_slist* headers) {
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_POST, 1L);
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(h, CURLOPT_PROXY, "");  // etcd is never behind the user's HTTP proxy
}

}  // namespace

CurlSession::CurlSession() {
  global_init();
  handle_ = curl_easy_init();
}

CurlSession::~CurlSession() {
  if (handle_) curl_easy_cleanup(static_cast<CURL*>(handle_));
}

CurlSession::CurlSession(CurlSession&& o) noexcept : handle_(o.handle_) { o.handle_ = nullptr; }

CurlSession& CurlSession::operator=(CurlSession&& o) noexcept {
  if (this != &o) {
    if (handle_) curl_easy_cleanup(static_cast<CURL*>(handle_));
    handle_ = o.handle_;
    o.handle_ = nullptr;
  }
  return *this;
}

Result<HttpReply> CurlSession::post(const std::string& url, std::string_view body,
                                    std::chrono::milliseconds timeout) {
  return perform(url, &body, timeout);
}

Result<HttpReply> CurlSession::get(const std::string& url, std::chrono::milliseconds timeout) {
  return perform(url, nullptr, timeout);
}

std::string CurlSession::escape(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += char(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

Result<HttpReply> CurlSession::perform(const std::string& url, const std::string_view* body,
                                       std::chrono::milliseconds timeout) {
  if (!handle_) handle_ = curl_easy_init();
  if (!handle_) return fail("{}: libcurl could not make a handle", url);
  CURL* h = static_cast<CURL*>(handle_);
  curl_easy_reset(h);
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  HttpReply reply;
  common_options(h, url, body ? *body : std::string_view{}, headers);
  if (!body) curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
  long ms = std::max<long>(1, static_cast<long>(timeout.count()));
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, ms);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, ms);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &reply.body);
  CURLcode rc = curl_easy_perform(h);
  curl_slist_free_all(headers);
  timed_out_ = rc == CURLE_OPERATION_TIMEDOUT;
  if (rc != CURLE_OK) return fail("{}: {}", url, curl_easy_strerror(rc));
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &reply.status);
  return reply;
}

CurlStream::CurlStream() {
  global_init();
  multi_ = curl_multi_init();
}

CurlStream::~CurlStream() {
  if (multi_) curl_multi_cleanup(static_cast<CURLM*>(multi_));
}

void CurlStream::stop() {
  stop_ = true;
  if (multi_) curl_multi_wakeup(static_cast<CURLM*>(multi_));
}

Status CurlStream::run(const std::string& url, std::string_view body,
                       std::chrono::milliseconds connect_timeout, std::chrono::milliseconds idle,
                       const OnChunk& on_chunk, const OnIdle& on_idle) {
  if (!multi_) return fail("{}: libcurl could not make a multi handle", url);
  CURLM* m = static_cast<CURLM*>(multi_);
  CURL* h = curl_easy_init();
  if (!h) return fail("{}: libcurl could not make a handle", url);
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  StreamState st;
  st.on_chunk = &on_chunk;
  st.last_byte = std::chrono::steady_clock::now();
  common_options(h, url, body, headers);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                   std::max<long>(1, static_cast<long>(connect_timeout.count())));
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, stream_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &st);
  curl_multi_add_handle(m, h);

  Status result;
  int running = 1;
  while (!stop_) {
    CURLMcode mc = curl_multi_perform(m, &running);
    if (mc != CURLM_OK) {
      result = fail("{}: {}", url, curl_multi_strerror(mc));
      break;
    }
    if (!running) {
      int left = 0;
      CURLMsg* msg = curl_multi_info_read(m, &left);
      CURLcode rc = msg && msg->msg == CURLMSG_DONE ? msg->data.result : CURLE_OK;
      long status = 0;
      curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
      if (rc != CURLE_OK && !st.ended_by_callback)
        result = fail("{}: {}", url, curl_easy_strerror(rc));
      else if (status >= 400)
        result = fail("{}: HTTP {}", url, status);
      break;
    }
    curl_multi_poll(m, nullptr, 0, 200, nullptr);
    if (std::chrono::steady_clock::now() - st.last_byte >= idle) {
      st.last_byte = std::chrono::steady_clock::now();
      if (!on_idle()) break;
    }
  }
  curl_multi_remove_handle(m, h);
  curl_easy_cleanup(h);
  curl_slist_free_all(headers);
  return result;
}

}  // namespace flowlab::coord
