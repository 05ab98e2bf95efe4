/*
 * packet_io.p4 -- control `PacketIo` (instance `packet_io`): packets the controller sends
 * (P4Runtime PacketOut, arriving on CPU_PORT with a packet_out header).
 *
 *   packet_out valid? ─ submit_to_ingress == 0 ─▶ bypass: straight to egress_port,
 *                     │                            no table is applied, sent as is
 *                     └ submit_to_ingress == 1 ─▶ header removed; the frame runs the
 *                                                  whole pipeline as if received on
 *                                                  CPU_PORT (so CPU_PORT needs a
 *                                                  port_config entry, usually a trunk)
 */
#ifndef VROUTER_PACKET_IO_P4
#define VROUTER_PACKET_IO_P4

control PacketIo(inout headers_t hdr, inout local_metadata_t meta) {
    apply {
        if (hdr.packet_out.isValid()) {
            if (hdr.packet_out.submit_to_ingress == 0) {
                meta.bypass = true;
                meta.egress_port = hdr.packet_out.egress_port;
            }
            hdr.packet_out.setInvalid();
        }
    }
}

#endif
