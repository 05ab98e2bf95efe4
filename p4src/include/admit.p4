/*
 * admit.p4 -- control `Admit` (instance `admit`): is the frame for the router?
 *
 *   router_mac(vlan, dst MAC) ─hit─▶ meta.l3_admit: route (IPv4) or label-switch (MPLS)
 *                             └miss─▶ bridge within the VLAN
 */
#ifndef VROUTER_ADMIT_P4
#define VROUTER_ADMIT_P4

control Admit(inout headers_t hdr, inout local_metadata_t meta) {

    /* The frame is addressed to the router interface of this VLAN. */
    @id(ID_ADMIT_TO_L3)
    action admit_to_l3() {
        meta.l3_admit = true;
    }

    /* Models: the MAC address of each router interface (SVI).  Written by:
     * the controller, one entry per VLAN with a router interface. */
    @id(ID_ROUTER_MAC)
    table router_mac {
        key = {
            meta.vlan_id          : exact @id(1) @name("vlan_id");
            hdr.ethernet.dst_addr : exact @id(2) @name("dst_mac");
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
