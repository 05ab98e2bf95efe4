/*
 * tna/conn_cell.p4 -- what the TNA connection slots (firewall_state.p4,
 * nat_state.p4) share: the 64-bit register cell and the slot verdicts.
 *
 * Tofino reaches a Register through RegisterActions, one per packet and
 * register, all in one stage: a slot cannot be read in full, decided on and
 * then written as v1model/firewall_state.p4 does.  So each slot is split in
 * cells read in pipeline order, and the first cell (occupancy: deadline and
 * a 32-bit signature of the flow key) decides alone whether the slot is
 * free to claim; later cells compare or write the full key, the last one
 * (conn: deadline and CONN_* state) admits a packet only when the whole key
 * matched.  The signature is never trusted: it only chooses between
 * "claim" and "compare".
 *
 * Time is 32-bit microseconds (ingress timestamp ns >> 10, i.e. 1.024 us):
 * a cell holds the deadline, live while (deadline - now) has its top bit 0,
 * correct for timeouts below 2^31 us (35 min).
 */
#ifndef VROUTER_TNA_CONN_CELL_P4
#define VROUTER_TNA_CONN_CELL_P4

struct conn_cell_t {
    bit<32> lo;
    bit<32> hi;
}

/* Occupancy verdicts. */
const bit<8> SLOT_EMPTY   = 0;   /* free or expired, not claimed (a reply, or no track) */
const bit<8> SLOT_SAME    = 1;   /* live with this flow's signature: compare the key */
const bit<8> SLOT_OTHER   = 2;   /* live with another signature: a collision */
const bit<8> SLOT_CLAIMED = 3;   /* was free or expired: now this flow's, write the key */

/* Deadline `dl` not passed at `now` (wrap-around safe). */
bool conn_alive(in bit<32> dl, in bit<32> now) {
    return ((dl - now) & 0x80000000) == 0;
}

#endif
