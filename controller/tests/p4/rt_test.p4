/* A small v1model program with one of every P4Runtime entity kind, for p4rt's
 * integration tests: exact/lpm/ternary/range/optional tables, idle timeout,
 * direct counter and meter, an action selector, const entries, indexed counter,
 * meter and register, a digest, multicast, clone, and packet_in/packet_out. */
#include <core.p4>
#include <v1model.p4>

const bit<9> CPU_PORT = 255;
const bit<16> TYPE_IPV4 = 0x0800;

@controller_header("packet_in")
header packet_in_t {
    bit<9> ingress_port;
    bit<7> _pad;
}

@controller_header("packet_out")
header packet_out_t {
    bit<9> egress_port;
    bit<7> _pad;
}

header ethernet_t {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> total_len;
    bit<16> identification;
    bit<3>  flags;
    bit<13> frag_offset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdr_checksum;
    bit<32> src_addr;
    bit<32> dst_addr;
}

struct mac_learn_t {
    bit<48> src_addr;
    bit<9>  ingress_port;
}

struct headers_t {
    packet_out_t packet_out;
    packet_in_t  packet_in;
    ethernet_t   ethernet;
    ipv4_t       ipv4;
}

struct metadata_t {
    bit<2>  color;
    bit<2>  port_color;
    bit<32> seen;
}

parser RtParser(packet_in packet, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    state start {
        transition select(standard_metadata.ingress_port) {
            CPU_PORT: parse_packet_out;
            default: parse_ethernet;
        }
    }
    state parse_packet_out {
        packet.extract(hdr.packet_out);
        transition parse_ethernet;
    }
    state parse_ethernet {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            TYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        transition accept;
    }
}

control RtVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control RtIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    counter(512, CounterType.packets_and_bytes) port_counter;
    meter(16, MeterType.packets) port_meter;
    register<bit<32>>(64) flow_reg;
    direct_counter(CounterType.packets_and_bytes) lpm_counter;
    direct_meter<bit<2>>(MeterType.packets) acl_meter;
    action_selector(HashAlgorithm.crc16, 32w64, 32w14) ecmp_selector;

    action drop() {
        mark_to_drop(standard_metadata);
    }
    action set_port(bit<9> port) {
        standard_metadata.egress_spec = port;
    }
    action send_to_cpu() {
        standard_metadata.egress_spec = CPU_PORT;
    }
    action flood(bit<16> group) {
        standard_metadata.mcast_grp = group;
    }
    action set_nhop(bit<48> dmac, bit<9> port) {
        hdr.ethernet.dst_addr = dmac;
        standard_metadata.egress_spec = port;
    }
    action learn() {
        digest<mac_learn_t>(1, {hdr.ethernet.src_addr, standard_metadata.ingress_port});
    }
    action acl_permit() {
        acl_meter.read(meta.color);
    }
    action acl_deny() {
        acl_meter.read(meta.color);
        mark_to_drop(standard_metadata);
    }
    action mirror(bit<32> session) {
        acl_meter.read(meta.color);
        clone(CloneType.I2E, session);
    }

    table mac_learn {
        key = { hdr.ethernet.src_addr: exact; }
        actions = { learn; NoAction; }
        default_action = learn();
        size = 64;
    }
    table l2_exact {
        key = { hdr.ethernet.dst_addr: exact; }
        actions = { set_port; send_to_cpu; flood; drop; NoAction; }
        default_action = NoAction();
        support_timeout = true;
        size = 64;
    }
    table ipv4_lpm {
        key = { hdr.ipv4.dst_addr: lpm; }
        actions = { set_nhop; drop; NoAction; }
        counters = lpm_counter;
        default_action = drop();
        size = 4096;
    }
    table acl {
        key = {
            hdr.ethernet.src_addr: ternary;
            hdr.ethernet.ether_type: range;
            standard_metadata.ingress_port: optional;
        }
        actions = { acl_permit; acl_deny; mirror; NoAction; }
        meters = acl_meter;
        default_action = NoAction();
        size = 64;
    }
    table ecmp {
        key = {
            hdr.ipv4.dst_addr: exact;
            hdr.ipv4.src_addr: selector;
        }
        actions = { set_nhop; }
        implementation = ecmp_selector;
        size = 64;
    }
    table tiny {
        key = { hdr.ethernet.ether_type: exact; }
        actions = { drop; NoAction; }
        default_action = NoAction();
        size = 4;
    }
    table fixed {
        key = { hdr.ethernet.ether_type: exact; }
        actions = { drop; NoAction; }
        const default_action = NoAction();
        const entries = {
            0x9999: drop();
            0x9998: NoAction();
        }
    }

    apply {
        if (hdr.packet_out.isValid()) {
            standard_metadata.egress_spec = hdr.packet_out.egress_port;
            hdr.packet_out.setInvalid();
            exit;
        }
        port_counter.count((bit<32>)standard_metadata.ingress_port);
        port_meter.execute_meter((bit<32>)standard_metadata.ingress_port, meta.port_color);
        flow_reg.read(meta.seen, 0);
        flow_reg.write(0, meta.seen + 1);
        mac_learn.apply();
        l2_exact.apply();
        if (hdr.ipv4.isValid()) {
            ipv4_lpm.apply();
            ecmp.apply();
        }
        acl.apply();
        tiny.apply();
        fixed.apply();
    }
}

control RtEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    apply {
        if (standard_metadata.egress_port == CPU_PORT) {
            hdr.packet_in.setValid();
            hdr.packet_in.ingress_port = standard_metadata.ingress_port;
            hdr.packet_in._pad = 0;
        }
    }
}

control RtComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control RtDeparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.packet_in);
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
    }
}

V1Switch(RtParser(), RtVerifyChecksum(), RtIngress(), RtEgress(),
         RtComputeChecksum(), RtDeparser()) main;
