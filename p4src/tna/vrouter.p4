/*
 * tna/vrouter.p4 -- the vrouter for the Tofino Native Architecture (TNA).
 *
 * The architecture layer only, as ../vrouter.p4 is for v1model: the same
 * feature controls of ../include/ (unchanged), wired into TNA's Pipeline and
 * Switch with TNA's means.  Type-checked by `p4compile --arch tna` in
 * `make test` (p4src/tests/test_tna.py); there is no TNA back end here.
 * docs/porting.md lists every v1model construct with its TNA equivalent.
 *
 *   ingress parser   ingress_intrinsic_metadata_t, port metadata skipped,
 *                    include/parser.p4; Checksum verifies IPv4 and keeps
 *                    the TCP/UDP/ICMP checksum residual for NAT
 *   ingress          the v1model ingress order; Counter, Meter (colour),
 *                    ActionSelector + Hash (include/nexthop.p4 via
 *                    tna/externs.p4), Register/RegisterAction connection
 *                    slots (tna/firewall_state.p4, tna/nat_state.p4);
 *                    verdict: drop_ctl, ucast_egress_port, mcast_grp_a,
 *                    bypass_egress (packet-out), digest_type, mirror_type
 *   ingress deparser Digest (MAC learning), Mirror (ACL copy to CPU),
 *                    Checksum (IPv4; TCP/UDP/ICMP after NAT, incremental
 *                    from the residual), bridged metadata, the frame
 *   egress parser    egress_intrinsic_metadata_t, bridged metadata, the frame
 *   egress           packet_in, VPLS flood copies, VLAN tag; drop_ctl
 *
 * What differs from v1model, and why:
 *  - Metadata does not cross from ingress to egress: bridged_md_h carries
 *    what egress needs, and the egress parser parses the frame again.
 *  - A source-NAT flow leaving the router takes its slot in a second pass
 *    (recirculation through RECIRC_PORT): Tofino keeps a register at one
 *    place in the pipeline, and replies need the slots before routing
 *    (tna/nat_state.p4).  Replies and the firewall need one pass.
 *  - P4Info names: the controls are called ingress and egress as in
 *    ../vrouter.p4 and the digests carry v1model's names, so tables,
 *    actions, counters, meters and digests keep their v1model names (a
 *    TNA compiler names objects <control>.<instance path>).
 *  - Connection slots are 64-bit cells read in pipeline order
 *    (tna/conn_cell.p4); their registers are named per cell, so the P4Info
 *    registers differ from v1model's ingress.firewall_conn_* / nat_*.
 *  - Meter colours: TNA's RED is 3, v1model's (and include/) 2: tna_color().
 *  - One digest per packet (digest_type): a frame that would raise both
 *    learning digests raises the MAC one (cannot happen: a frame comes from
 *    a port or from a pseudowire).
 *  - Timestamps are ns; meta.timestamp_us is ns >> 10 (1.024 us units), so
 *    timeouts are 2.4 % longer than on v1model.
 *  - VPLS flooding needs no second pass: the multicast group's member is
 *    the pseudowire's port and egress pushes its labels (include/pw_flood.p4);
 *    a pseudowire reached through an ECMP next hop would need one (the
 *    selector is an ingress table), which the program does not offer.
 *  - Metadata is not zero-initialised by TNA: compile with bf-p4c's
 *    automatic metadata initialisation (the feature controls assume zeros,
 *    as v1model gives).
 *  - CPU_PORT and RECIRC_PORT are device ports: -DCPU_PORT_NUMBER=N (e.g. 64
 *    or 192 on Tofino 1) and -DRECIRC_PORT_NUMBER=N (68: pipe 0).
 */
#include <core.p4>
#include <tna.p4>

#include "externs.p4"
#include "../include/ids.p4"
#include "../include/headers.p4"
#include "../include/constants.p4"
#include "../include/metadata.p4"
#include "../include/parser.p4"
#include "../include/packet_io.p4"
#include "../include/port_vlan.p4"
#include "../include/learning.p4"
#include "../include/acl.p4"
#include "../include/policer.p4"
#include "../include/enforce.p4"
#include "../include/admit.p4"
#include "../include/mpls.p4"
#include "../include/pw_term.p4"
#include "../include/nat_in.p4"
#include "../include/routing.p4"
#include "../include/bridge.p4"
#include "../include/pw_encap.p4"
#include "../include/nexthop.p4"
#include "../include/firewall.p4"
#include "../include/mtu.p4"
#include "../include/nat_out.p4"
#include "../include/nat_translate.p4"
#include "../include/conn_state.p4"
#include "../include/cpu_header.p4"
#include "../include/pw_flood.p4"
#include "../include/vlan.p4"
#include "../include/deparser.p4"
#include "conn_cell.p4"
#include "firewall_state.p4"
#include "nat_state.p4"

#ifndef RECIRC_PORT_NUMBER
#define RECIRC_PORT_NUMBER 68
#endif
const port_t RECIRC_PORT = RECIRC_PORT_NUMBER;

const DigestType_t DIGEST_MAC_LEARN = 1;
const DigestType_t DIGEST_PW_LEARN  = 2;
const MirrorType_t MIRROR_TYPE_CPU  = 1;

/* Ingress -> egress (and -> the second pass): what the feature controls of
 * egress read from local_metadata_t, and the first pass's verdict.  A CPU
 * copy (Mirror) carries the same header. */
header bridged_md_h {
    bit<7>       _pad0;
    port_t       ingress_port;
    bit<4>       _pad1;
    vlan_id_t    vlan_id;
    bit<4>       _pad2;
    vlan_id_t    egress_vlan_id;
    bit<3>       vlan_pcp;
    bit<1>       nat_flow;       /* second pass: take a NAT slot, translate */
    bit<4>       _pad3;
    cpu_reason_t cpu_reason;
    bit<16>      mcast_group;
    bit<7>       _pad4;
    port_t       egress_port;    /* second pass: where the packet goes */
    ipv4_addr_t  nat_addr;       /* second pass: the masquerade address */
}

struct tna_headers_t {
    bridged_md_h bridged;
    headers_t    pkt;
}

struct tna_ingress_metadata_t {
    local_metadata_t meta;
    bool         second_pass;        /* recirculated (bridged valid) */
    bit<16>      l4_residual;        /* L4 checksum less the fields NAT rewrites */
    bool         l4_checksum_update; /* NAT rewrote: deparser updates the L4 checksum */
    MirrorId_t   mirror_session;
    conn_scratch_t fw_scratch;       /* inputs of the firewall's RegisterActions */
    conn_scratch_t nat_scratch;      /* inputs of NAT's RegisterActions */
}

struct tna_egress_metadata_t {
    local_metadata_t meta;
}

/* TNA meter colour (MeterColor_t) -> the COLOR_* the feature controls use. */
bit<2> tna_color(in bit<8> color) {
    bit<2> c = COLOR_GREEN;
    if (color == (bit<8>) MeterColor_t.RED) {
        c = COLOR_RED;
    } else if (color == (bit<8>) MeterColor_t.YELLOW) {
        c = COLOR_YELLOW;
    }
    return c;
}

parser TnaIngressParser(packet_in pkt,
                        out tna_headers_t hdr,
                        out tna_ingress_metadata_t ig_md,
                        out ingress_intrinsic_metadata_t ig_intr_md) {
    PacketParser() packet_parser;
    Checksum() ipv4_checksum;
    Checksum() l4_checksum;

    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        ig_md.meta.ingress_port = ig_intr_md.ingress_port;
        transition select(ig_intr_md.ingress_port) {
            RECIRC_PORT: parse_second_pass;
            default: parse_frame;
        }
    }

    state parse_second_pass {
        pkt.extract(hdr.bridged);
        ig_md.second_pass = true;
        transition parse_frame;
    }

    state parse_frame {
        packet_parser.apply(pkt, hdr.pkt, ig_md.meta);
        transition select(hdr.pkt.ipv4.isValid(), hdr.pkt.ipv4.ihl) {
            (true, 5): verify_ipv4;
            default: accept;
        }
    }

    state verify_ipv4 {
        ipv4_checksum.add({ hdr.pkt.ipv4.version, hdr.pkt.ipv4.ihl, hdr.pkt.ipv4.dscp, hdr.pkt.ipv4.ecn,
                            hdr.pkt.ipv4.total_len, hdr.pkt.ipv4.identification, hdr.pkt.ipv4.reserved,
                            hdr.pkt.ipv4.dont_fragment, hdr.pkt.ipv4.more_fragments, hdr.pkt.ipv4.frag_offset,
                            hdr.pkt.ipv4.ttl, hdr.pkt.ipv4.protocol, hdr.pkt.ipv4.hdr_checksum,
                            hdr.pkt.ipv4.src_addr, hdr.pkt.ipv4.dst_addr });
        ig_md.meta.checksum_error = !ipv4_checksum.verify();
        transition select(hdr.pkt.tcp.isValid(), hdr.pkt.udp.isValid(), hdr.pkt.icmp.isValid()) {
            (true, false, false): tcp_residual;
            (false, true, false): udp_residual;
            (false, false, true): icmp_residual;
            default: accept;
        }
    }

    /* The residual: the L4 checksum less every field NAT may rewrite (RFC
     * 1624); the ingress deparser adds the new values back. */
    state tcp_residual {
        l4_checksum.subtract({ hdr.pkt.ipv4.src_addr, hdr.pkt.ipv4.dst_addr,
                               hdr.pkt.tcp.src_port, hdr.pkt.tcp.dst_port, hdr.pkt.tcp.checksum });
        l4_checksum.subtract_all_and_deposit(ig_md.l4_residual);
        transition accept;
    }

    state udp_residual {
        l4_checksum.subtract({ hdr.pkt.ipv4.src_addr, hdr.pkt.ipv4.dst_addr,
                               hdr.pkt.udp.src_port, hdr.pkt.udp.dst_port, hdr.pkt.udp.checksum });
        l4_checksum.subtract_all_and_deposit(ig_md.l4_residual);
        transition accept;
    }

    state icmp_residual {
        l4_checksum.subtract({ hdr.pkt.icmp.identifier, hdr.pkt.icmp.checksum });
        l4_checksum.subtract_all_and_deposit(ig_md.l4_residual);
        transition accept;
    }
}

control ingress(inout tna_headers_t hdr,
                   inout tna_ingress_metadata_t ig_md,
                   in ingress_intrinsic_metadata_t ig_intr_md,
                   in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                   inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                   inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {

    /* Operator counters and policers, as in ../vrouter.p4 (same ids). */
    @id(ID_INGRESS_PORT_COUNTER)
    Counter<bit<32>, bit<32>>(PORT_COUNT, CounterType_t.PACKETS_AND_BYTES) ingress_port_counter;
    @id(ID_VLAN_COUNTER)
    Counter<bit<32>, bit<32>>(VLAN_COUNT, CounterType_t.PACKETS_AND_BYTES) vlan_counter;
    @id(ID_INGRESS_DROP_COUNTER)
    Counter<bit<32>, bit<32>>(DROP_REASON_COUNT, CounterType_t.PACKETS_AND_BYTES) ingress_drop_counter;

    @id(ID_PORT_METER) Meter<bit<32>>(PORT_COUNT, MeterType_t.BYTES) port_meter;
    @id(ID_VLAN_METER) Meter<bit<32>>(VLAN_COUNT, MeterType_t.BYTES) vlan_meter;
    @id(ID_ACL_METER)  Meter<bit<32>>(ACL_METER_COUNT, MeterType_t.BYTES) acl_meter;
    @id(ID_PORT_METER_COLOR_COUNTER)
    Counter<bit<32>, bit<32>>(PORT_COUNT * METER_COLOR_SLOTS, CounterType_t.PACKETS_AND_BYTES) port_meter_color_counter;
    @id(ID_VLAN_METER_COLOR_COUNTER)
    Counter<bit<32>, bit<32>>(VLAN_COUNT * METER_COLOR_SLOTS, CounterType_t.PACKETS_AND_BYTES) vlan_meter_color_counter;
    @id(ID_ACL_METER_COLOR_COUNTER)
    Counter<bit<32>, bit<32>>(ACL_METER_COUNT * METER_COLOR_SLOTS, CounterType_t.PACKETS_AND_BYTES) acl_meter_color_counter;

    TnaFirewallState() firewall_state;
    TnaNatState()      nat_state;
    /* TNA updates the L4 checksum in the deparser from the residual (false). */
    NatTranslate(false) nat_reverse;
    NatTranslate(false) nat_forward;

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

    /* The first pass: the features in v1model's order (../vrouter.p4). */
    apply {
        /* ---- architecture -> program ---- */
        ig_md.meta.timestamp_us = ig_prsr_md.global_tstamp >> 10;
        ig_md.meta.parser_error = ig_prsr_md.parser_err != PARSER_ERROR_OK;
        bool nat_second_pass = false;

        if (ig_md.second_pass) {
            /* ---- second pass of an outbound NAT flow: the first pass decided
             * everything but the slot; take it and translate ---- */
            ig_md.meta.ingress_port = hdr.bridged.ingress_port;
            ig_md.meta.vlan_id = hdr.bridged.vlan_id;
            ig_md.meta.egress_vlan_id = hdr.bridged.egress_vlan_id;
            ig_md.meta.vlan_pcp = hdr.bridged.vlan_pcp;
            ig_md.meta.cpu_reason = hdr.bridged.cpu_reason;
            ig_md.meta.egress_port = hdr.bridged.egress_port;
            ig_md.meta.nat_out = true;
            ig_md.meta.nat_addr = hdr.bridged.nat_addr;
            nat_state.apply(hdr.pkt, ig_md.meta, ig_md.nat_scratch);
            if (ig_md.meta.nat_translate) {
                nat_forward.apply(hdr.pkt, ig_md.meta);
                ig_md.l4_checksum_update = true;
            }
        } else {
            ingress_port_counter.count((bit<32>) ig_md.meta.ingress_port);
            packet_io.apply(hdr.pkt, ig_md.meta);

            if (!ig_md.meta.bypass) {
                if (ig_md.meta.parser_error) {
                    ig_md.meta.drop = true;
                    ig_md.meta.drop_reason = DROP_PARSER_ERROR;
                } else {
                    port_vlan.apply(hdr.pkt, ig_md.meta);
                }
            }

            if (!ig_md.meta.bypass && !ig_md.meta.drop) {
                vlan_counter.count((bit<32>) ig_md.meta.vlan_id);
                learning.apply(hdr.pkt, ig_md.meta);
                acl.apply(hdr.pkt, ig_md.meta);

                /* ---- policing: Meter.execute gives the trTCM colour ---- */
                if (!ig_md.meta.drop) {
                    policer.apply(hdr.pkt, ig_md.meta);
                    if (ig_md.meta.port_police) {
                        ig_md.meta.port_color = tna_color(port_meter.execute((bit<32>) ig_md.meta.ingress_port));
                        port_meter_color_counter.count(((bit<32>) ig_md.meta.ingress_port) * METER_COLOR_SLOTS
                                                       + (bit<32>) ig_md.meta.port_color);
                    }
                    if (ig_md.meta.vlan_police) {
                        ig_md.meta.vlan_color = tna_color(vlan_meter.execute((bit<32>) ig_md.meta.vlan_id));
                        vlan_meter_color_counter.count(((bit<32>) ig_md.meta.vlan_id) * METER_COLOR_SLOTS
                                                       + (bit<32>) ig_md.meta.vlan_color);
                    }
                    if (ig_md.meta.acl_police) {
                        ig_md.meta.acl_color = tna_color(acl_meter.execute((bit<32>) ig_md.meta.acl_meter_id));
                        acl_meter_color_counter.count(((bit<32>) ig_md.meta.acl_meter_id) * METER_COLOR_SLOTS
                                                      + (bit<32>) ig_md.meta.acl_color);
                    }
                    enforce.apply(hdr.pkt, ig_md.meta);
                }

                /* ---- forwarding ---- */
                if (!ig_md.meta.drop && !ig_md.meta.punt) {
                    admit.apply(hdr.pkt, ig_md.meta);
                    if (ig_md.meta.l3_admit && hdr.pkt.mpls[0].isValid() && !ig_md.meta.acl_redirect) {
                        mpls.apply(hdr.pkt, ig_md.meta);
                        if (ig_md.meta.pw_lookup && !ig_md.meta.drop) {
                            pw_term.apply(hdr.pkt, ig_md.meta);
                        }
                    }
                }
                /* ---- source NAT, inbound: the reply's slot (one pass) ---- */
                if (!ig_md.meta.drop && !ig_md.meta.punt) {
                    nat_in.apply(hdr.pkt, ig_md.meta);
                }
                if (ig_md.meta.nat_in_lookup) {
                    nat_state.apply(hdr.pkt, ig_md.meta, ig_md.nat_scratch);
                    if (ig_md.meta.nat_translate) {
                        nat_reverse.apply(hdr.pkt, ig_md.meta);
                        ig_md.l4_checksum_update = true;
                        ig_md.meta.nat_translate = false;
                    }
                }
                if (!ig_md.meta.drop && !ig_md.meta.punt) {
                    routing.apply(hdr.pkt, ig_md.meta);
                }
                if (!ig_md.meta.drop && !ig_md.meta.punt && !ig_md.meta.l3_admit && !ig_md.meta.acl_redirect) {
                    bridge.apply(hdr.pkt, ig_md.meta);
                    if (ig_md.meta.pw_encap && !ig_md.meta.drop) {
                        pw_encap.apply(hdr.pkt, ig_md.meta);
                    }
                }
                if (!ig_md.meta.drop && !ig_md.meta.punt && (ig_md.meta.nexthop_valid || ig_md.meta.acl_redirect)) {
                    nexthop.apply(hdr.pkt, ig_md.meta);
                }

                /* ---- stateful firewall: policy, then the connection slots ---- */
                if (!ig_md.meta.drop && !ig_md.meta.punt) {
                    firewall.apply(hdr.pkt, ig_md.meta);
                }
                if (!ig_md.meta.drop && !ig_md.meta.punt && (ig_md.meta.fw_track || ig_md.meta.fw_check)) {
                    firewall_state.apply(hdr.pkt, ig_md.meta, ig_md.fw_scratch);
                }

                if (!ig_md.meta.drop && !ig_md.meta.punt) {
                    mtu.apply(hdr.pkt, ig_md.meta);
                }

                /* ---- source NAT, outbound: the slot is taken in the second pass ---- */
                if (!ig_md.meta.drop && !ig_md.meta.punt) {
                    nat_out.apply(hdr.pkt, ig_md.meta);
                    nat_second_pass = ig_md.meta.nat_out;
                }
            }

            /* ---- program -> architecture: digests and the CPU copy ---- */
            if (ig_md.meta.learn) {
                ig_dprsr_md.digest_type = DIGEST_MAC_LEARN;
            } else if (ig_md.meta.pw_learn) {
                ig_dprsr_md.digest_type = DIGEST_PW_LEARN;
            }
            if (ig_md.meta.copy_to_cpu && !ig_md.meta.punt) {
                ig_md.meta.cpu_reason = CPU_REASON_ACL_COPY;
                ig_dprsr_md.mirror_type = MIRROR_TYPE_CPU;
                ig_md.mirror_session = (MirrorId_t) CPU_CLONE_SESSION_ID;
            }
        }

        /* ---- verdict ---- */
        hdr.bridged.setValid();
        hdr.bridged.ingress_port = ig_md.meta.ingress_port;
        hdr.bridged.vlan_id = ig_md.meta.vlan_id;
        hdr.bridged.egress_vlan_id = ig_md.meta.egress_vlan_id;
        hdr.bridged.vlan_pcp = ig_md.meta.vlan_pcp;
        hdr.bridged.cpu_reason = ig_md.meta.cpu_reason;
        hdr.bridged.mcast_group = ig_md.meta.mcast_group;
        hdr.bridged.egress_port = ig_md.meta.egress_port;
        hdr.bridged.nat_addr = ig_md.meta.nat_addr;
        hdr.bridged.nat_flow = 0;
        if (ig_md.meta.drop) {
            ingress_drop_counter.count((bit<32>) ig_md.meta.drop_reason);
            ig_dprsr_md.drop_ctl = 1;
        } else if (ig_md.meta.bypass) {
            /* packet-out sent as is: no bridged header, egress skipped */
            hdr.bridged.setInvalid();
            ig_tm_md.ucast_egress_port = ig_md.meta.egress_port;
            ig_tm_md.bypass_egress = 1;
        } else if (ig_md.meta.punt) {
            ig_tm_md.ucast_egress_port = CPU_PORT;
        } else if (ig_md.meta.mcast_group != 0) {
            ig_tm_md.mcast_grp_a = ig_md.meta.mcast_group;
        } else if (nat_second_pass) {
            hdr.bridged.nat_flow = 1;
            ig_tm_md.ucast_egress_port = RECIRC_PORT;
        } else {
            ig_tm_md.ucast_egress_port = ig_md.meta.egress_port;
        }
    }
}

control TnaIngressDeparser(packet_out pkt,
                           inout tna_headers_t hdr,
                           in tna_ingress_metadata_t ig_md,
                           in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    Checksum() ipv4_checksum;
    Checksum() l4_checksum;
    /* Named as v1model's digests (by their struct) and with their ids, so the controller
     * finds them unchanged. */
    @id(ID_MAC_LEARN_DIGEST) @name(".mac_learn_digest_t")
    Digest<mac_learn_digest_t>(DIGEST_MAC_LEARN) mac_learn_digest;
    @id(ID_PW_LEARN_DIGEST) @name(".pw_learn_digest_t")
    Digest<pw_learn_digest_t>(DIGEST_PW_LEARN) pw_learn_digest;
    Mirror(MIRROR_TYPE_CPU) cpu_mirror;
    PacketDeparser() packet_deparser;

    apply {
        if (ig_md.meta.update_ipv4_checksum) {
            hdr.pkt.ipv4.hdr_checksum = ipv4_checksum.update({
                hdr.pkt.ipv4.version, hdr.pkt.ipv4.ihl, hdr.pkt.ipv4.dscp, hdr.pkt.ipv4.ecn,
                hdr.pkt.ipv4.total_len, hdr.pkt.ipv4.identification, hdr.pkt.ipv4.reserved,
                hdr.pkt.ipv4.dont_fragment, hdr.pkt.ipv4.more_fragments, hdr.pkt.ipv4.frag_offset,
                hdr.pkt.ipv4.ttl, hdr.pkt.ipv4.protocol, hdr.pkt.ipv4.src_addr, hdr.pkt.ipv4.dst_addr });
        }
        /* NAT: residual + the rewritten fields (UDP without checksum stays 0). */
        if (ig_md.l4_checksum_update) {
            if (hdr.pkt.tcp.isValid()) {
                hdr.pkt.tcp.checksum = l4_checksum.update({
                    hdr.pkt.ipv4.src_addr, hdr.pkt.ipv4.dst_addr,
                    hdr.pkt.tcp.src_port, hdr.pkt.tcp.dst_port, ig_md.l4_residual });
            } else if (hdr.pkt.udp.isValid() && hdr.pkt.udp.checksum != 0) {
                hdr.pkt.udp.checksum = l4_checksum.update({
                    hdr.pkt.ipv4.src_addr, hdr.pkt.ipv4.dst_addr,
                    hdr.pkt.udp.src_port, hdr.pkt.udp.dst_port, ig_md.l4_residual }, true);
            } else if (hdr.pkt.icmp.isValid()) {
                hdr.pkt.icmp.checksum = l4_checksum.update({ hdr.pkt.icmp.identifier, ig_md.l4_residual });
            }
        }
        if (ig_dprsr_md.digest_type == DIGEST_MAC_LEARN) {
            mac_learn_digest.pack(ig_md.meta.learn_digest);
        } else if (ig_dprsr_md.digest_type == DIGEST_PW_LEARN) {
            pw_learn_digest.pack(ig_md.meta.pw_learn_digest);
        }
        if (ig_dprsr_md.mirror_type == MIRROR_TYPE_CPU) {
            cpu_mirror.emit<bridged_md_h>(ig_md.mirror_session, hdr.bridged);
        }
        pkt.emit(hdr.bridged);
        packet_deparser.apply(pkt, hdr.pkt);
    }
}

parser TnaEgressParser(packet_in pkt,
                       out tna_headers_t hdr,
                       out tna_egress_metadata_t eg_md,
                       out egress_intrinsic_metadata_t eg_intr_md) {
    PacketParser() packet_parser;

    state start {
        pkt.extract(eg_intr_md);
        pkt.extract(hdr.bridged);
        /* The frame never starts with packet_out here (ingress removed it):
         * parse it as from a front-panel port. */
        eg_md.meta.ingress_port = RECIRC_PORT;
        packet_parser.apply(pkt, hdr.pkt, eg_md.meta);
        transition accept;
    }
}

control egress(inout tna_headers_t hdr,
                  inout tna_egress_metadata_t eg_md,
                  in egress_intrinsic_metadata_t eg_intr_md,
                  in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                  inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
                  inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {

    @id(ID_EGRESS_PORT_COUNTER)
    Counter<bit<32>, bit<32>>(PORT_COUNT, CounterType_t.PACKETS_AND_BYTES) egress_port_counter;
    @id(ID_EGRESS_DROP_COUNTER)
    Counter<bit<32>, bit<32>>(DROP_REASON_COUNT, CounterType_t.PACKETS_AND_BYTES) egress_drop_counter;

    CpuHeader() cpu_header;
    PwFlood()   pw_flood;
    Vlan()      vlan;

    apply {
        /* ---- bridged metadata -> program ---- */
        eg_md.meta.ingress_port = hdr.bridged.ingress_port;
        eg_md.meta.vlan_id = hdr.bridged.vlan_id;
        eg_md.meta.egress_vlan_id = hdr.bridged.egress_vlan_id;
        eg_md.meta.vlan_pcp = hdr.bridged.vlan_pcp;
        eg_md.meta.cpu_reason = hdr.bridged.cpu_reason;
        eg_md.meta.mcast_group = hdr.bridged.mcast_group;
        eg_md.meta.egress_port = eg_intr_md.egress_port;
        eg_md.meta.egress_rid = eg_intr_md.egress_rid;

        if (eg_md.meta.egress_port == RECIRC_PORT) {
            /* to the second pass: the bridged header goes along, unchanged */
        } else {
            hdr.bridged.setInvalid();
            if (eg_md.meta.egress_port == CPU_PORT) {
                cpu_header.apply(hdr.pkt, eg_md.meta);
            } else {
                if (eg_md.meta.egress_rid != 0) {
                    pw_flood.apply(hdr.pkt, eg_md.meta);
                }
                if (!eg_md.meta.drop) {
                    vlan.apply(hdr.pkt, eg_md.meta);
                }
            }
        }
        if (eg_md.meta.drop) {
            egress_drop_counter.count((bit<32>) eg_md.meta.drop_reason);
            eg_dprsr_md.drop_ctl = 1;
        } else {
            egress_port_counter.count((bit<32>) eg_md.meta.egress_port);
        }
    }
}

control TnaEgressDeparser(packet_out pkt,
                          inout tna_headers_t hdr,
                          in tna_egress_metadata_t eg_md,
                          in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    PacketDeparser() packet_deparser;

    apply {
        pkt.emit(hdr.bridged);          /* valid only towards the second pass */
        packet_deparser.apply(pkt, hdr.pkt);
    }
}

Pipeline(TnaIngressParser(),
         ingress(),
         TnaIngressDeparser(),
         TnaEgressParser(),
         egress(),
         TnaEgressDeparser()) pipe;

Switch(pipe) main;
