"""p4info-diff, and the P4Info features newer p4c releases write (checked against the
behaviour of p4c's current control-plane code, since our fixtures come from 1.2.4.8)."""
import conftest
from conftest import program
from p4.config.v1 import p4info_pb2
from p4compiler import p4info_diff
from p4compiler.p4info import field_ids, jenkins_one_at_a_time

SELECTOR = """
    @max_group_size(16) @selector_size_semantics("sum_of_members") @max_member_weight(100)
    action_selector(HashAlgorithm.crc16, 1024, 16) ecmp;
    action fwd(bit<9> p) { sm.egress_spec = p; }
    table route { key = { hdr.eth.dst: exact; hdr.eth.etherType: selector; } actions = { fwd; } implementation = ecmp; }"""


def info_of(src):
    return conftest.compile_src(src).p4info


def test_identical_files_have_no_differences(tmp_path):
    info = info_of(program(ingress_locals=SELECTOR, ingress_apply="route.apply();"))
    a, b = tmp_path / "a.txtpb", tmp_path / "b.bin"
    a.write_text(str(info))
    b.write_bytes(info.SerializeToString())
    assert p4info_diff.main([str(a), str(b)]) == 0


def test_a_changed_annotation_is_reported_with_its_object(tmp_path, capsys):
    info = info_of(program(ingress_locals=SELECTOR, ingress_apply="route.apply();"))
    other = p4info_pb2.P4Info()
    other.CopyFrom(info)
    other.tables[0].preamble.annotations.append("@extra")
    a, b = tmp_path / "a.txtpb", tmp_path / "b.txtpb"
    a.write_text(str(info))
    b.write_text(str(other))
    assert p4info_diff.main([str(a), str(b)]) == 1
    out = capsys.readouterr().out
    assert "differs: tables I.route" in out and '-  annotations: "@extra"' in out


def test_selector_sizing_annotations_become_fields():
    (ap,) = info_of(program(ingress_locals=SELECTOR, ingress_apply="route.apply();")).action_profiles
    assert ap.max_group_size == 16 and ap.sum_of_members.max_member_weight == 100
    assert list(ap.preamble.annotations) == []


def test_pkginfo_and_platform_property():
    src = program().replace("V1Switch(", '@pkginfo(name = "x.p4", version = "1.0")\n'
                            "@platform_property(multicast_group_table_size = 64)\n@brief(\"b\")\nV1Switch(")
    pkg = info_of(src).pkg_info
    assert (pkg.name, pkg.version, pkg.arch, pkg.doc.brief) == ("x.p4", "1.0", "v1model", "b")
    assert pkg.platform_properties.multicast_group_table_size == 64


def test_ids_follow_p4cs_hash_and_field_numbering():
    assert 0x01000000 | jenkins_one_at_a_time(b"NoAction") & 0xFFFFFF == 21257015  # p4c's NoAction id
    from p4compiler.ast import Annotation
    with_id = [Annotation(None, "id", [7])]
    assert field_ids([[], with_id, [], []]) == [1, 7, 2, 3]
    assert field_ids([[Annotation(None, "id", [1])], []]) == [1, 2]
