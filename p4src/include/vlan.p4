/*
 * vlan.p4 -- control `Vlan` (instance `vlan`): the VLAN tag a frame leaves with.
 *
 *   flood copy for the ingress port ──▶ drop FLOOD_INGRESS_PORT (split horizon)
 *   egress_vlan_member(egress port, egress VLAN)
 *     ├ tag_vlan   ──▶ push an 802.1Q tag (VID = egress VLAN, PCP as received)
 *     ├ untag_vlan ──▶ leave untagged (access port, trunk native VLAN);
 *     │                but a payload that starts with a tag (a second tag, an
 *     │                802.1ad tag) ──▶ drop INNER_TAG_EXPOSED
 *     └ miss       ──▶ drop EGRESS_VLAN_NOT_MEMBER
 *
 * No VLAN hopping: a frame leaves with the tag of the VLAN it was classified
 * into (or with none, on that VLAN's untagged ports).  Untagged, a frame that
 * carries another tag in its payload would be read by the next switch as a
 * frame of that tag's VLAN, so it is dropped here and counted.
 */
#ifndef VROUTER_VLAN_P4
#define VROUTER_VLAN_P4

control Vlan(inout headers_t hdr, inout local_metadata_t meta) {
    bool push_tag = false;

    /* Trunk port carrying this VLAN tagged. */
    @id(ID_TAG_VLAN)
    action tag_vlan() {
        push_tag = true;
    }

    /* Access port of this VLAN, or the trunk's native VLAN. */
    @id(ID_UNTAG_VLAN)
    action untag_vlan() {
        push_tag = false;
    }

    /* Miss: the port does not carry the VLAN (EGRESS_VLAN_NOT_MEMBER). */
    @id(ID_VLAN_NOT_MEMBER)
    action vlan_not_member() {
        meta.drop = true;
        meta.drop_reason = DROP_EGRESS_VLAN_NOT_MEMBER;
    }

    /* Models: VLAN membership of ports on the way out, and whether tagged.
     * Written by: the controller's port objects: access port P of VLAN V:
     * (P, V) -> untag_vlan; trunk P: (P, V) -> tag_vlan per allowed V and
     * (P, native) -> untag_vlan. */
    @id(ID_EGRESS_VLAN_MEMBER)
    table egress_vlan_member {
        key = {
            meta.egress_port    : exact @id(1) @name("egress_port");
            meta.egress_vlan_id : exact @id(2) @name("vlan_id");
        }
        actions = {
            tag_vlan;
            untag_vlan;
            @defaultonly vlan_not_member;
        }
        const default_action = vlan_not_member();
        size = PORT_VLAN_TABLE_SIZE;
    }

    apply {
        if (meta.mcast_group != 0 && meta.egress_port == meta.ingress_port) {
            meta.drop = true;
            meta.drop_reason = DROP_FLOOD_INGRESS_PORT;
        } else {
            egress_vlan_member.apply();
            if (push_tag) {
                hdr.vlan.setValid();
                hdr.vlan.pcp = meta.vlan_pcp;
                hdr.vlan.dei = 0;
                hdr.vlan.vlan_id = meta.egress_vlan_id;
                hdr.vlan.ether_type = hdr.ethernet.ether_type;
                hdr.ethernet.ether_type = ETHERTYPE_VLAN;
            } else if (!meta.drop && is_vlan_tpid(hdr.ethernet.ether_type)) {
                meta.drop = true;
                meta.drop_reason = DROP_INNER_TAG_EXPOSED;
            }
        }
    }
}

#endif
