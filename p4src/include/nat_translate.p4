/*
 * nat_translate.p4 -- control `NatTranslate`: the address and port rewrite
 * of source NAT (nat_in.p4 has the overview), with an incremental TCP/UDP
 * checksum update (RFC 1624).  Two instances: nat_reverse (inbound replies)
 * and nat_forward (outbound).
 */
#ifndef VROUTER_NAT_TRANSLATE_P4
#define VROUTER_NAT_TRANSLATE_P4

/* Rewrites the source (outbound) or destination (inbound) address and
 * port to meta.nat_new_addr/port, fixing the TCP/UDP checksum. */
control NatTranslate(inout headers_t hdr, inout local_metadata_t meta) {
    apply {
        ipv4_addr_t old_addr;
        bit<16>     old_port;
        if (meta.nat_rewrite_src) {
            old_addr = hdr.ipv4.src_addr;
            old_port = meta.l4_src_port;
            hdr.ipv4.src_addr = meta.nat_new_addr;
            meta.l4_src_port = meta.nat_new_port;
            if (hdr.tcp.isValid()) {
                hdr.tcp.src_port = meta.nat_new_port;
            } else {
                hdr.udp.src_port = meta.nat_new_port;
            }
        } else {
            old_addr = hdr.ipv4.dst_addr;
            old_port = meta.l4_dst_port;
            hdr.ipv4.dst_addr = meta.nat_new_addr;
            meta.l4_dst_port = meta.nat_new_port;
            if (hdr.tcp.isValid()) {
                hdr.tcp.dst_port = meta.nat_new_port;
            } else {
                hdr.udp.dst_port = meta.nat_new_port;
            }
        }
        meta.update_ipv4_checksum = true;

        /* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m') over the changed words. */
        bit<16> old_sum;
        if (hdr.tcp.isValid()) {
            old_sum = hdr.tcp.checksum;
        } else {
            old_sum = hdr.udp.checksum;
        }
        bit<32> sum = (bit<32>) (~old_sum)
            + (bit<32>) (~old_addr[31:16]) + (bit<32>) (~old_addr[15:0]) + (bit<32>) (~old_port)
            + (bit<32>) meta.nat_new_addr[31:16] + (bit<32>) meta.nat_new_addr[15:0]
            + (bit<32>) meta.nat_new_port;
        sum = (sum & 0xffff) + (sum >> 16);
        sum = (sum & 0xffff) + (sum >> 16);
        bit<16> new_sum = ~sum[15:0];
        if (hdr.tcp.isValid()) {
            hdr.tcp.checksum = new_sum;
        } else if (hdr.udp.checksum != 0) {
            /* 0 means "no checksum" in UDP; a computed 0 is sent as 0xffff. */
            if (new_sum == 0) {
                new_sum = 0xffff;
            }
            hdr.udp.checksum = new_sum;
        }
    }
}

#endif
