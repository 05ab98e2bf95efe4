/*
 * nat_in.p4 -- control `NatIn` (instance `nat_in`): is a packet a reply to
 * a masqueraded flow?  Also the overview of source NAT (masquerade, NAPT) of
 * routed IPv4 TCP/UDP on the router interfaces the controller marks
 * `nat: masquerade` (nat_out.p4, nat_translate.p4 and the architecture
 * layer's slot state are the other parts).
 *
 *   inbound (before routing):
 *     nat_inbound_interface(ingress VLAN) hit, TCP/UDP/ICMP echo reply to that
 *     interface's address, destination port (echo: identifier) >= NAT_PORT_BASE
 *       ──▶ slot = port - NAT_PORT_BASE ──▶ [architecture: slot state]
 *       slot not free, live, same protocol, remote address/port and outside address
 *       ──▶ nat_translate: destination := the inside host's address/port
 *       otherwise untranslated (to the router's own address: punted)
 *   outbound (after the stateful firewall and the MTU check):
 *     nat_outbound_interface(egress VLAN) hit, routed TCP/UDP/ICMP echo request
 *       ──▶ slot = crc16(5-tuple) mod NAT_SLOTS ──▶ [architecture: slot state]
 *       slot free, stale, or held by this flow ──▶ record, nat_translate:
 *         source := interface address, port (echo: identifier) NAT_PORT_BASE + slot
 *       slot held by another live flow ──▶ drop NAT_EXHAUSTED (a collision: counted,
 *         the live flow keeps its slot)
 *
 * The firewall therefore always sees the inside host's own addresses.  The
 * slots belong to the architecture layer (v1model/nat_state.p4,
 * tna/nat_state.p4), which follows include/conn_state.p4 (TCP FIN/RST,
 * timeouts per protocol) and sets meta.nat_translate for nat_translate.
 */
#ifndef VROUTER_NAT_IN_P4
#define VROUTER_NAT_IN_P4

/* Inbound: is this packet a candidate reply to a masqueraded flow? */
control NatIn(inout headers_t hdr, inout local_metadata_t meta) {
    ipv4_addr_t interface_addr = 0;
    bool        masquerading = false;

    /* The ingress interface masquerades behind `addr`. */
    @id(ID_REVERSE_MASQUERADE)
    action reverse_masquerade(@id(1) ipv4_addr_t addr) {
        interface_addr = addr;
        masquerading = true;
    }

    /* Models: router interfaces with `nat: masquerade` (ingress side).
     * Written by: the controller, one entry per masquerading VLAN. */
    @id(ID_NAT_INBOUND_INTERFACE)
    table nat_inbound_interface {
        key = {
            meta.vlan_id : exact @id(1) @name("vlan_id");
        }
        actions = {
            reverse_masquerade;
            @defaultonly NoAction;
        }
        const default_action = NoAction();
        size = NAT_INTERFACE_TABLE_SIZE;
    }

    apply {
        if (meta.l3_admit && !meta.acl_redirect && !meta.label_switched && hdr.ipv4.isValid()
                && !hdr.mpls[0].isValid() && meta.flow_valid && !meta.checksum_error) {
            nat_inbound_interface.apply();
            if (masquerading && hdr.ipv4.dst_addr == interface_addr
                    && meta.flow_dst_port >= NAT_PORT_BASE) {
                meta.nat_in_lookup = true;
                meta.nat_slot = (bit<32>) (meta.flow_dst_port - NAT_PORT_BASE);
            }
        }
    }
}

#endif
