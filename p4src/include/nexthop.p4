/*
 * nexthop.p4 -- control `Nexthop` (instance `nexthop`): from a next-hop id to the
 * frame that leaves, for routed, label-switched and redirected packets.
 *
 *   nexthop_table(nexthop_id; 5-tuple selector = ecmp_selector)
 *     ├ set_nexthop(port, vlan, dst MAC, src MAC)
 *     ├ set_nexthop_push1(..., label, ttl_mode)                  ingress LER, 1 label
 *     ├ set_nexthop_push2(..., outer_label, inner_label, ttl_mode) ingress LER, 2 labels
 *     └ miss ──▶ drop NEXTHOP_MISS
 *   then MPLS push: EXP from DSCP; TTL from IPv4 (uniform) or 255 (pipe);
 *   a push beyond 3 labels ──▶ drop MPLS_TOO_DEEP
 *
 * A next-hop id is either one action-profile member (a single next hop) or
 * a group of members (ECMP): the selector hashes IPv4 source, destination,
 * protocol and L4 ports, so one flow always takes one member.
 */
#ifndef VROUTER_NEXTHOP_P4
#define VROUTER_NEXTHOP_P4

control Nexthop(inout headers_t hdr, inout local_metadata_t meta) {
    ECMP_ACTION_SELECTOR(ecmp_selector, ID_ECMP_SELECTOR);
    @id(ID_NEXTHOP_COUNTER) DIRECT_COUNTER nexthop_counter;

    ipv4_addr_t hash_ipv4_src = 0;
    ipv4_addr_t hash_ipv4_dst = 0;
    bit<8>      hash_ip_protocol = 0;

    /* Plain next hop: leave through `port` in `vlan_id`, Ethernet header
     * rewritten to dst_mac / src_mac (the router interface MAC). */
    @id(ID_SET_NEXTHOP)
    action set_nexthop(@id(1) port_t port, @id(2) vlan_id_t vlan_id,
                       @id(3) mac_addr_t dst_mac, @id(4) mac_addr_t src_mac) {
        nexthop_counter.count();
        meta.egress_port = port;
        meta.egress_vlan_id = vlan_id;
        hdr.ethernet.dst_addr = dst_mac;
        hdr.ethernet.src_addr = src_mac;
    }

    /* Next hop into an LSP: as set_nexthop, and push `label`. */
    @id(ID_SET_NEXTHOP_PUSH1)
    action set_nexthop_push1(@id(1) port_t port, @id(2) vlan_id_t vlan_id,
                             @id(3) mac_addr_t dst_mac, @id(4) mac_addr_t src_mac,
                             @id(5) mpls_label_t label, @id(6) bit<1> ttl_mode) {
        nexthop_counter.count();
        meta.egress_port = port;
        meta.egress_vlan_id = vlan_id;
        hdr.ethernet.dst_addr = dst_mac;
        hdr.ethernet.src_addr = src_mac;
        meta.mpls_push_count = 1;
        meta.mpls_push_outer = label;
        meta.mpls_ttl_mode = ttl_mode;
    }

    /* Next hop into an LSP with two labels: outer_label on top (transport),
     * inner_label below it (e.g. service label). */
    @id(ID_SET_NEXTHOP_PUSH2)
    action set_nexthop_push2(@id(1) port_t port, @id(2) vlan_id_t vlan_id,
                             @id(3) mac_addr_t dst_mac, @id(4) mac_addr_t src_mac,
                             @id(5) mpls_label_t outer_label, @id(6) mpls_label_t inner_label,
                             @id(7) bit<1> ttl_mode) {
        nexthop_counter.count();
        meta.egress_port = port;
        meta.egress_vlan_id = vlan_id;
        hdr.ethernet.dst_addr = dst_mac;
        hdr.ethernet.src_addr = src_mac;
        meta.mpls_push_count = 2;
        meta.mpls_push_outer = outer_label;
        meta.mpls_push_inner = inner_label;
        meta.mpls_ttl_mode = ttl_mode;
    }

    /* Models: next hops (neighbour, interface, LSP) and ECMP groups.
     * Written by: the controller: one action-profile member per next hop
     * (ecmp_selector), one group per ECMP route, and one entry per next-hop
     * id pointing at the member or the group. */
    @id(ID_NEXTHOP_TABLE)
    table nexthop_table {
        key = {
            meta.nexthop_id  : exact    @id(1) @name("nexthop_id");
            hash_ipv4_src    : selector @id(2) @name("ipv4_src");
            hash_ipv4_dst    : selector @id(3) @name("ipv4_dst");
            hash_ip_protocol : selector @id(4) @name("ip_protocol");
            meta.l4_src_port : selector @id(5) @name("l4_src_port");
            meta.l4_dst_port : selector @id(6) @name("l4_dst_port");
        }
        actions = {
            set_nexthop;
            set_nexthop_push1;
            set_nexthop_push2;
            @defaultonly NoAction;
        }
        /* No default_action: tables with an action selector cannot have
         * one on BMv2, so a miss is detected with .hit below. */
        implementation = ecmp_selector;
        counters = nexthop_counter;
        size = NEXTHOP_TABLE_SIZE;
    }

    apply {
        if (meta.acl_redirect) {
            meta.nexthop_id = meta.acl_nexthop_id;
        }
        if (hdr.ipv4.isValid()) {
            hash_ipv4_src = hdr.ipv4.src_addr;
            hash_ipv4_dst = hdr.ipv4.dst_addr;
            hash_ip_protocol = hdr.ipv4.protocol;
        }
        if (nexthop_table.apply().hit) {
            meta.is_routed = true;
            meta.mcast_group = 0;
        } else {
            meta.drop = true;
            meta.drop_reason = DROP_NEXTHOP_MISS;
        }

        if (!meta.drop && meta.mpls_push_count != 0) {
            if ((meta.mpls_push_count == 1 && hdr.mpls[2].isValid())
                    || (meta.mpls_push_count == 2 && hdr.mpls[1].isValid())) {
                meta.drop = true;
                meta.drop_reason = DROP_MPLS_TOO_DEEP;
            } else {
                /* Values the new labels inherit from what they carry. */
                bit<1> bos = 1;
                bit<3> exp = 0;
                bit<8> ttl = MPLS_PIPE_TTL;
                if (hdr.mpls[0].isValid()) {
                    bos = 0;
                    exp = hdr.mpls[0].exp;
                    ttl = hdr.mpls[0].ttl;
                } else if (hdr.ipv4.isValid()) {
                    exp = hdr.ipv4.dscp[5:3];
                    ttl = hdr.ipv4.ttl;
                }
                if (meta.mpls_ttl_mode == TTL_MODE_PIPE) {
                    ttl = MPLS_PIPE_TTL;
                }

                if (meta.mpls_push_count == 2) {
                    hdr.mpls.push_front(2);
                    hdr.mpls[1].setValid();
                    hdr.mpls[1].label = meta.mpls_push_inner;
                    hdr.mpls[1].exp = exp;
                    hdr.mpls[1].bos = bos;
                    hdr.mpls[1].ttl = ttl;
                    bos = 0;
                } else {
                    hdr.mpls.push_front(1);
                }
                hdr.mpls[0].setValid();
                hdr.mpls[0].label = meta.mpls_push_outer;
                hdr.mpls[0].exp = exp;
                hdr.mpls[0].bos = bos;
                hdr.mpls[0].ttl = ttl;
                hdr.ethernet.ether_type = ETHERTYPE_MPLS;
            }
        }
    }
}

#endif
