/*
 * mpls.p4 -- control `Mpls` (instance `mpls`): label switching (LSR) and the egress
 * label edge (LER) for frames admitted to L3 that carry MPLS.
 *
 *   too deep (> 3 labels) ──▶ drop MPLS_TOO_DEEP
 *   mpls_label(top label) ─ swap(out_label, nexthop_id) ──▶ label := out_label (0 = explicit null;
 *                         │                                 3 = implicit null: done as php, uniform),
 *                         │                                 TTL - 1 ──▶ nexthop_table
 *                         ├ php(nexthop_id, ttl_mode) ──▶ pop (downstream is implicit null, 3),
 *                         │                               TTL - 1 copied inward if uniform ──▶ nexthop_table
 *                         ├ pop_and_route(ttl_mode) ──▶ pop; label TTL copied into IPv4 if uniform;
 *                         │                             IPv4 routed by routing
 *                         └ miss ──▶ label 0: pop_and_route (uniform); else drop MPLS_UNKNOWN_LABEL
 *   a bottom label over a control word + Ethernet or anything but IPv4 (a pseudowire) that misses, or is left by a
 *   pop_and_route (explicit null or a local label over it) ──▶ meta.pw_lookup: pw_termination (pw_term.p4)
 *   swap/php with label TTL <= 1 ──▶ drop MPLS_TTL_EXPIRED
 */
#ifndef VROUTER_MPLS_P4
#define VROUTER_MPLS_P4

control Mpls(inout headers_t hdr, inout local_metadata_t meta) {
    @id(ID_MPLS_LABEL_COUNTER) DIRECT_COUNTER mpls_label_counter;

    bit<2>       op = 0;          /* 1 swap, 2 php, 3 pop_and_route */
    mpls_label_t new_label = 0;
    bit<1>       lsp_ttl_mode = TTL_MODE_UNIFORM;

    /* LSR: replace the top label and forward to nexthop_id.  out_label 0
     * is explicit null towards the egress LER. */
    @id(ID_MPLS_SWAP)
    action swap(@id(1) mpls_label_t out_label, @id(2) nexthop_id_t nexthop_id) {
        mpls_label_counter.count();
        op = 1;
        new_label = out_label;
        meta.label_switched = true;
        meta.nexthop_id = nexthop_id;
        meta.nexthop_valid = true;
    }

    /* LSR, penultimate hop: the downstream LER advertised implicit null (3),
     * so pop the top label and forward to nexthop_id. */
    @id(ID_MPLS_PHP)
    action php(@id(1) nexthop_id_t nexthop_id, @id(2) bit<1> ttl_mode) {
        mpls_label_counter.count();
        op = 2;
        lsp_ttl_mode = ttl_mode;
        meta.label_switched = true;
        meta.nexthop_id = nexthop_id;
        meta.nexthop_valid = true;
    }

    /* Egress LER: pop explicit null (0) or a label bound locally and route
     * the inner IPv4 packet by LPM. */
    @id(ID_MPLS_POP_AND_ROUTE)
    action pop_and_route(@id(1) bit<1> ttl_mode) {
        mpls_label_counter.count();
        op = 3;
        lsp_ttl_mode = ttl_mode;
    }

    /* Models: the incoming label map (ILM) of the router.  Written by: the
     * controller's LSP objects: transit LSPs (swap / php) and labels bound
     * locally (pop_and_route).  Explicit null (0) without an entry is
     * popped and routed with the uniform TTL model; an entry for label 0
     * can choose pipe.  Any other miss: drop MPLS_UNKNOWN_LABEL. */
    @id(ID_MPLS_LABEL)
    table mpls_label {
        key = {
            hdr.mpls[0].label : exact @id(1) @name("label");
        }
        actions = {
            swap;
            php;
            pop_and_route;
            @defaultonly NoAction;
        }
        const default_action = NoAction();
        counters = mpls_label_counter;
        size = MPLS_LABEL_TABLE_SIZE;
    }

    apply {
        if (meta.mpls_too_deep) {
            meta.drop = true;
            meta.drop_reason = DROP_MPLS_TOO_DEEP;
        } else {
            if (!mpls_label.apply().hit) {
                if (hdr.mpls[0].label == MPLS_LABEL_EXPLICIT_NULL) {
                    op = 3;
                    lsp_ttl_mode = TTL_MODE_UNIFORM;
                } else if (hdr.mpls[0].bos == 1 && (hdr.pw_ethernet.isValid() || !hdr.ipv4.isValid())) {
                    /* A pseudowire label (implicit null upstream). */
                    meta.pw_lookup = true;
                } else {
                    meta.drop = true;
                    meta.drop_reason = DROP_MPLS_UNKNOWN_LABEL;
                }
            }
            /* Label 3 never goes on the wire (RFC 3032): a swap to implicit
             * null is a PHP, with the uniform TTL model. */
            if (op == 1 && new_label == MPLS_LABEL_IMPLICIT_NULL) {
                op = 2;
                lsp_ttl_mode = TTL_MODE_UNIFORM;
            }
            bit<8> top_ttl = hdr.mpls[0].ttl;
            if ((op == 1 || op == 2) && top_ttl <= 1) {
                meta.drop = true;
                meta.drop_reason = DROP_MPLS_TTL_EXPIRED;
            } else if (op == 1) {
                hdr.mpls[0].label = new_label;
                hdr.mpls[0].ttl = top_ttl - 1;
            } else if (op == 2 || op == 3) {
                /* php: the popped hop counts (TTL - 1); pop_and_route: the
                 * IPv4 routing that follows decrements. */
                bit<8> inherited_ttl = top_ttl;
                if (op == 2) {
                    inherited_ttl = top_ttl - 1;
                }
                hdr.mpls.pop_front(1);
                if (hdr.mpls[0].isValid()) {
                    if (op == 3 && hdr.mpls[0].bos == 1
                            && (hdr.pw_ethernet.isValid() || !hdr.ipv4.isValid())) {
                        /* The transport label is popped: a pseudowire label is left. */
                        meta.pw_lookup = true;
                    } else if (op == 3) {
                        /* Only one level of pop-and-route is supported. */
                        meta.drop = true;
                        meta.drop_reason = DROP_MPLS_UNSUPPORTED;
                    } else if (lsp_ttl_mode == TTL_MODE_UNIFORM) {
                        hdr.mpls[0].ttl = inherited_ttl;
                    }
                } else if (hdr.ipv4.isValid() && !hdr.pw_ethernet.isValid()) {
                    /* (an IPv4 packet inside a pseudowire's frame is no IPv4 payload) */
                    hdr.ethernet.ether_type = ETHERTYPE_IPV4;
                    if (lsp_ttl_mode == TTL_MODE_UNIFORM) {
                        hdr.ipv4.ttl = inherited_ttl;
                        meta.update_ipv4_checksum = true;
                    }
                    if (op == 3) {
                        meta.route_ipv4 = true;
                    }
                } else {
                    meta.drop = true;
                    meta.drop_reason = DROP_MPLS_UNSUPPORTED;
                }
            }
        }
    }
}

#endif
