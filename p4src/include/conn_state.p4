/*
 * conn_state.p4 -- the rules a connection slot (stateful firewall, source
 * NAT) follows, shared by every architecture layer that keeps the slots:
 *
 *   state CONN_FREE ──(any packet of a new flow)──▶ CONN_OPEN
 *   TCP FIN (either side) ──▶ CONN_CLOSING     TCP RST (either side) ──▶ CONN_FREE
 *   CONN_CLOSING + a new SYN (the port is reused) ──▶ CONN_OPEN
 *   live while now - last_seen <= conn_timeout_us(proto, state)
 *
 * A slot matches a packet only when its state is not CONN_FREE, it is live and
 * every field of the flow key is equal (constants.p4, "Connection state").
 */
#ifndef VROUTER_CONN_STATE_P4
#define VROUTER_CONN_STATE_P4

/* Idle timeout of a slot holding a flow of `proto` in `state`. */
bit<48> conn_timeout_us(in bit<8> proto, in bit<8> state) {
    bit<48> timeout = ICMP_TIMEOUT_US;
    if (state == CONN_CLOSING) {
        timeout = TCP_CLOSING_TIMEOUT_US;
    } else if (proto == IP_PROTO_TCP) {
        timeout = TCP_TIMEOUT_US;
    } else if (proto == IP_PROTO_UDP) {
        timeout = UDP_TIMEOUT_US;
    }
    return timeout;
}

/* The state of a slot after a packet of its flow (`state` CONN_FREE: a new flow). */
bit<8> conn_next_state(in bit<8> state, in bit<8> proto, in bit<8> tcp_flags) {
    bit<8> next = CONN_OPEN;
    if (proto != IP_PROTO_TCP) {
        next = CONN_OPEN;
    } else if ((tcp_flags & TCP_FLAG_RST) != 0) {
        next = CONN_FREE;
    } else if ((tcp_flags & TCP_FLAG_FIN) != 0) {
        next = CONN_CLOSING;
    } else if (state == CONN_CLOSING && (tcp_flags & (TCP_FLAG_SYN | TCP_FLAG_ACK)) != TCP_FLAG_SYN) {
        next = CONN_CLOSING;     /* only a new SYN reopens a closing slot */
    }
    return next;
}

#endif
