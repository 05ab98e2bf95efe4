/*
 * v1model/nat_state.p4 -- the slots of source NAT (include/nat_in.p4 has the
 * overview, include/conn_state.p4 the state rules) in v1model registers: slot
 * i is port (ICMP echo: identifier) NAT_PORT_BASE + i of the outside address.
 *
 *   V1modelNatReplyState (instance nat_reply_state, before routing): the slot
 *     nat_in named by a reply's destination port; not free, live, and the same
 *     protocol, remote address and port and outside address
 *     ──▶ translate back to the inside host (meta.nat_translate)
 *   V1modelNatFlowState (instance nat_flow_state, after the MTU check):
 *     slot = crc16(5-tuple) mod NAT_SLOTS; free, stale or this flow's
 *     ──▶ record, translate the source; another live flow's ──▶ drop NAT_EXHAUSTED
 *
 * The registers are declared by the ingress control (../vrouter.p4), so their
 * P4Info names are ingress.nat_*; both controls get them as constructor
 * arguments.
 */
#ifndef VROUTER_V1MODEL_NAT_STATE_P4
#define VROUTER_V1MODEL_NAT_STATE_P4

control V1modelNatReplyState(inout headers_t hdr, inout local_metadata_t meta)
        (register<bit<32>, bit<32>> inside_addr, register<bit<16>, bit<32>> inside_port,
         register<bit<32>, bit<32>> remote_addr, register<bit<16>, bit<32>> remote_port,
         register<bit<32>, bit<32>> outside_addr, register<bit<8>, bit<32>> proto,
         register<bit<8>, bit<32>> state, register<bit<48>, bit<32>> last_seen) {
    apply {
        bit<8>  slot_proto;
        bit<8>  slot_state;
        bit<32> slot_remote_addr;
        bit<16> slot_remote_port;
        bit<32> slot_outside_addr;
        bit<48> slot_last_seen;
        proto.read(slot_proto, meta.nat_slot);
        state.read(slot_state, meta.nat_slot);
        remote_addr.read(slot_remote_addr, meta.nat_slot);
        remote_port.read(slot_remote_port, meta.nat_slot);
        outside_addr.read(slot_outside_addr, meta.nat_slot);
        last_seen.read(slot_last_seen, meta.nat_slot);
        if (slot_state != CONN_FREE
                && meta.timestamp_us - slot_last_seen <= conn_timeout_us(slot_proto, slot_state)
                && slot_proto == hdr.ipv4.protocol
                && slot_remote_addr == hdr.ipv4.src_addr
                && slot_remote_port == meta.flow_src_port
                && slot_outside_addr == hdr.ipv4.dst_addr) {
            inside_addr.read(meta.nat_new_addr, meta.nat_slot);
            inside_port.read(meta.nat_new_port, meta.nat_slot);
            state.write(meta.nat_slot, conn_next_state(slot_state, slot_proto, meta.tcp_flags));
            last_seen.write(meta.nat_slot, meta.timestamp_us);
            meta.nat_rewrite_src = false;
            meta.nat_translate = true;
        }
    }
}

control V1modelNatFlowState(inout headers_t hdr, inout local_metadata_t meta)
        (register<bit<32>, bit<32>> inside_addr, register<bit<16>, bit<32>> inside_port,
         register<bit<32>, bit<32>> remote_addr, register<bit<16>, bit<32>> remote_port,
         register<bit<32>, bit<32>> outside_addr, register<bit<8>, bit<32>> proto,
         register<bit<8>, bit<32>> state, register<bit<48>, bit<32>> last_seen) {
    apply {
        bit<32> slot;
        hash(slot, HashAlgorithm.crc16, 32w0,
             { hdr.ipv4.src_addr, hdr.ipv4.dst_addr, hdr.ipv4.protocol,
               meta.flow_src_port, meta.flow_dst_port },
             NAT_SLOTS);
        bit<8>  slot_proto;
        bit<8>  slot_state;
        bit<32> slot_inside_addr;
        bit<16> slot_inside_port;
        bit<32> slot_remote_addr;
        bit<16> slot_remote_port;
        bit<32> slot_outside_addr;
        bit<48> slot_last_seen;
        proto.read(slot_proto, slot);
        state.read(slot_state, slot);
        inside_addr.read(slot_inside_addr, slot);
        inside_port.read(slot_inside_port, slot);
        remote_addr.read(slot_remote_addr, slot);
        remote_port.read(slot_remote_port, slot);
        outside_addr.read(slot_outside_addr, slot);
        last_seen.read(slot_last_seen, slot);
        bool live = slot_state != CONN_FREE
            && meta.timestamp_us - slot_last_seen <= conn_timeout_us(slot_proto, slot_state);
        bool same_flow = live
            && slot_proto == hdr.ipv4.protocol
            && slot_inside_addr == hdr.ipv4.src_addr
            && slot_inside_port == meta.flow_src_port
            && slot_remote_addr == hdr.ipv4.dst_addr
            && slot_remote_port == meta.flow_dst_port
            && slot_outside_addr == meta.nat_addr;
        if (live && !same_flow) {
            meta.drop = true;                 /* never overwrite another live flow */
            meta.drop_reason = DROP_NAT_EXHAUSTED;
        } else {
            if (!same_flow) {                 /* a new flow in a free or stale slot */
                slot_state = CONN_FREE;
                proto.write(slot, hdr.ipv4.protocol);
                inside_addr.write(slot, hdr.ipv4.src_addr);
                inside_port.write(slot, meta.flow_src_port);
                remote_addr.write(slot, hdr.ipv4.dst_addr);
                remote_port.write(slot, meta.flow_dst_port);
                outside_addr.write(slot, meta.nat_addr);
            }
            state.write(slot, conn_next_state(slot_state, hdr.ipv4.protocol, meta.tcp_flags));
            last_seen.write(slot, meta.timestamp_us);
            meta.nat_rewrite_src = true;
            meta.nat_new_addr = meta.nat_addr;
            meta.nat_new_port = NAT_PORT_BASE + (bit<16>) slot;
            meta.nat_translate = true;
        }
    }
}

#endif
