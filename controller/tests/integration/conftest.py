"""Fixtures for the integration tests: the compiled test program, a switch process, ports, clients."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from p4rt import Switch

from harness import P4_DIR, Program, SwitchProcess, VethPair, compile_program


def pytest_collection_modifyitems(items):
    """Mark every test in this folder as an integration test."""
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session")
def program(tmp_path_factory) -> Program:
    """tests/p4/rt_test.p4 compiled by the compiler under test."""
    return compile_program(P4_DIR / "rt_test.p4", tmp_path_factory.mktemp("p4build"))


@pytest.fixture
def switch_factory(tmp_path) -> Iterator:
    """Start switch processes on free ports; all are stopped after the test."""
    started: list[SwitchProcess] = []

    def start(**kwargs) -> SwitchProcess:
        proc = SwitchProcess(tmp_path / f"switch{len(started)}.log", **kwargs)
        started.append(proc)
        return proc.start()

    yield start
    for proc in started:
        proc.stop()


@pytest.fixture(scope="module")
def shared_switch(tmp_path_factory) -> Iterator[SwitchProcess]:
    """One switch process for a test module (no data ports)."""
    proc = SwitchProcess(tmp_path_factory.mktemp("switch") / "switch.log").start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def loaded(shared_switch: SwitchProcess, program: Program) -> SwitchProcess:
    """The shared switch with the test program installed."""
    with Switch(shared_switch.address, election_id=1) as sw:
        sw.set_pipeline(program.p4info, program.json)
    return shared_switch


@pytest.fixture
def sw(loaded: SwitchProcess, program: Program) -> Iterator[Switch]:
    """A primary client on the loaded switch; every write it made is undone afterwards."""
    with Switch(loaded.address, election_id=10) as client:
        client.load_schema()
        yield client
        if loaded.alive():
            client.delete_all()


@pytest.fixture
def ports(switch_factory, program: Program) -> Iterator[tuple[Switch, dict[int, VethPair]]]:
    """A switch with data ports 1 and 2 on veth pairs, the program loaded and a primary client."""
    tag = f"h5{os.getpid() % 10000}"
    pairs: dict[int, VethPair] = {}
    try:
        for port in (1, 2):
            pairs[port] = VethPair(f"{tag}p{port}")
        proc = switch_factory(ports={p: v.switch_side for p, v in pairs.items()})
        with Switch(proc.address, election_id=1) as client:
            client.set_pipeline(program.p4info, program.json)
            for pair in pairs.values():  # drop anything queued before the pipeline existed
                pair.receive(timeout=0.05)
            yield client, pairs
    finally:
        for pair in pairs.values():
            pair.close()
