// The TIME-WAIT table's bookkeeping. What a segment for a record does is
// the layer's (time_wait_input.cpp).
#include "time_wait.hpp"

#include "util/slots.hpp"

namespace net::tcp {

TimeWaits::TimeWaits(std::size_t max_records, ConnectionKeyHash hash)
    : index_(max_records, hash), hash_(hash) {}

bool TimeWaits::add(const TimeWaitRecord& record, uint64_t expires) {
  bool room = true;
  if (index_.full() && !index_.find(record.key)) {
    remove_at(deadlines_.earliest_slot());
    room = false;
  }
  auto [entry, inserted] = index_.try_emplace(record.key);
  if (!entry) return false;
  if (inserted) *entry = keel::util::take_slot(records_, free_);
  records_[*entry] = record;
  deadlines_.set(*entry, expires);
  return room;
}

TimeWaitRecord* TimeWaits::find(const ConnectionKey& key) {
  uint32_t* slot = index_.find(key);
  return slot ? &records_[*slot] : nullptr;
}

void TimeWaits::restart(const ConnectionKey& key, uint64_t expires) {
  if (uint32_t* slot = index_.find(key)) deadlines_.set(*slot, expires);
}

void TimeWaits::remove(const ConnectionKey& key) {
  if (uint32_t* slot = index_.find(key)) remove_at(*slot);
}

void TimeWaits::remove_at(uint32_t slot) {
  index_.erase(records_[slot].key);
  deadlines_.set(slot, Deadlines::never);
  free_.push_back(slot);
}

void TimeWaits::expire(uint64_t now) {
  while (!deadlines_.empty() && deadlines_.earliest() <= now) remove_at(deadlines_.earliest_slot());
}

void TimeWaits::resize(std::size_t max_records) {
  while (index_.size() > max_records) remove_at(deadlines_.earliest_slot());
  ConnectionTable<uint32_t> index(max_records, hash_);
  index_.for_each(
      [&index](const ConnectionKey& key, uint32_t& slot) { *index.try_emplace(key).first = slot; });
  index_ = std::move(index);
}

}  // namespace net::tcp
