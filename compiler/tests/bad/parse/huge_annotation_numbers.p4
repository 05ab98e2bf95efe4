// Annotation numbers that P4Info or BMv2 keep in 32 bits: refused where they are written.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct hs_t { h_t h; }
struct m_t { bit<32> x; }
parser P(packet_in pkt, out hs_t hdr, inout m_t meta, inout standard_metadata_t sm) {
    state start { transition accept; }
}
control I(inout hs_t hdr, inout m_t meta, inout standard_metadata_t sm) {
    @id(999999999999999999999999999999) action a() { }
    @max_group_size(4294967296) @max_member_weight(2147483648)
    action_selector(HashAlgorithm.crc16, 16, 32) s;
    table t {
        key = { meta.x : ternary; meta.x : selector; }
        actions = { a; }
        implementation = s;
        const entries = { 1 &&& 1 : a() @priority(99999999999); }
    }
    apply { t.apply(); }
}
control VC(inout hs_t hdr, inout m_t meta) { apply { } }
control E(inout hs_t hdr, inout m_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout hs_t hdr, inout m_t meta) { apply { } }
control D(packet_out pkt, in hs_t hdr) { apply { } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
