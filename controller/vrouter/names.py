"""Names and numbers of vrouter.p4 (docs/p4-program.md), in one place."""

PORT_CONFIG = "ingress.port_vlan.port_config"
INGRESS_VLAN_MEMBER = "ingress.port_vlan.ingress_vlan_member"
EGRESS_VLAN_MEMBER = "egress.vlan.egress_vlan_member"
L2_LEARNING = "ingress.learning.l2_learning"
PORT_SECURITY = "ingress.learning.port_security"          # ports past their station limit (on_limit drop)
DROP_UNKNOWN_SOURCES = "ingress.learning.drop_unknown_sources"
ACL = "ingress.acl.acl_ingress_table"
PORT_POLICER = "ingress.policer.port_policer"
VLAN_POLICER = "ingress.policer.vlan_policer"
ROUTER_MAC = "ingress.admit.router_mac"
MPLS_LABEL = "ingress.mpls.mpls_label"
ROUTER_ADDRESS = "ingress.routing.router_address"
IPV4_ROUTE = "ingress.routing.ipv4_route"
L2_UNICAST = "ingress.bridge.l2_unicast"
NEXTHOP = "ingress.nexthop.nexthop_table"
ECMP_SELECTOR = "ingress.nexthop.ecmp_selector"
FW_SRC_ZONE = "ingress.firewall.firewall_src_zone"
FW_DST_ZONE = "ingress.firewall.firewall_dst_zone"
FW_POLICY = "ingress.firewall.firewall_policy"
NAT_INBOUND = "ingress.nat_in.nat_inbound_interface"
NAT_OUTBOUND = "ingress.nat_out.nat_outbound_interface"
INTERFACE_MTU = "ingress.mtu.interface_mtu"
PW_TERMINATION = "ingress.pw_term.pw_termination"
PW_FLOOD = "egress.pw_flood.pw_flood"
PW_LEARNING = "ingress.pw_term.pw_learning"

PORT_METER = "ingress.port_meter"
VLAN_METER = "ingress.vlan_meter"
ACL_METER = "ingress.acl_meter"
LEARN_DIGEST = "mac_learn_digest_t"
PW_LEARN_DIGEST = "pw_learn_digest_t"

CLONE_SESSION = 511

# packet_in.reason
PUNT_REASONS = {1: "TTL_EXPIRED", 2: "ROUTER_ADDRESS", 3: "ARP", 4: "IP_OPTIONS", 5: "MTU_EXCEEDED",
                6: "ACL_PUNT", 7: "ACL_COPY", 8: "ROUTE_TO_CPU"}
TTL_EXPIRED, ROUTER_ADDRESS_HIT, ARP_PUNT, IP_OPTIONS, MTU_EXCEEDED, ACL_PUNT, ACL_COPY, ROUTE_TO_CPU = range(1, 9)

# VPLS: frames from a pseudowire flood through group PW_LOCAL_FLOOD_GROUP_BASE + VLAN (local ports).
PW_LOCAL_FLOOD_GROUP_BASE = 4096

# Next-hop id ranges (16-bit): static LSP next hops, ECMP groups, VPLS pseudowires, resolved neighbours.
LSP_NEXTHOP_BASE = 0x4000
ECMP_NEXTHOP_BASE = 0x6000
PW_NEXTHOP_BASE = 0x7000
NEIGHBOR_BASE = 0x8000
NEIGHBOR_LAST = 0xFFFF
