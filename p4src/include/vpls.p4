/*
 * vpls.p4 -- VPLS: a VLAN (the bridge domain) extended to remote PEs over
 * pseudowires (RFC 4762 data plane, RFC 4448 raw mode: the customer frame
 * travels without its service VLAN tag, behind a control word of zeros as
 * RFC 8469 recommends).
 *
 * Ingress PE, known station (ingress):
 *   l2_unicast(vlan, dst MAC) ─ to_pseudowire(nexthop_id) ──▶ pw_encapsulation:
 *     customer frame carries MPLS or a second tag ──▶ drop PW_UNSUPPORTED
 *     from a pseudowire                          ──▶ drop PW_SPLIT_HORIZON
 *     else control word + pw_ethernet := ethernet ──▶ nexthop_table (set_nexthop_push2: transport label
 *     on top, pseudowire label at the bottom; new outer Ethernet to the LSP next hop)
 * Ingress PE, unknown/broadcast (egress, per flood copy):
 *   multicast group VLAN: local ports (rid 0) and one copy per pseudowire (rid != 0)
 *   rid != 0 ──▶ pw_flood(rid) ─ pw_flood_push1 / pw_flood_push2 ──▶ same encapsulation
 *                              └ miss ──▶ drop PW_FLOOD_MISS
 * Egress PE (ingress, frames to the router MAC carrying MPLS): mpls_lookup pops the
 * transport label (explicit null, or a label bound by an egress LSP) or finds none
 * (implicit null upstream); a bottom label over anything but IPv4 left then (meta.pw_lookup):
 *   pw_termination(label) ─ terminate_pseudowire(vlan) ──▶ label, control word and outer
 *       Ethernet removed, pw_ethernet becomes the frame, bridged in `vlan` (PCP := EXP);
 *       no control word + Ethernet under the label ──▶ drop PW_UNSUPPORTED
 *       flooding from a pseudowire uses group PW_LOCAL_FLOOD_GROUP_BASE + vlan
 *       (local ports only: split horizon)
 *                         └ miss ──▶ drop PW_UNKNOWN_LABEL
 *   then pw_learning(vlan, carried source MAC, PW label) ─ miss ──▶ pw_learn_digest_t
 *       {vlan_id, src_mac, pw_label} (not for multicast sources)
 * A label that is not at the bottom of the stack is never a pseudowire here
 * (no flow label): mpls_label decides about it as before.
 * Labels pushed here take TTL 255 (pipe) and EXP from the customer DSCP
 * (0 for non-IPv4 frames), as set_nexthop_push2 with ttl_mode pipe does.
 * Stations behind a pseudowire: the controller writes them (static, or learned
 * from pw_learn_digest_t) as l2_unicast to_pseudowire entries.
 */
#ifndef VROUTER_VPLS_P4
#define VROUTER_VPLS_P4

/* Egress PE: the pseudowire label bound here gives the VLAN to bridge in. */
control pseudowire_termination(inout headers_t hdr, inout local_metadata_t meta) {
    DIRECT_COUNTER pw_termination_counter;

    bool         terminate = false;
    vlan_id_t    bridge_vlan = 0;
    mpls_label_t pw_label = 0;

    /* The label is a pseudowire of the VPLS instance of `vlan_id`. */
    action terminate_pseudowire(vlan_id_t vlan_id) {
        pw_termination_counter.count();
        terminate = true;
        bridge_vlan = vlan_id;
    }

    /* Models: the pseudowire labels this PE bound (its local PW labels).
     * Written by: the controller's VPLS instances, one entry per
     * pseudowire (`in_label`). */
    table pw_termination {
        key = {
            hdr.mpls[0].label : exact @name("label");
        }
        actions = {
            terminate_pseudowire;
            @defaultonly NoAction;
        }
        const default_action = NoAction();
        counters = pw_termination_counter;
        size = PW_TERMINATION_TABLE_SIZE;
    }

    /* Applied when mpls_lookup left the bottom label (S=1) with an Ethernet
     * frame under it (meta.pw_lookup). */
    /* The station is known behind this pseudowire: no digest. */
    action pw_station_known() { }

    /* Unknown behind this pseudowire (new, or moved from a port or another
     * pseudowire): raise a digest. */
    action pw_station_unknown() {
        meta.pw_learn = true;
        meta.pw_learn_digest.vlan_id = meta.vlan_id;
        meta.pw_learn_digest.src_mac = hdr.ethernet.src_addr;
        meta.pw_learn_digest.pw_label = pw_label;
    }

    /* Models: the stations the controller has learnt behind pseudowires.
     * Written by: the controller, on every pw_learn_digest_t (with the
     * matching l2_unicast to_pseudowire entry).  Idle timeout: entries
     * report idleness so the controller can age the MACs. */
    table pw_learning {
        key = {
            meta.vlan_id          : exact @name("vlan_id");
            hdr.ethernet.src_addr : exact @name("src_mac");
            pw_label              : exact @name("pw_label");
        }
        actions = {
            pw_station_known;
            @defaultonly pw_station_unknown;
        }
        const default_action = pw_station_unknown();
        size = PW_LEARNING_TABLE_SIZE;
        support_timeout = true;
    }

    apply {
        pw_termination.apply();
        if (terminate && !hdr.pw_ethernet.isValid()) {
            meta.drop = true;                   /* no control word: not our encapsulation */
            meta.drop_reason = DROP_PW_UNSUPPORTED;
        } else if (terminate) {
            pw_label = hdr.mpls[0].label;
            meta.vlan_pcp = hdr.mpls[0].exp;
            hdr.ethernet = hdr.pw_ethernet;
            hdr.pw_ethernet.setInvalid();
            hdr.pw_control_word.setInvalid();
            hdr.mpls[0].setInvalid();
            meta.from_pseudowire = true;
            meta.l3_admit = false;         /* bridged, not routed */
            meta.vlan_id = bridge_vlan;
            meta.egress_vlan_id = bridge_vlan;
            if (hdr.ethernet.src_addr[40:40] == 0) {
                pw_learning.apply();
            }
        } else {
            meta.drop = true;
            meta.drop_reason = DROP_PW_UNKNOWN_LABEL;
        }
    }
}

/* Ingress PE, known station behind a pseudowire: keep the customer frame
 * under the labels nexthop_resolution pushes. */
control pseudowire_encapsulation(inout headers_t hdr, inout local_metadata_t meta) {
    apply {
        if (meta.from_pseudowire) {
            meta.drop = true;
            meta.drop_reason = DROP_PW_SPLIT_HORIZON;
        } else if (hdr.mpls[0].isValid() || hdr.inner_vlan.isValid()) {
            meta.drop = true;
            meta.drop_reason = DROP_PW_UNSUPPORTED;
        } else {
            hdr.pw_control_word.setValid();
            hdr.pw_control_word.zero = 0;
            hdr.pw_control_word.flags = 0;
            hdr.pw_control_word.frg = 0;
            hdr.pw_control_word.length = 0;
            hdr.pw_control_word.sequence = 0;
            hdr.pw_ethernet = hdr.ethernet;
        }
    }
}

/* Ingress PE, flood copy for a pseudowire (egress pipeline). */
control pseudowire_flood_encapsulation(inout headers_t hdr, inout local_metadata_t meta) {
    DIRECT_COUNTER pw_flood_counter;

    bit<2>       push_count = 0;
    mpls_label_t transport_label = 0;
    mpls_label_t pw_label = 0;

    /* The remote PE is adjacent: push the pseudowire label only. */
    action pw_flood_push1(vlan_id_t vlan_id, mac_addr_t dst_mac, mac_addr_t src_mac,
                          mpls_label_t pw_label_out) {
        pw_flood_counter.count();
        push_count = 1;
        pw_label = pw_label_out;
        meta.egress_vlan_id = vlan_id;
        hdr.pw_ethernet = hdr.ethernet;
        hdr.ethernet.dst_addr = dst_mac;
        hdr.ethernet.src_addr = src_mac;
    }

    /* Through an LSP: transport label on top, pseudowire label below. */
    action pw_flood_push2(vlan_id_t vlan_id, mac_addr_t dst_mac, mac_addr_t src_mac,
                          mpls_label_t transport_label_out, mpls_label_t pw_label_out) {
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
    table pw_flood {
        key = {
            meta.egress_rid : exact @name("egress_rid");
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
