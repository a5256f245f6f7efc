// net::Udp and net::UdpSocket: handles onto the UDP layer's socket table.
#include <net/udp.hpp>

#include "udp_layer.hpp"

namespace net {

Result<UdpSocket> Udp::bind(const Endpoint& local, InterfaceId interface) {
  return layer_.bind(*this, local, interface);
}
bool Udp::is_bound(const Endpoint& local, InterfaceId interface) const {
  return layer_.is_bound(local, interface);
}
std::size_t Udp::open_sockets() const { return layer_.open_sockets(); }
const UdpCounters& Udp::counters() const { return layer_.counters(); }

bool UdpSocket::is_open() const { return udp_ && udp_->layer_.is_open(slot_, generation_); }
Endpoint UdpSocket::local() const {
  return udp_ ? udp_->layer_.local(slot_, generation_) : Endpoint{};
}
InterfaceId UdpSocket::interface() const {
  return udp_ ? udp_->layer_.interface(slot_, generation_) : no_interface;
}
Status UdpSocket::on_read(ReadHandler handler) {
  return udp_ ? udp_->layer_.on_read(slot_, generation_, std::move(handler)) : Status::closed;
}
Status UdpSocket::on_error(ErrorHandler handler) {
  return udp_ ? udp_->layer_.on_error(slot_, generation_, std::move(handler)) : Status::closed;
}
Status UdpSocket::on_writable(WritableHandler handler) {
  return udp_ ? udp_->layer_.on_writable(slot_, generation_, std::move(handler)) : Status::closed;
}
Status UdpSocket::send_to(const Endpoint& destination, std::span<const uint8_t> payload,
                          const Address& source) {
  return udp_ ? udp_->layer_.send(slot_, generation_, destination, payload, source)
              : Status::closed;
}
void UdpSocket::close() {
  if (udp_) udp_->layer_.close(slot_, generation_);
}

}  // namespace net
