// TIME-WAIT (RFC 9293 §3.6.1): what is left of a connection that closed
// first, for 2·MSL. Not the connection itself (its buffers, timers and
// handlers are gone) but a small record with what answering its peer
// needs: the sequence numbers both ways, the window last advertised and
// the timestamps (PAWS, and RFC 6191's test for a new SYN). Records live
// in a bounded table keyed like the connections and leave it by their own
// deadline, so memory stays flat however many connections come and go;
// a full table gives up the record closest to its end.
#pragma once
#include <cstdint>
#include <vector>

#include "connection_key.hpp"
#include "connection_table.hpp"
#include "deadlines.hpp"
#include "util/flat_map.hpp"

namespace net::tcp {

struct TimeWaitRecord {
  ConnectionKey key;
  uint32_t snd_nxt = 0;  // after our FIN
  uint32_t rcv_nxt = 0;  // after the peer's FIN
  uint32_t ts_recent = 0, ts_offset = 0;
  uint64_t last_ack_ns = UINT64_MAX;  // the last ACK for an out-of-window segment
  uint16_t window = 0;                // the window field last advertised
  bool ts_ok = false;
};

class TimeWaits {
 public:
  TimeWaits(std::size_t max_records, ConnectionKeyHash hash);

  // Adds `record` until `expires`; false if the table had to give one up.
  bool add(const TimeWaitRecord& record, uint64_t expires);
  TimeWaitRecord* find(const ConnectionKey& key);
  bool contains(const ConnectionKey& key) const { return index_.find(key) != nullptr; }
  void restart(const ConnectionKey& key, uint64_t expires);
  void remove(const ConnectionKey& key);
  // Removes the records whose time is up.
  void expire(uint64_t now);
  uint64_t next_deadline() const { return deadlines_.earliest(); }
  std::size_t size() const { return index_.size(); }
  // A new bound (the records held are kept, up to it).
  void resize(std::size_t max_records);

 private:
  void remove_at(uint32_t slot);

  ConnectionTable<uint32_t> index_;
  std::vector<TimeWaitRecord> records_;
  std::vector<uint32_t> free_;
  Deadlines deadlines_;  // by slot in records_
  ConnectionKeyHash hash_;
};

}  // namespace net::tcp
