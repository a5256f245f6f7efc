// Whether AES-GCM runs in hardware here: the server prefers ChaCha20-Poly1305 where it does
// not (decision 0106), as Go's and BoringSSL's servers do.
#pragma once

namespace keel::tls {

// AES-NI and PCLMULQDQ (which mbed TLS's AES and GCM use) are in CPUID, and the CPU is not
// QEMU's TCG, which lists them but emulates every instruction (CPUID leaf 0x40000000 says
// "TCGTCGTCGTCG").
bool aes_gcm_in_hardware();

}  // namespace keel::tls
