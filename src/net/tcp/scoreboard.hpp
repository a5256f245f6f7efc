// The sender's record of what the peer has SACKed (RFC 2018; RFC 6675 §2
// "scoreboard"), as sorted disjoint ranges above SND.UNA, and the
// questions RFC 6675 §4 asks of it: IsLost (here as the boundary below
// which every unSACKed byte counts as lost), the pipe, and where the next
// retransmission starts (NextSeg rules 1 and 3).
#pragma once
#include <cstdint>
#include <vector>

#include "net/wire/tcp.hpp"

namespace net::tcp {

class Scoreboard {
 public:
  // SACK blocks beyond this many ranges are ignored (they only save
  // retransmissions; forgetting them is safe).
  static constexpr std::size_t max_ranges = 32;
  // RFC 6675 §2: DupThresh.
  static constexpr uint32_t dup_threshold = 3;

  // Takes the blocks of `options` that lie within (una, max]; returns how
  // many bytes they SACK that were not SACKed before.
  uint32_t update(const wire::TcpOptions& options, uint32_t una, uint32_t max);
  // Forgets what is now acknowledged cumulatively.
  void advance(uint32_t una);
  void clear() { ranges_.clear(); }
  bool empty() const { return ranges_.empty(); }

  uint32_t sacked_bytes() const;
  // Bytes SACKed within [left, right).
  uint32_t sacked_in(uint32_t left, uint32_t right) const;
  // The end of the SACKed range holding `seq`, or `seq` if none does.
  uint32_t skip_sacked(uint32_t seq) const;
  // The start of the first SACKed range above `seq`, or `limit`.
  uint32_t next_sacked(uint32_t seq, uint32_t limit) const;
  // The highest SACKed byte + 1, or `una` when nothing is SACKed.
  uint32_t highest_sacked(uint32_t una) const;

  // IsLost (RFC 6675 §4): every unSACKed byte below the returned number
  // has DupThresh SACKed ranges, or more than (DupThresh - 1) segments
  // SACKed, above it. `una` when nothing is lost.
  uint32_t lost_boundary(uint32_t una, uint32_t mss) const;
  // SetPipe (RFC 6675 §4): bytes in flight. An unSACKed byte counts once
  // if it is not lost, and once more if it was retransmitted (below
  // high_rxt).
  uint32_t pipe(uint32_t una, uint32_t max, uint32_t high_rxt, uint32_t lost_below) const;

 private:
  struct Range {
    uint32_t left, right;
  };
  void add(uint32_t left, uint32_t right);

  std::vector<Range> ranges_;  // sorted, disjoint, not touching
};

}  // namespace net::tcp
