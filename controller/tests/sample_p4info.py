"""A small hand-written P4Info covering every kind of object the library handles."""

P4INFO_TEXT = """
pkg_info { arch: "v1model" }
tables {
  preamble { id: 33554433 name: "MyIngress.ipv4_lpm" alias: "ipv4_lpm" }
  match_fields { id: 1 name: "hdr.ipv4.dstAddr" bitwidth: 32 match_type: LPM annotations: "@format(IPV4_ADDRESS)" }
  action_refs { id: 16777217 }
  action_refs { id: 16777218 }
  action_refs { id: 16777219 scope: DEFAULT_ONLY }
  direct_resource_ids: 318767105
  size: 1024
}
tables {
  preamble { id: 33554434 name: "MyIngress.acl" alias: "acl" }
  match_fields { id: 1 name: "hdr.ethernet.srcAddr" bitwidth: 48 match_type: TERNARY }
  match_fields { id: 2 name: "hdr.tcp.dstPort" bitwidth: 16 match_type: RANGE }
  match_fields { id: 3 name: "meta.vlan" bitwidth: 12 match_type: OPTIONAL }
  match_fields { id: 4 name: "standard_metadata.ingress_port" bitwidth: 9 match_type: EXACT }
  action_refs { id: 16777218 }
  action_refs { id: 16777219 }
  direct_resource_ids: 352321537
  size: 256
  idle_timeout_behavior: NOTIFY_CONTROL
}
tables {
  preamble { id: 33554435 name: "MyEgress.acl" alias: "MyEgress.acl" }
  match_fields { id: 1 name: "meta.x" bitwidth: 8 match_type: EXACT }
  action_refs { id: 16777219 }
  size: 16
}
tables {
  preamble { id: 33554436 name: "MyIngress.ecmp" alias: "ecmp" }
  match_fields { id: 1 name: "hdr.ipv4.dstAddr" bitwidth: 32 match_type: EXACT }
  action_refs { id: 16777217 }
  implementation_id: 299892737
  size: 128
}
actions { preamble { id: 16777217 name: "MyIngress.set_nhop" alias: "set_nhop" }
  params { id: 1 name: "dmac" bitwidth: 48 annotations: "@format(MAC_ADDRESS)" }
  params { id: 2 name: "port" bitwidth: 9 } }
actions { preamble { id: 16777218 name: "MyIngress.drop" alias: "drop" } }
actions { preamble { id: 16777219 name: "NoAction" alias: "NoAction" } }
action_profiles { preamble { id: 299892737 name: "MyIngress.ecmp_selector" alias: "ecmp_selector" }
  table_ids: 33554436 with_selector: true size: 64 max_group_size: 8 }
counters { preamble { id: 302120321 name: "MyIngress.port_counter" alias: "port_counter" }
  spec { unit: BOTH } size: 512 }
direct_counters { preamble { id: 318767105 name: "MyIngress.lpm_counter" alias: "lpm_counter" }
  spec { unit: BOTH } direct_table_id: 33554433 }
meters { preamble { id: 335544321 name: "MyIngress.port_meter" alias: "port_meter" }
  spec { unit: BYTES } size: 16 }
direct_meters { preamble { id: 352321537 name: "MyIngress.acl_meter" alias: "acl_meter" }
  spec { unit: PACKETS } direct_table_id: 33554434 }
controller_packet_metadata { preamble { id: 67146229 name: "packet_in" alias: "packet_in" }
  metadata { id: 1 name: "ingress_port" bitwidth: 9 }
  metadata { id: 2 name: "reason" bitwidth: 7 } }
controller_packet_metadata { preamble { id: 67121543 name: "packet_out" alias: "packet_out" }
  metadata { id: 1 name: "egress_port" bitwidth: 9 }
  metadata { id: 2 name: "flags" bitwidth: 7 } }
value_sets { preamble { id: 50331649 name: "MyParser.tpids" alias: "tpids" }
  match { id: 1 name: "etherType" bitwidth: 16 match_type: EXACT } size: 4 }
registers { preamble { id: 369098753 name: "MyIngress.flow_reg" alias: "flow_reg" }
  type_spec { bitstring { bit { bitwidth: 32 } } } size: 64 }
registers { preamble { id: 369098754 name: "MyIngress.signed_reg" alias: "signed_reg" }
  type_spec { bitstring { int { bitwidth: 12 } } } size: 4 }
digests { preamble { id: 385875969 name: "mac_learn_digest_t" alias: "mac_learn_digest_t" }
  type_spec { struct { name: "mac_learn_digest_t" } } }
type_info {
  structs { key: "mac_learn_digest_t" value {
    members { name: "src_addr" type_spec { bitstring { bit { bitwidth: 48 } } } }
    members { name: "ingress_port" type_spec { bitstring { bit { bitwidth: 9 } } } } } }
}
"""
