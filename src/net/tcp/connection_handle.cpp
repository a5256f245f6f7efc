// net::TcpConnection: each call finds its connection (slot and generation)
// and answers Status::closed when there is none, or it is closed for the
// service, so misuse never reaches freed memory.
#include <net/tcp.hpp>

#include "tcp_layer.hpp"

namespace net {

bool TcpConnection::is_open() const { return layer_ && layer_->find(slot_, generation_); }

TcpState TcpConnection::state() const {
  const tcp::Connection* c = layer_ ? layer_->find(slot_, generation_) : nullptr;
  return c ? c->state : TcpState::closed;
}

Endpoint TcpConnection::local() const {
  const tcp::Connection* c = layer_ ? layer_->lookup(slot_, generation_) : nullptr;
  return c ? Endpoint{c->key.local_address(), c->key.local_port} : Endpoint{};
}

Endpoint TcpConnection::remote() const {
  const tcp::Connection* c = layer_ ? layer_->lookup(slot_, generation_) : nullptr;
  return c ? Endpoint{c->key.remote_address(), c->key.remote_port} : Endpoint{};
}

InterfaceId TcpConnection::interface() const {
  const tcp::Connection* c = layer_ ? layer_->lookup(slot_, generation_) : nullptr;
  if (!c) return no_interface;
  auto path = layer_->route(c->key);
  return path ? path->interface : no_interface;
}

Status TcpConnection::on_read(ReadHandler handler) {
  tcp::Connection* c = layer_ ? layer_->find(slot_, generation_) : nullptr;
  if (!c) return Status::closed;
  c->on_read = std::move(handler);
  ++c->read_version;
  if (c->on_read && (c->receive.undelivered() > 0 || (c->peer_fin && !c->eof_delivered))) {
    layer_->deliver_later(*c, tcp::event::readable);
  }
  return Status::ok;
}

Status TcpConnection::on_writable(WritableHandler handler) {
  tcp::Connection* c = layer_ ? layer_->find(slot_, generation_) : nullptr;
  if (!c) return Status::closed;
  c->on_writable = std::move(handler);
  ++c->writable_version;
  return Status::ok;
}

Status TcpConnection::on_close(CloseHandler handler) {
  tcp::Connection* c = layer_ ? layer_->find(slot_, generation_) : nullptr;
  if (!c) return Status::closed;
  c->on_close = std::move(handler);
  ++c->close_version;
  return Status::ok;
}

Result<std::size_t> TcpConnection::write(std::span<const uint8_t> data) {
  tcp::Connection* c = layer_ ? layer_->find(slot_, generation_) : nullptr;
  if (!c || c->fin_queued) return Status::closed;
  if (data.empty()) return std::size_t(0);
  std::size_t n = c->write(data, layer_->now());
  if (n == 0) return Status::would_block;
  return n;
}

Status TcpConnection::write(TcpBuffer buffer) {
  tcp::Connection* c = layer_ ? layer_->find(slot_, generation_) : nullptr;
  if (!c || c->fin_queued) return Status::closed;
  return c->write(std::move(buffer), layer_->now()) ? Status::ok : Status::would_block;
}

std::size_t TcpConnection::send_space() const {
  const tcp::Connection* c = layer_ ? layer_->find(slot_, generation_) : nullptr;
  return c && !c->fin_queued ? c->send_space() : 0;
}

std::size_t TcpConnection::send_queued() const {
  const tcp::Connection* c = layer_ ? layer_->find(slot_, generation_) : nullptr;
  return c ? c->send.size() : 0;
}

Status TcpConnection::consumed(std::size_t bytes) {
  tcp::Connection* c = layer_ ? layer_->find(slot_, generation_) : nullptr;
  if (!c) return Status::closed;
  if (bytes > c->receive.unconsumed_delivered()) return Status::invalid;
  c->consume(uint32_t(bytes), layer_->now());
  return Status::ok;
}

std::size_t TcpConnection::unconsumed() const {
  const tcp::Connection* c = layer_ ? layer_->find(slot_, generation_) : nullptr;
  return c ? c->receive.unconsumed_delivered() : 0;
}

Status TcpConnection::shutdown() {
  tcp::Connection* c = layer_ ? layer_->find(slot_, generation_) : nullptr;
  if (!c) return Status::closed;
  c->shutdown(layer_->now());
  return Status::ok;
}

Status TcpConnection::close() {
  tcp::Connection* c = layer_ ? layer_->find(slot_, generation_) : nullptr;
  if (!c) return Status::closed;
  c->close(layer_->now());
  return Status::ok;
}

Status TcpConnection::abort() {
  tcp::Connection* c = layer_ ? layer_->find(slot_, generation_) : nullptr;
  if (!c) return Status::closed;
  c->abort(layer_->now());
  return Status::ok;
}

Status TcpConnection::set_no_delay(bool on) {
  tcp::Connection* c = layer_ ? layer_->find(slot_, generation_) : nullptr;
  if (!c) return Status::closed;
  c->options.no_delay = on;
  c->output(layer_->now());
  return Status::ok;
}

Status TcpConnection::set_keepalive(bool on) {
  tcp::Connection* c = layer_ ? layer_->find(slot_, generation_) : nullptr;
  if (!c) return Status::closed;
  c->set_keepalive(on, layer_->now());
  return Status::ok;
}

Status TcpConnection::set_buffers(uint32_t send_bytes, uint32_t receive_bytes) {
  tcp::Connection* c = layer_ ? layer_->find(slot_, generation_) : nullptr;
  if (!c) return Status::closed;
  if (send_bytes == 0 || receive_bytes == 0) return Status::invalid;
  c->set_buffers(send_bytes, receive_bytes, layer_->now());
  return Status::ok;
}

Status TcpConnection::set_congestion(TcpCongestion algorithm) {
  tcp::Connection* c = layer_ ? layer_->find(slot_, generation_) : nullptr;
  if (!c) return Status::closed;
  c->options.congestion = algorithm;
  c->cc.set_algorithm(algorithm);
  return Status::ok;
}

TcpOptions TcpConnection::options() const {
  const tcp::Connection* c = layer_ ? layer_->lookup(slot_, generation_) : nullptr;
  return c ? c->options : TcpOptions{};
}

TcpStats TcpConnection::stats() const {
  const tcp::Connection* c = layer_ ? layer_->lookup(slot_, generation_) : nullptr;
  return c ? c->statistics() : TcpStats{};
}

}  // namespace net
