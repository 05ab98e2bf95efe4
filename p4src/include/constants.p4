/*
 * constants.p4 -- every number the program is built around, in one place:
 * table and extern sizes, fixed port numbers, EtherTypes, and the codes
 * shared with the controller (drop reasons, packet-in reasons, TTL models).
 *
 * Codes shared with the controller are part of the contract documented in
 * docs/p4-program.md; never renumber them, only append.
 */
#ifndef VROUTER_CONSTANTS_P4
#define VROUTER_CONSTANTS_P4

/* ---------------- Fixed ports and sessions ---------------- */

/* Port on which the controller sends packet-outs and receives packet-ins.
 * Must equal the switch's --cpu-port.  Override with -DCPU_PORT_NUMBER=N. */
#ifndef CPU_PORT_NUMBER
#define CPU_PORT_NUMBER 255
#endif
const port_t CPU_PORT = CPU_PORT_NUMBER;

/* Clone session the controller creates towards CPU_PORT (ACL copy-to-CPU). */
const bit<32> CPU_CLONE_SESSION_ID = 511;

/* Receiver id of the MAC-learning digest. */
const bit<32> MAC_LEARN_DIGEST_RECEIVER = 1;

/* Receiver id of the learning digest of stations behind pseudowires (VPLS). */
const bit<32> PW_LEARN_DIGEST_RECEIVER = 2;

/* ---------------- Table sizes ---------------- */
const bit<32> PORT_COUNT               = 512;    /* ports 0..511 (bit<9>) */
const bit<32> VLAN_COUNT               = 4096;   /* VLAN ids 0..4095 */
const bit<32> PORT_VLAN_TABLE_SIZE     = 16384;  /* (port, VLAN) memberships */
const bit<32> L2_UNICAST_TABLE_SIZE    = 16384;  /* (VLAN, MAC) -> port */
const bit<32> L2_LEARNING_TABLE_SIZE   = 16384;  /* known (VLAN, MAC, port) */
const bit<32> ROUTER_MAC_TABLE_SIZE    = 4096;   /* one per router interface */
const bit<32> ROUTER_ADDRESS_TABLE_SIZE = 1024;  /* the router's own IPv4 addresses */
const bit<32> IPV4_ROUTE_TABLE_SIZE    = 16384;  /* IPv4 prefixes */
const bit<32> NEXTHOP_TABLE_SIZE       = 4096;   /* next-hop ids (single or ECMP) */
const bit<32> ECMP_SELECTOR_SIZE       = 8192;   /* action-profile members */
const bit<32> ECMP_HASH_WIDTH          = 16;     /* selector hash output bits */
const bit<32> MPLS_LABEL_TABLE_SIZE    = 4096;   /* incoming labels */
const bit<32> PW_TERMINATION_TABLE_SIZE = 4096;  /* pseudowire labels bound here (VPLS) */
const bit<32> PW_FLOOD_TABLE_SIZE      = 4096;   /* pseudowires flood copies go to (VPLS) */
const bit<32> PW_LEARNING_TABLE_SIZE   = 16384;  /* known (VLAN, MAC, pseudowire) (VPLS) */
const bit<32> INTERFACE_MTU_TABLE_SIZE = 4096;   /* one per router interface */
const bit<32> ACL_INGRESS_TABLE_SIZE   = 16384;  /* ACL rules (S5 measures up to 10,000) */
const bit<32> ACL_METER_COUNT          = 1024;   /* policers an ACL rule can name */
const bit<32> FIREWALL_ZONE_TABLE_SIZE = 4096;   /* VLAN -> zone */
const bit<32> FIREWALL_POLICY_TABLE_SIZE = 1024; /* zone pairs */
const bit<32> FIREWALL_CONN_SLOTS      = 65536;  /* connection-state slots */

const bit<32> NAT_INTERFACE_TABLE_SIZE = 4096;   /* masquerading router interfaces */
const bit<32> NAT_SLOTS                = 16384;  /* NAT translation slots = ports */

/* Source NAT: slot i translates to port NAT_PORT_BASE + i (49152..65535, the
 * dynamic range). */
const bit<16> NAT_PORT_BASE  = 49152;

/* VPLS: frames that came from a pseudowire flood through multicast group
 * PW_LOCAL_FLOOD_GROUP_BASE + VLAN (the VLAN's local ports only, split
 * horizon); frames from local ports through group VLAN (local ports and, with
 * replication id != 0, one copy per pseudowire). */
const bit<16> PW_LOCAL_FLOOD_GROUP_BASE = 4096;

/* ---------------- Connection state (firewall and NAT slots) ----------------
 * A slot holds one flow: its full key, a state and the time of its last
 * packet.  A slot matches a packet only if its state is not CONN_FREE, it is
 * live, and every key field is equal: an empty slot matches nothing. */
const bit<8> CONN_FREE    = 0;   /* never used, or closed by a TCP RST */
const bit<8> CONN_OPEN    = 1;
const bit<8> CONN_CLOSING = 2;   /* TCP FIN seen (either side): short timeout */

/* Idle timeouts: a slot is live while now - last_seen <= its timeout. */
const bit<48> TCP_TIMEOUT_US         = 300000000;  /* 300 s, open TCP */
const bit<48> TCP_CLOSING_TIMEOUT_US = 10000000;   /* 10 s after a FIN */
const bit<48> UDP_TIMEOUT_US         = 60000000;   /* 60 s */
const bit<48> ICMP_TIMEOUT_US        = 10000000;   /* 10 s, echo request to reply */

/* Counter index spaces. */
const bit<32> DROP_REASON_COUNT        = 64;
const bit<32> METER_COLOR_SLOTS        = 4;      /* index * 4 + colour */

/* ---------------- Protocol numbers ---------------- */
const bit<16> ETHERTYPE_IPV4 = 0x0800;
const bit<16> ETHERTYPE_ARP  = 0x0806;
const bit<16> ETHERTYPE_VLAN = 0x8100;
const bit<16> ETHERTYPE_MPLS = 0x8847;
const bit<16> ETHERTYPE_QINQ = 0x88a8;         /* 802.1ad service tag (S-tag) */
const bit<16> ETHERTYPE_QINQ_LEGACY = 0x9100;  /* pre-802.1ad Q-in-Q tag */

/* Does a receiver read this EtherType as a VLAN tag?  The program classifies
 * by the 802.1Q tag (0x8100) only, as an 802.1Q bridge does, but a frame
 * whose payload starts with any of these must not leave untagged: the next
 * switch would take that tag for the frame's VLAN (VLAN hopping). */
bool is_vlan_tpid(in bit<16> ether_type) {
    return ether_type == ETHERTYPE_VLAN || ether_type == ETHERTYPE_QINQ
        || ether_type == ETHERTYPE_QINQ_LEGACY;
}
const bit<8>  IP_PROTO_ICMP  = 1;
const bit<8>  IP_PROTO_TCP   = 6;
const bit<8>  IP_PROTO_UDP   = 17;
const bit<8>  ICMP_ECHO_REPLY   = 0;
const bit<8>  ICMP_ECHO_REQUEST = 8;
const bit<8>  TCP_FLAG_FIN = 0x01;
const bit<8>  TCP_FLAG_SYN = 0x02;
const bit<8>  TCP_FLAG_RST = 0x04;
const bit<8>  TCP_FLAG_ACK = 0x10;

const bit<20> MPLS_LABEL_EXPLICIT_NULL = 0;
const bit<20> MPLS_LABEL_IMPLICIT_NULL = 3;
const bit<8>  MPLS_PIPE_TTL            = 255;   /* TTL of labels pushed in pipe mode */

/* ---------------- Codes shared with the controller ---------------- */

/* MPLS TTL model of an LSP: action parameter `ttl_mode`. */
const bit<1> TTL_MODE_UNIFORM = 0;  /* MPLS TTL carries the IP TTL */
const bit<1> TTL_MODE_PIPE    = 1;  /* the LSP counts as one IP hop */

/* Meter colours (RFC 2698, as v1model meters return them). */
const bit<2> COLOR_GREEN  = 0;
const bit<2> COLOR_YELLOW = 1;
const bit<2> COLOR_RED    = 2;

/* Packet-in reasons: packet_in.reason. */
const cpu_reason_t CPU_REASON_NONE           = 0;
const cpu_reason_t CPU_REASON_TTL_EXPIRED    = 1;  /* routed IPv4 with TTL <= 1 */
const cpu_reason_t CPU_REASON_ROUTER_ADDRESS = 2;  /* IPv4 to one of the router's addresses */
const cpu_reason_t CPU_REASON_ARP            = 3;  /* ARP whose target is a router address */
const cpu_reason_t CPU_REASON_IP_OPTIONS     = 4;  /* routed IPv4 with options (IHL > 5) */
const cpu_reason_t CPU_REASON_MTU_EXCEEDED   = 5;  /* too big for the egress interface, DF set */
const cpu_reason_t CPU_REASON_ACL_PUNT       = 6;  /* ACL action punt_to_cpu */
const cpu_reason_t CPU_REASON_ACL_COPY       = 7;  /* ACL action copy_to_cpu (a clone) */
const cpu_reason_t CPU_REASON_ROUTE_TO_CPU   = 8;  /* route action route_to_cpu (e.g. unresolved host) */

/* Drop reasons: index of ingress_drop_counter / egress_drop_counter. */
const drop_reason_t DROP_NONE                  = 0;
const drop_reason_t DROP_PORT_NOT_CONFIGURED   = 1;  /* ingress port has no port_config entry */
const drop_reason_t DROP_TAGGED_ON_ACCESS      = 2;  /* VLAN-tagged frame on an access port (or a tag behind a priority tag) */
const drop_reason_t DROP_UNTAGGED_ON_TRUNK     = 3;  /* untagged frame on a trunk without native VLAN */
const drop_reason_t DROP_VLAN_NOT_ALLOWED      = 4;  /* tagged VLAN not allowed on the ingress trunk */
const drop_reason_t DROP_PARSER_ERROR          = 5;  /* truncated or malformed headers */
const drop_reason_t DROP_HAIRPIN               = 6;  /* bridged unicast back to its ingress port */
const drop_reason_t DROP_IPV4_CHECKSUM         = 7;  /* routed IPv4 with a bad header checksum */
const drop_reason_t DROP_IPV4_INVALID          = 8;  /* routed IPv4 with version != 4 or IHL < 5 */
const drop_reason_t DROP_NO_ROUTE              = 9;  /* LPM miss */
const drop_reason_t DROP_ROUTE_BLACKHOLE       = 10; /* route action drop_route */
const drop_reason_t DROP_NEXTHOP_MISS          = 11; /* next-hop id without entry */
const drop_reason_t DROP_MTU_EXCEEDED          = 12; /* too big for the egress interface, DF clear */
const drop_reason_t DROP_MPLS_TOO_DEEP         = 13; /* more than 3 labels, or a push beyond 3 */
const drop_reason_t DROP_MPLS_UNKNOWN_LABEL    = 14; /* top label without mpls_label entry */
const drop_reason_t DROP_MPLS_TTL_EXPIRED      = 15; /* label TTL <= 1 at swap or PHP */
const drop_reason_t DROP_MPLS_UNSUPPORTED      = 16; /* pop leaves something other than IPv4 */
const drop_reason_t DROP_L3_UNSUPPORTED        = 17; /* to the router MAC but neither IPv4, MPLS nor ARP */
const drop_reason_t DROP_METER_RED             = 18; /* a policer coloured the packet red */
const drop_reason_t DROP_ACL_DENY              = 19; /* ACL action deny */
const drop_reason_t DROP_FIREWALL              = 20; /* toward the trusted zone without a live connection (or not a tracked flow) */
const drop_reason_t DROP_EGRESS_VLAN_NOT_MEMBER = 21; /* egress port does not carry the VLAN */
const drop_reason_t DROP_FLOOD_INGRESS_PORT    = 22; /* flood copy for the port the frame came in on (expected) */
const drop_reason_t DROP_PW_UNKNOWN_LABEL      = 23; /* bottom label over Ethernet (not IPv4) without pw_termination entry */
const drop_reason_t DROP_PW_UNSUPPORTED        = 24; /* a frame a pseudowire cannot carry (MPLS or a second tag inside), or a pseudowire frame without control word */
const drop_reason_t DROP_PW_SPLIT_HORIZON      = 25; /* from a pseudowire to a pseudowire (VPLS split horizon) */
const drop_reason_t DROP_PW_FLOOD_MISS         = 26; /* egress: flood copy whose replication id has no pw_flood entry */
const drop_reason_t DROP_NAT_EXHAUSTED         = 27; /* to a masquerading interface, its NAT slot held by another live flow (a collision) */
const drop_reason_t DROP_UNKNOWN_SOURCE        = 28; /* source MAC not known on a port locked at its station limit */
const drop_reason_t DROP_INNER_TAG_EXPOSED     = 29; /* egress: would leave untagged with a VLAN tag first in its payload */
const drop_reason_t DROP_FIREWALL_COLLISION    = 30; /* a new flow whose connection slot holds another live flow */

#endif
