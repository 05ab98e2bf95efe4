/*
 * l3_admit.p4 -- control `l3_admit`: is the frame for the router?
 *
 *   router_mac(vlan, dst MAC) ─hit─▶ meta.l3_admit: route (IPv4) or label-switch (MPLS)
 *                             └miss─▶ bridge within the VLAN
 */
#ifndef VROUTER_L3_ADMIT_P4
#define VROUTER_L3_ADMIT_P4

control l3_admit(inout headers_t hdr, inout local_metadata_t meta) {

    /* The frame is addressed to the router interface of this VLAN. */
    action admit_to_l3() {
        meta.l3_admit = true;
    }

    /* Models: the MAC address of each router interface (SVI).  Written by:
     * the controller, one entry per VLAN with a router interface. */
    table router_mac {
        key = {
            meta.vlan_id          : exact @name("vlan_id");
            hdr.ethernet.dst_addr : exact @name("dst_mac");
        }
        actions = {
            admit_to_l3;
            @defaultonly NoAction;
        }
        const default_action = NoAction();
        size = ROUTER_MAC_TABLE_SIZE;
    }

    apply {
        router_mac.apply();
    }
}

#endif
