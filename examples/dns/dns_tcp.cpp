// DNS over TCP (RFC 7766) on Keel's TcpStream: each message is framed by a
// two-octet length (RFC 1035 §4.2.2), read with on_bytes(2) then
// on_bytes(length), alternating. Queries are answered in the order they
// come (pipelining, RFC 7766 §6.2.1.1, answered in order), with no UDP size
// limit. A zero length, or a message the server answers with nothing (not
// a query, shorter than a header), closes the connection: the framing can
// no longer be trusted.
//
// Limits (TcpLimits): an idle timeout per connection (RFC 7766 §6.2.3) and
// a cap on connections in all and per client address; a connection over a
// cap is reset as soon as it is accepted. Back-pressure: once our answers
// fill the stream's queue (the client does not read), reading pauses until
// on_drain, so a client that never reads holds a bounded amount of memory.
//
// Zone transfers (RFC 5936): a query that starts one gets its messages one
// at a time, each written while the stream is writable and the next on
// on_drain, so a zone of any size holds one message plus the stream's queue,
// never the whole zone rendered. Reading waits until the last message is
// queued (RFC 5936 §4.2 allows answering other queries meanwhile; NSD, too,
// reads the next query only after the transfer).
#include <array>
#include <map>
#include <memory>
#include <net/stack.hpp>
#include <net/tcp_stream.hpp>
#include <os>

#include "dns_socket.hpp"

namespace dns_app {
namespace {

using namespace std::chrono;
constexpr std::size_t length_octets = 2;  // RFC 1035 §4.2.2
// Queries are small and answers go out whole: a modest window, and room
// for one 64 KiB answer in the send buffer.
constexpr uint32_t receive_buffer = 16 * 1024;
constexpr uint32_t send_buffer = 64 * 1024;

// Responses are rendered here after the length prefix; write() copies them.
std::array<uint8_t, length_octets + keel::dns::max_message_size> response;

// Server::answer starts a transfer here (cleared before each query); a
// connection takes it over only when it has more than one message.
keel::dns::Transfer scratch_transfer;

TcpCounters counters;
std::map<net::Address, uint32_t> per_client;

// One connection: owned by the stream's handlers (and so ends with it).
struct Connection : std::enable_shared_from_this<Connection> {
  net::TcpStream stream;
  net::Address peer;
  keel::dns::ClientAddress client;
  std::shared_ptr<QueryHandler> handler;
  milliseconds idle{};
  os::Timers::id_t timer = os::Timers::invalid_id;
  bool finished = false;
  // A transfer in progress; allocated only then, so an idle connection
  // stays small (10,000 of them must fit).
  std::unique_ptr<keel::dns::Transfer> transfer;

  void start() {
    std::weak_ptr<Connection> weak = shared_from_this();
    timer = os::Timers::create([weak](os::Timers::id_t) {
      if (auto self = weak.lock()) {
        ++counters.idle_closed;
        self->close();
      }
    });
    os::Timers::arm(timer, idle);
    auto self = shared_from_this();
    stream.on_drain([self] {
      if (!self->transfer)
        (void)self->stream.resume();
      else
        self->send_transfer();
    });
    stream.on_end([self](std::span<const uint8_t>) { self->close(); });
    stream.on_close([self](net::TcpCloseReason) { self->finish(); });
    read_length();
  }

  void read_length() {
    auto self = shared_from_this();
    (void)stream.on_bytes(length_octets, [self](std::span<const uint8_t> prefix) {
      const std::size_t length = std::size_t(prefix[0]) << 8 | prefix[1];
      if (length == 0) return self->reject();
      // Set inside the handler: takes effect at the next byte.
      (void)self->stream.on_bytes(length,
                                  [self](std::span<const uint8_t> m) { self->on_message(m); });
    });
  }

  void on_message(std::span<const uint8_t> message) {
    ++counters.queries;
    scratch_transfer = {};
    const std::size_t size = (*handler)(message, client, std::span(response).subspan(length_octets),
                                        keel::dns::Transport::tcp, &scratch_transfer);
    if (size == 0 || !send(size)) return reject();
    if (scratch_transfer.messages() != 0) {
      ++counters.transfer_messages;
      if (!scratch_transfer.done()) {
        transfer = std::make_unique<keel::dns::Transfer>(scratch_transfer);
        scratch_transfer = {};  // (it held the catalog: a secondary may swap in a new one)
        // The next query is read once the transfer is queued (resume below).
        (void)stream.pause();
        read_length();
        return send_transfer();
      }
      ++counters.transfers;
    }
    // The queue is at its limit: read no more queries until the client has
    // taken our answers (on_drain resumes).
    if (!stream.writable()) {
      ++counters.paused;
      (void)stream.pause();
    }
    read_length();
  }

  // Writes the framed response in `response`; false if the stream refused it.
  bool send(std::size_t size) {
    response[0] = uint8_t(size >> 8);
    response[1] = uint8_t(size);
    // Refused only past the queue's limit, which we never write at (we pause,
    // or wait for on_drain); never lose an answer silently.
    if (stream.write(std::span(response.data(), length_octets + size)) != net::Status::ok)
      return false;
    os::Timers::arm(timer, idle);
    return true;
  }

  // Queues transfer messages while the stream takes them; on_drain comes
  // back here until the last one is queued.
  void send_transfer() {
    while (!transfer->done() && stream.writable()) {
      const std::size_t size = transfer->next(std::span(response).subspan(length_octets));
      if (size == 0) break;
      if (!send(size)) return reject();
      ++counters.transfer_messages;
    }
    if (!transfer->done()) {
      ++counters.transfer_waits;
      return;
    }
    transfer.reset();
    ++counters.transfers;
    if (stream.writable()) (void)stream.resume();  // else on_drain resumes
  }

  void reject() {
    ++counters.bad_messages;
    close();
  }

  // Answers already queued go out before the FIN.
  void close() {
    (void)stream.close();
    finish();
  }

  // Once, however the connection ends (close() runs no handler again).
  void finish() {
    if (finished) return;
    finished = true;
    os::Timers::stop(timer);
    --counters.open;
    if (auto it = per_client.find(peer); it != per_client.end() && --it->second == 0)
      per_client.erase(it);
  }
};

}  // namespace

const TcpCounters& tcp_counters() { return counters; }

bool listen_tcp(net::Stack& stack, const ListenOptions& options,
                std::shared_ptr<QueryHandler> handler) {
  const net::ip4::Addr address =
      options.address ? net::ip4::Addr(*options.address) : net::ip4::Addr{};
  net::TcpOptions tcp;
  tcp.auto_consume = false;  // the stream releases input itself
  tcp.no_delay = true;       // an answer is written whole: never hold it for an ACK
  tcp.receive_buffer = receive_buffer;
  tcp.send_buffer = send_buffer;
  const TcpLimits limits = options.tcp;
  auto listener = stack.tcp().listen(
      net::Endpoint{address, options.port},
      [limits, handler](net::TcpConnection c) {
        const net::Endpoint remote = c.remote();
        uint32_t& mine = per_client[remote.address];
        if (counters.open >= limits.max_connections || mine >= limits.max_per_client) {
          ++(counters.open >= limits.max_connections ? counters.refused_total
                                                     : counters.refused_per_client);
          if (mine == 0) per_client.erase(remote.address);
          (void)c.abort();
          return;
        }
        auto stream = net::TcpStream::open(c);
        if (!stream) {
          if (mine == 0) per_client.erase(remote.address);
          (void)c.abort();
          return;
        }
        ++mine;
        ++counters.open;
        ++counters.accepted;
        auto conn = std::make_shared<Connection>();
        conn->stream = *stream;
        conn->peer = remote.address;
        conn->client = client_of(remote);
        conn->handler = handler;
        conn->idle = milliseconds(limits.idle_timeout_ms);
        conn->start();
      },
      tcp);
  if (!listener) {
    std::printf("dns: cannot listen on TCP %s:%u: %s\n", address.to_string().c_str(), options.port,
                net::to_string(listener.status));
    return false;
  }
  return true;
}

}  // namespace dns_app
