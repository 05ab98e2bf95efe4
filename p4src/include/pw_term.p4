/*
 * pw_term.p4 -- control `PwTerm` (instance `pw_term`): the egress PE of
 * VPLS.  Also the VPLS overview (pw_encap.p4 and pw_flood.p4 are the ingress
 * PE's two halves): a VLAN (the bridge domain) extended to remote PEs over
 * pseudowires (RFC 4762 data plane, RFC 4448 raw mode: the customer frame
 * travels without its service VLAN tag, behind a control word of zeros as
 * RFC 8469 recommends).
 *
 * Ingress PE, known station (ingress):
 *   l2_unicast(vlan, dst MAC) ─ to_pseudowire(nexthop_id) ──▶ pw_encap:
 *     customer frame carries MPLS or a second tag ──▶ drop PW_UNSUPPORTED
 *     from a pseudowire                          ──▶ drop PW_SPLIT_HORIZON
 *     else control word + pw_ethernet := ethernet ──▶ nexthop_table (set_nexthop_push2: transport label
 *     on top, pseudowire label at the bottom; new outer Ethernet to the LSP next hop)
 * Ingress PE, unknown/broadcast (egress, per flood copy):
 *   multicast group VLAN: local ports (rid 0) and one copy per pseudowire (rid != 0)
 *   rid != 0 ──▶ pw_flood(rid) ─ pw_flood_push1 / pw_flood_push2 ──▶ same encapsulation
 *                              └ miss ──▶ drop PW_FLOOD_MISS
 * Egress PE (ingress, frames to the router MAC carrying MPLS): the control mpls pops the
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
#ifndef VROUTER_PW_TERM_P4
#define VROUTER_PW_TERM_P4

/* Egress PE: the pseudowire label bound here gives the VLAN to bridge in. */
control PwTerm(inout headers_t hdr, inout local_metadata_t meta) {
    @id(ID_PW_TERMINATION_COUNTER) DIRECT_COUNTER pw_termination_counter;

    bool         terminate = false;
    vlan_id_t    bridge_vlan = 0;
    mpls_label_t pw_label = 0;

    /* The label is a pseudowire of the VPLS instance of `vlan_id`. */
    @id(ID_TERMINATE_PSEUDOWIRE)
    action terminate_pseudowire(@id(1) vlan_id_t vlan_id) {
        pw_termination_counter.count();
        terminate = true;
        bridge_vlan = vlan_id;
    }

    /* Models: the pseudowire labels this PE bound (its local PW labels).
     * Written by: the controller's VPLS instances, one entry per
     * pseudowire (`in_label`). */
    @id(ID_PW_TERMINATION)
    table pw_termination {
        key = {
            hdr.mpls[0].label : exact @id(1) @name("label");
        }
        actions = {
            terminate_pseudowire;
            @defaultonly NoAction;
        }
        const default_action = NoAction();
        counters = pw_termination_counter;
        size = PW_TERMINATION_TABLE_SIZE;
    }

    /* Applied when mpls left the bottom label (S=1) with an Ethernet
     * frame under it (meta.pw_lookup). */
    /* The station is known behind this pseudowire: no digest. */
    @id(ID_PW_STATION_KNOWN)
    action pw_station_known() { }

    /* Unknown behind this pseudowire (new, or moved from a port or another
     * pseudowire): raise a digest. */
    @id(ID_PW_STATION_UNKNOWN)
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
    @id(ID_PW_LEARNING)
    table pw_learning {
        key = {
            meta.vlan_id          : exact @id(1) @name("vlan_id");
            hdr.ethernet.src_addr : exact @id(2) @name("src_mac");
            pw_label              : exact @id(3) @name("pw_label");
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

#endif
