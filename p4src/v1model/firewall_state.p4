/*
 * v1model/firewall_state.p4 -- control `V1modelFirewallState`: the stateful
 * firewall's connection slots (firewall.p4 decides track or check and builds
 * the flow key; this file keeps the state, with v1model registers and hash).
 *
 *   slot = crc16(flow key) mod FIREWALL_CONN_SLOTS, signature = crc32(flow key)
 *   track: write signature and time          check: signature equal and live? refresh : drop FIREWALL
 *
 * The registers are declared by the ingress control (../vrouter.p4), so their
 * P4Info names stay ingress.firewall_conn_*; this control gets them as
 * constructor arguments.
 */
#ifndef VROUTER_V1MODEL_FIREWALL_STATE_P4
#define VROUTER_V1MODEL_FIREWALL_STATE_P4

control V1modelFirewallState(inout headers_t hdr, inout local_metadata_t meta)
        (register<bit<32>, bit<32>> conn_signature, register<bit<48>, bit<32>> conn_last_seen) {
    apply {
        bit<32> slot;
        bit<32> signature;
        bit<32> stored_signature;
        bit<48> last_seen;
        hash(slot, HashAlgorithm.crc16, 32w0,
             { meta.fw_key_client, meta.fw_key_server, meta.fw_key_proto,
               meta.fw_key_client_port, meta.fw_key_server_port },
             FIREWALL_CONN_SLOTS);
        hash(signature, HashAlgorithm.crc32, 32w0,
             { meta.fw_key_client, meta.fw_key_server, meta.fw_key_proto,
               meta.fw_key_client_port, meta.fw_key_server_port },
             32w0xffffffff);
        conn_signature.read(stored_signature, slot);
        conn_last_seen.read(last_seen, slot);
        meta.fw_conn_hit = stored_signature == signature
            && meta.timestamp_us - last_seen <= FIREWALL_CONN_TIMEOUT_US;
        if (meta.fw_track) {
            conn_signature.write(slot, signature);
            conn_last_seen.write(slot, meta.timestamp_us);
        } else if (meta.fw_conn_hit) {
            conn_last_seen.write(slot, meta.timestamp_us);
        } else {
            meta.drop = true;
            meta.drop_reason = DROP_FIREWALL;
        }
    }
}

#endif
