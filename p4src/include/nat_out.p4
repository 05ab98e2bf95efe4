/*
 * nat_out.p4 -- control `NatOut` (instance `nat_out`): does this routed packet leave through a
 * masquerading interface (nat_in.p4 has the NAT overview)?
 *
 *   nat_outbound_interface(egress VLAN) ─ masquerade(addr) ──▶ meta.nat_out: the
 *                                         architecture layer's slot state decides
 */
#ifndef VROUTER_NAT_OUT_P4
#define VROUTER_NAT_OUT_P4

/* Outbound: does this routed packet leave through a masquerading interface? */
control NatOut(inout headers_t hdr, inout local_metadata_t meta) {
    @id(ID_NAT_OUTBOUND_COUNTER) DIRECT_COUNTER nat_outbound_counter;

    /* The egress interface masquerades behind `addr`. */
    @id(ID_MASQUERADE)
    action masquerade(@id(1) ipv4_addr_t addr) {
        nat_outbound_counter.count();
        meta.nat_addr = addr;
        meta.nat_out = true;
    }

    /* Models: router interfaces with `nat: masquerade` (egress side), the
     * same content as nat_inbound_interface.  Written by: the controller. */
    @id(ID_NAT_OUTBOUND_INTERFACE)
    table nat_outbound_interface {
        key = {
            meta.egress_vlan_id : exact @id(1) @name("vlan_id");
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
        /* Only TCP, UDP and ICMP echo are translated; other routed
         * protocols leave through the interface unchanged. */
        if (meta.route_ipv4 && meta.nexthop_valid && hdr.ipv4.isValid() && meta.flow_valid) {
            nat_outbound_interface.apply();
        }
    }
}

#endif
