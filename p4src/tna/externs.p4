/*
 * tna/externs.p4 -- TNA spellings of the architecture-specific pieces the
 * feature controls in ../include/ name without knowing the architecture
 * (../v1model/externs.p4 spells the same names for v1model).
 */
#ifndef VROUTER_TNA_EXTERNS_P4
#define VROUTER_TNA_EXTERNS_P4

/* Per-entry packet and byte counter of a table.  Unlike v1model's
 * direct_counter, TNA's DirectCounter counts only where the action calls
 * count(): every action of a counted table in include/ does. */
#define DIRECT_COUNTER DirectCounter<bit<32>>(CounterType_t.PACKETS_AND_BYTES)

/* ECMP: the next-hop table's selector.  TNA names the hash and the member
 * store separately (Hash, ActionProfile); the selector hashes the table's
 * `selector` keys with the Hash, FAIR spreads flows over all members. */
#define ECMP_MAX_GROUP_SIZE 64
#define ECMP_ACTION_SELECTOR(NAME, ID) \
    Hash<bit<16>>(HashAlgorithm_t.CRC16) NAME##_hash; \
    ActionProfile(ECMP_SELECTOR_SIZE) NAME##_members; \
    @id(ID) ActionSelector(NAME##_members, NAME##_hash, SelectorMode_t.FAIR, \
                           ECMP_MAX_GROUP_SIZE, NEXTHOP_TABLE_SIZE) NAME

/* A CPU copy (Mirror) carries its metadata in the mirror header the TNA
 * layer writes (tna/vrouter.p4: bridged_md_h), not by annotation. */
#define PRESERVED_ON_CPU_COPY

#endif
