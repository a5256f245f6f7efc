// TcpStream writing: what the connection's send buffer does not take
// waits in the stream's queue, in order, and goes in from on_writable. A
// write is taken whole or refused whole, so nothing is lost unseen; the
// queue is bounded by write_limit plus the write that crossed it.
#include "state.hpp"

namespace net {

Status TcpStream::State::write(std::span<const uint8_t> data) {
  if (!can_write()) return Status::closed;
  if (!under_limit()) {
    drain_wanted = true;
    return Status::would_block;
  }
  if (data.empty()) return Status::ok;
  if (queue_empty()) {
    Result<std::size_t> taken = connection.write(data);
    if (taken.status == Status::closed) return Status::closed;  // it ended; on_close comes
    if (taken) data = data.subspan(*taken);
  }
  if (!data.empty()) {
    if (!queue_empty() && !queue.back().zero_copy &&
        queue.back().copy.size() + data.size() <= copy_chunk) {
      queue.back().copy.insert(queue.back().copy.end(), data.begin(), data.end());
    } else {
      queue.push_back(Chunk{{data.begin(), data.end()}, {}, 0, false});
    }
    queued += data.size();
  }
  if (!under_limit()) drain_wanted = true;
  return Status::ok;
}

Status TcpStream::State::write(TcpBuffer buffer) {
  if (!can_write()) return Status::closed;
  if (!under_limit()) {
    drain_wanted = true;
    return Status::would_block;
  }
  if (buffer.bytes.empty()) return Status::ok;
  if (queue_empty()) {
    Status s = connection.write(buffer);  // a copy of the handle: kept if refused
    if (s == Status::ok || s == Status::closed) return s;
  }
  queued += buffer.bytes.size();
  queue.push_back(Chunk{{}, std::move(buffer), 0, true});
  if (!under_limit()) drain_wanted = true;
  return Status::ok;
}

void TcpStream::State::pop_chunk() {
  queue[queue_head++] = Chunk{};  // lets go of the copy or the buffer's owner now
  if (queue_empty()) {
    queue.clear();
    queue_head = 0;
  } else if (queue_head >= 16 && queue_head * 2 >= queue.size()) {
    queue.erase(queue.begin(), queue.begin() + std::ptrdiff_t(queue_head));
    queue_head = 0;
  }
}

void TcpStream::State::flush() {
  while (!queue_empty()) {
    Chunk& chunk = queue[queue_head];
    if (chunk.zero_copy) {
      if (connection.write(chunk.buffer) != Status::ok) break;
      queued -= chunk.buffer.bytes.size();
    } else {
      Result<std::size_t> taken =
          connection.write(std::span<const uint8_t>(chunk.copy).subspan(chunk.sent));
      if (!taken) break;
      chunk.sent += *taken;
      queued -= *taken;
      if (chunk.sent < chunk.copy.size()) break;
    }
    pop_chunk();
  }
  // A short write leaves the send buffer wanting room: on_writable comes.
  if (queue_empty() && phase == Phase::closing) {
    // RFC 9293 §3.10.4: the stack sends the FIN after the queued data.
    phase = Phase::done;
    connection.close();  // drops the connection's handlers, which own us: return now
    return;
  }
  if (queue_empty() && fin_wanted && !fin_sent) {
    fin_sent = true;
    connection.shutdown();
  }
  if (drain_wanted && phase == Phase::open && !fin_wanted && queued <= options.drain_at) {
    drain_wanted = false;
    if (drain_handler) run_handler(*this, drain_handler, drain_version);
  }
}

}  // namespace net
