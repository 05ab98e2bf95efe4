/*
 * v1model/firewall_state.p4 -- control `V1modelFirewallState` (instance
 * `firewall_state`): the stateful firewall's connection slots in v1model
 * registers (firewall.p4 decides track or check and builds the flow key;
 * include/conn_state.p4 has the state rules).
 *
 *   slot = crc16(client, server, proto, client port, server port) mod FIREWALL_CONN_SLOTS
 *   same flow = slot not free, live, and all five key fields equal
 *   track (trusted side):   same flow or slot free/stale ──▶ write key, state, time
 *                           another live flow's slot    ──▶ drop FIREWALL_COLLISION
 *   check (untrusted side): same flow ──▶ pass, state and time updated
 *                           anything else ──▶ drop FIREWALL
 *
 * The registers are declared by the ingress control (../vrouter.p4), so
 * their P4Info names are ingress.firewall_conn_*; they come in as
 * constructor arguments.
 */
#ifndef VROUTER_V1MODEL_FIREWALL_STATE_P4
#define VROUTER_V1MODEL_FIREWALL_STATE_P4

control V1modelFirewallState(inout headers_t hdr, inout local_metadata_t meta)
        (register<bit<32>, bit<32>> conn_client_addr, register<bit<32>, bit<32>> conn_server_addr,
         register<bit<16>, bit<32>> conn_client_port, register<bit<16>, bit<32>> conn_server_port,
         register<bit<8>, bit<32>> conn_proto, register<bit<8>, bit<32>> conn_state,
         register<bit<48>, bit<32>> conn_last_seen) {
    apply {
        bit<32> slot;
        hash(slot, HashAlgorithm.crc16, 32w0,
             { meta.fw_key_client, meta.fw_key_server, meta.fw_key_proto,
               meta.fw_key_client_port, meta.fw_key_server_port },
             FIREWALL_CONN_SLOTS);
        bit<32> client_addr;
        bit<32> server_addr;
        bit<16> client_port;
        bit<16> server_port;
        bit<8>  proto;
        bit<8>  state;
        bit<48> last_seen;
        conn_client_addr.read(client_addr, slot);
        conn_server_addr.read(server_addr, slot);
        conn_client_port.read(client_port, slot);
        conn_server_port.read(server_port, slot);
        conn_proto.read(proto, slot);
        conn_state.read(state, slot);
        conn_last_seen.read(last_seen, slot);

        bool live = state != CONN_FREE
            && meta.timestamp_us - last_seen <= conn_timeout_us(proto, state);
        bool same_flow = live
            && client_addr == meta.fw_key_client && server_addr == meta.fw_key_server
            && client_port == meta.fw_key_client_port && server_port == meta.fw_key_server_port
            && proto == meta.fw_key_proto;

        if (meta.fw_track && !same_flow && live) {
            meta.drop = true;                     /* never overwrite another live flow */
            meta.drop_reason = DROP_FIREWALL_COLLISION;
        } else if (meta.fw_check && !same_flow) {
            meta.drop = true;
            meta.drop_reason = DROP_FIREWALL;
        } else {
            if (!same_flow) {                     /* track: a new flow in a free or stale slot */
                state = CONN_FREE;
                conn_client_addr.write(slot, meta.fw_key_client);
                conn_server_addr.write(slot, meta.fw_key_server);
                conn_client_port.write(slot, meta.fw_key_client_port);
                conn_server_port.write(slot, meta.fw_key_server_port);
                conn_proto.write(slot, meta.fw_key_proto);
            }
            conn_state.write(slot, conn_next_state(state, meta.fw_key_proto, meta.tcp_flags));
            conn_last_seen.write(slot, meta.timestamp_us);
        }
    }
}

#endif
