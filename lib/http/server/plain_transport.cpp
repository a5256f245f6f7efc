// plain_transport(): the server's Transport is the TCP stream itself (transport.hpp).
#include "keel/http/transport.hpp"

namespace keel::http {
namespace {

class PlainTransport final : public Transport {
 public:
  explicit PlainTransport(net::TcpStream stream) : stream_(stream) {}

  void on_data(DataHandler handler) override { (void)stream_.on_data(std::move(handler)); }
  void on_drain(EventHandler handler) override { (void)stream_.on_drain(std::move(handler)); }
  void on_end(EventHandler handler) override {
    (void)stream_.on_end([handler = std::move(handler)](std::span<const uint8_t>) { handler(); });
  }
  void on_close(EventHandler handler) override {
    (void)stream_.on_close([handler = std::move(handler)](net::TcpCloseReason) { handler(); });
  }
  void start() override {}  // on_data hands out what is there already

  net::Status write(std::span<const uint8_t> data) override { return stream_.write(data); }
  net::Status write_static(std::span<const uint8_t> data) override {
    return stream_.write(net::TcpBuffer{nullptr, data});  // no owner: the data outlives us
  }
  bool writable() const override { return stream_.writable(); }
  std::size_t send_space() const override { return stream_.connection().send_space(); }
  net::Endpoint remote() const override { return stream_.connection().remote(); }

  net::Status resume() override { return stream_.resume(); }
  net::Status shutdown() override { return stream_.shutdown(); }
  net::Status close() override { return stream_.close(); }
  net::Status abort() override { return stream_.abort(); }

 private:
  net::TcpStream stream_;
};

}  // namespace

std::shared_ptr<Transport> plain_transport(net::TcpStream stream) {
  return std::make_shared<PlainTransport>(stream);
}

}  // namespace keel::http
