/*
 * firewall.p4 -- control `Firewall` (instance `firewall`): zone-pair policy for routed
 * IPv4, with connection tracking for TCP, UDP and ICMP echo.
 *
 *   firewall_src_zone(ingress VLAN) ──▶ src zone ┐
 *   firewall_dst_zone(egress VLAN)  ──▶ dst zone ┴─▶ firewall_policy(src zone, dst zone)
 *     ├ track_connection   (trusted -> untrusted): permit, record the flow
 *     ├ allow_established  (untrusted -> trusted): permit only a recorded, live flow
 *     └ miss: no firewall between these zones
 *
 * The flow key is written in the trusted side's direction (client = the
 * trusted host; ICMP echo: client port = the identifier, server port 0), so a
 * reply finds the slot its request wrote.  The connection slots belong to the
 * architecture layer (v1model/firewall_state.p4, tna/firewall_state.p4),
 * which compares the full key and follows conn_state.p4; see
 * docs/p4-program.md section 11.
 */
#ifndef VROUTER_FIREWALL_P4
#define VROUTER_FIREWALL_P4

control Firewall(inout headers_t hdr, inout local_metadata_t meta) {
    @id(ID_FIREWALL_POLICY_COUNTER) DIRECT_COUNTER firewall_policy_counter;

    /* Zone of the VLAN the packet came in on. */
    @id(ID_SET_SRC_ZONE)
    action set_src_zone(@id(1) zone_t zone) {
        meta.fw_src_zone = zone;
    }

    /* Models: zone membership of router interfaces (ingress side).
     * Written by: the controller's firewall zones (zone ids from 1). */
    @id(ID_FIREWALL_SRC_ZONE)
    table firewall_src_zone {
        key = {
            meta.vlan_id : exact @id(1) @name("vlan_id");
        }
        actions = {
            set_src_zone;
            @defaultonly NoAction;
        }
        const default_action = NoAction();
        size = FIREWALL_ZONE_TABLE_SIZE;
    }

    /* Zone of the VLAN the packet leaves in. */
    @id(ID_SET_DST_ZONE)
    action set_dst_zone(@id(1) zone_t zone) {
        meta.fw_dst_zone = zone;
    }

    /* Models: zone membership of router interfaces (egress side), the same
     * content as firewall_src_zone.  Written by: the controller's zones. */
    @id(ID_FIREWALL_DST_ZONE)
    table firewall_dst_zone {
        key = {
            meta.egress_vlan_id : exact @id(1) @name("vlan_id");
        }
        actions = {
            set_dst_zone;
            @defaultonly NoAction;
        }
        const default_action = NoAction();
        size = FIREWALL_ZONE_TABLE_SIZE;
    }

    /* From the trusted zone: permit and create/refresh the flow's slot. */
    @id(ID_TRACK_CONNECTION)
    action track_connection() {
        firewall_policy_counter.count();
        meta.fw_track = true;
    }

    /* Towards the trusted zone: permit replies of live flows only. */
    @id(ID_ALLOW_ESTABLISHED)
    action allow_established() {
        firewall_policy_counter.count();
        meta.fw_check = true;
    }

    /* Models: the stateful-firewall zone pairs.  Written by: the controller:
     * for each (trusted, untrusted) pair, (trusted, untrusted) ->
     * track_connection and (untrusted, trusted) -> allow_established. */
    @id(ID_FIREWALL_POLICY)
    table firewall_policy {
        key = {
            meta.fw_src_zone : exact @id(1) @name("src_zone");
            meta.fw_dst_zone : exact @id(2) @name("dst_zone");
        }
        actions = {
            track_connection;
            allow_established;
            @defaultonly NoAction;
        }
        const default_action = NoAction();
        counters = firewall_policy_counter;
        size = FIREWALL_POLICY_TABLE_SIZE;
    }

    apply {
        if (meta.route_ipv4 && hdr.ipv4.isValid()) {
            firewall_src_zone.apply();
            firewall_dst_zone.apply();
            if (meta.fw_src_zone != 0 && meta.fw_dst_zone != 0) {
                firewall_policy.apply();
            }
            if (meta.fw_track || meta.fw_check) {
                meta.fw_key_proto = hdr.ipv4.protocol;
                if (!meta.flow_valid) {
                    /* Only TCP, UDP and ICMP echo are tracked: other
                     * protocols may go out but nothing comes back. */
                    meta.fw_track = false;
                    if (meta.fw_check) {
                        meta.fw_check = false;
                        meta.drop = true;
                        meta.drop_reason = DROP_FIREWALL;
                    }
                } else if (meta.fw_track) {
                    meta.fw_key_client = hdr.ipv4.src_addr;
                    meta.fw_key_server = hdr.ipv4.dst_addr;
                    meta.fw_key_client_port = meta.flow_src_port;
                    meta.fw_key_server_port = meta.flow_dst_port;
                } else {
                    meta.fw_key_client = hdr.ipv4.dst_addr;
                    meta.fw_key_server = hdr.ipv4.src_addr;
                    meta.fw_key_client_port = meta.flow_dst_port;
                    meta.fw_key_server_port = meta.flow_src_port;
                }
            }
        }
    }
}

#endif
