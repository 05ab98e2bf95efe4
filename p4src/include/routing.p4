/*
 * routing.p4 -- control `Routing` (instance `routing`): IPv4 unicast routing and the
 * traffic that belongs to the router itself.
 *
 *   ARP ──▶ router_address(target IP) ─hit─▶ punt ARP (otherwise bridged)
 *   IPv4 to route (router MAC, popped MPLS, ACL redirect):
 *     version != 4 or IHL < 5 ──▶ drop IPV4_INVALID
 *     bad header checksum     ──▶ drop IPV4_CHECKSUM
 *     router_address(dst) hit ──▶ punt ROUTER_ADDRESS
 *     IHL > 5 (options)       ──▶ punt IP_OPTIONS
 *     TTL <= 1                ──▶ punt TTL_EXPIRED
 *     ipv4_route (LPM) ─ route_to_nexthop ──▶ TTL - 1, checksum ──▶ nexthop_table
 *                      ├ route_to_cpu ──▶ punt ROUTE_TO_CPU
 *                      ├ drop_route   ──▶ drop ROUTE_BLACKHOLE
 *                      └ miss         ──▶ drop NO_ROUTE
 *     (an ACL redirect skips ipv4_route: its next hop is already chosen)
 *   anything else to the router MAC (not IPv4/MPLS, or ARP not for us)
 *                             ──▶ drop L3_UNSUPPORTED
 */
#ifndef VROUTER_ROUTING_P4
#define VROUTER_ROUTING_P4

control Routing(inout headers_t hdr, inout local_metadata_t meta) {
    @id(ID_IPV4_ROUTE_COUNTER) DIRECT_COUNTER ipv4_route_counter;

    ipv4_addr_t lookup_addr = 0;
    bool        is_router_address = false;

    /* The address is one of the router's own. */
    @id(ID_ROUTER_ADDRESS_HIT)
    action router_address_hit() {
        is_router_address = true;
    }

    /* Models: the router's own IPv4 addresses (router interface addresses,
     * loopbacks).  Written by: the controller's router interfaces. */
    @id(ID_ROUTER_ADDRESS)
    table router_address {
        key = {
            lookup_addr : exact @id(1) @name("ipv4_addr");
        }
        actions = {
            router_address_hit;
            @defaultonly NoAction;
        }
        const default_action = NoAction();
        size = ROUTER_ADDRESS_TABLE_SIZE;
    }

    /* Forward through next hop (or ECMP group) nexthop_id. */
    @id(ID_ROUTE_TO_NEXTHOP)
    action route_to_nexthop(@id(1) nexthop_id_t nexthop_id) {
        ipv4_route_counter.count();
        meta.nexthop_id = nexthop_id;
        meta.nexthop_valid = true;
    }

    /* Send to the controller, e.g. a connected subnet whose host is not
     * resolved yet (the controller ARPs and installs a /32). */
    @id(ID_ROUTE_TO_CPU)
    action route_to_cpu() {
        ipv4_route_counter.count();
        meta.punt = true;
        meta.cpu_reason = CPU_REASON_ROUTE_TO_CPU;
    }

    /* Null route. */
    @id(ID_DROP_ROUTE)
    action drop_route() {
        ipv4_route_counter.count();
        meta.drop = true;
        meta.drop_reason = DROP_ROUTE_BLACKHOLE;
    }

    /* Miss: no route to the destination (NO_ROUTE). */
    @id(ID_NO_ROUTE)
    action no_route() {
        meta.drop = true;
        meta.drop_reason = DROP_NO_ROUTE;
    }

    /* Models: the IPv4 routing table (static routes, connected subnets,
     * resolved hosts as /32, a default route as 0.0.0.0/0).  Written by:
     * the controller's `routes`, router interfaces and ARP resolution. */
    @id(ID_IPV4_ROUTE)
    table ipv4_route {
        key = {
            hdr.ipv4.dst_addr : lpm @id(1) @name("ipv4_dst");
        }
        actions = {
            route_to_nexthop;
            route_to_cpu;
            drop_route;
            @defaultonly no_route;
        }
        const default_action = no_route();
        counters = ipv4_route_counter;
        size = IPV4_ROUTE_TABLE_SIZE;
    }

    apply {
        /* Packets to route: IPv4 to the router MAC, IPv4 popped by
         * pop_and_route (meta.route_ipv4), IPv4 redirected by the ACL; not
         * packets that mpls_label swapped or popped (php). */
        bool route = meta.route_ipv4
            || ((meta.l3_admit || meta.acl_redirect) && !meta.label_switched
                && hdr.ipv4.isValid() && !hdr.mpls[0].isValid());
        bool check_address = false;

        if (hdr.arp.isValid()) {
            lookup_addr = hdr.arp.target_proto_addr;
            check_address = true;
        } else if (route) {
            if (hdr.ipv4.version != 4 || hdr.ipv4.ihl < 5) {
                meta.drop = true;
                meta.drop_reason = DROP_IPV4_INVALID;
            } else if (meta.checksum_error) {
                meta.drop = true;
                meta.drop_reason = DROP_IPV4_CHECKSUM;
            } else {
                lookup_addr = hdr.ipv4.dst_addr;
                check_address = true;
            }
        }
        if (check_address) {
            router_address.apply();
        }

        if (is_router_address) {
            meta.punt = true;
            if (hdr.arp.isValid()) {
                meta.cpu_reason = CPU_REASON_ARP;
            } else {
                meta.cpu_reason = CPU_REASON_ROUTER_ADDRESS;
            }
        } else if (route) {
            if (!meta.drop) {
                if (hdr.ipv4.ihl > 5) {
                    meta.punt = true;
                    meta.cpu_reason = CPU_REASON_IP_OPTIONS;
                } else if (hdr.ipv4.ttl <= 1) {
                    meta.punt = true;
                    meta.cpu_reason = CPU_REASON_TTL_EXPIRED;
                } else {
                    if (!meta.acl_redirect) {
                        ipv4_route.apply();
                    }
                    if (!meta.drop && !meta.punt) {
                        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
                        meta.update_ipv4_checksum = true;
                    }
                }
            }
        } else if (meta.l3_admit && !meta.label_switched && !hdr.mpls[0].isValid()) {
            meta.drop = true;
            meta.drop_reason = DROP_L3_UNSUPPORTED;
        }
        meta.route_ipv4 = route;
    }
}

#endif
