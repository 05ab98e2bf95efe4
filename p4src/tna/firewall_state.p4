/*
 * tna/firewall_state.p4 -- control `TnaFirewallState` (instance
 * `firewall_state`): the stateful firewall's connection slots with TNA
 * Registers and RegisterActions (conn_cell.p4 says why a slot is four cells;
 * ../v1model/firewall_state.p4 is the same logic with v1model registers).
 *
 *   slot = CRC16(key), sig = CRC32(key) | 1     key = client, server, proto, ports
 *   occupancy[slot] (deadline, sig):  live + sig equal ──▶ SAME (deadline refreshed)
 *                                     live + other sig ──▶ OTHER
 *                                     not live, track  ──▶ CLAIMED (this flow's now)
 *   addrs[slot] (client, server), ports[slot] (ports, proto):
 *                                     CLAIMED ──▶ written; SAME ──▶ compared
 *   conn[slot] (deadline, state):     CLAIMED, or SAME with equal key and (live or track)
 *                                     ──▶ state and deadline advanced, packet passes
 *   anything else: track ──▶ drop FIREWALL_COLLISION, check ──▶ drop FIREWALL
 *
 * Differs from v1model: a TCP RST frees the slot for replies at once (conn),
 * but another flow may claim it only when the occupancy deadline passes (the
 * occupancy cell cannot know the key matched); the same flow reopens it at once.
 */
#ifndef VROUTER_TNA_FIREWALL_STATE_P4
#define VROUTER_TNA_FIREWALL_STATE_P4

control TnaFirewallState(inout headers_t hdr, inout local_metadata_t meta) {
    Hash<bit<16>>(HashAlgorithm_t.CRC16) slot_hash;
    Hash<bit<32>>(HashAlgorithm_t.CRC32) sig_hash;

    @id(ID_TNA_FIREWALL_CONN_OCCUPANCY) Register<conn_cell_t, bit<16>>(FIREWALL_CONN_SLOTS) firewall_conn_occupancy;
    @id(ID_TNA_FIREWALL_CONN_ADDRS)     Register<conn_cell_t, bit<16>>(FIREWALL_CONN_SLOTS) firewall_conn_addrs;
    @id(ID_TNA_FIREWALL_CONN_PORTS)     Register<conn_cell_t, bit<16>>(FIREWALL_CONN_SLOTS) firewall_conn_ports;
    @id(ID_TNA_FIREWALL_CONN)           Register<conn_cell_t, bit<16>>(FIREWALL_CONN_SLOTS) firewall_conn;

    bit<32> now = 0;
    bit<32> sig = 0;
    bit<32> open_deadline = 0;     /* now + this protocol's timeout */
    bit<32> closing_deadline = 0;  /* now + the TCP closing timeout */
    bit<32> port_pair = 0;
    bit<32> proto = 0;
    bool    key_equal = false;
    bool    claimed = false;

    RegisterAction<conn_cell_t, bit<16>, bit<8>>(firewall_conn_occupancy) occupy = {
        void apply(inout conn_cell_t cell, out bit<8> verdict) {
            bool live = cell.hi != 0 && conn_alive(cell.lo, now);
            verdict = SLOT_EMPTY;
            if (live && cell.hi == sig) {
                verdict = SLOT_SAME;
                cell.lo = open_deadline;
            } else if (live) {
                verdict = SLOT_OTHER;
            } else if (meta.fw_track) {
                verdict = SLOT_CLAIMED;
                cell.lo = open_deadline;
                cell.hi = sig;
            }
        }
    };

    RegisterAction<conn_cell_t, bit<16>, bool>(firewall_conn_addrs) addrs_equal = {
        void apply(inout conn_cell_t cell, out bool equal) {
            equal = cell.lo == meta.fw_key_client && cell.hi == meta.fw_key_server;
        }
    };
    RegisterAction<conn_cell_t, bit<16>, bool>(firewall_conn_addrs) addrs_write = {
        void apply(inout conn_cell_t cell) {
            cell.lo = meta.fw_key_client;
            cell.hi = meta.fw_key_server;
        }
    };
    RegisterAction<conn_cell_t, bit<16>, bool>(firewall_conn_ports) ports_equal = {
        void apply(inout conn_cell_t cell, out bool equal) {
            equal = cell.lo == port_pair && cell.hi == proto;
        }
    };
    RegisterAction<conn_cell_t, bit<16>, bool>(firewall_conn_ports) ports_write = {
        void apply(inout conn_cell_t cell) {
            cell.lo = port_pair;
            cell.hi = proto;
        }
    };

    RegisterAction<conn_cell_t, bit<16>, bool>(firewall_conn) advance = {
        void apply(inout conn_cell_t cell, out bool pass) {
            bool live = cell.hi != (bit<32>) CONN_FREE && conn_alive(cell.lo, now);
            pass = false;
            if (claimed || (key_equal && (live || meta.fw_track))) {
                bit<8> state = CONN_FREE;
                if (!claimed && live) {
                    state = (bit<8>) cell.hi;
                }
                cell.hi = (bit<32>) conn_next_state(state, meta.fw_key_proto, meta.tcp_flags);
                cell.lo = cell.hi == (bit<32>) CONN_CLOSING ? closing_deadline : open_deadline;
                pass = true;
            }
        }
    };

    apply {
        bit<16> slot = slot_hash.get({ meta.fw_key_client, meta.fw_key_server, meta.fw_key_proto,
                                       meta.fw_key_client_port, meta.fw_key_server_port });
        sig = sig_hash.get({ meta.fw_key_client, meta.fw_key_server, meta.fw_key_proto,
                             meta.fw_key_client_port, meta.fw_key_server_port }) | 1;
        now = meta.timestamp_us[31:0];
        open_deadline = now + conn_timeout_us(meta.fw_key_proto, CONN_OPEN)[31:0];
        closing_deadline = now + TCP_CLOSING_TIMEOUT_US[31:0];
        port_pair = meta.fw_key_client_port ++ meta.fw_key_server_port;
        proto = (bit<32>) meta.fw_key_proto;

        bit<8> verdict = occupy.execute(slot);
        claimed = verdict == SLOT_CLAIMED;
        if (claimed) {
            addrs_write.execute(slot);
            ports_write.execute(slot);
        } else if (verdict == SLOT_SAME) {
            bool addrs = addrs_equal.execute(slot);
            bool ports = ports_equal.execute(slot);
            key_equal = addrs && ports;
        }
        bool pass = false;
        if (claimed || key_equal) {
            pass = advance.execute(slot);
        }
        if (!pass) {
            meta.drop = true;
            if (meta.fw_track) {
                meta.drop_reason = DROP_FIREWALL_COLLISION;   /* never overwrite another live flow */
            } else {
                meta.drop_reason = DROP_FIREWALL;
            }
        }
    }
}

#endif
