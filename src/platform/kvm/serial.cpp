#include "serial.hpp"

#include "arch/x86_64/cpu.hpp"

namespace keel::kvm::serial {
namespace {

constexpr uint16_t com1 = 0x3f8;
constexpr uint16_t reg_data = com1 + 0, reg_interrupt_enable = com1 + 1, reg_fifo = com1 + 2,
                   reg_line_control = com1 + 3, reg_modem_control = com1 + 4,
                   reg_line_status = com1 + 5;
constexpr uint8_t line_8n1 = 0x03, divisor_latch = 0x80;
constexpr uint8_t fifo_enable_and_clear = 0x07;
constexpr uint8_t modem_dtr_rts = 0x03;
constexpr uint8_t transmitter_empty = 0x20;  // THRE: the FIFO is empty
constexpr std::size_t fifo_size = 16;
constexpr uint16_t divisor_115200 = 1;

bool ready() { return arch::inb(reg_line_status) & transmitter_empty; }

}  // namespace

void init() {
  arch::outb(reg_interrupt_enable, 0);
  arch::outb(reg_line_control, divisor_latch);
  arch::outb(reg_data, divisor_115200 & 0xff);
  arch::outb(reg_interrupt_enable, divisor_115200 >> 8);
  arch::outb(reg_line_control, line_8n1);
  arch::outb(reg_fifo, fifo_enable_and_clear);
  arch::outb(reg_modem_control, modem_dtr_rts);
}

std::size_t try_write(const char* data, std::size_t size) {
  std::size_t written = 0;
  // An empty FIFO takes 16 bytes at once: one rep outsb, one VM exit.
  while (written < size && ready()) {
    std::size_t n = size - written < fifo_size ? size - written : fifo_size;
    arch::outsb(reg_data, data + written, n);
    written += n;
  }
  return written;
}

void write_all(const char* data, std::size_t size) {
  while (size > 0) {
    std::size_t n = try_write(data, size);
    data += n;
    size -= n;
    if (n == 0) arch::pause();
  }
}

}  // namespace keel::kvm::serial
