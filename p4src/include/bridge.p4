/*
 * bridge.p4 -- control `Bridge` (instance `bridge`): 802.1Q bridging inside the VLAN.
 *
 *   l2_unicast(vlan, dst MAC) ─ set_output_port ──▶ that port (back to the ingress port: drop HAIRPIN)
 *                             ├ to_pseudowire ──▶ next hop of a VPLS pseudowire (pw_encap.p4)
 *                             └ miss ──▶ flood: multicast group = VLAN id
 *                                        (unknown unicast, broadcast, multicast);
 *                                        from a pseudowire: PW_LOCAL_FLOOD_GROUP_BASE + VLAN id
 * The controller creates multicast group N with every member port of VLAN
 * N (and, for a VPLS VLAN, one replica per pseudowire and the local-only
 * group); the egress control vlan drops the copy for the ingress port.
 */
#ifndef VROUTER_BRIDGE_P4
#define VROUTER_BRIDGE_P4

control Bridge(inout headers_t hdr, inout local_metadata_t meta) {
    @id(ID_L2_UNICAST_COUNTER) DIRECT_COUNTER l2_unicast_counter;

    /* Known station: send to its port. */
    @id(ID_SET_OUTPUT_PORT)
    action set_output_port(@id(1) port_t port) {
        l2_unicast_counter.count();
        meta.egress_port = port;
    }

    /* Station behind a VPLS pseudowire: nexthop_id is the pseudowire's
     * next hop (set_nexthop_push2 / push1: transport and pseudowire labels). */
    @id(ID_TO_PSEUDOWIRE)
    action to_pseudowire(@id(1) nexthop_id_t nexthop_id) {
        l2_unicast_counter.count();
        meta.pw_encap = true;
        meta.nexthop_id = nexthop_id;
        meta.nexthop_valid = true;
    }

    /* Unknown destination: flood within the VLAN. */
    @id(ID_FLOOD)
    action flood() {
        meta.mcast_group = (bit<16>) meta.vlan_id;
    }

    /* Models: the MAC address table (FDB).  Written by: the controller from
     * learning digests and static MAC entries; to_pseudowire: the static
     * MACs of a VPLS pseudowire. */
    @id(ID_L2_UNICAST)
    table l2_unicast {
        key = {
            meta.vlan_id          : exact @id(1) @name("vlan_id");
            hdr.ethernet.dst_addr : exact @id(2) @name("dst_mac");
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
