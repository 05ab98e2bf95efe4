/*
 * deparser.p4 -- emits the valid headers in wire order.  packet_in is only
 * valid on packets to CPU_PORT; packet_out is never emitted.
 */
#ifndef VROUTER_DEPARSER_P4
#define VROUTER_DEPARSER_P4

control PacketDeparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.packet_in);
        packet.emit(hdr.ethernet);
        packet.emit(hdr.vlan);
        packet.emit(hdr.inner_vlan);
        packet.emit(hdr.mpls[0]);
        packet.emit(hdr.mpls[1]);
        packet.emit(hdr.mpls[2]);
        packet.emit(hdr.pw_control_word);
        packet.emit(hdr.pw_ethernet);
        packet.emit(hdr.arp);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.tcp);
        packet.emit(hdr.udp);
        packet.emit(hdr.icmp);
    }
}

#endif
