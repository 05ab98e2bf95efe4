/*
 * enforce.p4 -- control `Enforce` (instance `enforce`): acts on the colours the
 * architecture layer's meters gave (meta.port_color, vlan_color, acl_color;
 * green when a policer does not apply or its meter is unconfigured).
 *
 *   any red ──▶ drop METER_RED
 *   else any yellow with remark ──▶ IPv4 DSCP := yellow_dscp
 *        (first of: ACL, VLAN, port), checksum updated
 *   else forward unchanged
 */
#ifndef VROUTER_ENFORCE_P4
#define VROUTER_ENFORCE_P4

control Enforce(inout headers_t hdr, inout local_metadata_t meta) {
    apply {
        if (meta.port_color == COLOR_RED || meta.vlan_color == COLOR_RED
                || meta.acl_color == COLOR_RED) {
            meta.drop = true;
            meta.drop_reason = DROP_METER_RED;
        } else if (hdr.ipv4.isValid()) {
            bool remark = false;
            bit<6> new_dscp = 0;
            if (meta.acl_color == COLOR_YELLOW && meta.acl_yellow_remark == 1) {
                remark = true;
                new_dscp = meta.acl_yellow_dscp;
            } else if (meta.vlan_color == COLOR_YELLOW && meta.vlan_yellow_remark == 1) {
                remark = true;
                new_dscp = meta.vlan_yellow_dscp;
            } else if (meta.port_color == COLOR_YELLOW && meta.port_yellow_remark == 1) {
                remark = true;
                new_dscp = meta.port_yellow_dscp;
            }
            if (remark) {
                hdr.ipv4.dscp = new_dscp;
                meta.update_ipv4_checksum = true;
            }
        }
    }
}

#endif
