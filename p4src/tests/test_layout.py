"""The architecture split of p4src (issue 18 Must 1).

p4src/include/ holds the feature controls, headers and metadata; nothing in it may
name a type, extern, function, enum or annotation of v1model or of TNA (each
architecture layer, p4src/vrouter.p4 + p4src/v1model/ and p4src/tna/, spells
those). The forbidden names are read from the architecture files the compiler
ships (compiler/p4compiler/p4include/), less what core.p4 declares, so a name a
future v1model.p4 or tna.p4 adds is covered too.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "p4src" / "include"
ARCH = ROOT / "compiler" / "p4compiler" / "p4include"

DECL = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s*)*(?:extern\s+(?:[\w<>, ]+?\s+)?|struct\s+|header\s+|enum\s+(?:bit<\d+>\s+)?"
                  r"|typedef\s+[\w<>]+\s+|type\s+[\w<>]+\s+|package\s+|control\s+|parser\s+|const\s+[\w<>]+\s+)"
                  r"(\w+)", re.M)
EXTERN_OBJECT = re.compile(r"^\s*extern\s+(\w+)\s*(?:<[^>{]*>)?\s*\{", re.M)
ANNOTATION = re.compile(r"\b(field_list|pipeline|deparser|metadata)\b")


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def declared(path: Path) -> set[str]:
    text = strip_comments(path.read_text())
    names = set(DECL.findall(text)) | set(EXTERN_OBJECT.findall(text))
    names |= set(re.findall(r"^\s*#define\s+(\w+)", text, re.M))
    return names


CORE = declared(ARCH / "core.p4")


def arch_names(*files: str) -> set[str]:
    names: set[str] = set()
    for f in files:
        names |= declared(ARCH / f)
    return {n for n in names - CORE if not n.startswith("_")}


def test_forbidden_names_are_found():
    v1 = arch_names("v1model.p4")
    assert {"standard_metadata_t", "V1Switch", "mark_to_drop", "direct_counter", "action_selector",
            "HashAlgorithm", "CounterType", "clone_preserving_field_list", "digest", "register"} <= v1
    tna = arch_names("tna.p4", "tofino.p4")
    assert {"ingress_intrinsic_metadata_t", "RegisterAction", "DirectCounter", "Pipeline", "Switch",
            "Mirror", "Digest", "ActionSelector", "Hash"} <= tna


@pytest.mark.parametrize("arch,files", [("v1model", ("v1model.p4",)), ("tna", ("tna.p4", "tofino.p4"))])
def test_include_is_free_of_architecture_names(arch, files):
    forbidden = arch_names(*files)
    found = []
    for path in sorted(INCLUDE.glob("*.p4")):
        text = strip_comments(path.read_text())
        for lineno, line in enumerate(text.splitlines(), 1):
            for word in set(re.findall(r"\b\w+\b", line)) & forbidden:
                found.append(f"{path.name}:{lineno}: {word}")
            if re.search(r"@\s*" + ANNOTATION.pattern, line):
                found.append(f"{path.name}:{lineno}: architecture annotation")
    assert found == [], f"{arch} names in p4src/include/"


def test_each_top_level_is_an_architecture_layer_only():
    """The top levels declare no table or action of their own: features live in include/."""
    for top in (ROOT / "p4src" / "vrouter.p4", ROOT / "p4src" / "tna" / "vrouter.p4"):
        text = strip_comments(top.read_text())
        assert not re.search(r"^\s*(table|action)\s+\w+", text, re.M), f"{top}: a table or action in a top level"
