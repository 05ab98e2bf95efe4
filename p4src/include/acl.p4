/*
 * acl.p4 -- control `Acl` (instance `acl`): the ingress access-control list.
 *
 *   acl_ingress_table (ternary/range keys, highest priority wins, per-rule counter)
 *       permit | deny | punt_to_cpu | copy_to_cpu | redirect_to_nexthop | police
 *
 * The table is looked up early; its decisions take effect where they belong:
 * deny -> verdict (drop), punt -> skips forwarding, copy -> clone at the end
 * of ingress, redirect -> replaces the forwarding lookup, police -> acl_meter.
 * IPv4 keys read 0 on non-IPv4 packets; L4 keys read 0 unless the packet is
 * an unfragmented TCP/UDP packet without IP options.
 */
#ifndef VROUTER_ACL_P4
#define VROUTER_ACL_P4

control Acl(inout headers_t hdr, inout local_metadata_t meta) {
    ipv4_addr_t ipv4_src = 0;
    ipv4_addr_t ipv4_dst = 0;
    bit<8>      ip_protocol = 0;
    bit<6>      dscp = 0;

    @id(ID_ACL_INGRESS_COUNTER) DIRECT_COUNTER acl_ingress_counter;

    /* Let the packet continue (overrides lower-priority rules). */
    @id(ID_ACL_PERMIT)
    action permit() {
        acl_ingress_counter.count();
    }

    /* Drop the packet (DROP_ACL_DENY). */
    @id(ID_ACL_DENY)
    action deny() {
        acl_ingress_counter.count();
        meta.drop = true;
        meta.drop_reason = DROP_ACL_DENY;
    }

    /* Send the packet to the controller only (CPU_REASON_ACL_PUNT). */
    @id(ID_ACL_PUNT_TO_CPU)
    action punt_to_cpu() {
        acl_ingress_counter.count();
        meta.punt = true;
        meta.cpu_reason = CPU_REASON_ACL_PUNT;
    }

    /* Forward normally and send a copy to the controller
     * (CPU_REASON_ACL_COPY, via clone session CPU_CLONE_SESSION_ID). */
    @id(ID_ACL_COPY_TO_CPU)
    action copy_to_cpu() {
        acl_ingress_counter.count();
        meta.copy_to_cpu = true;
    }

    /* Policy-based forwarding: ignore the bridging/routing lookup and leave
     * through next hop `nexthop_id` (nexthop_table); IPv4 is treated as
     * routed (TTL check and decrement). */
    @id(ID_ACL_REDIRECT_TO_NEXTHOP)
    action redirect_to_nexthop(@id(1) nexthop_id_t nexthop_id) {
        acl_ingress_counter.count();
        meta.acl_redirect = true;
        meta.acl_nexthop_id = nexthop_id;
    }

    /* Permit and police with acl_meter[meter_id]: red is dropped, yellow is
     * forwarded, with DSCP set to yellow_dscp when yellow_remark is 1. */
    @id(ID_ACL_POLICE)
    action police(@id(1) acl_meter_id_t meter_id, @id(2) bit<1> yellow_remark, @id(3) bit<6> yellow_dscp) {
        acl_ingress_counter.count();
        meta.acl_police = true;
        meta.acl_meter_id = meter_id;
        meta.acl_yellow_remark = yellow_remark;
        meta.acl_yellow_dscp = yellow_dscp;
    }

    /* Models: the operator's ingress ACL rules, in priority order.
     * Written by: the controller's `acl` rules in network.yaml (P4Runtime
     * priority = rule precedence; an omitted field is a wildcard). */
    @id(ID_ACL_INGRESS_TABLE)
    table acl_ingress_table {
        key = {
            meta.ingress_port       : ternary @id(1) @name("ingress_port");
            meta.vlan_id            : ternary @id(2) @name("vlan_id");
            hdr.ethernet.src_addr   : ternary @id(3) @name("src_mac");
            hdr.ethernet.dst_addr   : ternary @id(4) @name("dst_mac");
            hdr.ethernet.ether_type : ternary @id(5) @name("ether_type");
            ipv4_src                : ternary @id(6) @name("ipv4_src");
            ipv4_dst                : ternary @id(7) @name("ipv4_dst");
            ip_protocol             : ternary @id(8) @name("ip_protocol");
            dscp                    : ternary @id(9) @name("dscp");
            meta.l4_src_port        : range   @id(10) @name("l4_src_port");
            meta.l4_dst_port        : range   @id(11) @name("l4_dst_port");
            meta.tcp_flags          : ternary @id(12) @name("tcp_flags");
        }
        actions = {
            permit;
            deny;
            punt_to_cpu;
            copy_to_cpu;
            redirect_to_nexthop;
            police;
            @defaultonly NoAction;
        }
        const default_action = NoAction();
        counters = acl_ingress_counter;
        size = ACL_INGRESS_TABLE_SIZE;
    }

    apply {
        if (hdr.ipv4.isValid()) {
            ipv4_src = hdr.ipv4.src_addr;
            ipv4_dst = hdr.ipv4.dst_addr;
            ip_protocol = hdr.ipv4.protocol;
            dscp = hdr.ipv4.dscp;
        }
        acl_ingress_table.apply();
    }
}

#endif
