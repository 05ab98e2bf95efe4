/*
 * tna/nat_state.p4 -- control `TnaNatState` (instance `nat_state`): the
 * slots of source NAT with TNA Registers and RegisterActions (slot i is port
 * NAT_PORT_BASE + i of the outside address; ../include/nat_in.p4 has the
 * overview, conn_cell.p4 the cell layout).  ../v1model/nat_state.p4 keeps
 * the same slots with v1model registers in two controls.
 *
 * Tofino allows a register at one place in the pipeline only, but a reply
 * needs its slot before routing and a new outbound flow after it (only then
 * is the masquerading interface known).  So this one control serves both, at
 * the reply's place: an outbound packet leaves its first pass untranslated,
 * is recirculated, and in its second pass (meta.nat_out) takes its slot here
 * and is translated (tna/vrouter.p4).
 *
 *   reply (meta.nat_in_lookup), slot = meta.nat_slot:
 *     remote cell (remote addr, port, proto) and outside cell (outside addr)
 *     equal, conn live ──▶ translate back to inside cell's address and port
 *   flow (meta.nat_out), slot = CRC16(5-tuple) mod NAT_SLOTS:
 *     occupancy SAME + equal key, or CLAIMED ──▶ record, translate the source
 *     otherwise ──▶ drop NAT_EXHAUSTED
 */
#ifndef VROUTER_TNA_NAT_STATE_P4
#define VROUTER_TNA_NAT_STATE_P4

control TnaNatState(inout headers_t hdr, inout local_metadata_t meta) {
    Hash<bit<14>>(HashAlgorithm_t.CRC16) slot_hash;
    Hash<bit<32>>(HashAlgorithm_t.CRC32) sig_hash;

    @id(ID_TNA_NAT_OCCUPANCY) Register<conn_cell_t, bit<16>>(NAT_SLOTS) nat_occupancy;  /* deadline, sig */
    @id(ID_TNA_NAT_REMOTE)    Register<conn_cell_t, bit<16>>(NAT_SLOTS) nat_remote;     /* addr, port ++ proto */
    @id(ID_TNA_NAT_INSIDE)    Register<conn_cell_t, bit<16>>(NAT_SLOTS) nat_inside;     /* addr, 0 */
    @id(ID_TNA_NAT_OUTSIDE)   Register<conn_cell_t, bit<16>>(NAT_SLOTS) nat_outside;    /* addr, inside port */
    @id(ID_TNA_NAT_CONN)      Register<conn_cell_t, bit<16>>(NAT_SLOTS) nat_conn;       /* deadline, state */

    bit<32> now = 0;
    bit<32> sig = 0;
    bit<32> open_deadline = 0;
    bit<32> closing_deadline = 0;
    bit<32> remote_addr = 0;
    bit<32> remote_port_proto = 0;
    bit<32> outside_addr = 0;
    bool    claimed = false;
    bool    key_equal = false;

    RegisterAction<conn_cell_t, bit<16>, bit<8>>(nat_occupancy) occupy = {
        void apply(inout conn_cell_t cell, out bit<8> verdict) {
            bool live = cell.hi != 0 && conn_alive(cell.lo, now);
            verdict = SLOT_OTHER;
            if (live && cell.hi == sig) {
                verdict = SLOT_SAME;
                cell.lo = open_deadline;
            } else if (!live) {
                verdict = SLOT_CLAIMED;
                cell.lo = open_deadline;
                cell.hi = sig;
            }
        }
    };

    RegisterAction<conn_cell_t, bit<16>, bool>(nat_remote) remote_equal = {
        void apply(inout conn_cell_t cell, out bool equal) {
            equal = cell.lo == remote_addr && cell.hi == remote_port_proto;
        }
    };
    RegisterAction<conn_cell_t, bit<16>, bool>(nat_remote) remote_write = {
        void apply(inout conn_cell_t cell) {
            cell.lo = remote_addr;
            cell.hi = remote_port_proto;
        }
    };

    RegisterAction<conn_cell_t, bit<16>, bit<32>>(nat_inside) inside_read = {
        void apply(inout conn_cell_t cell, out bit<32> addr) {
            addr = cell.lo;
        }
    };
    RegisterAction<conn_cell_t, bit<16>, bool>(nat_inside) inside_equal = {
        void apply(inout conn_cell_t cell, out bool equal) {
            equal = cell.lo == hdr.ipv4.src_addr;
        }
    };
    RegisterAction<conn_cell_t, bit<16>, bool>(nat_inside) inside_write = {
        void apply(inout conn_cell_t cell) {
            cell.lo = hdr.ipv4.src_addr;
            cell.hi = 0;
        }
    };

    /* Reply: bit 16 set when the outside address matches, the inside port below it. */
    RegisterAction<conn_cell_t, bit<16>, bit<32>>(nat_outside) outside_lookup = {
        void apply(inout conn_cell_t cell, out bit<32> found) {
            found = 0;
            if (cell.lo == outside_addr) {
                found = 0x10000 | cell.hi;
            }
        }
    };
    RegisterAction<conn_cell_t, bit<16>, bool>(nat_outside) outside_equal = {
        void apply(inout conn_cell_t cell, out bool equal) {
            equal = cell.lo == outside_addr && cell.hi == (bit<32>) meta.flow_src_port;
        }
    };
    RegisterAction<conn_cell_t, bit<16>, bool>(nat_outside) outside_write = {
        void apply(inout conn_cell_t cell) {
            cell.lo = outside_addr;
            cell.hi = (bit<32>) meta.flow_src_port;
        }
    };

    RegisterAction<conn_cell_t, bit<16>, bool>(nat_conn) advance = {
        void apply(inout conn_cell_t cell, out bool pass) {
            bool live = cell.hi != (bit<32>) CONN_FREE && conn_alive(cell.lo, now);
            pass = false;
            if (claimed || (key_equal && (live || meta.nat_out))) {
                bit<8> state = CONN_FREE;
                if (!claimed && live) {
                    state = (bit<8>) cell.hi;
                }
                cell.hi = (bit<32>) conn_next_state(state, hdr.ipv4.protocol, meta.tcp_flags);
                cell.lo = cell.hi == (bit<32>) CONN_CLOSING ? closing_deadline : open_deadline;
                pass = true;
            }
        }
    };

    apply {
        now = meta.timestamp_us[31:0];
        open_deadline = now + conn_timeout_us(hdr.ipv4.protocol, CONN_OPEN)[31:0];
        closing_deadline = now + TCP_CLOSING_TIMEOUT_US[31:0];
        bit<16> slot;
        if (meta.nat_out) {
            /* Outbound flow (second pass): the remote side is the destination. */
            slot = (bit<16>) slot_hash.get({ hdr.ipv4.src_addr, hdr.ipv4.dst_addr, hdr.ipv4.protocol,
                                             meta.flow_src_port, meta.flow_dst_port });
            sig = sig_hash.get({ hdr.ipv4.src_addr, hdr.ipv4.dst_addr, hdr.ipv4.protocol,
                                 meta.flow_src_port, meta.flow_dst_port, meta.nat_addr }) | 1;
            remote_addr = hdr.ipv4.dst_addr;
            remote_port_proto = meta.flow_dst_port ++ 8w0 ++ hdr.ipv4.protocol;
            outside_addr = meta.nat_addr;

            bit<8> verdict = occupy.execute(slot);
            claimed = verdict == SLOT_CLAIMED;
            if (claimed) {
                remote_write.execute(slot);
                inside_write.execute(slot);
                outside_write.execute(slot);
            } else if (verdict == SLOT_SAME) {
                bool remote = remote_equal.execute(slot);
                bool inside = inside_equal.execute(slot);
                bool outside = outside_equal.execute(slot);
                key_equal = remote && inside && outside;
            }
            if ((claimed || key_equal) && advance.execute(slot)) {
                meta.nat_rewrite_src = true;
                meta.nat_new_addr = meta.nat_addr;
                meta.nat_new_port = NAT_PORT_BASE + slot;
                meta.nat_translate = true;
            } else {
                meta.drop = true;                 /* never overwrite another live flow */
                meta.drop_reason = DROP_NAT_EXHAUSTED;
            }
        } else {
            /* Reply (first pass): the remote side is the source. */
            slot = (bit<16>) meta.nat_slot;
            remote_addr = hdr.ipv4.src_addr;
            remote_port_proto = meta.flow_src_port ++ 8w0 ++ hdr.ipv4.protocol;
            outside_addr = hdr.ipv4.dst_addr;
            bool remote = remote_equal.execute(slot);
            bit<32> inside_addr = inside_read.execute(slot);
            bit<32> found = outside_lookup.execute(slot);
            key_equal = remote && found[16:16] == 1;
            if (key_equal && advance.execute(slot)) {
                meta.nat_new_addr = inside_addr;
                meta.nat_new_port = found[15:0];
                meta.nat_rewrite_src = false;
                meta.nat_translate = true;
            }
        }
    }
}

#endif
