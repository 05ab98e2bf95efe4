/*
 * parser.p4 -- architecture-neutral header parser.  The v1model parser in
 * ../vrouter.p4 sets meta.ingress_port and then runs this one.
 *
 *   start ─(CPU_PORT)─▶ packet_out ─┐
 *     └────────────────────────────▶ ethernet ─▶ vlan ─▶ inner_vlan (stop)
 *                                       │          │
 *                                       ├──────────┴─▶ arp
 *                                       ├──────────┴─▶ mpls[0] ─▶ mpls[1] ─▶ mpls[2] ─▶ (4th label: too deep)
 *                                       │                 ├─(bottom of stack, first nibble 4)─▶ ipv4
 *                                       │                 └─(bottom of stack, first nibble 0)─▶ pw_control_word ─▶ pw_ethernet ─▶ arp | ipv4
 *                                       └──────────┴─▶ ipv4 ─(IHL 5, not a later fragment)─▶ tcp | udp | icmp
 */
#ifndef VROUTER_PARSER_P4
#define VROUTER_PARSER_P4

parser PacketParser(packet_in packet,
                     out headers_t hdr,
                     inout local_metadata_t meta) {
    state start {
        transition select(meta.ingress_port) {
            CPU_PORT: parse_packet_out;
            default: parse_ethernet;
        }
    }

    state parse_packet_out {
        packet.extract(hdr.packet_out);
        transition parse_ethernet;
    }

    state parse_ethernet {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_VLAN: parse_vlan;
            ETHERTYPE_MPLS: parse_mpls0;
            ETHERTYPE_IPV4: parse_ipv4;
            ETHERTYPE_ARP:  parse_arp;
            default: accept;
        }
    }

    state parse_vlan {
        packet.extract(hdr.vlan);
        transition select(hdr.vlan.ether_type) {
            ETHERTYPE_VLAN: parse_inner_vlan;
            ETHERTYPE_MPLS: parse_mpls0;
            ETHERTYPE_IPV4: parse_ipv4;
            ETHERTYPE_ARP:  parse_arp;
            default: accept;
        }
    }

    /* A second tag is only recorded (access ports drop such frames); the
     * payload behind it is carried through unparsed. */
    state parse_inner_vlan {
        packet.extract(hdr.inner_vlan);
        transition accept;
    }

    state parse_mpls0 {
        packet.extract(hdr.mpls[0]);
        transition select(hdr.mpls[0].bos) {
            1: parse_mpls_payload;
            default: parse_mpls1;
        }
    }

    state parse_mpls1 {
        packet.extract(hdr.mpls[1]);
        transition select(hdr.mpls[1].bos) {
            1: parse_mpls_payload;
            default: parse_mpls2;
        }
    }

    state parse_mpls2 {
        packet.extract(hdr.mpls[2]);
        transition select(hdr.mpls[2].bos) {
            1: parse_mpls_payload;
            default: mpls_too_deep;
        }
    }

    /* More than MPLS_MAX_DEPTH labels: stop here; ingress drops the packet
     * (DROP_MPLS_TOO_DEEP) if it is to be label-switched. */
    state mpls_too_deep {
        meta.mpls_too_deep = true;
        transition accept;
    }

    /* MPLS carries no payload type: an IPv4 payload is recognised by its
     * version nibble, the Ethernet frame of a pseudowire by the control word
     * in front of it (first nibble 0; RFC 4385, RFC 8469).  Without a
     * control word a carried frame whose destination MAC starts with nibble
     * 4 would be taken for IPv4 here and by every P router's ECMP and MTU
     * check, so this program's pseudowires always carry one.  Anything else
     * stays unparsed payload. */
    state parse_mpls_payload {
        transition select(packet.lookahead<bit<4>>()) {
            4: parse_ipv4;
            0: parse_pw_control_word;
            default: accept;
        }
    }

    state parse_pw_control_word {
        packet.extract(hdr.pw_control_word);
        transition parse_pw_ethernet;
    }

    /* The customer frame of a pseudowire: its own header and, for the P
     * router's MTU check and ECMP hash, its IPv4 or ARP payload. */
    state parse_pw_ethernet {
        packet.extract(hdr.pw_ethernet);
        transition select(hdr.pw_ethernet.ether_type) {
            ETHERTYPE_IPV4: parse_ipv4;
            ETHERTYPE_ARP:  parse_arp;
            default: accept;
        }
    }

    state parse_arp {
        packet.extract(hdr.arp);
        transition accept;
    }

    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        transition select(hdr.ipv4.ihl, hdr.ipv4.frag_offset, hdr.ipv4.protocol) {
            (5, 0, IP_PROTO_TCP): parse_tcp;
            (5, 0, IP_PROTO_UDP): parse_udp;
            (5, 0, IP_PROTO_ICMP): parse_icmp;
            default: accept;
        }
    }

    state parse_tcp {
        packet.extract(hdr.tcp);
        meta.l4_valid = true;
        meta.l4_src_port = hdr.tcp.src_port;
        meta.l4_dst_port = hdr.tcp.dst_port;
        meta.tcp_flags = hdr.tcp.flags;
        meta.flow_valid = true;
        meta.flow_src_port = hdr.tcp.src_port;
        meta.flow_dst_port = hdr.tcp.dst_port;
        transition accept;
    }

    state parse_udp {
        packet.extract(hdr.udp);
        meta.l4_valid = true;
        meta.l4_src_port = hdr.udp.src_port;
        meta.l4_dst_port = hdr.udp.dst_port;
        meta.flow_valid = true;
        meta.flow_src_port = hdr.udp.src_port;
        meta.flow_dst_port = hdr.udp.dst_port;
        transition accept;
    }

    /* ICMP echo is a flow for the firewall and NAT: its identifier plays the
     * requester's port (request: source side, reply: destination side). */
    state parse_icmp {
        packet.extract(hdr.icmp);
        transition select(hdr.icmp.type) {
            ICMP_ECHO_REQUEST: parse_icmp_echo_request;
            ICMP_ECHO_REPLY:   parse_icmp_echo_reply;
            default: accept;
        }
    }

    state parse_icmp_echo_request {
        meta.flow_valid = true;
        meta.flow_src_port = hdr.icmp.identifier;
        meta.flow_dst_port = 0;
        transition accept;
    }

    state parse_icmp_echo_reply {
        meta.flow_valid = true;
        meta.flow_src_port = 0;
        meta.flow_dst_port = hdr.icmp.identifier;
        transition accept;
    }
}

#endif
