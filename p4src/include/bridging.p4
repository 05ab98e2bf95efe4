/*
 * bridging.p4 -- control `bridging`: 802.1Q bridging inside the VLAN.
 *
 *   l2_unicast(vlan, dst MAC) ─ set_output_port ──▶ that port (back to the ingress port: drop HAIRPIN)
 *                             ├ to_pseudowire ──▶ next hop of a VPLS pseudowire (vpls.p4)
 *                             └ miss ──▶ flood: multicast group = VLAN id
 *                                        (unknown unicast, broadcast, multicast);
 *                                        from a pseudowire: PW_LOCAL_FLOOD_GROUP_BASE + VLAN id
 * The controller creates multicast group N with every member port of VLAN
 * N (and, for a VPLS VLAN, one replica per pseudowire and the local-only
 * group); egress_vlan drops the copy for the ingress port.
 */
#ifndef VROUTER_BRIDGING_P4
#define VROUTER_BRIDGING_P4

control bridging(inout headers_t hdr, inout local_metadata_t meta) {
    DIRECT_COUNTER l2_unicast_counter;

    /* Known station: send to its port. */
    action set_output_port(port_t port) {
        l2_unicast_counter.count();
        meta.egress_port = port;
    }

    /* Station behind a VPLS pseudowire: nexthop_id is the pseudowire's
     * next hop (set_nexthop_push2 / push1: transport and pseudowire labels). */
    action to_pseudowire(nexthop_id_t nexthop_id) {
        l2_unicast_counter.count();
        meta.pw_encap = true;
        meta.nexthop_id = nexthop_id;
        meta.nexthop_valid = true;
    }

    /* Unknown destination: flood within the VLAN. */
    action flood() {
        meta.mcast_group = (bit<16>) meta.vlan_id;
    }

    /* Models: the MAC address table (FDB).  Written by: the controller from
     * learning digests and static MAC entries; to_pseudowire: the static
     * MACs of a VPLS pseudowire. */
    table l2_unicast {
        key = {
            meta.vlan_id          : exact @name("vlan_id");
            hdr.ethernet.dst_addr : exact @name("dst_mac");
        }
        actions = {
            set_output_port;
            to_pseudowire;
            @defaultonly flood;
        }
        const default_action = flood();
        counters = l2_unicast_counter;
        size = L2_UNICAST_TABLE_SIZE;
    }

    apply {
        l2_unicast.apply();
        if (meta.mcast_group != 0 && meta.from_pseudowire) {
            meta.mcast_group = PW_LOCAL_FLOOD_GROUP_BASE + meta.mcast_group;
        } else if (meta.mcast_group == 0 && !meta.pw_encap && meta.egress_port == meta.ingress_port) {
            meta.drop = true;
            meta.drop_reason = DROP_HAIRPIN;
        }
    }
}

#endif
