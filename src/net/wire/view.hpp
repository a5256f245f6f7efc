// The base of the typed views over wire headers: a window of bytes, mutable
// or not (View<uint8_t>, View<const uint8_t>). A view's accessors read fixed
// offsets without checks; each format's check() proves them in bounds first.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

namespace net::wire {

template <class Byte>
class View {
 public:
  static constexpr bool is_mutable = !std::is_const_v<Byte>;

  View(Byte* data, std::size_t size) : data_(data), size_(size) {}
  explicit View(std::span<Byte> bytes) : data_(bytes.data()), size_(bytes.size()) {}

  Byte* data() const { return data_; }
  std::size_t size() const { return size_; }

 protected:
  Byte* data_;
  std::size_t size_;
};

}  // namespace net::wire
