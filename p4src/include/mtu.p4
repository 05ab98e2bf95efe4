/*
 * mtu.p4 -- control `Mtu` (instance `mtu`): per router interface MTU for packets
 * that leave through a next hop (routed, label-switched, redirected).
 *
 *   interface_mtu(egress VLAN) ──▶ mtu (no entry: no limit)
 *   L3 size = IPv4 total length + 4 bytes per MPLS label on the way out
 *             (+ 18 for the control word and Ethernet header of a frame carried
 *             by a pseudowire)
 *   L3 size > mtu ─ DF set ──▶ punt MTU_EXCEEDED (controller sends ICMP
 *                 │            "fragmentation needed")
 *                 └ DF clear, or a frame going into a pseudowire (bridged:
 *                   no ICMP) ──▶ drop MTU_EXCEEDED (no fragmentation)
 * Flood copies into pseudowires (made in egress) and non-IPv4 frames are
 * not checked.
 * Runs in ingress, after the next hop is known, so the too-big packet can
 * still be sent to the CPU; the packet-in carries the packet as it would
 * have left (rewritten MACs, decremented TTL, pushed labels).
 */
#ifndef VROUTER_MTU_P4
#define VROUTER_MTU_P4

control Mtu(inout headers_t hdr, inout local_metadata_t meta) {

    /* IP MTU of the router interface, in bytes. */
    @id(ID_SET_MTU)
    action set_mtu(@id(1) bit<16> mtu) {
        meta.mtu = mtu;
    }

    /* Models: the MTU of each router interface (SVI).  Written by: the
     * controller's router interfaces (`mtu` in network.yaml). */
    @id(ID_INTERFACE_MTU)
    table interface_mtu {
        key = {
            meta.egress_vlan_id : exact @id(1) @name("vlan_id");
        }
        actions = {
            set_mtu;
            @defaultonly NoAction;
        }
        const default_action = NoAction();
        size = INTERFACE_MTU_TABLE_SIZE;
    }

    apply {
        if (meta.is_routed && hdr.ipv4.isValid()) {
            interface_mtu.apply();
            bit<16> l3_size = hdr.ipv4.total_len;
            if (hdr.mpls[0].isValid()) {
                l3_size = l3_size + 4;
            }
            if (hdr.mpls[1].isValid()) {
                l3_size = l3_size + 4;
            }
            if (hdr.mpls[2].isValid()) {
                l3_size = l3_size + 4;
            }
            if (hdr.pw_ethernet.isValid()) {
                l3_size = l3_size + 18;   /* control word + Ethernet header */
            }
            if (meta.mtu != 0 && l3_size > meta.mtu) {
                if (hdr.ipv4.dont_fragment == 1 && !meta.pw_encap) {
                    meta.punt = true;
                    meta.cpu_reason = CPU_REASON_MTU_EXCEEDED;
                } else {
                    meta.drop = true;
                    meta.drop_reason = DROP_MTU_EXCEEDED;
                }
            }
        }
    }
}

#endif
