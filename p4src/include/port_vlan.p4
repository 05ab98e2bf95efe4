/*
 * port_vlan.p4 -- control `PortVlan` (instance `port_vlan`): puts every frame into a VLAN
 * (IEEE 802.1Q access and trunk ports) or drops it.
 *
 *   port_config ──▶ access port: untagged or priority-tagged (VID 0) ──▶ port VLAN
 *        │                       any other tag, or a tag (8100/88a8/9100) behind
 *        │                       the first EtherType ──▶ drop TAGGED_ON_ACCESS
 *        │
 *        └───────▶ trunk port:  tagged VID v ──▶ ingress_vlan_member(port, v) ──▶ v
 *                                                  miss ──▶ drop VLAN_NOT_ALLOWED
 *                               untagged / VID 0 ──▶ native VLAN, or drop UNTAGGED_ON_TRUNK
 *                               (a tag behind the first is payload: see vlan.p4)
 *   Then the outer tag is removed; the egress control vlan adds it back where needed.
 */
#ifndef VROUTER_PORT_VLAN_P4
#define VROUTER_PORT_VLAN_P4

control PortVlan(inout headers_t hdr, inout local_metadata_t meta) {
    bool      is_access   = false;
    bool      is_trunk    = false;
    vlan_id_t port_vlan   = 0;   /* access VLAN, or trunk native VLAN (0: none) */
    bool      vlan_member = false;

    /* Access port carrying one VLAN untagged.
     * Controller: a port with `mode: access, vlan: N` in network.yaml. */
    @id(ID_SET_ACCESS_PORT)
    action set_access_port(@id(1) vlan_id_t vlan_id) {
        is_access = true;
        port_vlan = vlan_id;
    }

    /* Trunk port: tagged frames of the allowed VLANs (ingress_vlan_member);
     * untagged frames go to native_vlan_id, or are dropped when it is 0.
     * Controller: a port with `mode: trunk` (optional native VLAN). */
    @id(ID_SET_TRUNK_PORT)
    action set_trunk_port(@id(1) vlan_id_t native_vlan_id) {
        is_trunk = true;
        port_vlan = native_vlan_id;
    }

    /* Ports without configuration take no traffic. */
    @id(ID_PORT_NOT_CONFIGURED)
    action port_not_configured() {
        meta.drop = true;
        meta.drop_reason = DROP_PORT_NOT_CONFIGURED;
    }

    /* Models: the mode of each switch port.  Written by: the controller's
     * port objects (one entry per configured port, CPU_PORT included when
     * the controller injects packets through the pipeline). */
    @id(ID_PORT_CONFIG)
    table port_config {
        key = {
            meta.ingress_port : exact @id(1) @name("ingress_port");
        }
        actions = {
            set_access_port;
            set_trunk_port;
            @defaultonly port_not_configured;
        }
        const default_action = port_not_configured();
        size = PORT_COUNT;
    }

    /* The VLAN is in the trunk's allowed list. */
    @id(ID_ALLOW_VLAN)
    action allow_vlan() {
        vlan_member = true;
    }

    /* Models: the allowed-VLAN list of trunk ports.  Written by: the
     * controller, one entry per (trunk port, allowed VLAN). */
    @id(ID_INGRESS_VLAN_MEMBER)
    table ingress_vlan_member {
        key = {
            meta.ingress_port : exact @id(1) @name("ingress_port");
            meta.vlan_id      : exact @id(2) @name("vlan_id");
        }
        actions = {
            allow_vlan;
            @defaultonly NoAction;
        }
        const default_action = NoAction();
        size = PORT_VLAN_TABLE_SIZE;
    }

    apply {
        port_config.apply();
        /* 802.1Q: only the first tag, and only a C-tag (0x8100) with a VID,
         * classifies; a priority tag (VID 0) belongs to the port's VLAN, and
         * whatever follows the first tag is payload, never read as the VLAN. */
        bool tagged = false;
        bit<16> payload_type = hdr.ethernet.ether_type;
        if (hdr.vlan.isValid()) {
            meta.vlan_pcp = hdr.vlan.pcp;
            payload_type = hdr.vlan.ether_type;
            if (hdr.vlan.vlan_id != 0) {
                tagged = true;
            }
        }

        if (is_access) {
            /* An access port takes untagged and priority-tagged frames whose
             * payload is not itself tagged (802.1Q, 802.1ad or Q-in-Q): a
             * host has no business sending tags. */
            if (tagged || is_vlan_tpid(payload_type)) {
                meta.drop = true;
                meta.drop_reason = DROP_TAGGED_ON_ACCESS;
            } else {
                meta.vlan_id = port_vlan;
            }
        } else if (is_trunk) {
            if (tagged) {
                meta.vlan_id = hdr.vlan.vlan_id;
                ingress_vlan_member.apply();
                if (!vlan_member) {
                    meta.drop = true;
                    meta.drop_reason = DROP_VLAN_NOT_ALLOWED;
                }
            } else if (port_vlan == 0) {
                meta.drop = true;
                meta.drop_reason = DROP_UNTAGGED_ON_TRUNK;
            } else {
                meta.vlan_id = port_vlan;
            }
        }

        /* Normalise: no outer tag inside the pipeline. */
        if (hdr.vlan.isValid()) {
            hdr.ethernet.ether_type = hdr.vlan.ether_type;
            hdr.vlan.setInvalid();
        }
        meta.egress_vlan_id = meta.vlan_id;
    }
}

#endif
