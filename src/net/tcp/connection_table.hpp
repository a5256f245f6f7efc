// The connection table (and the TIME_WAIT index): ConnectionKey to a slot,
// as one bounded map, kept as two FlatMaps by family so that an IPv4
// lookup probes 12-byte keys in 20-byte slots, exactly as before IPv6
// came (decision 0131), and an image that never sees IPv6 never allocates
// the IPv6 map. Both are keyed with the same secret; together they hold
// at most max_entries.
#pragma once
#include <cstring>
#include <memory>
#include <utility>

#include "connection_key.hpp"
#include "util/flat_map.hpp"

namespace net::tcp {

template <class Value>
class ConnectionTable {
 public:
  ConnectionTable(std::size_t max_entries, ConnectionKeyHash hash)
      : max_(max_entries), hash_(hash), v4_(max_entries, Hash4{hash.key}) {}

  std::size_t size() const { return v4_.size() + (v6_ ? v6_->size() : 0); }
  bool full() const { return size() >= max_; }

  Value* find(const ConnectionKey& key) {
    if (!key.is_ip6()) return v4_.find(Key4::of(key));
    return v6_ ? v6_->find(key) : nullptr;
  }
  const Value* find(const ConnectionKey& key) const {
    return const_cast<ConnectionTable*>(this)->find(key);
  }
  // As FlatMap::try_emplace: {nullptr, false} when new and full.
  std::pair<Value*, bool> try_emplace(const ConnectionKey& key) {
    if (Value* v = find(key)) return {v, false};
    if (full()) return {nullptr, false};
    if (!key.is_ip6()) return v4_.try_emplace(Key4::of(key));
    if (!v6_) v6_ = std::make_unique<Map6>(max_, hash_);
    return v6_->try_emplace(key);
  }
  bool erase(const ConnectionKey& key) {
    if (!key.is_ip6()) return v4_.erase(Key4::of(key));
    return v6_ && v6_->erase(key);
  }
  template <class Fn>
  void for_each(Fn&& fn) {
    v4_.for_each([&fn](const Key4& k, Value& v) { fn(k.key(), v); });
    if (v6_) v6_->for_each(fn);
  }

 private:
  // The IPv4 key as it was: two addresses and two ports, 12 bytes.
  struct Key4 {
    ip4::Addr local, remote;
    uint16_t local_port = 0, remote_port = 0;
    static Key4 of(const ConnectionKey& k) {
      return {k.local4(), k.remote4(), k.local_port, k.remote_port};
    }
    ConnectionKey key() const { return {local, remote, local_port, remote_port}; }
    friend bool operator==(const Key4&, const Key4&) = default;
  };
  struct Hash4 {
    keel::util::SipKey key;
    std::size_t operator()(const Key4& k) const {
      uint8_t b[12];
      std::memcpy(b, &k.local.value, 4);
      std::memcpy(b + 4, &k.remote.value, 4);
      std::memcpy(b + 8, &k.local_port, 2);
      std::memcpy(b + 10, &k.remote_port, 2);
      return std::size_t(keel::util::siphash13(key, b, sizeof b));
    }
  };
  using Map6 = keel::util::FlatMap<ConnectionKey, Value, ConnectionKeyHash>;

  std::size_t max_;
  ConnectionKeyHash hash_;
  keel::util::FlatMap<Key4, Value, Hash4> v4_;
  std::unique_ptr<Map6> v6_;
};

}  // namespace net::tcp
