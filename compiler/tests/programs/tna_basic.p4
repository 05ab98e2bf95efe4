// A small TNA program: every construct `p4compile --arch tna` must type-check (intrinsic
// metadata, @optional parameters, RegisterAction with an initializer block, Meter, Hash,
// Counter, the Pipeline and Switch packages).
#include <core.p4>
#include <tna.p4>

header ethernet_h { bit<48> dst; bit<48> src; bit<16> etype; }
struct headers_t { ethernet_h eth; }
struct meta_t { bit<32> x; bit<8> color; }

parser IgParser(packet_in pkt, out headers_t hdr, out meta_t md,
                out ingress_intrinsic_metadata_t ig_intr_md) {
    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        pkt.extract(hdr.eth);
        transition accept;
    }
}

control Ig(inout headers_t hdr, inout meta_t md,
           in ingress_intrinsic_metadata_t ig_intr_md,
           in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
           inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
           inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    Register<bit<32>, bit<16>>(1024) seen;
    RegisterAction<bit<32>, bit<16>, bool>(seen) touch = {
        void apply(inout bit<32> value, out bool fresh) {
            fresh = value == 0;
            value = md.x;
        }
    };
    Meter<bit<9>>(512, MeterType_t.BYTES) m;
    Counter<bit<32>, bit<9>>(512, CounterType_t.PACKETS) c;
    Hash<bit<16>>(HashAlgorithm_t.CRC16) h;
    apply {
        md.color = m.execute(ig_intr_md.ingress_port);
        c.count(ig_intr_md.ingress_port);
        bool fresh = touch.execute(h.get({hdr.eth.src}));
        if (fresh) { ig_dprsr_md.drop_ctl = 1; }
        ig_tm_md.ucast_egress_port = 1;
    }
}

control IgDeparser(packet_out pkt, inout headers_t hdr, in meta_t md,
                   in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    apply { pkt.emit(hdr); }
}

parser EgParser(packet_in pkt, out headers_t hdr, out meta_t md,
                out egress_intrinsic_metadata_t eg_intr_md) {
    state start { pkt.extract(eg_intr_md); pkt.extract(hdr.eth); transition accept; }
}

control Eg(inout headers_t hdr, inout meta_t md, in egress_intrinsic_metadata_t eg_intr_md) {
    apply { }
}

control EgDeparser(packet_out pkt, inout headers_t hdr, in meta_t md) {
    apply { pkt.emit(hdr); }
}

Pipeline(IgParser(), Ig(), IgDeparser(), EgParser(), Eg(), EgDeparser()) pipe;
Switch(pipe) main;
