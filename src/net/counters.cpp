// for_each over every counter: one list of names, kept in the order of the
// struct definitions (api/net/counters.hpp).
#include <net/counters.hpp>

namespace net {
namespace {

uint64_t drops_of(const auto& counters) {
  uint64_t total = 0;
  counters.for_each([&](std::string_view name, uint64_t value) {
    if (name.find(".drop_") != std::string_view::npos) total += value;
  });
  return total;
}

}  // namespace

#define KEEL_C(layer, field) fn(#layer "." #field, layer.field)

void InterfaceCounters::for_each(const CounterVisitor& fn) const {
  KEEL_C(ethernet, rx);
  KEEL_C(ethernet, tx);
  KEEL_C(ethernet, rx_multicast);
  KEEL_C(ethernet, drop_truncated);
  KEEL_C(ethernet, drop_not_for_us);
  KEEL_C(ethernet, drop_unknown_type);
  KEEL_C(ethernet, drop_no_buffer);
  KEEL_C(ethernet, drop_ip6_off);
  KEEL_C(arp, rx_requests);
  KEEL_C(arp, rx_replies);
  KEEL_C(arp, tx_requests);
  KEEL_C(arp, tx_replies);
  KEEL_C(arp, tx_gratuitous);
  KEEL_C(arp, drop_truncated);
  KEEL_C(arp, drop_bad_format);
  KEEL_C(arp, drop_bad_sender);
  KEEL_C(arp, drop_rate_limited);
  KEEL_C(arp, address_conflicts);
  KEEL_C(arp, queued);
  KEEL_C(arp, drop_queue_full);
  KEEL_C(arp, drop_unresolved);
  KEEL_C(arp, cache_evictions);
  KEEL_C(ndp, rx_solicitations);
  KEEL_C(ndp, rx_advertisements);
  KEEL_C(ndp, tx_solicitations);
  KEEL_C(ndp, tx_advertisements);
  KEEL_C(ndp, drop_bad_format);
  KEEL_C(ndp, drop_not_our_target);
  KEEL_C(ndp, drop_no_entry);
  KEEL_C(ndp, address_conflicts);
  KEEL_C(ndp, queued);
  KEEL_C(ndp, drop_queue_full);
  KEEL_C(ndp, drop_unresolved);
  KEEL_C(ndp, drop_unreachable);
  KEEL_C(ndp, drop_cache_full);
  KEEL_C(ndp, cache_evictions);
  KEEL_C(ra, tx_solicitations);
  KEEL_C(ra, rx_advertisements);
  KEEL_C(ra, drop_not_auto);
  KEEL_C(ra, drop_bad_source);
  KEEL_C(ra, drop_bad_format);
  KEEL_C(ra, drop_routers_full);
  KEEL_C(ra, drop_prefixes_full);
  KEEL_C(ra, drop_addresses_full);
  KEEL_C(ra, drop_prefix_options);
  KEEL_C(ra, drop_prefix_length);
  KEEL_C(ra, drop_prefix_lifetime);
  KEEL_C(ra, drop_bad_mtu);
  KEEL_C(ra, drop_bad_dns_option);
  KEEL_C(ra, dns_evictions);
  KEEL_C(ra, addresses_formed);
  KEEL_C(ra, addresses_expired);
  KEEL_C(ra, address_conflicts);
  KEEL_C(mld, tx_reports);
  KEEL_C(mld, rx_queries);
  KEEL_C(mld, drop_bad_query);
  KEEL_C(mld, rx_v1_queries);
  KEEL_C(mld, tx_v1_reports);
  KEEL_C(mld, tx_v1_dones);
  KEEL_C(mld, rx_v1_reports);
  KEEL_C(mld, v1_reports_suppressed);
  KEEL_C(mld, drop_bad_report);
  KEEL_C(link, tx_queued);
  KEEL_C(link, drop_tx_queue_full);
  KEEL_C(link, tx_software_segmented);
  KEEL_C(link, tx_software_segments);
  KEEL_C(link, drop_unsegmentable);
  KEEL_C(dhcp, tx_discover);
  KEEL_C(dhcp, tx_request);
  KEEL_C(dhcp, tx_release);
  KEEL_C(dhcp, rx_offer);
  KEEL_C(dhcp, rx_ack);
  KEEL_C(dhcp, rx_nak);
  KEEL_C(dhcp, leases);
  KEEL_C(dhcp, renewals);
  KEEL_C(dhcp, rebinds);
  KEEL_C(dhcp, expirations);
  KEEL_C(dhcp, fallbacks);
  KEEL_C(dhcp, drop_malformed);
  KEEL_C(dhcp, drop_unexpected);
}

void StackCounters::for_each(const CounterVisitor& fn) const {
  KEEL_C(ip4, rx);
  KEEL_C(ip4, tx);
  KEEL_C(ip4, delivered);
  KEEL_C(ip4, forwarded);
  KEEL_C(ip4, drop_truncated);
  KEEL_C(ip4, drop_bad_version);
  KEEL_C(ip4, drop_bad_header_length);
  KEEL_C(ip4, drop_bad_total_length);
  KEEL_C(ip4, drop_bad_checksum);
  KEEL_C(ip4, drop_bad_source);
  KEEL_C(ip4, drop_too_big);
  KEEL_C(ip4, drop_not_for_us);
  KEEL_C(ip4, drop_unknown_protocol);
  KEEL_C(ip4, drop_no_route);
  KEEL_C(ip4, drop_ttl_exceeded);
  KEEL_C(ip4, drop_fragmentation_needed);
  KEEL_C(ip4, drop_by_hook);
  KEEL_C(ip4, drop_no_buffer);
  KEEL_C(ip4, rx_fragments);
  KEEL_C(ip4, reassembled);
  KEEL_C(ip4, tx_fragments);
  KEEL_C(ip4, drop_fragment_overlap);
  KEEL_C(ip4, drop_fragment_too_big);
  KEEL_C(ip4, drop_fragment_evicted);
  KEEL_C(ip4, drop_fragment_source_limit);
  KEEL_C(ip4, drop_fragment_timeout);
  KEEL_C(ip4, drop_fragment_bad);
  KEEL_C(icmp4, rx);
  KEEL_C(icmp4, rx_echo_requests);
  KEEL_C(icmp4, tx_echo_replies);
  KEEL_C(icmp4, tx_port_unreachable);
  KEEL_C(icmp4, tx_protocol_unreachable);
  KEEL_C(icmp4, tx_net_unreachable);
  KEEL_C(icmp4, tx_fragmentation_needed);
  KEEL_C(icmp4, tx_time_exceeded);
  KEEL_C(icmp4, drop_truncated);
  KEEL_C(icmp4, drop_bad_checksum);
  KEEL_C(icmp4, drop_rate_limited);
  KEEL_C(icmp4, drop_no_buffer);
  KEEL_C(icmp4, rx_ignored);
  KEEL_C(ip6, rx);
  KEEL_C(ip6, tx);
  KEEL_C(ip6, delivered);
  KEEL_C(ip6, drop_truncated);
  KEEL_C(ip6, drop_bad_version);
  KEEL_C(ip6, drop_bad_payload_length);
  KEEL_C(ip6, drop_bad_address);
  KEEL_C(ip6, drop_not_for_us);
  KEEL_C(ip6, forwarded);
  KEEL_C(ip6, drop_hop_limit);
  KEEL_C(ip6, drop_beyond_scope);
  KEEL_C(ip6, drop_packet_too_big);
  KEEL_C(ip6, drop_address_unreachable);
  KEEL_C(ip6, drop_by_hook);
  KEEL_C(ip6, drop_bad_extension);
  KEEL_C(ip6, drop_too_many_extensions);
  KEEL_C(ip6, drop_unknown_option);
  KEEL_C(ip6, drop_routing_header);
  KEEL_C(ip6, rx_fragments);
  KEEL_C(ip6, reassembled);
  KEEL_C(ip6, tx_fragments);
  KEEL_C(ip6, drop_fragment_overlap);
  KEEL_C(ip6, drop_fragment_too_big);
  KEEL_C(ip6, drop_fragment_evicted);
  KEEL_C(ip6, drop_fragment_source_limit);
  KEEL_C(ip6, drop_fragment_timeout);
  KEEL_C(ip6, drop_fragment_bad);
  KEEL_C(ip6, drop_fragment_incomplete_chain);
  KEEL_C(ip6, rx_atomic_fragments);
  KEEL_C(ip6, drop_no_next_header);
  KEEL_C(ip6, drop_unknown_next_header);
  KEEL_C(ip6, drop_no_route);
  KEEL_C(ip6, drop_too_big);
  KEEL_C(ip6, drop_no_buffer);
  KEEL_C(ip6, pmtu_updates);
  KEEL_C(ip6, destination_evictions);
  KEEL_C(icmp6, rx);
  KEEL_C(icmp6, rx_echo_requests);
  KEEL_C(icmp6, tx_echo_replies);
  KEEL_C(icmp6, rx_errors);
  KEEL_C(icmp6, rx_packet_too_big);
  KEEL_C(icmp6, drop_bad_packet_too_big);
  KEEL_C(icmp6, rx_redirects);
  KEEL_C(icmp6, redirects_accepted);
  KEEL_C(icmp6, drop_redirect_bad_source);
  KEEL_C(icmp6, drop_redirect_bad_format);
  KEEL_C(icmp6, drop_redirect_forwarding);
  KEEL_C(icmp6, tx_parameter_problem);
  KEEL_C(icmp6, tx_unreachable);
  KEEL_C(icmp6, tx_time_exceeded);
  KEEL_C(icmp6, tx_packet_too_big);
  KEEL_C(icmp6, drop_truncated);
  KEEL_C(icmp6, drop_bad_checksum);
  KEEL_C(icmp6, drop_bad_nd);
  KEEL_C(icmp6, drop_rate_limited);
  KEEL_C(icmp6, drop_no_buffer);
  KEEL_C(icmp6, rx_ignored);
  KEEL_C(udp, rx);
  KEEL_C(udp, tx);
  KEEL_C(udp, drop_truncated);
  KEEL_C(udp, drop_bad_length);
  KEEL_C(udp, drop_bad_checksum);
  KEEL_C(udp, drop_no_port);
  KEEL_C(udp, drop_queue_full);
  KEEL_C(udp, drop_tx_failed);
  KEEL_C(udp, rx_errors);
  KEEL_C(udp, rx_errors_ignored);
  KEEL_C(udp, drop_error_no_socket);
  KEEL_C(udp, handler_exceptions);
  KEEL_C(tcp, rx);
  KEEL_C(tcp, tx);
  KEEL_C(tcp, active_opens);
  KEEL_C(tcp, passive_opens);
  KEEL_C(tcp, established);
  KEEL_C(tcp, retransmits);
  KEEL_C(tcp, timeouts);
  KEEL_C(tcp, fast_retransmits);
  KEEL_C(tcp, rx_resets);
  KEEL_C(tcp, tx_resets);
  KEEL_C(tcp, challenge_acks);
  KEEL_C(tcp, syn_cookies_sent);
  KEEL_C(tcp, syn_cookies_accepted);
  KEEL_C(tcp, time_wait_reused);
  KEEL_C(tcp, time_wait_recycled);
  KEEL_C(tcp, pmtu_updates);
  KEEL_C(tcp, rx_out_of_order);
  KEEL_C(tcp, rx_bad_options);
  KEEL_C(tcp, connection_timeouts);
  KEEL_C(tcp, drop_truncated);
  KEEL_C(tcp, drop_bad_data_offset);
  KEEL_C(tcp, drop_bad_checksum);
  KEEL_C(tcp, drop_to_broadcast);
  KEEL_C(tcp, drop_no_connection);
  KEEL_C(tcp, drop_listen_not_syn);
  KEEL_C(tcp, drop_out_of_window);
  KEEL_C(tcp, drop_paws);
  KEEL_C(tcp, drop_bad_ack);
  KEEL_C(tcp, drop_bad_rst);
  KEEL_C(tcp, drop_bad_syn);
  KEEL_C(tcp, drop_no_ack);
  KEEL_C(tcp, drop_bad_cookie);
  KEEL_C(tcp, drop_table_full);
  KEEL_C(tcp, drop_memory);
  KEEL_C(tcp, drop_too_many_holes);
  KEEL_C(tcp, drop_after_close);
  KEEL_C(tcp, drop_rate_limited);
  KEEL_C(tcp, drop_icmp_unmatched);
  KEEL_C(tcp, drop_tx_failed);
  KEEL_C(tcp, handler_exceptions);
}

#undef KEEL_C

uint64_t InterfaceCounters::total_drops() const { return drops_of(*this); }
uint64_t StackCounters::total_drops() const { return drops_of(*this); }

}  // namespace net
