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

#include "v1model/externs.p4"
#include "include/ids.p4"
#include "include/headers.p4"
#include "include/constants.p4"
#include "include/metadata.p4"
#include "include/parser.p4"
#include "include/packet_io.p4"
#include "include/port_vlan.p4"
#include "include/learning.p4"
#include "include/acl.p4"
#include "include/policer.p4"
#include "include/enforce.p4"
#include "include/admit.p4"
#include "include/mpls.p4"
#include "include/pw_term.p4"
#include "include/nat_in.p4"
#include "include/routing.p4"
#include "include/bridge.p4"
#include "include/pw_encap.p4"
#include "include/nexthop.p4"
#include "include/firewall.p4"
#include "include/mtu.p4"
#include "include/nat_out.p4"
#include "include/nat_translate.p4"
#include "include/conn_state.p4"
#include "include/cpu_header.p4"
#include "include/pw_flood.p4"
#include "include/vlan.p4"
#include "include/deparser.p4"
#include "v1model/firewall_state.p4"
#include "v1model/nat_state.p4"

parser V1modelParser(packet_in packet,
                      out headers_t hdr,
                      inout local_metadata_t meta,
                      inout standard_metadata_t std_meta) {
    PacketParser() packet_parser;

    state start {
        meta.ingress_port = std_meta.ingress_port;
        packet_parser.apply(packet, hdr, meta);
        transition accept;
    }
}

/* IPv4 header checksum (no options: packets with options are not routed). */
control V1modelVerifyChecksum(inout headers_t hdr, inout local_metadata_t meta) {
    apply {
        verify_checksum(hdr.ipv4.isValid() && hdr.ipv4.ihl == 5,
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp, hdr.ipv4.ecn,
              hdr.ipv4.total_len, hdr.ipv4.identification, hdr.ipv4.reserved,
              hdr.ipv4.dont_fragment, hdr.ipv4.more_fragments, hdr.ipv4.frag_offset,
              hdr.ipv4.ttl, hdr.ipv4.protocol, hdr.ipv4.src_addr, hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum, HashAlgorithm.csum16);
    }
}

control V1modelComputeChecksum(inout headers_t hdr, inout local_metadata_t meta) {
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
    @id(ID_INGRESS_PORT_COUNTER)
    counter<bit<32>>(PORT_COUNT, CounterType.packets_and_bytes) ingress_port_counter;  /* [port] */
    @id(ID_VLAN_COUNTER)
    counter<bit<32>>(VLAN_COUNT, CounterType.packets_and_bytes) vlan_counter;          /* [vlan] */
    @id(ID_INGRESS_DROP_COUNTER)
    counter<bit<32>>(DROP_REASON_COUNT, CounterType.packets_and_bytes) ingress_drop_counter; /* [DROP_*] */

    /* Policers (P4Runtime MeterEntry; bytes; unconfigured = always green)
     * and their colour counters, index = policer index * 4 + colour. */
    @id(ID_PORT_METER) meter<bit<32>>(PORT_COUNT, MeterType.bytes) port_meter;        /* [port] */
    @id(ID_VLAN_METER) meter<bit<32>>(VLAN_COUNT, MeterType.bytes) vlan_meter;        /* [vlan] */
    @id(ID_ACL_METER)  meter<bit<32>>(ACL_METER_COUNT, MeterType.bytes) acl_meter;    /* [meter_id of ACL police] */
    @id(ID_PORT_METER_COLOR_COUNTER)
    counter<bit<32>>(PORT_COUNT * METER_COLOR_SLOTS, CounterType.packets_and_bytes) port_meter_color_counter;
    @id(ID_VLAN_METER_COLOR_COUNTER)
    counter<bit<32>>(VLAN_COUNT * METER_COLOR_SLOTS, CounterType.packets_and_bytes) vlan_meter_color_counter;
    @id(ID_ACL_METER_COLOR_COUNTER)
    counter<bit<32>>(ACL_METER_COUNT * METER_COLOR_SLOTS, CounterType.packets_and_bytes) acl_meter_color_counter;

    /* Stateful firewall connection slots (P4Runtime RegisterEntry, index =
     * slot): the flow key, its state (CONN_*) and last packet's time (µs);
     * the logic is v1model/firewall_state.p4. */
    @id(ID_FIREWALL_CONN_CLIENT_ADDR) register<bit<32>, bit<32>>(FIREWALL_CONN_SLOTS) firewall_conn_client_addr;
    @id(ID_FIREWALL_CONN_SERVER_ADDR) register<bit<32>, bit<32>>(FIREWALL_CONN_SLOTS) firewall_conn_server_addr;
    @id(ID_FIREWALL_CONN_CLIENT_PORT) register<bit<16>, bit<32>>(FIREWALL_CONN_SLOTS) firewall_conn_client_port;
    @id(ID_FIREWALL_CONN_SERVER_PORT) register<bit<16>, bit<32>>(FIREWALL_CONN_SLOTS) firewall_conn_server_port;
    @id(ID_FIREWALL_CONN_PROTO)       register<bit<8>, bit<32>>(FIREWALL_CONN_SLOTS)  firewall_conn_proto;
    @id(ID_FIREWALL_CONN_STATE)       register<bit<8>, bit<32>>(FIREWALL_CONN_SLOTS)  firewall_conn_state;
    @id(ID_FIREWALL_CONN_LAST_SEEN)   register<bit<48>, bit<32>>(FIREWALL_CONN_SLOTS) firewall_conn_last_seen;
    V1modelFirewallState(firewall_conn_client_addr, firewall_conn_server_addr, firewall_conn_client_port,
                         firewall_conn_server_port, firewall_conn_proto, firewall_conn_state,
                         firewall_conn_last_seen) firewall_state;

    /* Source NAT slots (P4Runtime RegisterEntry), index = port - NAT_PORT_BASE:
     * the inside host's address/port, the remote address/port, the outside
     * (masquerade) address, the protocol, the state (CONN_*) and the last
     * packet's time (µs); the logic is v1model/nat_state.p4. */
    @id(ID_NAT_INSIDE_ADDR)  register<bit<32>, bit<32>>(NAT_SLOTS) nat_inside_addr;
    @id(ID_NAT_INSIDE_PORT)  register<bit<16>, bit<32>>(NAT_SLOTS) nat_inside_port;
    @id(ID_NAT_REMOTE_ADDR)  register<bit<32>, bit<32>>(NAT_SLOTS) nat_remote_addr;
    @id(ID_NAT_REMOTE_PORT)  register<bit<16>, bit<32>>(NAT_SLOTS) nat_remote_port;
    @id(ID_NAT_OUTSIDE_ADDR) register<bit<32>, bit<32>>(NAT_SLOTS) nat_outside_addr;
    @id(ID_NAT_PROTO)        register<bit<8>, bit<32>>(NAT_SLOTS)  nat_proto;
    @id(ID_NAT_STATE)        register<bit<8>, bit<32>>(NAT_SLOTS)  nat_state;
    @id(ID_NAT_LAST_SEEN)    register<bit<48>, bit<32>>(NAT_SLOTS) nat_last_seen;
    V1modelNatReplyState(nat_inside_addr, nat_inside_port, nat_remote_addr, nat_remote_port,
                         nat_outside_addr, nat_proto, nat_state, nat_last_seen) nat_reply_state;
    V1modelNatFlowState(nat_inside_addr, nat_inside_port, nat_remote_addr, nat_remote_port,
                        nat_outside_addr, nat_proto, nat_state, nat_last_seen) nat_flow_state;

    /* NatTranslate rewrites in two places, replies (inbound) and flows
     * (outbound); in v1model it updates the L4 checksum itself (true). */
    NatTranslate(true) nat_reverse;
    NatTranslate(true) nat_forward;

    PacketIo()  packet_io;
    PortVlan()  port_vlan;
    Learning()  learning;
    Acl()       acl;
    Policer()   policer;
    Enforce()   enforce;
    Admit()     admit;
    Mpls()      mpls;
    PwTerm()    pw_term;
    NatIn()     nat_in;
    Routing()   routing;
    Bridge()    bridge;
    PwEncap()   pw_encap;
    Nexthop()   nexthop;
    Firewall()  firewall;
    Mtu()       mtu;
    NatOut()    nat_out;

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
                nat_reply_state.apply(hdr, meta);
                if (meta.nat_translate) {
                    nat_reverse.apply(hdr, meta);
                    meta.nat_translate = false;
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

            /* ---- stateful firewall: policy, then the connection slots ---- */
            if (!meta.drop && !meta.punt) {
                firewall.apply(hdr, meta);
            }
            if (!meta.drop && !meta.punt && (meta.fw_track || meta.fw_check)) {
                firewall_state.apply(hdr, meta);
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
                nat_flow_state.apply(hdr, meta);
                if (meta.nat_translate) {
                    nat_forward.apply(hdr, meta);
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

    @id(ID_EGRESS_PORT_COUNTER)
    counter<bit<32>>(PORT_COUNT, CounterType.packets_and_bytes) egress_port_counter;  /* [port] */
    @id(ID_EGRESS_DROP_COUNTER)
    counter<bit<32>>(DROP_REASON_COUNT, CounterType.packets_and_bytes) egress_drop_counter; /* [DROP_*] */

    CpuHeader() cpu_header;
    PwFlood()   pw_flood;
    Vlan()      vlan;

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

V1Switch(V1modelParser(),
         V1modelVerifyChecksum(),
         ingress(),
         egress(),
         V1modelComputeChecksum(),
         PacketDeparser()) main;
