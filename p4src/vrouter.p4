/*
 * vrouter.p4 -- P4-16 switch-router for the v1model architecture.
 *
 * This file is the architecture layer: it wires parser, ingress, egress and
 * deparser into V1Switch, moves data between standard_metadata_t and the
 * program's own metadata, and owns every v1model extern that is not a
 * table property (counters, meters, registers, hashes, digest, clone,
 * checksums, mark_to_drop).  The features live in include/, one control
 * per file, and see only headers_t and local_metadata_t.
 *
 * Ingress (in order; a drop or punt skips the stages that follow it):
 *
 *   packet_io ─▶ port_vlan ─▶ learning ─▶ acl ─▶ policer ─▶ [meters] ─▶ policer_enforce
 *     │ (bypass)   port_config   l2_learning  acl_ingress_  port_policer
 *     │            ingress_vlan_             table         vlan_policer
 *     │            member
 *     ▼
 *   ─▶ admit ─▶ mpls ─▶ pw_term ─▶ routing ─▶ bridge ─▶ pw_encap ─▶ nexthop ─▶ firewall ─▶ [conn state] ─▶ mtu
 *      router_  mpls_   pw_         router_     l2_       (VPLS)      nexthop_   firewall_src_zone           interface_
 *      mac      label   termination address     unicast               table      firewall_dst_zone           mtu
 *                       (VPLS)      ipv4_route                        (ecmp_     firewall_policy
 *                                                                     selector)
 *   source NAT (nat.p4): nat_inbound_interface + [nat slots] just before
 *   routing (replies get their inside destination back); nat_outbound_interface
 *   + [nat slots] after mtu (masquerade the source).
 *   ─▶ verdict: drop (ingress_drop_counter[reason]) | punt to CPU_PORT
 *               | flood (mcast group = VLAN) | unicast;  clone to CPU (ACL copy);
 *               learning digests (ports; pseudowires)
 *
 * Egress:
 *   CPU_PORT ─▶ cpu_header (packet_in)      other ports ─▶ [rid != 0: pw_flood (VPLS)] ─▶ egress_vlan (egress_vlan_member)
 *   ─▶ egress_port_counter | egress_drop_counter[reason]
 *
 * Tables, counters, reasons and controller headers: docs/p4-program.md.
 */
// The generic counter<I>, meter<I> and register<T, I> of v1model need this (as with p4c).
#define V1MODEL_VERSION 20200408
#include <core.p4>
#include <v1model.p4>

#include "include/headers.p4"
#include "include/constants.p4"
#include "include/metadata.p4"
#include "include/arch_v1model.p4"
#include "include/parser.p4"
#include "include/packet_io.p4"
#include "include/port_vlan.p4"
#include "include/mac_learning.p4"
#include "include/acl.p4"
#include "include/policer_select.p4"
#include "include/policer_enforce.p4"
#include "include/l3_admit.p4"
#include "include/mpls.p4"
#include "include/ipv4_routing.p4"
#include "include/bridging.p4"
#include "include/vpls.p4"
#include "include/nexthop.p4"
#include "include/firewall.p4"
#include "include/nat.p4"
#include "include/mtu_check.p4"
#include "include/packet_in.p4"
#include "include/egress_vlan.p4"
#include "include/deparser.p4"

parser v1model_parser(packet_in packet,
                      out headers_t hdr,
                      inout local_metadata_t meta,
                      inout standard_metadata_t std_meta) {
    packet_parser() headers_parser;

    state start {
        meta.ingress_port = std_meta.ingress_port;
        headers_parser.apply(packet, hdr, meta);
        transition accept;
    }
}

/* IPv4 header checksum (no options: packets with options are not routed). */
control v1model_verify_checksum(inout headers_t hdr, inout local_metadata_t meta) {
    apply {
        verify_checksum(hdr.ipv4.isValid() && hdr.ipv4.ihl == 5,
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp, hdr.ipv4.ecn,
              hdr.ipv4.total_len, hdr.ipv4.identification, hdr.ipv4.reserved,
              hdr.ipv4.dont_fragment, hdr.ipv4.more_fragments, hdr.ipv4.frag_offset,
              hdr.ipv4.ttl, hdr.ipv4.protocol, hdr.ipv4.src_addr, hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum, HashAlgorithm.csum16);
    }
}

control v1model_compute_checksum(inout headers_t hdr, inout local_metadata_t meta) {
    apply {
        update_checksum(hdr.ipv4.isValid() && meta.update_ipv4_checksum,
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp, hdr.ipv4.ecn,
              hdr.ipv4.total_len, hdr.ipv4.identification, hdr.ipv4.reserved,
              hdr.ipv4.dont_fragment, hdr.ipv4.more_fragments, hdr.ipv4.frag_offset,
              hdr.ipv4.ttl, hdr.ipv4.protocol, hdr.ipv4.src_addr, hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum, HashAlgorithm.csum16);
    }
}

control ingress(inout headers_t hdr,
                inout local_metadata_t meta,
                inout standard_metadata_t std_meta) {

    /* Operator counters (P4Runtime CounterEntry, index as noted). */
    counter<bit<32>>(PORT_COUNT, CounterType.packets_and_bytes) ingress_port_counter;  /* [port] */
    counter<bit<32>>(VLAN_COUNT, CounterType.packets_and_bytes) vlan_counter;          /* [vlan] */
    counter<bit<32>>(DROP_REASON_COUNT, CounterType.packets_and_bytes) ingress_drop_counter; /* [DROP_*] */

    /* Policers (P4Runtime MeterEntry; bytes; unconfigured = always green)
     * and their colour counters, index = policer index * 4 + colour. */
    meter<bit<32>>(PORT_COUNT, MeterType.bytes) port_meter;        /* [port] */
    meter<bit<32>>(VLAN_COUNT, MeterType.bytes) vlan_meter;        /* [vlan] */
    meter<bit<32>>(ACL_METER_COUNT, MeterType.bytes) acl_meter;    /* [meter_id of ACL police] */
    counter<bit<32>>(PORT_COUNT * METER_COLOR_SLOTS, CounterType.packets_and_bytes) port_meter_color_counter;
    counter<bit<32>>(VLAN_COUNT * METER_COLOR_SLOTS, CounterType.packets_and_bytes) vlan_meter_color_counter;
    counter<bit<32>>(ACL_METER_COUNT * METER_COLOR_SLOTS, CounterType.packets_and_bytes) acl_meter_color_counter;

    /* Stateful firewall connection slots (P4Runtime RegisterEntry). */
    register<bit<32>, bit<32>>(FIREWALL_CONN_SLOTS) firewall_conn_signature;
    register<bit<48>, bit<32>>(FIREWALL_CONN_SLOTS) firewall_conn_last_seen;

    /* Source NAT slots (P4Runtime RegisterEntry), index = port - NAT_PORT_BASE:
     * the inside host's address/port, the remote address/port, the protocol
     * (0: never used) and the last packet's time. */
    register<bit<32>, bit<32>>(NAT_SLOTS) nat_inside_addr;
    register<bit<16>, bit<32>>(NAT_SLOTS) nat_inside_port;
    register<bit<32>, bit<32>>(NAT_SLOTS) nat_remote_addr;
    register<bit<16>, bit<32>>(NAT_SLOTS) nat_remote_port;
    register<bit<8>, bit<32>>(NAT_SLOTS)  nat_proto;
    register<bit<48>, bit<32>>(NAT_SLOTS) nat_last_seen;

    ingress_packet_io()        packet_io;
    ingress_port_vlan()        port_vlan;
    mac_learning()             learning;
    acl_ingress()              acl;
    policer_select()           policer;
    policer_enforce()          enforce;
    l3_admit()                 admit;
    mpls_lookup()              mpls;
    pseudowire_termination()   pw_term;
    ipv4_routing()             routing;
    bridging()                 bridge;
    pseudowire_encapsulation() pw_encap;
    nexthop_resolution()       nexthop;
    stateful_firewall()        firewall;
    nat_inbound()              nat_in;
    nat_outbound()             nat_out;
    nat_translate()            nat_reverse;
    nat_translate()            nat_forward;
    mtu_check()                mtu;

    apply {
        /* ---- architecture -> program ---- */
        meta.timestamp_us = std_meta.ingress_global_timestamp;
        meta.parser_error = std_meta.parser_error != error.NoError;
        meta.checksum_error = std_meta.checksum_error == 1;

        ingress_port_counter.count((bit<32>) meta.ingress_port);
        packet_io.apply(hdr, meta);

        if (!meta.bypass) {
            if (meta.parser_error) {
                meta.drop = true;
                meta.drop_reason = DROP_PARSER_ERROR;
            } else {
                port_vlan.apply(hdr, meta);
            }
        }

        if (!meta.bypass && !meta.drop) {
            vlan_counter.count((bit<32>) meta.vlan_id);
            learning.apply(hdr, meta);
            acl.apply(hdr, meta);

            /* ---- policing (not for packets the ACL denied) ---- */
            if (!meta.drop) {
                policer.apply(hdr, meta);
                if (meta.port_police) {
                    port_meter.execute_meter((bit<32>) meta.ingress_port, meta.port_color);
                    port_meter_color_counter.count(
                        ((bit<32>) meta.ingress_port) * METER_COLOR_SLOTS + (bit<32>) meta.port_color);
                }
                if (meta.vlan_police) {
                    vlan_meter.execute_meter((bit<32>) meta.vlan_id, meta.vlan_color);
                    vlan_meter_color_counter.count(
                        ((bit<32>) meta.vlan_id) * METER_COLOR_SLOTS + (bit<32>) meta.vlan_color);
                }
                if (meta.acl_police) {
                    acl_meter.execute_meter((bit<32>) meta.acl_meter_id, meta.acl_color);
                    acl_meter_color_counter.count(
                        ((bit<32>) meta.acl_meter_id) * METER_COLOR_SLOTS + (bit<32>) meta.acl_color);
                }
                enforce.apply(hdr, meta);
            }

            /* ---- forwarding ---- */
            if (!meta.drop && !meta.punt) {
                admit.apply(hdr, meta);
                if (meta.l3_admit && hdr.mpls[0].isValid() && !meta.acl_redirect) {
                    mpls.apply(hdr, meta);
                    if (meta.pw_lookup && !meta.drop) {
                        pw_term.apply(hdr, meta);
                    }
                }
            }
            /* ---- source NAT, inbound: a reply to a masqueraded flow gets
             * its inside destination back before it is routed ---- */
            if (!meta.drop && !meta.punt) {
                nat_in.apply(hdr, meta);
            }
            if (meta.nat_in_lookup) {
                bit<8>  slot_proto;
                bit<32> slot_remote_addr;
                bit<16> slot_remote_port;
                bit<48> slot_last_seen;
                nat_proto.read(slot_proto, meta.nat_slot);
                nat_remote_addr.read(slot_remote_addr, meta.nat_slot);
                nat_remote_port.read(slot_remote_port, meta.nat_slot);
                nat_last_seen.read(slot_last_seen, meta.nat_slot);
                if (slot_proto == hdr.ipv4.protocol
                        && slot_remote_addr == hdr.ipv4.src_addr
                        && slot_remote_port == meta.l4_src_port
                        && meta.timestamp_us - slot_last_seen <= NAT_TIMEOUT_US) {
                    nat_inside_addr.read(meta.nat_new_addr, meta.nat_slot);
                    nat_inside_port.read(meta.nat_new_port, meta.nat_slot);
                    nat_last_seen.write(meta.nat_slot, meta.timestamp_us);
                    meta.nat_rewrite_src = false;
                    nat_reverse.apply(hdr, meta);
                }
            }
            if (!meta.drop && !meta.punt) {
                routing.apply(hdr, meta);
            }
            if (!meta.drop && !meta.punt && !meta.l3_admit && !meta.acl_redirect) {
                bridge.apply(hdr, meta);
                if (meta.pw_encap && !meta.drop) {
                    pw_encap.apply(hdr, meta);
                }
            }
            if (!meta.drop && !meta.punt && (meta.nexthop_valid || meta.acl_redirect)) {
                nexthop.apply(hdr, meta);
            }

            /* ---- stateful firewall ---- */
            if (!meta.drop && !meta.punt) {
                firewall.apply(hdr, meta);
            }
            /* Connection table: look the flow up, record it (track) or
             * require it to be live (check); both refresh its last-seen time. */
            if (!meta.drop && !meta.punt && (meta.fw_track || meta.fw_check)) {
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
                firewall_conn_signature.read(stored_signature, slot);
                firewall_conn_last_seen.read(last_seen, slot);
                meta.fw_conn_hit = stored_signature == signature
                    && meta.timestamp_us - last_seen <= FIREWALL_CONN_TIMEOUT_US;
                if (meta.fw_track) {
                    firewall_conn_signature.write(slot, signature);
                    firewall_conn_last_seen.write(slot, meta.timestamp_us);
                } else if (meta.fw_conn_hit) {
                    firewall_conn_last_seen.write(slot, meta.timestamp_us);
                } else {
                    meta.drop = true;
                    meta.drop_reason = DROP_FIREWALL;
                }
            }

            if (!meta.drop && !meta.punt) {
                mtu.apply(hdr, meta);
            }

            /* ---- source NAT, outbound: after the firewall, so its flow
             * key holds the inside host's own address and port, and after
             * the MTU check, so a too-big packet is punted untranslated (the
             * controller's ICMP goes to the inside host) and takes no slot ---- */
            if (!meta.drop && !meta.punt) {
                nat_out.apply(hdr, meta);
            }
            if (!meta.drop && !meta.punt && meta.nat_out) {
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
                nat_proto.read(slot_proto, slot);
                nat_inside_addr.read(slot_inside_addr, slot);
                nat_inside_port.read(slot_inside_port, slot);
                nat_remote_addr.read(slot_remote_addr, slot);
                nat_remote_port.read(slot_remote_port, slot);
                nat_last_seen.read(slot_last_seen, slot);
                bool same_flow = slot_proto == hdr.ipv4.protocol
                    && slot_inside_addr == hdr.ipv4.src_addr
                    && slot_inside_port == meta.l4_src_port
                    && slot_remote_addr == hdr.ipv4.dst_addr
                    && slot_remote_port == meta.l4_dst_port;
                bool live = slot_proto != 0
                    && meta.timestamp_us - slot_last_seen <= NAT_TIMEOUT_US;
                if (same_flow || !live) {
                    if (!same_flow) {
                        nat_proto.write(slot, hdr.ipv4.protocol);
                        nat_inside_addr.write(slot, hdr.ipv4.src_addr);
                        nat_inside_port.write(slot, meta.l4_src_port);
                        nat_remote_addr.write(slot, hdr.ipv4.dst_addr);
                        nat_remote_port.write(slot, meta.l4_dst_port);
                    }
                    nat_last_seen.write(slot, meta.timestamp_us);
                    meta.nat_rewrite_src = true;
                    meta.nat_new_addr = meta.nat_addr;
                    meta.nat_new_port = NAT_PORT_BASE + (bit<16>) slot;
                    nat_forward.apply(hdr, meta);
                } else {
                    meta.drop = true;
                    meta.drop_reason = DROP_NAT_EXHAUSTED;
                }
            }
        }

        /* ---- program -> architecture ---- */
        if (meta.learn) {
            digest<mac_learn_digest_t>(MAC_LEARN_DIGEST_RECEIVER, meta.learn_digest);
        }
        if (meta.pw_learn) {
            digest<pw_learn_digest_t>(PW_LEARN_DIGEST_RECEIVER, meta.pw_learn_digest);
        }
        if (meta.copy_to_cpu && !meta.punt) {
            meta.cpu_reason = CPU_REASON_ACL_COPY;
            clone_preserving_field_list(CloneType.I2E, CPU_CLONE_SESSION_ID, CPU_CLONE_FIELD_LIST);
        }
        if (meta.drop) {
            ingress_drop_counter.count((bit<32>) meta.drop_reason);
            mark_to_drop(std_meta);
        } else if (meta.punt) {
            std_meta.egress_spec = CPU_PORT;
        } else if (meta.mcast_group != 0) {
            std_meta.mcast_grp = meta.mcast_group;
        } else {
            std_meta.egress_spec = meta.egress_port;
        }
    }
}

control egress(inout headers_t hdr,
               inout local_metadata_t meta,
               inout standard_metadata_t std_meta) {

    counter<bit<32>>(PORT_COUNT, CounterType.packets_and_bytes) egress_port_counter;  /* [port] */
    counter<bit<32>>(DROP_REASON_COUNT, CounterType.packets_and_bytes) egress_drop_counter; /* [DROP_*] */

    egress_packet_in()               cpu_header;
    pseudowire_flood_encapsulation() pw_flood;
    egress_vlan()                    vlan;

    apply {
        meta.egress_port = std_meta.egress_port;
        meta.egress_rid = std_meta.egress_rid;
        if (!meta.bypass) {
            if (meta.egress_port == CPU_PORT) {
                cpu_header.apply(hdr, meta);
            } else {
                if (meta.egress_rid != 0) {
                    pw_flood.apply(hdr, meta);
                }
                if (!meta.drop) {
                    vlan.apply(hdr, meta);
                }
            }
        }
        if (meta.drop) {
            egress_drop_counter.count((bit<32>) meta.drop_reason);
            mark_to_drop(std_meta);
        } else {
            egress_port_counter.count((bit<32>) meta.egress_port);
        }
    }
}

V1Switch(v1model_parser(),
         v1model_verify_checksum(),
         ingress(),
         egress(),
         v1model_compute_checksum(),
         packet_deparser()) main;
