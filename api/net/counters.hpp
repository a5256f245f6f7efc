// Counters of the stack, readable by the service: per interface
// (`stack.interface(0).counters().arp.tx_requests`) and for the whole host
// stack (`stack.counters().ip4.drop_bad_checksum`). Every dropped packet is
// counted under exactly one drop_* reason. Plain integers: the event loop is
// the only writer.
#pragma once
#include <cstdint>
#include <string_view>
#include <util/delegate.hpp>

namespace net {

using CounterVisitor = keel::delegate<void(std::string_view name, uint64_t value)>;

struct EthernetCounters {
  uint64_t rx = 0, tx = 0;
  uint64_t rx_multicast = 0;       // to a group the interface joined
  uint64_t drop_truncated = 0;     // shorter than the 14-byte header
  uint64_t drop_not_for_us = 0;    // unicast to another MAC, or a group not joined
  uint64_t drop_unknown_type = 0;  // neither IPv4, ARP nor IPv6
  uint64_t drop_ip6_off = 0;       // IPv6 on an interface given no IPv6 address
  uint64_t drop_no_buffer = 0;     // transmit: no headroom for the header
};

struct ArpCounters {
  uint64_t rx_requests = 0, rx_replies = 0;
  uint64_t tx_requests = 0, tx_replies = 0, tx_gratuitous = 0;
  uint64_t drop_truncated = 0;
  uint64_t drop_bad_format = 0;    // not Ethernet/IPv4, bad lengths or opcode
  uint64_t drop_bad_sender = 0;    // sender is broadcast/multicast/zero MAC or our own
  uint64_t drop_rate_limited = 0;  // an entry changing too often (spoof storm)
  uint64_t address_conflicts = 0;  // someone else claims our address
  uint64_t queued = 0;             // packets parked awaiting resolution
  uint64_t drop_queue_full = 0;
  uint64_t drop_unresolved = 0;  // resolution timed out
  uint64_t cache_evictions = 0;
};

// The queue of frames in front of the NIC (transmit back-pressure).
struct LinkCounters {
  uint64_t tx_queued = 0;           // frames that waited for room in the NIC's ring
  uint64_t drop_tx_queue_full = 0;  // frames dropped: the queue was full too
  // TCP segments longer than the MTU (a router's coalesced ones) the NIC
  // cannot segment: cut in software into this many frames (decision 0093).
  uint64_t tx_software_segmented = 0, tx_software_segments = 0;
  uint64_t drop_unsegmentable = 0;  // such a segment with headers not whole, or no buffer
};

struct DhcpCounters {
  uint64_t tx_discover = 0, tx_request = 0, tx_release = 0;
  uint64_t rx_offer = 0, rx_ack = 0, rx_nak = 0;
  uint64_t leases = 0, renewals = 0, rebinds = 0, expirations = 0, fallbacks = 0;
  uint64_t drop_malformed = 0;
  uint64_t drop_unexpected = 0;  // wrong xid, state or message type
};

// Neighbor Discovery (RFC 4861), per interface.
struct NdpCounters {
  uint64_t rx_solicitations = 0, rx_advertisements = 0;
  uint64_t tx_solicitations = 0, tx_advertisements = 0;
  uint64_t drop_bad_format = 0;      // RFC 4861 §7.1: length, target, options, flags
  uint64_t drop_not_our_target = 0;  // a solicitation for an address not ours
  uint64_t drop_no_entry = 0;        // an advertisement for no cache entry (never creates one)
  uint64_t address_conflicts = 0;    // someone claims, or probes for, our address
  uint64_t queued = 0;               // packets parked awaiting resolution
  uint64_t drop_queue_full = 0;
  uint64_t drop_unresolved = 0;   // resolution timed out (packets)
  uint64_t drop_unreachable = 0;  // a neighbour stopped answering probes (entries)
  uint64_t drop_cache_full = 0;   // no entry could be made (all busy resolving)
  uint64_t cache_evictions = 0;
};

// Router discovery and SLAAC (RFC 4861 §6, RFC 4862 §5.5; docs/net/ipv6.md).
struct RouterCounters {
  uint64_t tx_solicitations = 0, rx_advertisements = 0;
  uint64_t drop_not_auto = 0;         // an RA on an interface without `auto`: not used
  uint64_t drop_bad_source = 0;       // §6.1.2: not from a link-local address
  uint64_t drop_bad_format = 0;       // §6.1.2: length, a zero-length or malformed option
  uint64_t drop_routers_full = 0;     // a new router with the list full
  uint64_t drop_prefixes_full = 0;    // a new on-link prefix with the list full
  uint64_t drop_addresses_full = 0;   // a new SLAAC prefix with every address slot taken
  uint64_t drop_prefix_options = 0;   // past the prefix options one RA may carry
  uint64_t drop_prefix_length = 0;    // RFC 4862 §5.5.3: autonomous prefix not /64
  uint64_t drop_prefix_lifetime = 0;  // §5.5.3 (c): preferred > valid lifetime
  uint64_t drop_bad_mtu = 0;          // MTU option outside 1280..the link's MTU
  uint64_t drop_bad_dns_option = 0;   // RFC 8106 §5.3.1: a malformed RDNSS or DNSSL option
  uint64_t dns_evictions = 0;         // a DNS server or search domain given up, the list full
  uint64_t addresses_formed = 0, addresses_expired = 0;
  uint64_t address_conflicts = 0;  // a SLAAC address someone else had (RFC 7217 retries)
};

// MLDv2 for the solicited-node groups, MLDv1 beside an MLDv1 querier (RFC 3810; docs/net/ipv6.md).
struct MldCounters {
  uint64_t tx_reports = 0, rx_queries = 0;
  uint64_t drop_bad_query = 0;  // §6.2: hop limit not 1, source not link-local, too short
  uint64_t rx_v1_queries = 0;   // MLDv1 queries (24 bytes): MLDv1 mode (§8.2.1)
  uint64_t tx_v1_reports = 0, tx_v1_dones = 0;
  uint64_t rx_v1_reports = 0;          // other hosts' MLDv1 reports for a group of ours
  uint64_t v1_reports_suppressed = 0;  // ours cancelled by one (RFC 2710 §4, MLDv1 mode only)
  uint64_t drop_bad_report = 0;        // hop limit not 1, source not link-local, too short
};

struct InterfaceCounters {
  EthernetCounters ethernet;
  ArpCounters arp;
  NdpCounters ndp;
  RouterCounters ra;
  MldCounters mld;
  LinkCounters link;
  DhcpCounters dhcp;

  // Every counter as ("arp.tx_requests", value), for printing.
  void for_each(const CounterVisitor& fn) const;
  uint64_t total_drops() const;
};

struct Ip4Counters {
  uint64_t rx = 0, tx = 0;
  uint64_t delivered = 0;  // to a protocol of this host
  uint64_t forwarded = 0;
  uint64_t drop_truncated = 0;
  uint64_t drop_bad_version = 0;
  uint64_t drop_bad_header_length = 0;  // IHL < 5 or past the packet
  uint64_t drop_bad_total_length = 0;   // < IHL*4 or past the frame
  uint64_t drop_bad_checksum = 0;
  uint64_t drop_bad_source = 0;        // broadcast/multicast/zero/loopback/own source
  uint64_t drop_too_big = 0;           // a send over 65535 bytes
  uint64_t drop_not_for_us = 0;        // not ours, and not forwarded (forwarding off, or not
                                       // unicast to our MAC)
  uint64_t drop_unknown_protocol = 0;  // answered with ICMP protocol unreachable
  uint64_t drop_no_route = 0;
  uint64_t drop_ttl_exceeded = 0;          // forwarding: TTL ran out (ICMP time exceeded)
  uint64_t drop_fragmentation_needed = 0;  // forwarding: over the MTU with DF (ICMP sent)
  uint64_t drop_by_hook = 0;               // a hook (firewall) said drop
  uint64_t drop_no_buffer = 0;
  uint64_t rx_fragments = 0, reassembled = 0, tx_fragments = 0;
  uint64_t drop_fragment_overlap = 0;       // conflicting overlap: datagram discarded
  uint64_t drop_fragment_too_big = 0;       // end past 65535 or the per-datagram limit
  uint64_t drop_fragment_evicted = 0;       // datagrams given up: reassembly memory full
  uint64_t drop_fragment_source_limit = 0;  // datagrams given up: their source's share full
  uint64_t drop_fragment_timeout = 0;       // incomplete when the timer ran out (datagrams)
  uint64_t drop_fragment_bad = 0;           // bad MF/offset combination
};

struct Ip6Counters {
  uint64_t rx = 0, tx = 0;
  uint64_t delivered = 0;  // to a protocol of this host
  uint64_t drop_truncated = 0;
  uint64_t drop_bad_version = 0;
  uint64_t drop_bad_payload_length = 0;   // past the frame
  uint64_t drop_bad_address = 0;          // group/loopback/mapped/own source, bad destination
  uint64_t drop_not_for_us = 0;           // not ours, and not forwarded (forwarding off, a group)
  uint64_t forwarded = 0;                 // forwarding (decision 0134)
  uint64_t drop_hop_limit = 0;            // forwarding: hop limit ran out (time exceeded sent)
  uint64_t drop_beyond_scope = 0;         // forwarding: a link-local source or destination
  uint64_t drop_packet_too_big = 0;       // forwarding: over the next link's MTU (PTB sent)
  uint64_t drop_address_unreachable = 0;  // forwarding: ND found no next hop (error sent)
  uint64_t drop_by_hook = 0;              // a hook (firewall) said drop
  uint64_t drop_bad_extension = 0;        // truncated or misplaced extension header
  uint64_t drop_too_many_extensions = 0;
  uint64_t drop_unknown_option = 0;  // an option whose action bits say discard
  uint64_t drop_routing_header = 0;  // segments left (type 0 included, RFC 5095)
  uint64_t rx_atomic_fragments = 0;  // RFC 6946: taken whole
  // Reassembly (RFC 8200 §4.5) and source fragmentation, named as IPv4's.
  uint64_t rx_fragments = 0, reassembled = 0, tx_fragments = 0;
  uint64_t drop_fragment_overlap = 0;       // any overlap but a duplicate: datagram discarded
  uint64_t drop_fragment_too_big = 0;       // reassembled payload past 65535 (parameter problem)
  uint64_t drop_fragment_evicted = 0;       // datagrams given up: reassembly memory full
  uint64_t drop_fragment_source_limit = 0;  // datagrams given up: their source's share full
  uint64_t drop_fragment_timeout = 0;       // incomplete when the timer ran out (datagrams)
  uint64_t drop_fragment_bad = 0;           // length not a multiple of 8 with M set, empty, nested
  uint64_t drop_fragment_incomplete_chain = 0;  // first fragment without the upper-layer
                                                // header (RFC 7112, parameter problem code 3)
  uint64_t drop_no_next_header = 0;             // next header 59
  uint64_t drop_unknown_next_header = 0;        // answered with parameter problem
  uint64_t drop_no_route = 0;
  uint64_t drop_too_big = 0;  // a send over 65535 bytes, or TCP over the link MTU
  uint64_t drop_no_buffer = 0;
  // The destination cache (src/net/ip6/destinations.hpp).
  uint64_t pmtu_updates = 0;           // a Packet Too Big lowered a path MTU (RFC 8201)
  uint64_t destination_evictions = 0;  // entries given up with the cache full
};

struct Icmp6Counters {
  uint64_t rx = 0;
  uint64_t rx_echo_requests = 0, tx_echo_replies = 0;
  uint64_t rx_errors = 0;  // errors about what we sent
  uint64_t rx_packet_too_big = 0;
  uint64_t drop_bad_packet_too_big = 0;  // quoting what we did not send, or what fitted
  // Redirect (RFC 4861 §8).
  uint64_t rx_redirects = 0, redirects_accepted = 0;
  uint64_t drop_redirect_bad_source = 0;  // not link-local, or not the destination's first hop
  uint64_t drop_redirect_bad_format = 0;  // §8.1: length, group destination, target, options
  uint64_t drop_redirect_forwarding = 0;  // a router takes no redirects
  uint64_t tx_parameter_problem = 0, tx_unreachable = 0;
  uint64_t tx_time_exceeded = 0;   // reassembly timed out (RFC 8200 §4.5), hop limit ran out
  uint64_t tx_packet_too_big = 0;  // forwarding: over the next link's MTU (RFC 4443 §3.2)
  uint64_t drop_truncated = 0;
  uint64_t drop_bad_checksum = 0;
  uint64_t drop_bad_nd = 0;        // ND with hop limit != 255 or code != 0 (RFC 4861 §7.1)
  uint64_t drop_rate_limited = 0;  // errors not sent (RFC 4443 §2.4 (f))
  uint64_t drop_no_buffer = 0;
  uint64_t rx_ignored = 0;  // other types: counted, not answered
};

struct Icmp4Counters {
  uint64_t rx = 0;
  uint64_t rx_echo_requests = 0, tx_echo_replies = 0;
  uint64_t tx_port_unreachable = 0, tx_protocol_unreachable = 0, tx_net_unreachable = 0;
  uint64_t tx_fragmentation_needed = 0, tx_time_exceeded = 0;
  uint64_t drop_truncated = 0;
  uint64_t drop_bad_checksum = 0;
  uint64_t drop_rate_limited = 0;  // errors not sent (RFC 1812 §4.3.2.8)
  uint64_t drop_no_buffer = 0;
  uint64_t rx_ignored = 0;  // other types: counted, not answered
};

struct UdpCounters {
  uint64_t rx = 0, tx = 0;
  uint64_t drop_truncated = 0;
  uint64_t drop_bad_length = 0;
  uint64_t drop_bad_checksum = 0;
  uint64_t drop_no_port = 0;
  uint64_t drop_queue_full = 0;  // more datagrams waiting for handlers than the stack holds
  uint64_t drop_tx_failed = 0;
  uint64_t handler_exceptions = 0;    // a read, error or writable handler threw
  uint64_t rx_errors = 0;             // ICMP/ICMPv6 errors given to a socket's error handler
  uint64_t rx_errors_ignored = 0;     // about a socket with no error handler
  uint64_t drop_error_no_socket = 0;  // about a datagram from no socket bound now
};

// TCP (host-wide). Segments, connections and every reason a segment was
// dropped; what a drop was answered with (RST, ACK) is in its comment.
struct TcpCounters {
  uint64_t rx = 0, tx = 0;                       // segments
  uint64_t active_opens = 0, passive_opens = 0;  // connect() calls, SYNs taken by listeners
  uint64_t established = 0;                      // handshakes completed
  uint64_t retransmits = 0;                      // segments sent again
  uint64_t timeouts = 0;                         // retransmission timer expiries
  uint64_t fast_retransmits = 0;                 // recoveries entered on duplicate ACKs / SACK
  uint64_t rx_resets = 0, tx_resets = 0;         // RSTs taken, RSTs sent
  uint64_t challenge_acks = 0;                   // RFC 5961 §3.2, §4.2, §5.2
  uint64_t syn_cookies_sent = 0, syn_cookies_accepted = 0;
  uint64_t time_wait_reused = 0;     // a new SYN took over a TIME_WAIT (RFC 6191)
  uint64_t time_wait_recycled = 0;   // TIME_WAIT ended early: table full
  uint64_t pmtu_updates = 0;         // RFC 1191: the MSS lowered
  uint64_t rx_out_of_order = 0;      // data segments kept for reassembly
  uint64_t rx_bad_options = 0;       // malformed options (ignored, segment used)
  uint64_t connection_timeouts = 0;  // connections ended as timed_out
  uint64_t drop_truncated = 0;
  uint64_t drop_bad_data_offset = 0;
  uint64_t drop_bad_checksum = 0;
  uint64_t drop_to_broadcast = 0;    // to a broadcast or multicast address (RFC 1122 §4.2.3.10)
  uint64_t drop_no_connection = 0;   // no connection or listener (answered with RST)
  uint64_t drop_listen_not_syn = 0;  // to a listener and no SYN (RST if it had ACK)
  uint64_t drop_out_of_window = 0;   // unacceptable sequence number (answered with ACK)
  uint64_t drop_paws = 0;            // an old timestamp, RFC 7323 §5 (answered with ACK)
  uint64_t drop_bad_ack = 0;         // acknowledges what was never sent (answered with ACK)
  uint64_t drop_bad_rst = 0;         // RST not at the expected number (challenge ACK) or outside
  uint64_t drop_bad_syn = 0;         // SYN on a synchronized connection (challenge ACK)
  uint64_t drop_no_ack = 0;          // no ACK flag on a synchronized connection
  uint64_t drop_bad_cookie = 0;      // an ACK to a listener that is no valid SYN cookie
  uint64_t drop_table_full = 0;      // no room for another connection
  uint64_t drop_memory = 0;          // data not kept: the stack's buffer budget is used up
  uint64_t drop_too_many_holes = 0;  // out-of-order data past what reassembly tracks
  uint64_t drop_after_close = 0;     // data for a connection the service closed (RST)
  uint64_t drop_rate_limited = 0;    // challenge ACKs and RSTs over their rate
  uint64_t drop_icmp_unmatched = 0;  // an ICMP error quoting no live connection or sequence
  uint64_t drop_tx_failed = 0;       // a segment not sent (no route, no buffer, filtered)
  uint64_t handler_exceptions = 0;   // a service's handler threw: its connection was aborted
};

struct StackCounters {
  Ip4Counters ip4;
  Icmp4Counters icmp4;
  Ip6Counters ip6;
  Icmp6Counters icmp6;
  UdpCounters udp;
  TcpCounters tcp;

  void for_each(const CounterVisitor& fn) const;
  uint64_t total_drops() const;
};

}  // namespace net
