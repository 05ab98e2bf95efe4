/*
 * headers.p4 -- the program's types and the headers it parses or emits.
 *
 * Header order on the wire (deparser order):
 *   packet_in | ethernet | vlan | inner_vlan | mpls[0..2] | pw_control_word | pw_ethernet
 *   | arp | ipv4 | tcp | udp | icmp
 * pw_ethernet is the Ethernet header of a frame carried by a VPLS pseudowire
 * (RFC 4448 raw mode, with the control word RFC 8469 recommends); what
 * follows it (arp, ipv4, ...) is that frame's payload.
 * packet_out is only ever parsed (from CPU_PORT), never emitted.
 */
#ifndef VROUTER_HEADERS_P4
#define VROUTER_HEADERS_P4

typedef bit<9>  port_t;
typedef bit<48> mac_addr_t;
typedef bit<32> ipv4_addr_t;
typedef bit<12> vlan_id_t;
typedef bit<20> mpls_label_t;
typedef bit<16> nexthop_id_t;
typedef bit<8>  zone_t;
typedef bit<16> acl_meter_id_t;
typedef bit<8>  drop_reason_t;
typedef bit<8>  cpu_reason_t;

#define MPLS_MAX_DEPTH 3

/* Controller header prepended by the switch to every packet sent to
 * CPU_PORT; P4Runtime turns it into PacketIn metadata (ids 1..4). */
@controller_header("packet_in") @id(ID_PACKET_IN_HEADER)
header packet_in_header_t {
    @id(1) port_t       ingress_port;  /* port the packet arrived on */
    @id(2) vlan_id_t    vlan_id;       /* VLAN it was classified into (0: none yet) */
    @id(3) bit<3>       _pad;          /* always 0 */
    @id(4) cpu_reason_t reason;        /* CPU_REASON_* in constants.p4 */
}

/* Controller header the switch prepends from PacketOut metadata (ids 1..3)
 * to packets the controller sends; parsed only on CPU_PORT. */
@controller_header("packet_out") @id(ID_PACKET_OUT_HEADER)
header packet_out_header_t {
    @id(1) port_t egress_port;        /* used when submit_to_ingress == 0 */
    @id(2) bit<1> submit_to_ingress;  /* 1: process as if received on CPU_PORT */
    @id(3) bit<6> _pad;               /* always 0 */
}

/* Pseudowire control word (RFC 4385 / 4448): first nibble 0, so the payload
 * under the bottom label cannot be taken for IPv4.  Sent as all zeros (no
 * sequencing); its fields are ignored on receipt. */
header pw_control_word_t {
    bit<4>  zero;
    bit<4>  flags;
    bit<2>  frg;
    bit<6>  length;
    bit<16> sequence;
}

header ethernet_t {
    mac_addr_t dst_addr;
    mac_addr_t src_addr;
    bit<16>    ether_type;
}

/* IEEE 802.1Q tag. */
header vlan_tag_t {
    bit<3>    pcp;
    bit<1>    dei;
    vlan_id_t vlan_id;
    bit<16>   ether_type;
}

header mpls_t {
    mpls_label_t label;
    bit<3>       exp;   /* traffic class */
    bit<1>       bos;   /* bottom of stack */
    bit<8>       ttl;
}

/* ARP for IPv4 over Ethernet. */
header arp_t {
    bit<16>     hw_type;
    bit<16>     proto_type;
    bit<8>      hw_addr_len;
    bit<8>      proto_addr_len;
    bit<16>     opcode;
    mac_addr_t  sender_hw_addr;
    ipv4_addr_t sender_proto_addr;
    mac_addr_t  target_hw_addr;
    ipv4_addr_t target_proto_addr;
}

/* IPv4 fixed header; options (IHL > 5) stay in the payload. */
header ipv4_t {
    bit<4>      version;
    bit<4>      ihl;
    bit<6>      dscp;
    bit<2>      ecn;
    bit<16>     total_len;
    bit<16>     identification;
    bit<1>      reserved;
    bit<1>      dont_fragment;
    bit<1>      more_fragments;
    bit<13>     frag_offset;
    bit<8>      ttl;
    bit<8>      protocol;
    bit<16>     hdr_checksum;
    ipv4_addr_t src_addr;
    ipv4_addr_t dst_addr;
}

header tcp_t {
    bit<16> src_port;
    bit<16> dst_port;
    bit<32> seq_no;
    bit<32> ack_no;
    bit<4>  data_offset;
    bit<4>  res;
    bit<8>  flags;       /* CWR ECE URG ACK PSH RST SYN FIN */
    bit<16> window;
    bit<16> checksum;
    bit<16> urgent_ptr;
}

/* ICMP; for echo request/reply (types 8/0) the last 4 bytes are the
 * identifier and sequence number, for other types the rest of the header. */
header icmp_t {
    bit<8>  type;
    bit<8>  code;
    bit<16> checksum;
    bit<16> identifier;
    bit<16> sequence;
}

header udp_t {
    bit<16> src_port;
    bit<16> dst_port;
    bit<16> length;
    bit<16> checksum;
}

struct headers_t {
    packet_in_header_t  packet_in;
    packet_out_header_t packet_out;
    ethernet_t          ethernet;
    vlan_tag_t          vlan;        /* outer tag; removed in ingress, re-added in egress */
    vlan_tag_t          inner_vlan;  /* second tag, carried through untouched */
    mpls_t[MPLS_MAX_DEPTH] mpls;
    pw_control_word_t   pw_control_word; /* under the bottom label of a pseudowire (VPLS) */
    ethernet_t          pw_ethernet; /* customer frame after the control word (VPLS) */
    arp_t               arp;
    ipv4_t              ipv4;
    tcp_t               tcp;
    udp_t               udp;
    icmp_t              icmp;
}

/* Digest raised when a (VLAN, source MAC) is unknown on its ingress port. */
struct mac_learn_digest_t {
    vlan_id_t  vlan_id;
    mac_addr_t src_mac;
    port_t     ingress_port;
}

/* Digest raised when a (VLAN, source MAC) arriving over a pseudowire is
 * unknown behind that pseudowire (named by the label this PE bound for it). */
struct pw_learn_digest_t {
    vlan_id_t    vlan_id;
    mac_addr_t   src_mac;
    mpls_label_t pw_label;
}

#endif
