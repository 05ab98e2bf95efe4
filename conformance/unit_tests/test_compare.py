"""Packet comparison and the mismatch report."""
from p4stf import compare, stf
from p4stf.stf import Expect


def E(port, pattern, exact=False, line=1):
    return Expect(line, port, pattern, exact)


def test_wildcard_nibbles_match_anything():
    assert compare.matches(E(1, "0A*B"), bytes.fromhex("0A5B"))
    assert not compare.matches(E(1, "0A*B"), bytes.fromhex("0A5C"))


def test_longer_packet_matches_unless_exact():
    assert compare.matches(E(1, "0A0B"), bytes.fromhex("0A0B0C"))
    assert not compare.matches(E(1, "0A0B", exact=True), bytes.fromhex("0A0B0C"))
    assert compare.matches(E(1, "0A0B", exact=True), bytes.fromhex("0A0B"))


def test_shorter_packet_never_matches():
    assert not compare.matches(E(1, "0A0B0C"), bytes.fromhex("0A0B"))


def test_any_packet():
    assert compare.matches(E(1, None), b"\x00")


def test_all_good_ports_report_ok():
    reps = compare.compare([E(1, "AA"), E(1, "BB")], {1: [b"\xaa", b"\xbb"], 2: []}, [1, 2])
    assert all(r.ok for r in reps)


def test_order_matters_per_port():
    reps = compare.compare([E(1, "AA"), E(1, "BB")], {1: [b"\xbb", b"\xaa"]}, [1])
    assert not reps[0].ok and "packet #1: DIFFERS" in reps[0].text


def test_missing_and_extra_packets_are_named():
    reps = compare.compare([E(1, "AA", line=7)], {1: [], 2: [b"\x01\x02"]}, [1, 2])
    bad = {r.port: r.text for r in reps if not r.ok}
    assert "MISSING (stf line 7)" in bad[1]
    assert "EXTRA" in bad[2] and "01 02" in bad[2]


def test_diff_marks_differing_bytes():
    text = compare.render_diff(E(1, "0011**33"), bytes.fromhex("00FF9933"))
    lines = text.splitlines()
    assert lines[0].endswith("expected: 00 11 ** 33")
    assert lines[1].endswith("actual:   00 FF 99 33")
    # only the second byte is marked
    marks = lines[2]
    col = lines[1].index("FF")
    assert marks[col:col + 2] == "^^" and marks.count("^^") == 1


def test_diff_reports_short_packet():
    text = compare.render_diff(E(1, "001122"), bytes.fromhex("00"))
    assert "actual is 1 bytes, expected at least 3" in text


def test_parse_then_compare_roundtrip():
    cmds = stf.parse("packet 0 0102\nexpect 2 01 ** $\n")
    exp = [c for c in cmds if isinstance(c, stf.Expect)]
    assert all(r.ok for r in compare.compare(exp, {2: [b"\x01\x07"]}, [0, 2]))
    assert not all(r.ok for r in compare.compare(exp, {2: [b"\x01\x07\x00"]}, [0, 2]))


def test_vlan_tag_put_back_from_auxdata():
    import struct
    from p4stf import veth
    frame = bytes.fromhex("000000000001000000000002" "0800" "4500")
    aux = veth._AUX.pack(veth.TP_STATUS_VLAN_VALID, 0, 0, 0, 0, 0x0064, 0)
    got = veth._with_vlan_tag(frame, [(veth.SOL_PACKET, veth.PACKET_AUXDATA, aux)])
    assert got == bytes.fromhex("000000000001000000000002" "81000064" "0800" "4500")
    assert veth._with_vlan_tag(frame, []) == frame
    assert struct.calcsize("=IIIHHHH") == 20
