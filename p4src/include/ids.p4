/*
 * ids.p4 -- the P4Runtime id of every object the controller can name: tables,
 * actions, action profiles, counters, direct counters, meters, registers and
 * controller headers.  Every object carries @id(ITS_ID) from here, so p4c,
 * p4compile and the TNA program give the same P4Info ids, and renaming a file
 * or a control changes no id.
 *
 * Rules: an id is never reused, not even after its object is deleted (move it
 * to the "retired" list of its kind); a new object takes its kind's "next
 * free" id and that line is bumped.  The top byte is the P4Runtime prefix of
 * the kind (p4info.proto P4Ids): a table id always starts with 0x02.
 *
 * Not pinned here, and why: NoAction (declared in core.p4) keeps the name-hash
 * id both compilers compute.  The two learning digests are pinned the other
 * way round: v1model's digest() names a struct and p4c takes no @id there, so
 * their ids are p4c's name hash of the struct's name, written down below, and
 * the TNA program gives its Digest instances those same ids.  Match fields and
 * action parameters are numbered with @id(1..n) where they are declared.
 */
#ifndef VROUTER_IDS_P4
#define VROUTER_IDS_P4

/* ---- tables: 0x02 ---- next free 0x02000018 ---- retired: none */
#define ID_PORT_CONFIG               0x02000001
#define ID_INGRESS_VLAN_MEMBER       0x02000002
#define ID_PORT_SECURITY             0x02000003
#define ID_L2_LEARNING               0x02000004
#define ID_ACL_INGRESS_TABLE         0x02000005
#define ID_PORT_POLICER              0x02000006
#define ID_VLAN_POLICER              0x02000007
#define ID_ROUTER_MAC                0x02000008
#define ID_MPLS_LABEL                0x02000009
#define ID_PW_TERMINATION            0x0200000a
#define ID_PW_LEARNING               0x0200000b
#define ID_NAT_INBOUND_INTERFACE     0x0200000c
#define ID_ROUTER_ADDRESS            0x0200000d
#define ID_IPV4_ROUTE                0x0200000e
#define ID_L2_UNICAST                0x0200000f
#define ID_NEXTHOP_TABLE             0x02000010
#define ID_FIREWALL_SRC_ZONE         0x02000011
#define ID_FIREWALL_DST_ZONE         0x02000012
#define ID_FIREWALL_POLICY           0x02000013
#define ID_INTERFACE_MTU             0x02000014
#define ID_NAT_OUTBOUND_INTERFACE    0x02000015
#define ID_PW_FLOOD                  0x02000016
#define ID_EGRESS_VLAN_MEMBER        0x02000017

/* ---- actions: 0x01 ---- next free 0x0100002e ---- retired: none */
#define ID_SET_ACCESS_PORT           0x01000001
#define ID_SET_TRUNK_PORT            0x01000002
#define ID_PORT_NOT_CONFIGURED       0x01000003
#define ID_ALLOW_VLAN                0x01000004
#define ID_DROP_UNKNOWN_SOURCES      0x01000005
#define ID_STATION_KNOWN             0x01000006
#define ID_STATION_UNKNOWN           0x01000007
#define ID_ACL_PERMIT                0x01000008
#define ID_ACL_DENY                  0x01000009
#define ID_ACL_PUNT_TO_CPU           0x0100000a
#define ID_ACL_COPY_TO_CPU           0x0100000b
#define ID_ACL_REDIRECT_TO_NEXTHOP   0x0100000c
#define ID_ACL_POLICE                0x0100000d
#define ID_SET_PORT_POLICER          0x0100000e
#define ID_SET_VLAN_POLICER          0x0100000f
#define ID_ADMIT_TO_L3               0x01000010
#define ID_MPLS_SWAP                 0x01000011
#define ID_MPLS_PHP                  0x01000012
#define ID_MPLS_POP_AND_ROUTE        0x01000013
#define ID_TERMINATE_PSEUDOWIRE      0x01000014
#define ID_PW_STATION_KNOWN          0x01000015
#define ID_PW_STATION_UNKNOWN        0x01000016
#define ID_REVERSE_MASQUERADE        0x01000017
#define ID_ROUTER_ADDRESS_HIT        0x01000018
#define ID_ROUTE_TO_NEXTHOP          0x01000019
#define ID_ROUTE_TO_CPU              0x0100001a
#define ID_DROP_ROUTE                0x0100001b
#define ID_NO_ROUTE                  0x0100001c
#define ID_SET_OUTPUT_PORT           0x0100001d
#define ID_TO_PSEUDOWIRE             0x0100001e
#define ID_FLOOD                     0x0100001f
#define ID_SET_NEXTHOP               0x01000020
#define ID_SET_NEXTHOP_PUSH1         0x01000021
#define ID_SET_NEXTHOP_PUSH2         0x01000022
#define ID_SET_SRC_ZONE              0x01000023
#define ID_SET_DST_ZONE              0x01000024
#define ID_TRACK_CONNECTION          0x01000025
#define ID_ALLOW_ESTABLISHED         0x01000026
#define ID_SET_MTU                   0x01000027
#define ID_MASQUERADE                0x01000028
#define ID_PW_FLOOD_PUSH1            0x01000029
#define ID_PW_FLOOD_PUSH2            0x0100002a
#define ID_TAG_VLAN                  0x0100002b
#define ID_UNTAG_VLAN                0x0100002c
#define ID_VLAN_NOT_MEMBER           0x0100002d

/* ---- action profiles: 0x11 ---- next free 0x11000002 ---- retired: none */
#define ID_ECMP_SELECTOR             0x11000001

/* ---- counters: 0x12 ---- next free 0x12000009 ---- retired: none */
#define ID_INGRESS_PORT_COUNTER      0x12000001
#define ID_VLAN_COUNTER              0x12000002
#define ID_INGRESS_DROP_COUNTER      0x12000003
#define ID_PORT_METER_COLOR_COUNTER  0x12000004
#define ID_VLAN_METER_COLOR_COUNTER  0x12000005
#define ID_ACL_METER_COLOR_COUNTER   0x12000006
#define ID_EGRESS_PORT_COUNTER       0x12000007
#define ID_EGRESS_DROP_COUNTER       0x12000008

/* ---- direct counters: 0x13 ---- next free 0x1300000b ---- retired: none */
#define ID_PORT_SECURITY_COUNTER     0x13000001
#define ID_ACL_INGRESS_COUNTER       0x13000002
#define ID_MPLS_LABEL_COUNTER        0x13000003
#define ID_PW_TERMINATION_COUNTER    0x13000004
#define ID_IPV4_ROUTE_COUNTER        0x13000005
#define ID_L2_UNICAST_COUNTER        0x13000006
#define ID_NEXTHOP_COUNTER           0x13000007
#define ID_FIREWALL_POLICY_COUNTER   0x13000008
#define ID_NAT_OUTBOUND_COUNTER      0x13000009
#define ID_PW_FLOOD_COUNTER          0x1300000a

/* ---- meters: 0x14 ---- next free 0x14000004 ---- retired: none */
#define ID_PORT_METER                0x14000001
#define ID_VLAN_METER                0x14000002
#define ID_ACL_METER                 0x14000003

/* ---- direct meters: 0x15 ---- next free 0x15000001 ---- retired: none */

/* ---- registers: 0x16 ---- next free 0x1600001a ---- retired: 0x16000001 (firewall_conn_signature) */
#define ID_FIREWALL_CONN_LAST_SEEN   0x16000002
#define ID_NAT_INSIDE_ADDR           0x16000003
#define ID_NAT_INSIDE_PORT           0x16000004
#define ID_NAT_REMOTE_ADDR           0x16000005
#define ID_NAT_REMOTE_PORT           0x16000006
#define ID_NAT_PROTO                 0x16000007
#define ID_NAT_LAST_SEEN             0x16000008
#define ID_FIREWALL_CONN_CLIENT_ADDR 0x16000009
#define ID_FIREWALL_CONN_SERVER_ADDR 0x1600000a
#define ID_FIREWALL_CONN_CLIENT_PORT 0x1600000b
#define ID_FIREWALL_CONN_SERVER_PORT 0x1600000c
#define ID_FIREWALL_CONN_PROTO       0x1600000d
#define ID_FIREWALL_CONN_STATE       0x1600000e
#define ID_NAT_OUTSIDE_ADDR          0x1600000f
#define ID_NAT_STATE                 0x16000010
/* TNA program only (tna/firewall_state.p4, tna/nat_state.p4: 64-bit cells,
 * docs/porting.md); the v1model P4Info does not have them. */
#define ID_TNA_FIREWALL_CONN_OCCUPANCY 0x16000011
#define ID_TNA_FIREWALL_CONN_ADDRS   0x16000012
#define ID_TNA_FIREWALL_CONN_PORTS   0x16000013
#define ID_TNA_FIREWALL_CONN         0x16000014
#define ID_TNA_NAT_OCCUPANCY         0x16000015
#define ID_TNA_NAT_REMOTE            0x16000016
#define ID_TNA_NAT_INSIDE            0x16000017
#define ID_TNA_NAT_OUTSIDE           0x16000018
#define ID_TNA_NAT_CONN              0x16000019

/* ---- digests: 0x17 ---- no "next free": each id is p4c's name hash ----
 * 0x17 then the low 24 bits of the Jenkins one-at-a-time hash of the digest's
 * name (its struct's name), which p4c and p4compile give the v1model digest()
 * and which cannot be changed there; the TNA Digest instances carry them as
 * @id.  A new digest takes the hash of its name (p4compile's P4Info shows it).
 * retired: 0x17000001 0x17000002 (the TNA digests' ids until 2026-11-28) */
#define ID_MAC_LEARN_DIGEST          0x17f8d97f
#define ID_PW_LEARN_DIGEST           0x17f0a055

/* ---- controller headers: 0x04 ---- next free 0x04000003 ---- retired: none */
#define ID_PACKET_IN_HEADER          0x04000001
#define ID_PACKET_OUT_HEADER         0x04000002

#endif
