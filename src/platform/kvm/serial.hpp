// The 16550 UART at COM1, the console on QEMU (pc, q35, microvm) and Firecracker.
#pragma once
#include <cstddef>

namespace keel::kvm::serial {

void init();
// Writes what the transmit FIFO accepts now; returns the bytes taken.
std::size_t try_write(const char* data, std::size_t size);
void write_all(const char* data, std::size_t size);

}  // namespace keel::kvm::serial
