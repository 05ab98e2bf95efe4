/*
 * nat.p4 -- source NAT (masquerade, NAPT) of routed IPv4 TCP/UDP on the
 * router interfaces the controller marks `nat: masquerade`.
 *
 *   inbound (before ipv4_routing):
 *     nat_inbound_interface(ingress VLAN) hit, TCP/UDP to that interface's
 *     address, destination port >= NAT_PORT_BASE
 *       ──▶ slot = port - NAT_PORT_BASE ──▶ [architecture: slot registers]
 *       live slot of this protocol and remote address/port
 *       ──▶ nat_translate: destination := the inside host's address/port
 *       otherwise untranslated (to the router's own address: punted)
 *   outbound (after the stateful firewall and the MTU check):
 *     nat_outbound_interface(egress VLAN) hit, routed TCP/UDP
 *       ──▶ slot = crc16(5-tuple) mod NAT_SLOTS ──▶ [architecture: registers]
 *       slot free, stale, or held by this flow ──▶ record, nat_translate:
 *         source := interface address, port NAT_PORT_BASE + slot
 *       slot held by another live flow ──▶ drop NAT_EXHAUSTED
 *
 * The firewall therefore always sees the inside host's own addresses.  The
 * slot registers are owned by the architecture layer (vrouter.p4), which
 * sets meta.nat_rewrite_* for nat_translate.  TCP/UDP checksums are updated
 * incrementally (RFC 1624); a UDP checksum of 0 (none) stays 0.
 */
#ifndef VROUTER_NAT_P4
#define VROUTER_NAT_P4

/* Inbound: is this packet a candidate reply to a masqueraded flow? */
control nat_inbound(inout headers_t hdr, inout local_metadata_t meta) {
    ipv4_addr_t interface_addr = 0;
    bool        masquerading = false;

    /* The ingress interface masquerades behind `addr`. */
    action reverse_masquerade(ipv4_addr_t addr) {
        interface_addr = addr;
        masquerading = true;
    }

    /* Models: router interfaces with `nat: masquerade` (ingress side).
     * Written by: the controller, one entry per masquerading VLAN. */
    table nat_inbound_interface {
        key = {
            meta.vlan_id : exact @name("vlan_id");
        }
        actions = {
            reverse_masquerade;
            @defaultonly NoAction;
        }
        const default_action = NoAction();
        size = NAT_INTERFACE_TABLE_SIZE;
    }

    apply {
        if (meta.l3_admit && !meta.acl_redirect && !meta.label_switched && hdr.ipv4.isValid()
                && !hdr.mpls[0].isValid() && meta.l4_valid && !meta.checksum_error) {
            nat_inbound_interface.apply();
            if (masquerading && hdr.ipv4.dst_addr == interface_addr
                    && meta.l4_dst_port >= NAT_PORT_BASE) {
                meta.nat_in_lookup = true;
                meta.nat_slot = (bit<32>) (meta.l4_dst_port - NAT_PORT_BASE);
            }
        }
    }
}

/* Outbound: does this routed packet leave through a masquerading interface? */
control nat_outbound(inout headers_t hdr, inout local_metadata_t meta) {
    DIRECT_COUNTER nat_outbound_counter;

    /* The egress interface masquerades behind `addr`. */
    action masquerade(ipv4_addr_t addr) {
        nat_outbound_counter.count();
        meta.nat_addr = addr;
        meta.nat_out = true;
    }

    /* Models: router interfaces with `nat: masquerade` (egress side), the
     * same content as nat_inbound_interface.  Written by: the controller. */
    table nat_outbound_interface {
        key = {
            meta.egress_vlan_id : exact @name("vlan_id");
        }
        actions = {
            masquerade;
            @defaultonly NoAction;
        }
        const default_action = NoAction();
        counters = nat_outbound_counter;
        size = NAT_INTERFACE_TABLE_SIZE;
    }

    apply {
        /* Only TCP and UDP are translated; other routed protocols leave
         * through the interface unchanged. */
        if (meta.route_ipv4 && meta.nexthop_valid && hdr.ipv4.isValid() && meta.l4_valid) {
            nat_outbound_interface.apply();
        }
    }
}

/* Rewrites the source (outbound) or destination (inbound) address and
 * port to meta.nat_new_addr/port, fixing the TCP/UDP checksum. */
control nat_translate(inout headers_t hdr, inout local_metadata_t meta) {
    apply {
        ipv4_addr_t old_addr;
        bit<16>     old_port;
        if (meta.nat_rewrite_src) {
            old_addr = hdr.ipv4.src_addr;
            old_port = meta.l4_src_port;
            hdr.ipv4.src_addr = meta.nat_new_addr;
            meta.l4_src_port = meta.nat_new_port;
            if (hdr.tcp.isValid()) {
                hdr.tcp.src_port = meta.nat_new_port;
            } else {
                hdr.udp.src_port = meta.nat_new_port;
            }
        } else {
            old_addr = hdr.ipv4.dst_addr;
            old_port = meta.l4_dst_port;
            hdr.ipv4.dst_addr = meta.nat_new_addr;
            meta.l4_dst_port = meta.nat_new_port;
            if (hdr.tcp.isValid()) {
                hdr.tcp.dst_port = meta.nat_new_port;
            } else {
                hdr.udp.dst_port = meta.nat_new_port;
            }
        }
        meta.update_ipv4_checksum = true;

        /* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m') over the changed words. */
        bit<16> old_sum;
        if (hdr.tcp.isValid()) {
            old_sum = hdr.tcp.checksum;
        } else {
            old_sum = hdr.udp.checksum;
        }
        bit<32> sum = (bit<32>) (~old_sum)
            + (bit<32>) (~old_addr[31:16]) + (bit<32>) (~old_addr[15:0]) + (bit<32>) (~old_port)
            + (bit<32>) meta.nat_new_addr[31:16] + (bit<32>) meta.nat_new_addr[15:0]
            + (bit<32>) meta.nat_new_port;
        sum = (sum & 0xffff) + (sum >> 16);
        sum = (sum & 0xffff) + (sum >> 16);
        bit<16> new_sum = ~sum[15:0];
        if (hdr.tcp.isValid()) {
            hdr.tcp.checksum = new_sum;
        } else if (hdr.udp.checksum != 0) {
            /* 0 means "no checksum" in UDP; a computed 0 is sent as 0xffff. */
            if (new_sum == 0) {
                new_sum = 0xffff;
            }
            hdr.udp.checksum = new_sum;
        }
    }
}

#endif
