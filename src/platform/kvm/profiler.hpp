// A sampling profiler for images: `keel.profile=SECONDS` on the command line
// makes the PIT interrupt 4,000 times a second; each interrupt records where
// the CPU was (arch::set_interrupt_sampler), and every SECONDS the event
// loop prints the functions that took most samples, then starts over:
//
//   profile: 20000 samples in 5.0 s (3411 idle)
//     31.2%  keel::net::Reassembly::copy_in(...)
//     ...
//
// For finding where a guest's time goes under TCG or KVM; off by default.
#pragma once

namespace keel::kvm::profiler {

// Starts sampling when the command line asks for it.
void start_if_requested();

}  // namespace keel::kvm::profiler
