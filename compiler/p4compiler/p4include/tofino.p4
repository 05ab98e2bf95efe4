/*
 * tofino.p4 -- types, intrinsic metadata and externs of the Tofino Native
 * Architecture (TNA, Tofino 1), as p4compile declares them for type checking
 * (`p4compile --arch tna`, front end only; tna.p4 includes this file).
 *
 * Written for this project from the facts of Intel's public TNA
 * documentation (the "P4_16 Tofino Native Architecture" specification,
 * open-p4studio): names, field widths and orders, method signatures.  It is
 * not a copy of Intel's tofino1_base.p4; what a type checker does not need
 * (pktgen headers, Lpf, Wred, MathUnit, Atcam/Alpm, parser priority) is left
 * out, so a program using those reports an unknown name.
 */
#ifndef _P4COMPILE_TOFINO_P4_
#define _P4COMPILE_TOFINO_P4_

#include <core.p4>

/* ---------------- Common types ---------------- */
typedef bit<9>  PortId_t;            /* ingress or egress port */
typedef bit<16> MulticastGroupId_t;  /* multicast group (tree) id */
typedef bit<5>  QueueId_t;           /* egress queue id */
typedef bit<3>  MirrorType_t;        /* mirror type: selects the Mirror extern in a deparser */
typedef bit<10> MirrorId_t;          /* mirror session id */
typedef bit<3>  ResubmitType_t;      /* resubmit type: selects the Resubmit extern */
typedef bit<3>  DigestType_t;        /* digest type: selects the Digest extern */
typedef bit<16> ReplicationId_t;     /* replication id of a multicast copy */
typedef bit<16> L1ExclusionId_t;
typedef bit<9>  L2ExclusionId_t;

/* Bytes of per-port metadata the parser finds after the ingress intrinsic
 * metadata (skip them, or read them with port_metadata_unpack). */
const bit<32> PORT_METADATA_SIZE = 32w64;

/* Bits of ingress_intrinsic_metadata_from_parser_t.parser_err. */
const bit<16> PARSER_ERROR_OK          = 16w0x0000;
const bit<16> PARSER_ERROR_NO_MATCH    = 16w0x0001;
const bit<16> PARSER_ERROR_PARTIAL_HDR = 16w0x0002;
const bit<16> PARSER_ERROR_CTR_RANGE   = 16w0x0004;

/* ---------------- Enumerations ---------------- */
enum MeterType_t { PACKETS, BYTES }

/* Colour a meter returns: note RED is 3, not 2 as in v1model. */
enum bit<8> MeterColor_t { GREEN = 8w0, YELLOW = 8w1, RED = 8w3 }

enum CounterType_t { PACKETS, BYTES, PACKETS_AND_BYTES }

enum SelectorMode_t { FAIR, RESILIENT }

enum HashAlgorithm_t { IDENTITY, RANDOM, XOR8, XOR16, XOR32, CRC8, CRC16, CRC32, CRC64, CUSTOM }

match_kind {
    range,
    selector,               /* key fields an ActionSelector hashes */
    atcam_partition_index   /* algorithmic TCAM partition */
}

error {
    CounterRange,
    Timeout,
    PhvOwner,
    MultiWrite,
    IbufOverflow,
    IbufUnderflow
}

/* ---------------- Ingress intrinsic metadata ---------------- */

/* Prepended to every packet by the ingress MAC; the ingress parser must
 * extract it first (8 bytes). */
header ingress_intrinsic_metadata_t {
    bit<1>   resubmit_flag;        /* 1: a resubmitted packet */
    bit<1>   _pad1;
    bit<2>   packet_version;
    bit<3>   _pad2;
    PortId_t ingress_port;
    bit<48>  ingress_mac_tstamp;   /* ns */
}

/* Ingress to traffic manager: where the packet goes. */
struct ingress_intrinsic_metadata_for_tm_t {
    PortId_t           ucast_egress_port;
    bit<1>             bypass_egress;
    bit<1>             deflect_on_drop;
    bit<3>             ingress_cos;
    QueueId_t          qid;
    bit<3>             icos_for_copy_to_cpu;
    bit<1>             copy_to_cpu;
    bit<2>             packet_color;
    bit<1>             disable_ucast_cutthru;
    bit<1>             enable_mcast_cutthru;
    MulticastGroupId_t mcast_grp_a;
    MulticastGroupId_t mcast_grp_b;
    bit<13>            level1_mcast_hash;
    bit<13>            level2_mcast_hash;
    L1ExclusionId_t    level1_exclusion_id;
    L2ExclusionId_t    level2_exclusion_id;
    bit<16>            rid;
}

/* Set by the ingress parser. */
struct ingress_intrinsic_metadata_from_parser_t {
    bit<48> global_tstamp;   /* ns */
    bit<32> global_ver;
    bit<16> parser_err;      /* PARSER_ERROR_* bits */
}

/* Ingress to its deparser. */
struct ingress_intrinsic_metadata_for_deparser_t {
    bit<3>         drop_ctl;       /* bit 0: drop */
    DigestType_t   digest_type;
    ResubmitType_t resubmit_type;
    MirrorType_t   mirror_type;
}

/* ---------------- Egress intrinsic metadata ---------------- */

/* Prepended to every packet entering egress; the egress parser must extract it first. */
header egress_intrinsic_metadata_t {
    bit<7>    _pad0;
    PortId_t  egress_port;
    bit<5>    _pad1;
    bit<19>   enq_qdepth;
    bit<6>    _pad2;
    bit<2>    enq_congest_stat;
    bit<14>   _pad3;
    bit<18>   enq_tstamp;
    bit<5>    _pad4;
    bit<19>   deq_qdepth;
    bit<6>    _pad5;
    bit<2>    deq_congest_stat;
    bit<8>    app_pool_congest_stat;
    bit<14>   _pad6;
    bit<18>   deq_timedelta;
    bit<16>   egress_rid;         /* replication id of a multicast copy */
    bit<7>    _pad7;
    bit<1>    egress_rid_first;
    bit<3>    _pad8;
    QueueId_t egress_qid;
    bit<5>    _pad9;
    bit<3>    egress_cos;
    bit<7>    _pad10;
    bit<1>    deflection_flag;
    bit<16>   pkt_length;
}

struct egress_intrinsic_metadata_from_parser_t {
    bit<48> global_tstamp;
    bit<32> global_ver;
    bit<16> parser_err;
}

struct egress_intrinsic_metadata_for_deparser_t {
    bit<3>       drop_ctl;
    MirrorType_t mirror_type;
    bit<1>       coalesce_flush;
    bit<7>       coalesce_length;
}

struct egress_intrinsic_metadata_for_output_port_t {
    bit<1> capture_tstamp_on_tx;
    bit<1> update_delay_on_tx;
}

/* ---------------- Externs ---------------- */

/* Parser/deparser checksum unit: ones' complement sum over what is added. */
extern Checksum {
    Checksum();
    void add<T>(in T data);
    void subtract<T>(in T data);
    bool verify();
    void subtract_all_and_deposit<T>(out T residual);
    bit<16> get();
    bit<16> update<T>(in T data, @optional in bool zeros_as_ones);
}

extern ParserCounter {
    ParserCounter();
    void set<T>(in T value);
    bool is_zero();
    bool is_negative();
    void increment(in bit<8> value);
    void decrement(in bit<8> value);
}

extern CRCPolynomial<T> {
    CRCPolynomial(T coeff, bool reversed, bool msb, bool extended, T init, T xor);
}

extern Hash<W> {
    Hash(HashAlgorithm_t algo);
    Hash(HashAlgorithm_t algo, CRCPolynomial<_> poly);
    W get<D>(in D data);
}

extern Random<W> {
    Random();
    W get();
}

extern T max<T>(in T t1, in T t2);
extern T min<T>(in T t1, in T t2);
extern T port_metadata_unpack<T>(packet_in pkt);
extern bit<32> sizeInBits<H>(in H h);
extern bit<32> sizeInBytes<H>(in H h);

extern Counter<W, I> {
    Counter(bit<32> size, CounterType_t type);
    void count(in I index, @optional in bit<32> adjust_byte_count);
}

/* Counts only where an action of its table calls count(). */
extern DirectCounter<W> {
    DirectCounter(CounterType_t type);
    void count(@optional in bit<32> adjust_byte_count);
}

/* Two-rate three-colour meter (RFC 2698 / 4115); execute returns a MeterColor_t value. */
extern Meter<I> {
    Meter(bit<32> size, MeterType_t type);
    Meter(bit<32> size, MeterType_t type, bit<8> red, bit<8> yellow, bit<8> green);
    bit<8> execute(in I index, in MeterColor_t color, @optional in bit<32> adjust_byte_count);
    bit<8> execute(in I index, @optional in bit<32> adjust_byte_count);
}

extern DirectMeter {
    DirectMeter(MeterType_t type);
    DirectMeter(MeterType_t type, bit<8> red, bit<8> yellow, bit<8> green);
    bit<8> execute(in MeterColor_t color, @optional in bit<32> adjust_byte_count);
    bit<8> execute(@optional in bit<32> adjust_byte_count);
}

/* Stateful memory; a cell is at most 64 bits (a pair of 32-bit halves).
 * The data plane reaches it through RegisterActions. */
extern Register<T, I> {
    Register(bit<32> size);
    Register(bit<32> size, T initial_value);
    T read(in I index);
    T write(in I index, in T value);
}

extern DirectRegister<T> {
    DirectRegister();
    DirectRegister(T initial_value);
    T read();
    T write(in T value);
}

extern RegisterParam<T> {
    RegisterParam(T initial_value);
    T read();
}

/* One read-modify-write of a Register cell per packet, by the stateful ALU:
 * execute(index) runs apply() on the cell and returns what apply() put in rv. */
extern RegisterAction<T, I, U> {
    RegisterAction(Register<_, _> reg);
    U execute(in I index);
    U execute_log();
    /* runs only inside execute/execute_log, so it may read the control's variables */
    @synchronous(execute, execute_log)
    abstract void apply(inout T value, @optional out U rv);
    U predicate(@optional in bool cmplo, @optional in bool cmphi);
}

extern DirectRegisterAction<T, U> {
    DirectRegisterAction(DirectRegister<T> reg);
    U execute();
    @synchronous(execute)
    abstract void apply(inout T value, @optional out U rv);
    U predicate(@optional in bool cmplo, @optional in bool cmphi);
}

extern ActionProfile {
    ActionProfile(bit<32> size);
}

extern ActionSelector {
    ActionSelector(ActionProfile action_profile, Hash<_> hash, SelectorMode_t mode,
                   bit<32> max_group_size, bit<32> num_groups);
    ActionSelector(ActionProfile action_profile, Hash<_> hash, SelectorMode_t mode,
                   Register<bit<1>, _> reg, bit<32> max_group_size, bit<32> num_groups);
}

/* Deparser externs, chosen by the *_type intrinsic metadata set in the control. */
extern Mirror {
    /* Older programs (fabric-tna) construct it without the mirror_type value; TNA keeps
     * that form, deprecated. */
    @deprecated("Mirror needs the value of the mirror_type intrinsic metadata")
    Mirror();
    Mirror(MirrorType_t mirror_type);
    void emit(in MirrorId_t session_id);
    void emit<T>(in MirrorId_t session_id, in T hdr);
}

extern Resubmit {
    /* Older programs (fabric-tna) construct it without the resubmit_type value; TNA keeps
     * that form, deprecated. */
    @deprecated("Resubmit needs the value of the resubmit_type intrinsic metadata")
    Resubmit();
    Resubmit(ResubmitType_t resubmit_type);
    void emit();
    void emit<T>(in T hdr);
}

extern Digest<T> {
    /* Older programs (fabric-tna) construct it without the digest_type value; TNA keeps
     * that form, deprecated. */
    @deprecated("Digest needs the value of the digest_type intrinsic metadata")
    Digest();
    Digest(DigestType_t digest_type);
    void pack(in T data);
}

#endif
