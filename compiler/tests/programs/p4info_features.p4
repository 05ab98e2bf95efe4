// A program whose P4Info exercises what controllers read beyond names and ids:
// annotations in every position (multi-line strings with comments and #if lines,
// token lists, structured annotations), documentation, @id on objects, parameters and
// match fields, translated types, selector sizing, controller headers and @pkginfo.
// compiler/tests/test_p4info_like_p4c.py compares our P4Info of it with p4c's
// (tests/p4c_p4info/).
#define V1MODEL_VERSION 20200408
#include <core.p4>
#include <v1model.p4>

@p4runtime_translation("example.org/port", string)
type bit<9> port_id_t;
@p4runtime_translation("example.org/vrf", 32)
type bit<10> vrf_id_t;
@p4runtime_translation("example.org/tunnel", bit<24>)
type bit<12> tunnel_id_t;
enum bit<8> Kind { A = 1, B = 2 }

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
@controller_header("packet_in")
header packet_in_t {
    @id(1) port_id_t ingress_port;
    @id(3) bit<7> pad;
}
@controller_header("packet_out")
header packet_out_t {
    port_id_t egress_port;
    @format(HEX) bit<7> pad;
}
struct headers_t { packet_out_t pout; packet_in_t pin; ethernet_t eth; }
struct meta_t { vrf_id_t vrf; Kind kind; bit<16> hash; tunnel_id_t tunnel; }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); transition accept; }
}
control VC(inout headers_t h, inout meta_t m) { apply { } }
control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    @brief("Forward to a port")
    @description("Sets the egress port; the port is a translated type.")
    @id(0x01000101)
    action fwd(@id(2) @refers_to(port_table , port) port_id_t port,
               @id(1) @format(IPV4_ADDRESS) bit<32> next_hop) {
        sm.egress_spec = (bit<9>)port;
    }
    action set_vrf(vrf_id_t vrf, Kind k, tunnel_id_t tun) { m.vrf = vrf; m.kind = k; m.tunnel = tun; }
    @entry_restriction("
        // only unicast destinations
        dst_mac::mask != 0 -> dst_mac != 0xffffffffffff;
#if 0
        removed by the preprocessor, kept as an empty line
#endif
        vrf != 0;
    ")
    @nonessential_for_upgrade
    @sai_table[kind="acl", stage = 2, enabled = true]
    table classify {
        key = {
            h.eth.dst: ternary @name("dst_mac") @sai_field(SAI_ACL_TABLE_ATTR_FIELD_DST_MAC / MAC);
            m.vrf: exact @id(7) @name("vrf");
            m.kind: exact @name("kind");
            h.eth.isValid(): exact;
        }
        actions = {
            @proto_id(1) set_vrf;
            @proto_id(2) @tableonly fwd;
            @defaultonly NoAction;
        }
        const default_action = NoAction();
        size = 0;
    }
    @max_group_size(16)
    action_selector(HashAlgorithm.crc16, 1024, 16) ecmp;
    table route {
        key = { m.vrf: exact; h.eth.etype: selector; }
        actions = { fwd; }
        implementation = ecmp;
    }
    apply {
        classify.apply();
        route.apply();
    }
}
control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) { apply { pkt.emit(h.pin); pkt.emit(h.eth); } }

@pkginfo(name = "p4info_features.p4", version = "1.2.3", organization = "vrouter-p4")
@brief("P4Info fidelity fixture")
V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
