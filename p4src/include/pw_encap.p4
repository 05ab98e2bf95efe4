/*
 * pw_encap.p4 -- control `PwEncap` (instance `pw_encap`): the ingress PE of VPLS for a known
 * station behind a pseudowire (l2_unicast to_pseudowire): the customer frame
 * goes under a control word, and nexthop pushes the labels (pw_term.p4 has
 * the VPLS overview).
 *
 *   from a pseudowire ──▶ drop PW_SPLIT_HORIZON
 *   frame with MPLS or a second tag ──▶ drop PW_UNSUPPORTED
 *   else control word + pw_ethernet := ethernet
 */
#ifndef VROUTER_PW_ENCAP_P4
#define VROUTER_PW_ENCAP_P4

/* Ingress PE, known station behind a pseudowire: keep the customer frame
 * under the labels nexthop pushes. */
control PwEncap(inout headers_t hdr, inout local_metadata_t meta) {
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

#endif
