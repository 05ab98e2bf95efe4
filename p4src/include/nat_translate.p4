/*
 * nat_translate.p4 -- control `NatTranslate`: the address and port rewrite
 * of source NAT (nat_in.p4 has the overview).  Two instances: nat_reverse
 * (inbound replies: destination) and nat_forward (outbound: source).
 *
 *   IPv4 address := meta.nat_new_addr, TCP/UDP port or ICMP echo identifier
 *   := meta.nat_new_port; the IPv4 header checksum is recomputed later
 *   (meta.update_ipv4_checksum).
 *   incremental_l4_checksum: also update the TCP/UDP/ICMP checksum here,
 *   from the changed words only (RFC 1624 eqn. 3), so the payload is never
 *   read; an architecture that updates it in its deparser (TNA's Checksum
 *   with a residual) passes false.  A UDP checksum of 0 (none) stays 0.
 */
#ifndef VROUTER_NAT_TRANSLATE_P4
#define VROUTER_NAT_TRANSLATE_P4

control NatTranslate(inout headers_t hdr, inout local_metadata_t meta)(bool incremental_l4_checksum) {
    apply {
        ipv4_addr_t old_addr;
        bit<16>     old_port;
        if (meta.nat_rewrite_src) {
            old_addr = hdr.ipv4.src_addr;
            old_port = meta.flow_src_port;
            hdr.ipv4.src_addr = meta.nat_new_addr;
            meta.flow_src_port = meta.nat_new_port;
            if (hdr.tcp.isValid()) {
                hdr.tcp.src_port = meta.nat_new_port;
                meta.l4_src_port = meta.nat_new_port;
            } else if (hdr.udp.isValid()) {
                hdr.udp.src_port = meta.nat_new_port;
                meta.l4_src_port = meta.nat_new_port;
            } else {
                hdr.icmp.identifier = meta.nat_new_port;
            }
        } else {
            old_addr = hdr.ipv4.dst_addr;
            old_port = meta.flow_dst_port;
            hdr.ipv4.dst_addr = meta.nat_new_addr;
            meta.flow_dst_port = meta.nat_new_port;
            if (hdr.tcp.isValid()) {
                hdr.tcp.dst_port = meta.nat_new_port;
                meta.l4_dst_port = meta.nat_new_port;
            } else if (hdr.udp.isValid()) {
                hdr.udp.dst_port = meta.nat_new_port;
                meta.l4_dst_port = meta.nat_new_port;
            } else {
                hdr.icmp.identifier = meta.nat_new_port;
            }
        }
        meta.update_ipv4_checksum = true;

        if (incremental_l4_checksum) {
            /* HC' = ~(~HC + ~m + m') over the changed 16-bit words: the port
             * (identifier) and, for TCP/UDP, the address in the pseudo-header. */
            bit<16> old_sum;
            if (hdr.tcp.isValid()) {
                old_sum = hdr.tcp.checksum;
            } else if (hdr.udp.isValid()) {
                old_sum = hdr.udp.checksum;
            } else {
                old_sum = hdr.icmp.checksum;
            }
            bit<32> sum = (bit<32>) (~old_sum) + (bit<32>) (~old_port) + (bit<32>) meta.nat_new_port;
            if (!hdr.icmp.isValid()) {
                sum = sum + (bit<32>) (~old_addr[31:16]) + (bit<32>) (~old_addr[15:0])
                    + (bit<32>) meta.nat_new_addr[31:16] + (bit<32>) meta.nat_new_addr[15:0];
            }
            sum = (sum & 0xffff) + (sum >> 16);
            sum = (sum & 0xffff) + (sum >> 16);
            bit<16> new_sum = ~sum[15:0];
            if (hdr.tcp.isValid()) {
                hdr.tcp.checksum = new_sum;
            } else if (hdr.icmp.isValid()) {
                hdr.icmp.checksum = new_sum;
            } else if (hdr.udp.checksum != 0) {
                /* 0 means "no checksum" in UDP; a computed 0 is sent as 0xffff. */
                if (new_sum == 0) {
                    new_sum = 0xffff;
                }
                hdr.udp.checksum = new_sum;
            }
        }
    }
}

#endif
