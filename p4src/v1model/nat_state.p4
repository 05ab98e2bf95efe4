/*
 * v1model/nat_state.p4 -- the slots of source NAT (nat_in.p4 has the
 * overview), kept in v1model registers: one slot per translated port.
 *
 *   V1modelNatReplyState (before routing): the slot nat_in named by a
 *     reply's destination port; same protocol and remote address/port and
 *     live ──▶ translate back to the inside host (meta.nat_translate)
 *   V1modelNatFlowState (after the MTU check): slot = crc16(5-tuple);
 *     free, stale or this flow's ──▶ record, translate the source;
 *     another live flow's ──▶ drop NAT_EXHAUSTED
 *
 * The registers are declared by the ingress control (../vrouter.p4), so their
 * P4Info names stay ingress.nat_*; both controls get them as constructor
 * arguments.
 */
#ifndef VROUTER_V1MODEL_NAT_STATE_P4
#define VROUTER_V1MODEL_NAT_STATE_P4

control V1modelNatReplyState(inout headers_t hdr, inout local_metadata_t meta)
        (register<bit<32>, bit<32>> inside_addr, register<bit<16>, bit<32>> inside_port,
         register<bit<32>, bit<32>> remote_addr, register<bit<16>, bit<32>> remote_port,
         register<bit<8>, bit<32>> proto, register<bit<48>, bit<32>> last_seen) {
    apply {
        bit<8>  slot_proto;
        bit<32> slot_remote_addr;
        bit<16> slot_remote_port;
        bit<48> slot_last_seen;
        proto.read(slot_proto, meta.nat_slot);
        remote_addr.read(slot_remote_addr, meta.nat_slot);
        remote_port.read(slot_remote_port, meta.nat_slot);
        last_seen.read(slot_last_seen, meta.nat_slot);
        if (slot_proto == hdr.ipv4.protocol
                && slot_remote_addr == hdr.ipv4.src_addr
                && slot_remote_port == meta.l4_src_port
                && meta.timestamp_us - slot_last_seen <= NAT_TIMEOUT_US) {
            inside_addr.read(meta.nat_new_addr, meta.nat_slot);
            inside_port.read(meta.nat_new_port, meta.nat_slot);
            last_seen.write(meta.nat_slot, meta.timestamp_us);
            meta.nat_rewrite_src = false;
            meta.nat_translate = true;
        }
    }
}

control V1modelNatFlowState(inout headers_t hdr, inout local_metadata_t meta)
        (register<bit<32>, bit<32>> inside_addr, register<bit<16>, bit<32>> inside_port,
         register<bit<32>, bit<32>> remote_addr, register<bit<16>, bit<32>> remote_port,
         register<bit<8>, bit<32>> proto, register<bit<48>, bit<32>> last_seen) {
    apply {
        bit<32> slot;
        bit<8>  slot_proto;
        bit<32> slot_inside_addr;
        bit<16> slot_inside_port;
        bit<32> slot_remote_addr;
        bit<16> slot_remote_port;
        bit<48> slot_last_seen;
        hash(slot, HashAlgorithm.crc16, 32w0,
             { hdr.ipv4.src_addr, hdr.ipv4.dst_addr, hdr.ipv4.protocol,
               meta.l4_src_port, meta.l4_dst_port },
             NAT_SLOTS);
        proto.read(slot_proto, slot);
        inside_addr.read(slot_inside_addr, slot);
        inside_port.read(slot_inside_port, slot);
        remote_addr.read(slot_remote_addr, slot);
        remote_port.read(slot_remote_port, slot);
        last_seen.read(slot_last_seen, slot);
        bool same_flow = slot_proto == hdr.ipv4.protocol
            && slot_inside_addr == hdr.ipv4.src_addr
            && slot_inside_port == meta.l4_src_port
            && slot_remote_addr == hdr.ipv4.dst_addr
            && slot_remote_port == meta.l4_dst_port;
        bool live = slot_proto != 0
            && meta.timestamp_us - slot_last_seen <= NAT_TIMEOUT_US;
        if (same_flow || !live) {
            if (!same_flow) {
                proto.write(slot, hdr.ipv4.protocol);
                inside_addr.write(slot, hdr.ipv4.src_addr);
                inside_port.write(slot, meta.l4_src_port);
                remote_addr.write(slot, hdr.ipv4.dst_addr);
                remote_port.write(slot, meta.l4_dst_port);
            }
            last_seen.write(slot, meta.timestamp_us);
            meta.nat_rewrite_src = true;
            meta.nat_new_addr = meta.nat_addr;
            meta.nat_new_port = NAT_PORT_BASE + (bit<16>) slot;
            meta.nat_translate = true;
        } else {
            meta.drop = true;
            meta.drop_reason = DROP_NAT_EXHAUSTED;
        }
    }
}

#endif
