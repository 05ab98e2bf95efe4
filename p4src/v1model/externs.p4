/*
 * v1model/externs.p4 -- v1model spellings of the architecture-specific
 * pieces feature controls name without knowing the architecture: the direct
 * counter and ECMP selector their tables carry, and how metadata survives a
 * clone.  tna/externs.p4 spells the same names for TNA.
 */
#ifndef VROUTER_V1MODEL_EXTERNS_P4
#define VROUTER_V1MODEL_EXTERNS_P4

/* Per-entry packet and byte counter of a table (P4Runtime DirectCounterEntry).
 * v1model counts every hit, whether or not the action calls count(). */
#define DIRECT_COUNTER direct_counter(CounterType.packets_and_bytes)

/* ECMP: the next-hop table's action selector, hashing its `selector` keys. */
#define ECMP_ACTION_SELECTOR(NAME, ID) \
    @id(ID) action_selector(HashAlgorithm.crc16, ECMP_SELECTOR_SIZE, ECMP_HASH_WIDTH) NAME

/* Field list of clone_preserving_field_list: the metadata a CPU copy keeps. */
#define CPU_CLONE_FIELD_LIST 1
#define PRESERVED_ON_CPU_COPY @field_list(CPU_CLONE_FIELD_LIST)

#endif
