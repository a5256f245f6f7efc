#include "scoreboard.hpp"

#include "seq.hpp"

namespace net::tcp {

void Scoreboard::add(uint32_t left, uint32_t right) {
  auto it = ranges_.begin();
  while (it != ranges_.end() && seq_lt(it->right, left)) ++it;
  auto first = it;
  while (it != ranges_.end() && seq_le(it->left, right)) {
    left = seq_min(left, it->left);
    right = seq_max(right, it->right);
    ++it;
  }
  bool merges = first != it;
  if (!merges && ranges_.size() >= max_ranges) return;
  it = ranges_.erase(first, it);
  ranges_.insert(it, Range{left, right});
}

uint32_t Scoreboard::update(const wire::TcpOptions& options, uint32_t una, uint32_t max) {
  uint32_t before = sacked_bytes();
  for (uint32_t i = 0; i < options.sack_count; ++i) {
    uint32_t left = options.sack[i].left, right = options.sack[i].right;
    // RFC 2018 §3 and RFC 2883: a block at or below SND.UNA (a D-SACK) or
    // past what was sent says nothing about the current window.
    if (!seq_lt(left, right) || !seq_gt(right, una) || seq_gt(right, max)) continue;
    add(seq_max(left, una), right);
  }
  uint32_t after = sacked_bytes();
  return after > before ? after - before : 0;
}

void Scoreboard::advance(uint32_t una) {
  std::size_t drop = 0;
  while (drop < ranges_.size() && seq_le(ranges_[drop].right, una)) ++drop;
  ranges_.erase(ranges_.begin(), ranges_.begin() + std::ptrdiff_t(drop));
  if (!ranges_.empty() && seq_lt(ranges_.front().left, una)) ranges_.front().left = una;
}

uint32_t Scoreboard::sacked_bytes() const {
  uint32_t total = 0;
  for (const Range& r : ranges_) total += r.right - r.left;
  return total;
}

uint32_t Scoreboard::sacked_in(uint32_t left, uint32_t right) const {
  uint32_t total = 0;
  for (const Range& r : ranges_) {
    uint32_t a = seq_max(r.left, left), b = seq_min(r.right, right);
    if (seq_lt(a, b)) total += b - a;
  }
  return total;
}

uint32_t Scoreboard::skip_sacked(uint32_t seq) const {
  for (const Range& r : ranges_)
    if (seq_in(seq, r.left, r.right)) return r.right;
  return seq;
}

uint32_t Scoreboard::next_sacked(uint32_t seq, uint32_t limit) const {
  for (const Range& r : ranges_)
    if (seq_gt(r.left, seq)) return seq_min(r.left, limit);
  return limit;
}

uint32_t Scoreboard::highest_sacked(uint32_t una) const {
  return ranges_.empty() ? una : ranges_.back().right;
}

uint32_t Scoreboard::lost_boundary(uint32_t una, uint32_t mss) const {
  uint32_t above = 0, count = 0;
  for (auto it = ranges_.rbegin(); it != ranges_.rend(); ++it) {
    above += it->right - it->left;
    ++count;
    if (count >= dup_threshold || above > (dup_threshold - 1) * mss) return it->left;
  }
  return una;
}

uint32_t Scoreboard::pipe(uint32_t una, uint32_t max, uint32_t high_rxt,
                          uint32_t lost_below) const {
  auto unsacked = [this](uint32_t left, uint32_t right) -> uint32_t {
    if (!seq_lt(left, right)) return 0;
    return (right - left) - sacked_in(left, right);
  };
  uint32_t not_lost = unsacked(seq_max(lost_below, una), max);
  uint32_t retransmitted = unsacked(una, seq_min(high_rxt, max));
  return not_lost + retransmitted;
}

}  // namespace net::tcp
