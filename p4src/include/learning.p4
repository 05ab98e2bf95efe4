/*
 * learning.p4 -- control `Learning` (instance `learning`): tells the controller about
 * stations it does not know yet, or that moved to another port.
 *
 *   port_security(ingress port) ── hit ──▶ the port is locked
 *   l2_learning(vlan, src MAC, ingress port) ── hit ──▶ nothing (known station)
 *                                            └─ miss ─▶ locked port: drop UNKNOWN_SOURCE
 *                                                       otherwise meta.learn: the architecture
 *                                                       layer sends mac_learn_digest_t
 *                                                       {vlan_id, src_mac, ingress_port}
 * Frames with a multicast source MAC and frames from CPU_PORT are not learnt.
 */
#ifndef VROUTER_LEARNING_P4
#define VROUTER_LEARNING_P4

control Learning(inout headers_t hdr, inout local_metadata_t meta) {
    bool locked = false;
    @id(ID_PORT_SECURITY_COUNTER) DIRECT_COUNTER port_security_counter;

    /* The port holds as many stations as it may: a source it does not know is dropped. */
    @id(ID_DROP_UNKNOWN_SOURCES)
    action drop_unknown_sources() {
        locked = true;
        port_security_counter.count();
    }

    /* Models: ports that reached their station limit with `on_limit: drop`.
     * Written by: the controller (vrouter run) when a port fills up, deleted
     * when its stations age out; the direct counter counts the frames the
     * lookup saw on the locked port. */
    @id(ID_PORT_SECURITY)
    table port_security {
        key = {
            meta.ingress_port : exact @id(1) @name("ingress_port");
        }
        actions = {
            drop_unknown_sources;
            @defaultonly NoAction;
        }
        const default_action = NoAction();
        counters = port_security_counter;
        size = PORT_COUNT;
    }

    /* The station is known on this port: no digest. */
    @id(ID_STATION_KNOWN)
    action station_known() { }

    /* Unknown station, or known on another port (it moved): raise a digest. */
    @id(ID_STATION_UNKNOWN)
    action station_unknown() {
        meta.learn = true;
        meta.learn_digest.vlan_id = meta.vlan_id;
        meta.learn_digest.src_mac = hdr.ethernet.src_addr;
        meta.learn_digest.ingress_port = meta.ingress_port;
    }

    /* Models: the stations the controller has learnt (and static MACs).
     * Written by: the controller, on every mac_learn_digest_t (together with
     * the matching l2_unicast entry; a move deletes the old port's entry).
     * Idle timeout: entries report idleness so the controller can age MACs. */
    @id(ID_L2_LEARNING)
    table l2_learning {
        key = {
            meta.vlan_id          : exact @id(1) @name("vlan_id");
            hdr.ethernet.src_addr : exact @id(2) @name("src_mac");
            meta.ingress_port     : exact @id(3) @name("ingress_port");
        }
        actions = {
            station_known;
            @defaultonly station_unknown;
        }
        const default_action = station_unknown();
        size = L2_LEARNING_TABLE_SIZE;
        support_timeout = true;
    }

    apply {
        if (hdr.ethernet.src_addr[40:40] == 0 && meta.ingress_port != CPU_PORT) {
            port_security.apply();
            l2_learning.apply();
            if (locked && meta.learn) {
                meta.learn = false;
                meta.drop = true;
                meta.drop_reason = DROP_UNKNOWN_SOURCE;
            }
        }
    }
}

#endif
