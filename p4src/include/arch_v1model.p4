/*
 * arch_v1model.p4 -- v1model spellings of the externs that feature controls
 * attach to their tables.  Everything else architecture-specific (counters,
 * meters, registers, hashes, digests, clones, checksums, standard_metadata_t)
 * lives in ../vrouter.p4.  A TNA port replaces this file and vrouter.p4 and
 * keeps every feature control as it is.
 */
#ifndef VROUTER_ARCH_V1MODEL_P4
#define VROUTER_ARCH_V1MODEL_P4

/* Per-entry packet and byte counter of a table (P4Runtime DirectCounterEntry). */
#define DIRECT_COUNTER direct_counter(CounterType.packets_and_bytes)

/* ECMP: the next-hop table's action selector, hashing its `selector` keys. */
#define ECMP_ACTION_SELECTOR action_selector(HashAlgorithm.crc16, ECMP_SELECTOR_SIZE, ECMP_HASH_WIDTH)

#endif
