// Result<T, E>: a value or an error, for every control-path call that can fail.
//
// The data path never throws; control-path functions return Status or Result<T>
// carrying a message a user can act on. Exceptions, if any, stop at the
// subcommand boundary (src/cli).
#pragma once

#include <fmt/format.h>

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace flowlab {

// A plain error: a message for the user.
struct Error {
  std::string message;

  Error() = default;
  explicit Error(std::string m) : message(std::move(m)) {}
  template <typename... Args>
  static Error format(fmt::format_string<Args...> f, Args&&... args) {
    return Error(fmt::format(f, std::forward<Args>(args)...));
  }
};

// Wrapper that marks a value as the error alternative (like std::unexpected).
template <typename E>
struct Unexpected {
  E error;
};
template <typename E>
Unexpected<std::decay_t<E>> unexpected(E&& e) {
  return {std::forward<E>(e)};
}

// Shorthand: return fail("bad thing {}", x);
template <typename... Args>
Unexpected<Error> fail(fmt::format_string<Args...> f, Args&&... args) {
  return {Error(fmt::format(f, std::forward<Args>(args)...))};
}

template <typename T, typename E = Error>
class [[nodiscard]] Result {
 public:
  Result(const T& v) : v_(std::in_place_index<0>, v) {}        // NOLINT(google-explicit-constructor)
  Result(T&& v) : v_(std::in_place_index<0>, std::move(v)) {}  // NOLINT
  template <typename U>
  Result(Unexpected<U> e) : v_(std::in_place_index<1>, std::move(e.error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(v_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const E& error() const {
    assert(!ok());
    return std::get<1>(v_);
  }
  E& error() {
    assert(!ok());
    return std::get<1>(v_);
  }

 private:
  std::variant<T, E> v_;
};

// Status: success or an error, no value.
template <typename E = Error>
class [[nodiscard]] BasicStatus {
 public:
  BasicStatus() = default;
  template <typename U>
  BasicStatus(Unexpected<U> e) : err_(std::move(e.error)), ok_(false) {}  // NOLINT
  static BasicStatus success() { return {}; }

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const E& error() const {
    assert(!ok_);
    return err_;
  }

 private:
  E err_{};
  bool ok_ = true;
};
using Status = BasicStatus<Error>;

inline Status ok_status() { return {}; }

}  // namespace flowlab

// Propagate an error from a Result/Status-returning expression.
#define FLOWLAB_TRY(expr)                                                           \
  do {                                                                              \
    auto&& flowlab_try_r_ = (expr);                                                 \
    if (!flowlab_try_r_.ok()) return ::flowlab::unexpected(flowlab_try_r_.error()); \
  } while (0)

#define FLOWLAB_CONCAT_INNER(a, b) a##b
#define FLOWLAB_CONCAT(a, b) FLOWLAB_CONCAT_INNER(a, b)
// FLOWLAB_ASSIGN_OR_RETURN(auto x, f());
#define FLOWLAB_ASSIGN_OR_RETURN(lhs, expr) \
  FLOWLAB_ASSIGN_OR_RETURN_IMPL(FLOWLAB_CONCAT(flowlab_r_, __LINE__), lhs, expr)
#define FLOWLAB_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr)                  \
  auto tmp = (expr);                                                   \
  if (!tmp.ok()) return ::flowlab::unexpected(std::move(tmp.error())); \
  lhs = std::move(tmp.value())
