"""The prompt and the command-file reader, on their own (no switch: no command reaches one)."""
from p4switch_cli.shell import COMMANDS, UNAVAILABLE, Shell


def test_file_errors_name_file_and_line(capsys):
    shell = Shell(session=None, source="cmds.txt")
    failed = shell.run_file(["# a comment", "", "frobnicate 1", "table_set_timeout t 0 100"])
    assert failed == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "cmds.txt:3: error: frobnicate: unknown command 'frobnicate' (help lists the commands)"
    assert err[1].startswith("cmds.txt:4: error: table_set_timeout: table_set_timeout is not available:")


def test_prompt_prints_errors_and_help(capsys):
    shell = Shell(session=None, source="<prompt>")
    shell.interactive = True
    assert shell.onecmd("frobnicate") is False
    shell.onecmd("help table_add")
    out = capsys.readouterr().out
    assert "Error: unknown command 'frobnicate'" in out
    assert "table_add <table name> <action name> <match fields> => <action parameters> [priority]" in out
    assert shell.onecmd("EOF") is True


def test_every_command_has_a_usage_line():
    for name, fn in COMMANDS.items():
        assert fn.__doc__ and ":" in fn.__doc__, name
    assert not set(UNAVAILABLE) & set(COMMANDS)
    # the commands issue 15 names are all there
    for name in ("table_add", "table_set_default", "table_delete", "table_modify", "table_clear",
                 "mc_mgrp_create", "mc_node_create", "mc_node_associate", "mc_node_destroy",
                 "mirroring_add", "counter_read", "counter_reset", "register_read", "register_write",
                 "register_reset", "meter_set_rates", "meter_get_rates", "table_dump", "table_num_entries",
                 "act_prof_create_member", "act_prof_create_group"):
        assert name in COMMANDS, name
