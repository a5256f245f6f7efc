// Every compile error: location (file:line:column) and wording.
#include <gtest/gtest.h>

#include "test_helpers.hpp"

namespace keel::firewall::testing {
namespace {

struct Case {
  const char* text;
  const char* error;
};

class Errors : public ::testing::TestWithParam<Case> {};

TEST_P(Errors, ReportsLocationAndExpectation) {
  EXPECT_EQ(first_error(GetParam().text), GetParam().error);
}

INSTANTIATE_TEST_SUITE_P(
    Firewall, Errors,
    ::testing::Values(
        // syntax
        Case{"chain x hook input {\n  tcp dport 22 allow\n}",
             "t.fw:2:16: error: expected a condition or an action (accept, drop, reject, log, "
             "jump, snat, dnat, "
             "masquerade), found 'allow'"},
        Case{"rules",
             "t.fw:1:1: error: expected a statement (define, interface, route, conntrack or "
             "chain), found 'rules'"},
        Case{"chain x hook sideways { }",
             "t.fw:1:14: error: expected a hook (prerouting, input, forward, output, postrouting), "
             "found 'sideways'"},
        Case{"chain x hook input { ip saddr 10.0.0.300 drop }",
             "t.fw:1:31: error: malformed IPv4 address '10.0.0.300': expected four numbers 0-255 "
             "separated by dots"},
        Case{"chain x hook input { ip saddr 10.0.0.0/33 drop }",
             "t.fw:1:31: error: prefix length out of range in '10.0.0.0/33': expected 0-32"},
        Case{"chain x hook input { ip saddr 10.0.0.1/8 drop }",
             "t.fw:1:31: error: prefix '10.0.0.1/8' has host bits set: expected the network "
             "address"},
        Case{"chain x hook input { tcp dport 90-80 drop }",
             "t.fw:1:32: error: impossible range 90-80: start is greater than end"},
        Case{"chain x hook input { ip saddr 10.0.0.9-10.0.0.1 drop }",
             "t.fw:1:31: error: impossible range: start address is greater than end address"},
        Case{"define a = { 10.0.0.1, 80 }",
             "t.fw:1:24: error: mixed list: expected address like the first element, found number"},
        Case{"chain x hook input { tcp flags syn,!syn drop }",
             "t.fw:1:32: error: impossible flags: a flag is both required and excluded"},
        Case{"chain x hook input { ct state old drop }",
             "t.fw:1:31: error: expected a connection state (new, established, related, invalid, "
             "untracked), found 'old'"},
        Case{"chain x hook input { log rate 0/second drop }",
             "t.fw:1:31: error: log rate out of range: expected 1/minute to 1092/second"},
        Case{"chain x hook input { (tcp drop }",
             "t.fw:1:27: error: expected ')' to close the parenthesis, found 'drop'"},
        Case{"chain x hook input { ip saddr \"a drop }",
             "t.fw:1:31: error: unterminated string: expected '\"' before end of line"},
        Case{"interface e { netmask 255.0.255.0 }",
             "t.fw:1:35: error: netmask is not contiguous: expected ones followed by zeros"},
        Case{"interface e { vlan 5000 }",
             "t.fw:1:20: error: vlan id out of range: expected 1-4094"},
        Case{"chain x policy drop { }",
             "t.fw:1:7: error: a policy needs a hook: chain 'x' has none"},
        Case{"define a = file \"/nonexistent/list\"",
             "t.fw:1:17: error: cannot read list file '/nonexistent/list'"},
        // names
        Case{"chain x hook input { ip saddr $nope drop }",
             "t.fw:1:31: error: undefined name 'nope'"},
        Case{"chain x hook input { iif eth9 drop }",
             "t.fw:1:26: error: undefined interface 'eth9'"},
        Case{"chain x hook input { jump nowhere }", "t.fw:1:27: error: undefined chain 'nowhere'"},
        Case{"route 0.0.0.0/0 via 10.0.0.1 dev eth7",
             "t.fw:1:34: error: undefined interface 'eth7'"},
        Case{"define a = 1\ndefine a = 2",
             "t.fw:2:8: error: duplicate definition of name 'a' (first defined at t.fw:1:8)"},
        Case{
            "interface e { }\ninterface e { }",
            "t.fw:2:11: error: duplicate definition of interface 'e' (first defined at t.fw:1:11)"},
        Case{"chain c { }\nchain c { }",
             "t.fw:2:7: error: duplicate definition of chain 'c' (first defined at t.fw:1:7)"},
        Case{"chain a hook input { }\nchain b hook input { }",
             "t.fw:2:14: error: duplicate definition of hook 'input' (first attached by chain 'a' "
             "at t.fw:1:7)"},
        // types and ranges
        Case{"define admin = 10.0.0.1\nchain x hook input { tcp dport $admin accept }",
             "t.fw:2:32: error: type mismatch: tcp dport expects a number, range or list of "
             "numbers, found address "
             "'$admin' (defined at t.fw:1:8)"},
        Case{"chain x hook input { ip daddr 80 accept }",
             "t.fw:1:31: error: type mismatch: ip daddr expects an IPv4 address, prefix or address "
             "range, found number"},
        Case{"chain x hook input { iif 10.0.0.1 accept }",
             "t.fw:1:26: error: type mismatch: iif expects an interface name, found address"},
        Case{"chain x hook input { udp sport 70000 accept }",
             "t.fw:1:32: error: value 70000 out of range for udp sport: expected 0-65535"},
        Case{"chain x hook input { ttl 300 accept }",
             "t.fw:1:26: error: value 300 out of range for ttl: expected 0-255"},
        Case{"chain x hook input { ttl < { 1, 2 } accept }",
             "t.fw:1:28: error: comparison needs a single value, not a range or list"},
        Case{"conntrack off\nchain x hook input { ct state new accept }",
             "t.fw:2:22: error: 'ct state' needs connection tracking: remove 'conntrack off'"},
        // actions and hooks
        Case{"chain a hook input { jump b }\nchain b { jump a }",
             "t.fw:2:16: error: cannot jump to 'a': it is attached to a hook; expected a chain "
             "without 'hook'"},
        Case{"chain a hook input { jump b }\nchain b { jump c }\nchain c { jump b }",
             "t.fw:3:16: error: jump cycle: a -> b -> c -> b"},
        Case{"chain a hook prerouting { reject }",
             "t.fw:1:27: error: 'reject' is only allowed in input, forward and output hooks, not "
             "prerouting"},
        Case{"chain a hook input { masquerade }",
             "t.fw:1:22: error: address translation is only allowed in nat chains (chain ... type "
             "nat)"},
        Case{"chain a type nat hook prerouting { drop }",
             "t.fw:1:36: error: 'drop' is not allowed in nat chains: expected accept, snat, dnat "
             "or masquerade"},
        Case{"chain a type nat hook postrouting { dnat to 1.2.3.4 }",
             "t.fw:1:37: error: 'dnat' belongs in nat chains on hook prerouting or output"},
        Case{"chain a type nat hook forward { }",
             "t.fw:1:23: error: nat chains attach to prerouting, input, output or postrouting, not "
             "forward"},
        Case{"interface e { }\nchain a hook input { oif e drop }",
             "t.fw:2:22: error: 'oif' is not known in hook input: expected 'iif'"},
        Case{"interface e { }\nchain a hook output { iif e drop }",
             "t.fw:2:23: error: 'iif' is not known in hook output: expected 'oif'"},
        // IPv6
        Case{"chain x hook input { ip6 saddr 2001:db8:::1 drop }",
             "t.fw:1:32: error: malformed IPv6 address '2001:db8:::1': '::' may appear only once"},
        Case{"chain x hook input { ip6 saddr 1:2:3:4:5:6:7:8:9 drop }",
             "t.fw:1:32: error: malformed IPv6 address '1:2:3:4:5:6:7:8:9': expected eight groups "
             "of hex digits, or '::' for the zero groups"},
        Case{"chain x hook input { ip6 saddr 12345::/16 drop }",
             "t.fw:1:32: error: malformed IPv6 address '12345::/16': group '12345' is not 1-4 hex "
             "digits"},
        Case{"chain x hook input { ip6 saddr ::ffff:1.2.3.256 drop }",
             "t.fw:1:32: error: malformed IPv6 address '::ffff:1.2.3.256': the embedded IPv4 "
             "address '1.2.3.256' is not four numbers 0-255"},
        Case{"chain x hook input { ip6 saddr 2001:db8::/129 drop }",
             "t.fw:1:32: error: prefix length out of range in '2001:db8::/129': expected 0-128"},
        Case{"chain x hook input { ip6 saddr 2001:db8::1/64 drop }",
             "t.fw:1:32: error: prefix '2001:db8::1/64' has host bits set: expected the network "
             "address"},
        Case{"chain x hook input { ip6 saddr 2001:db8::9-2001:db8::1 drop }",
             "t.fw:1:32: error: impossible range: start address is greater than end address"},
        Case{"chain x hook input { ip saddr ::1 drop }",
             "t.fw:1:31: error: type mismatch: ip saddr expects an IPv4 address, prefix or address "
             "range, found IPv6 address: IPv6 addresses are matched by 'ip6 saddr'"},
        Case{"chain x hook input { ip6 daddr 10.0.0.1 drop }",
             "t.fw:1:32: error: type mismatch: ip6 daddr expects an IPv6 address, prefix or "
             "address range, found address: IPv4 addresses are matched by 'ip daddr'"},
        Case{"chain x hook input { ip6 saddr { ::1, 10.0.0.1 } drop }",
             "t.fw:1:39: error: mixed list: expected IPv6 address like the first element, found "
             "address"},
        Case{"chain x hook input { ip saddr 10.0.0.1 ip6 daddr ::1 drop }",
             "t.fw:1:40: error: rule mixes IPv4 and IPv6: 'ip6 daddr' here and 'ip saddr' at "
             "t.fw:1:22; write one rule per family"},
        Case{"chain x hook input { icmp type 8 or icmpv6 type 128 accept }",
             "t.fw:1:37: error: rule mixes IPv4 and IPv6: 'icmpv6 type' here and 'icmp type' at "
             "t.fw:1:22; write one rule per family"},
        Case{"chain n type nat hook prerouting { ip6 daddr ::1 tcp dport 80 dnat to 10.0.0.2 }",
             "t.fw:1:36: error: NAT is IPv4 only: 'ip6 daddr' cannot match in a nat chain"},
        Case{"chain n type nat hook prerouting { tcp dport 80 dnat to 2001:db8::1 }",
             "t.fw:1:57: error: '2001:db8::1' is an IPv6 address: interfaces, routes and NAT take "
             "IPv4 only"},
        Case{"chain x hook input { icmpv6 type echo drop }",
             "t.fw:1:34: error: unknown name 'echo': expected a number or one of "
             "destination-unreachable, packet-too-big, time-exceeded, parameter-problem, "
             "echo-request, echo-reply, mld-listener-query, mld-listener-report, "
             "mld-listener-done, nd-router-solicit, nd-router-advert, nd-neighbor-solicit, "
             "nd-neighbor-advert, nd-redirect, router-renumbering, mld2-listener-report"},
        Case{"chain x hook input { icmpv6 type 256 drop }",
             "t.fw:1:34: error: value 256 out of range for icmpv6 type: expected 0-255"}));

TEST(Errors, ListFileErrorsPointIntoTheListFile) {
  std::string dir = ::testing::TempDir();
  std::string list = dir + "/bad_list.txt";
  FILE* f = fopen(list.c_str(), "w");
  ASSERT_TRUE(f);
  fputs("10.0.0.1\n10.0.0.2\n  10.0.0.999\n", f);
  fclose(f);
  CompileResult r = compile_source("define b = file \"bad_list.txt\"", "t.fw", dir);
  ASSERT_FALSE(r.errors.empty());
  EXPECT_EQ(r.errors[0], list +
                             ":3:3: error: malformed IPv4 address '10.0.0.999': expected four "
                             "numbers 0-255 separated by dots");
}

}  // namespace
}  // namespace keel::firewall::testing
