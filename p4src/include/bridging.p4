/*
 * bridging.p4 -- control `bridging`: 802.1Q bridging inside the VLAN.
 *
 *   l2_unicast(vlan, dst MAC) ─hit─▶ that port (back to the ingress port: drop HAIRPIN)
 *                             └miss─▶ flood: multicast group = VLAN id
 *                                     (unknown unicast, broadcast, multicast)
 * The controller creates multicast group N with every member port of VLAN
 * N; egress_vlan drops the copy for the ingress port.
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

    /* Unknown destination: flood within the VLAN. */
    action flood() {
        meta.mcast_group = (bit<16>) meta.vlan_id;
    }

    /* Models: the MAC address table (FDB).  Written by: the controller from
     * learning digests and static MAC entries. */
    table l2_unicast {
        key = {
            meta.vlan_id          : exact @name("vlan_id");
            hdr.ethernet.dst_addr : exact @name("dst_mac");
        }
        actions = {
            set_output_port;
            @defaultonly flood;
        }
        const default_action = flood();
        counters = l2_unicast_counter;
        size = L2_UNICAST_TABLE_SIZE;
    }

    apply {
        l2_unicast.apply();
        if (meta.mcast_group == 0 && meta.egress_port == meta.ingress_port) {
            meta.drop = true;
            meta.drop_reason = DROP_HAIRPIN;
        }
    }
}

#endif
