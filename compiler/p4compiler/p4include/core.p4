/* core.p4 for p4compile: the P4-16 core library, written from the P4-16
 * language specification (section "P4 core library"). */
#ifndef _CORE_P4_
#define _CORE_P4_

/* Standard error codes, in the order of the specification. */
error {
    NoError,
    PacketTooShort,
    NoMatch,
    StackOutOfBounds,
    HeaderTooShort,
    ParserTimeout,
    ParserInvalidArgument
}

/* The packet being parsed. */
extern packet_in {
    /* Read a fixed-size header (or header union/stack element) from the packet. */
    void extract<T>(out T hdr);
    /* Read a header with a varbit field whose size is given in bits. */
    void extract<T>(out T variableSizeHeader, in bit<32> variableFieldSizeInBits);
    /* Read bits ahead without moving the cursor. */
    T lookahead<T>();
    /* Skip bits. */
    void advance(in bit<32> sizeInBits);
    /* Length of the packet in bytes. */
    bit<32> length();
}

/* The packet being built by a deparser. */
extern packet_out {
    /* Append a header (if valid), or all valid headers of a struct/stack/union. */
    void emit<T>(in T hdr);
}

/* Parser assertion: when check is false, parsing stops with the given error. */
extern void verify(in bool check, in error toSignal);

/* Compile-time assertions. */
extern bool static_assert(bool check, string message);
extern bool static_assert(bool check);

/* The action that does nothing; the usual default action of tables. */
@noWarn("unused")
action NoAction() {}

/* Match kinds every architecture provides. */
match_kind {
    exact,
    ternary,
    lpm
}

#endif
