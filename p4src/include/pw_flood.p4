/*
 * pw_flood.p4 -- control `PwFlood` (instance `pw_flood`) (egress): the ingress PE of VPLS for
 * a flood copy whose replication id names a pseudowire (pw_term.p4 has the
 * VPLS overview).
 *
 *   frame with MPLS or a second tag ──▶ drop PW_UNSUPPORTED
 *   pw_flood(rid) ─ pw_flood_push1 / pw_flood_push2 ──▶ control word, labels, new outer Ethernet
 *                 └ miss ──▶ drop PW_FLOOD_MISS
 */
#ifndef VROUTER_PW_FLOOD_P4
#define VROUTER_PW_FLOOD_P4

/* Ingress PE, flood copy for a pseudowire (egress pipeline). */
control PwFlood(inout headers_t hdr, inout local_metadata_t meta) {
    @id(ID_PW_FLOOD_COUNTER) DIRECT_COUNTER pw_flood_counter;

    bit<2>       push_count = 0;
    mpls_label_t transport_label = 0;
    mpls_label_t pw_label = 0;

    /* The remote PE is adjacent: push the pseudowire label only. */
    @id(ID_PW_FLOOD_PUSH1)
    action pw_flood_push1(@id(1) vlan_id_t vlan_id, @id(2) mac_addr_t dst_mac, @id(3) mac_addr_t src_mac,
                          @id(4) mpls_label_t pw_label_out) {
        pw_flood_counter.count();
        push_count = 1;
        pw_label = pw_label_out;
        meta.egress_vlan_id = vlan_id;
        hdr.pw_ethernet = hdr.ethernet;
        hdr.ethernet.dst_addr = dst_mac;
        hdr.ethernet.src_addr = src_mac;
    }

    /* Through an LSP: transport label on top, pseudowire label below. */
    @id(ID_PW_FLOOD_PUSH2)
    action pw_flood_push2(@id(1) vlan_id_t vlan_id, @id(2) mac_addr_t dst_mac, @id(3) mac_addr_t src_mac,
                          @id(4) mpls_label_t transport_label_out, @id(5) mpls_label_t pw_label_out) {
        pw_flood_counter.count();
        push_count = 2;
        transport_label = transport_label_out;
        pw_label = pw_label_out;
        meta.egress_vlan_id = vlan_id;
        hdr.pw_ethernet = hdr.ethernet;
        hdr.ethernet.dst_addr = dst_mac;
        hdr.ethernet.src_addr = src_mac;
    }

    /* Models: the pseudowires a VPLS instance floods to; the replication id
     * is the one of the pseudowire's replica in the VLAN's multicast group
     * (the replica's port is the LSP next hop's port).  Written by:
     * the controller's VPLS instances, one entry per pseudowire whose LSP
     * next hop is resolved. */
    @id(ID_PW_FLOOD)
    table pw_flood {
        key = {
            meta.egress_rid : exact @id(1) @name("egress_rid");
        }
        actions = {
            pw_flood_push1;
            pw_flood_push2;
            @defaultonly NoAction;
        }
        const default_action = NoAction();
        counters = pw_flood_counter;
        size = PW_FLOOD_TABLE_SIZE;
    }

    apply {
        if (hdr.mpls[0].isValid() || hdr.inner_vlan.isValid()) {
            meta.drop = true;
            meta.drop_reason = DROP_PW_UNSUPPORTED;
        } else if (!pw_flood.apply().hit) {
            meta.drop = true;
            meta.drop_reason = DROP_PW_FLOOD_MISS;
        } else {
            bit<3> exp = 0;
            if (hdr.ipv4.isValid()) {
                exp = hdr.ipv4.dscp[5:3];
            }
            hdr.pw_control_word.setValid();
            hdr.pw_control_word.zero = 0;
            hdr.pw_control_word.flags = 0;
            hdr.pw_control_word.frg = 0;
            hdr.pw_control_word.length = 0;
            hdr.pw_control_word.sequence = 0;
            /* The customer frame carries no label (checked above), so the
             * stack is empty before the push. */
            hdr.mpls[0].setValid();
            hdr.mpls[0].exp = exp;
            hdr.mpls[0].ttl = MPLS_PIPE_TTL;
            if (push_count == 2) {
                hdr.mpls[0].label = transport_label;
                hdr.mpls[0].bos = 0;
                hdr.mpls[1].setValid();
                hdr.mpls[1].label = pw_label;
                hdr.mpls[1].exp = exp;
                hdr.mpls[1].bos = 1;
                hdr.mpls[1].ttl = MPLS_PIPE_TTL;
            } else {
                hdr.mpls[0].label = pw_label;
                hdr.mpls[0].bos = 1;
            }
            hdr.ethernet.ether_type = ETHERTYPE_MPLS;
        }
    }
}

#endif
