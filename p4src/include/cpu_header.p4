/*
 * cpu_header.p4 -- control `CpuHeader` (instance `cpu_header`): every packet leaving through
 * CPU_PORT gets the packet_in controller header (P4Runtime PacketIn
 * metadata): the port it came in on, the VLAN it was classified into and
 * why it was sent (CPU_REASON_*).  The frame itself is untagged: the VLAN
 * is in the header instead.
 */
#ifndef VROUTER_CPU_HEADER_P4
#define VROUTER_CPU_HEADER_P4

control CpuHeader(inout headers_t hdr, inout local_metadata_t meta) {
    apply {
        hdr.packet_in.setValid();
        hdr.packet_in.ingress_port = meta.ingress_port;
        hdr.packet_in.vlan_id = meta.vlan_id;
        hdr.packet_in._pad = 0;
        hdr.packet_in.reason = meta.cpu_reason;
    }
}

#endif
