// The internals of one interface (api/net/interface.hpp): Ethernet in and
// out, ARP, the transmit queue in front of the NIC, the IPv4 settings
// (static or DHCP) and the multicast groups. Received IPv4 goes up to the
// host stack's IPv4 layer; IPv4 going out comes down through transmit_ip().
#pragma once
#include <cstdint>
#include <memory>
#include <net/address.hpp>
#include <net/config.hpp>
#include <net/counters.hpp>
#include <net/interface.hpp>
#include <net/ip4_addr.hpp>
#include <net/nic.hpp>
#include <string>
#include <vector>

#include "arp.hpp"
#include "frame_queue.hpp"
#include "mld.hpp"
#include "ndp.hpp"
#include "routers.hpp"

namespace net {

struct StackParts;
class Dhcp;

// How a frame was addressed at the link layer.
enum class LinkCast : uint8_t { unicast, broadcast, multicast };

class Link {
 public:
  // Frames waiting for room in the NIC's ring; senders hear would_block
  // above the high mark and on_writable below the low one.
  static constexpr std::size_t queue_frames = 256;
  static constexpr std::size_t queue_high = queue_frames * 3 / 4;
  static constexpr std::size_t queue_low = queue_frames / 4;

  Link(StackParts& parts, Nic& nic, InterfaceId id);
  ~Link();

  InterfaceId id() const { return id_; }
  const std::string& name() const { return name_; }
  Nic& nic() { return nic_; }
  ethernet::Addr mac() const { return mac_; }
  uint16_t mtu() const { return mtu_; }
  Interface& interface() { return *interface_; }
  void set_interface(Interface* interface) { interface_ = interface; }
  InterfaceCounters& counters() { return counters_; }

  // From the NIC: data() at the destination MAC.
  void receive(PacketPtr frame);
  // An IPv4 packet (data() at its header) to `next_hop` on this link: a
  // broadcast or multicast address goes to the matching Ethernet group,
  // anything else through ARP.
  void transmit_ip(PacketPtr packet, ip4::Addr next_hop);
  // An IPv6 packet to `next_hop`: a group to its Ethernet group (RFC 2464
  // §7), anything else through Neighbor Discovery.
  void transmit_ip6(PacketPtr packet, const ip6::Addr& next_hop);
  // Prepends the Ethernet header and hands the frame to the NIC, or queues
  // it while the NIC's ring is full.
  void transmit_frame(PacketPtr payload, ethernet::Addr dst, uint16_t type);
  bool congested() const { return congested_; }
  std::size_t backlog() const { return queue_.size(); }
  // A transmit buffer from the NIC's pool, with headroom for every header.
  PacketPtr allocate();
  // A transmit buffer holding `bytes` of an IPv4 payload (UDP, TCP): from the
  // NIC's pool, or, larger than a pool buffer or with the pool empty, a heap
  // buffer of its own (which IPv4 fragments by copying). `offload_checksum`:
  // the NIC completes the payload's checksum (a pool buffer, the NIC offers
  // it, and the packet will not be fragmented: offload cannot span fragments).
  // `segmented`: a TSO segment larger than the MTU (segmentation_offload):
  // a heap buffer, checksum offloaded.
  struct Outgoing {
    PacketPtr packet;  // null: no memory
    uint8_t* data = nullptr;
    bool offload_checksum = false;
  };
  Outgoing allocate(uint32_t bytes, bool segmented = false);
  // The NIC segments TCP over that family (Nic::Offloads::tso4/tso6).
  bool segments_tcp(bool ip6) const {
    Nic::Offloads o = nic_.offloads();
    return ip6 ? o.tso6 : o.tso4;
  }

  // IPv4 settings.
  void configure(ip4::Addr address, ip4::Addr netmask, ip4::Addr gateway,
                 std::vector<ip4::Addr> dns);
  void deconfigure();
  void apply(const InterfaceConfig& config);
  void start_dhcp(const InterfaceConfig& fallback);
  bool is_configured() const { return !address_.is_any(); }
  ip4::Addr address() const { return address_; }
  ip4::Addr netmask() const { return netmask_; }
  ip4::Addr gateway() const { return gateway_; }
  const std::vector<ip4::Addr>& dns() const { return dns_; }
  void on_config(Interface::ConfigHandler handler);
  // The on_config handlers due since the last call (Stack::poll: the one
  // moment the service's handlers run).
  void run_config_handlers() {
    if (!config_due_.empty()) run_due_config_handlers();  // (after every frame: inline)
  }
  bool config_handlers_due() const { return !config_due_.empty(); }
  // The directed broadcast address of our subnet (RFC 919/922); none for
  // /31 and /32, or when unconfigured. (Without one, the limited broadcast
  // stands in: every caller treats that as a broadcast anyway.)
  bool is_directed_broadcast(ip4::Addr a) const { return a == broadcast_; }
  ip4::Addr directed_broadcast() const { return broadcast_; }

  // IPv6 settings (docs/net/ipv6.md): the link-local address, from the MAC
  // (decision 0130), a static address with its prefix and a gateway, and
  // SLAAC's addresses, routers and prefixes (decision 0133).
  void configure6(const ip6::Addr& address, uint8_t prefix_len, const ip6::Addr& gateway);
  // SLAAC on (`auto`): solicit routers and form addresses from their prefixes.
  void start_slaac(SlaacIid iid);
  const ip6::Addr& link_local() const { return link_local_; }
  // IPv6 is on once a setting gave this interface an IPv6 address or `auto` (decision 0130):
  // until then its IPv6 frames are dropped and counted and it has no IPv6 route.
  bool ip6_on() const { return ip6_on_; }
  const ip6::Addr& address6() const { return address6_; }
  uint8_t prefix6() const { return prefix6_; }
  const ip6::Addr& gateway6() const { return gateway6_; }
  // Whether `a` is one of this interface's unicast IPv6 addresses (tentative ones are not).
  bool has_address6(const ip6::Addr& a) const {
    return a == link_local_ || (!address6_.is_any() && a == address6_) || routers_.slaac().has(a);
  }
  // Whether `group` is the solicited-node group of one of our addresses,
  // tentative ones included (RFC 4861 §7.2.1, RFC 4862 §5.4.2).
  bool is_solicited_group6(const ip6::Addr& group) const;
  // Calls fn(address) for each unicast IPv6 address, tentative ones included.
  template <class Fn>
  void for_each_address6(Fn fn) const {
    fn(link_local_);
    if (!address6_.is_any()) fn(address6_);
    ndp_.for_each_tentative(fn);
    for (const Slaac::Address& a : routers_.slaac().addresses()) fn(a.address);
  }
  // The global address to send from: the static one, else SLAAC's (any() if none).
  ip6::Addr global_source6() const;
  // Whether `a` is on this link: the static prefix or an advertised on-link one.
  bool on_link6(const ip6::Addr& a) const { return on_link_length6(a) >= 0; }
  // The length of the longest of those prefixes holding `a` (routing's
  // longest match, decision 0134); -1 when none does.
  int on_link_length6(const ip6::Addr& a) const;
  // The static gateway, else a default router from advertisements (any() if none).
  ip6::Addr router6() const;
  // IPv6's MTU: the link's, lowered by an advertised MTU option.
  uint16_t mtu6() const { return routers_.mtu() ? uint16_t(routers_.mtu()) : mtu_; }
  Ndp& ndp() { return ndp_; }
  RouterDiscovery& routers() { return routers_; }
  Mld& mld() { return mld_; }
  // Whether the stack forwards IPv6 (a router: NAs say so, RFC 4861 §4.4).
  bool forwards6() const;
  // From Ndp: resolution failed for a queued IPv6 packet (RFC 4861 §7.2.2).
  void neighbour_unreachable(const Packet& packet);
  // An address was added, detected or removed: MLD reports its group's change.
  void addresses6_changed() { mld_.update(); }
  // From Ndp: a tentative address is ours (unique) or someone else's.
  void dad_finished(const ip6::Addr& address, bool unique);

  void join(ip4::Addr group);
  void leave(ip4::Addr group);
  bool joined(ip4::Addr group) const;

  // Time: protocols' deadlines on this interface.
  void poll(uint64_t now);
  uint64_t next_deadline() const;
  void wake_by(uint64_t deadline_ns);
  uint64_t now() const;

 private:
  void run_due_config_handlers();
  bool accepts_group(const ethernet::Addr& mac) const;
  bool accepts_group6(const ethernet::Addr& mac) const;
  void drain_queue();
  // To the NIC, or into the queue while its ring is full.
  void send_frame(PacketPtr frame);
  void transmit_segmented(PacketPtr frame);
  void configured();
  void add_own_route(Route route);
  void remove_own_routes();

  StackParts& parts_;
  Nic& nic_;
  InterfaceId id_;
  std::string name_;
  ethernet::Addr mac_;
  uint16_t mtu_;
  Interface* interface_ = nullptr;
  InterfaceCounters counters_;
  Arp arp_;
  Ndp ndp_;
  RouterDiscovery routers_;
  Mld mld_;
  ip6::Addr link_local_, address6_, gateway6_;
  ip6::Addr pending6_;  // the static address under detection
  bool ip6_on_ = false;
  uint8_t prefix6_ = 0;
  FrameQueue queue_{queue_frames};
  bool congested_ = false;
  void update_broadcast();
  void print_address6() const;

  ip4::Addr address_, netmask_, gateway_;
  ip4::Addr broadcast_ = ip4::Addr::broadcast();
  // The routes configure() added (the subnet, the default route), which
  // deconfigure() and the next configure() remove; routes others added
  // through this interface stay.
  std::vector<Route> own_routes_;
  std::vector<ip4::Addr> dns_;
  std::vector<Interface::ConfigHandler> config_handlers_;
  std::vector<std::size_t> config_due_;  // indices into config_handlers_
  std::vector<ip4::Addr> groups_;
  std::unique_ptr<Dhcp> dhcp_;
};

// RFC 1112 §6.4: 01:00:5e and the low 23 bits of the group.
inline ethernet::Addr multicast_mac(ip4::Addr group) {
  uint32_t v = group.value;
  return {{0x01, 0x00, 0x5e, uint8_t((v >> 16) & 0x7f), uint8_t(v >> 8), uint8_t(v)}};
}

}  // namespace net
