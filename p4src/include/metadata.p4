/*
 * metadata.p4 -- the program's own per-packet metadata.  Feature controls
 * read and write only this struct and headers_t; the architecture layer
 * (../vrouter.p4 for v1model, ../tna/vrouter.p4 for TNA) copies what it needs
 * from/to the architecture's intrinsic metadata.  PRESERVED_ON_CPU_COPY marks
 * the fields a copy to the CPU (ACL copy_to_cpu) keeps; each architecture
 * layer defines how (v1model: a clone field list; TNA: the mirror header).
 *
 * Decisions are accumulated here and acted on once, at the end of ingress:
 *   drop (with drop_reason) > punt (to CPU_PORT, with cpu_reason)
 *   > mcast_group != 0 (flood) > egress_port (unicast).
 */
#ifndef VROUTER_METADATA_P4
#define VROUTER_METADATA_P4

struct local_metadata_t {
    /* ---- filled by the architecture layer ---- */
    PRESERVED_ON_CPU_COPY
    port_t       ingress_port;
    bit<48>      timestamp_us;    /* ingress timestamp, microseconds */
    bool         parser_error;    /* the parser did not reach accept cleanly */
    bool         checksum_error;  /* IPv4 header checksum was wrong */

    /* ---- parser results ---- */
    bool         mpls_too_deep;   /* a fourth label follows the third */
    bool         l4_valid;        /* TCP or UDP header parsed */
    bit<16>      l4_src_port;
    bit<16>      l4_dst_port;
    bit<8>       tcp_flags;
    bool         flow_valid;      /* TCP, UDP or ICMP echo: a flow the firewall and NAT track */
    bit<16>      flow_src_port;   /* TCP/UDP port; ICMP echo: identifier (request) or 0 (reply) */
    bit<16>      flow_dst_port;   /* TCP/UDP port; ICMP echo: 0 (request) or identifier (reply) */

    /* ---- packet-out ---- */
    bool         bypass;          /* packet-out sent straight to a port */

    /* ---- VLAN ---- */
    PRESERVED_ON_CPU_COPY
    vlan_id_t    vlan_id;         /* VLAN the frame was classified into */
    bit<3>       vlan_pcp;        /* PCP of the received tag (0 if untagged) */
    vlan_id_t    egress_vlan_id;  /* VLAN the frame leaves in */

    /* ---- forwarding ---- */
    port_t       egress_port;     /* unicast destination */
    bit<16>      mcast_group;     /* != 0: flood through this group */
    bool         l3_admit;        /* addressed to a router MAC on its VLAN */
    bool         route_ipv4;      /* look the IPv4 destination up */
    bool         label_switched;  /* mpls_label swapped or popped (php) it */
    bool         is_routed;       /* left through a next hop (routed/label-switched) */
    bool         nexthop_valid;
    nexthop_id_t nexthop_id;
    bool         update_ipv4_checksum;

    /* ---- MPLS push requested by the next hop ---- */
    bit<2>       mpls_push_count;  /* 0, 1 or 2 labels */
    mpls_label_t mpls_push_outer;  /* top label after the push */
    mpls_label_t mpls_push_inner;  /* second label (push of 2) */
    bit<1>       mpls_ttl_mode;    /* TTL_MODE_UNIFORM / TTL_MODE_PIPE */

    /* ---- VPLS ---- */
    bool         pw_encap;         /* bridged into a pseudowire (l2_unicast to_pseudowire) */
    bool         pw_lookup;        /* mpls_lookup left a bottom label over Ethernet for pw_termination */
    bool         from_pseudowire;  /* decapsulated from a pseudowire (pw_termination) */
    bool              pw_learn;         /* raise pw_learn_digest */
    pw_learn_digest_t pw_learn_digest;
    bit<16>      egress_rid;       /* replication id of a flood copy (!= 0: a pseudowire) */

    /* ---- MAC learning ---- */
    bool               learn;
    mac_learn_digest_t learn_digest;

    /* ---- ACL ---- */
    bool           acl_redirect;
    nexthop_id_t   acl_nexthop_id;
    bool           copy_to_cpu;
    bool           acl_police;
    acl_meter_id_t acl_meter_id;

    /* ---- policing (meters executed by the architecture layer) ---- */
    bool         port_police;
    bool         vlan_police;
    bit<2>       port_color;
    bit<2>       vlan_color;
    bit<2>       acl_color;
    bit<1>       port_yellow_remark;
    bit<6>       port_yellow_dscp;
    bit<1>       vlan_yellow_remark;
    bit<6>       vlan_yellow_dscp;
    bit<1>       acl_yellow_remark;
    bit<6>       acl_yellow_dscp;

    /* ---- stateful firewall ---- */
    zone_t       fw_src_zone;
    zone_t       fw_dst_zone;
    bool         fw_track;        /* trusted -> untrusted: record the flow */
    bool         fw_check;        /* untrusted -> trusted: require a live flow */
    ipv4_addr_t  fw_key_client;   /* flow key, always in the trusted-side order */
    ipv4_addr_t  fw_key_server;
    bit<16>      fw_key_client_port;
    bit<16>      fw_key_server_port;
    bit<8>       fw_key_proto;

    /* ---- source NAT (masquerade) ---- */
    bool         nat_in_lookup;   /* candidate reply: look slot nat_slot up */
    bool         nat_out;         /* leaves through a masquerading interface */
    ipv4_addr_t  nat_addr;        /* that interface's address */
    bit<32>      nat_slot;
    bool         nat_translate;   /* the slot state says: translate now */
    bool         nat_rewrite_src; /* nat_translate: source (else destination) */
    ipv4_addr_t  nat_new_addr;
    bit<16>      nat_new_port;

    /* ---- MTU ---- */
    bit<16>      mtu;             /* 0: interface has no MTU entry */

    /* ---- verdict ---- */
    bool          drop;
    drop_reason_t drop_reason;
    bool          punt;
    PRESERVED_ON_CPU_COPY
    cpu_reason_t  cpu_reason;
}

#endif
