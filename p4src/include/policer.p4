/*
 * policer.p4 -- control `Policer` (instance `policer`): which two-rate three-colour
 * policers (RFC 2698) a packet passes through.
 *
 *   port_policer(ingress port) ─hit─▶ port_meter[ingress_port]
 *   vlan_policer(vlan)         ─hit─▶ vlan_meter[vlan_id]
 *   ACL action police          ─────▶ acl_meter[meter_id]
 *
 * The meters themselves (rates, bursts; bytes) are executed by the
 * architecture layer; enforce then acts on the colours.
 */
#ifndef VROUTER_POLICER_P4
#define VROUTER_POLICER_P4

control Policer(inout headers_t hdr, inout local_metadata_t meta) {

    /* Police this port's ingress traffic with port_meter[ingress_port];
     * yellow packets get DSCP yellow_dscp when yellow_remark is 1. */
    @id(ID_SET_PORT_POLICER)
    action set_port_policer(@id(1) bit<1> yellow_remark, @id(2) bit<6> yellow_dscp) {
        meta.port_police = true;
        meta.port_yellow_remark = yellow_remark;
        meta.port_yellow_dscp = yellow_dscp;
    }

    /* Models: a rate limit on a port (S4 per-VM policing).  Written by: the
     * controller's port `policer` setting, together with the MeterEntry
     * port_meter[port] that holds its rates. */
    @id(ID_PORT_POLICER)
    table port_policer {
        key = {
            meta.ingress_port : exact @id(1) @name("ingress_port");
        }
        actions = {
            set_port_policer;
            @defaultonly NoAction;
        }
        const default_action = NoAction();
        size = PORT_COUNT;
    }

    /* Police this VLAN's ingress traffic with vlan_meter[vlan_id]. */
    @id(ID_SET_VLAN_POLICER)
    action set_vlan_policer(@id(1) bit<1> yellow_remark, @id(2) bit<6> yellow_dscp) {
        meta.vlan_police = true;
        meta.vlan_yellow_remark = yellow_remark;
        meta.vlan_yellow_dscp = yellow_dscp;
    }

    /* Models: a rate limit on a VLAN.  Written by: the controller's VLAN
     * `policer` setting, together with the MeterEntry vlan_meter[vlan]. */
    @id(ID_VLAN_POLICER)
    table vlan_policer {
        key = {
            meta.vlan_id : exact @id(1) @name("vlan_id");
        }
        actions = {
            set_vlan_policer;
            @defaultonly NoAction;
        }
        const default_action = NoAction();
        size = VLAN_COUNT;
    }

    apply {
        port_policer.apply();
        vlan_policer.apply();
    }
}

#endif
