"""Table and action profile commands: table_add/_modify/_delete/_set_default/_clear,
the indirect-table forms, act_prof_* and the dumps.

simple_switch_CLI priorities are BMv2's (smaller wins); P4Runtime's are the other way
round (larger wins). The session maps one onto the other as BMv2's own P4Runtime server
does: P4Runtime priority = 2^31 - 1 - CLI priority.
"""
from __future__ import annotations

from p4rt import Action, ActionProfileGroup, ActionProfileMember, TableEntry

from .session import Session, need_args, parse_handle, parse_int
from .values import CliError, byte_str, key_str, parse_key, parse_param

MAX_PRIORITY = (1 << 31) - 1


def match_type(table) -> str:
    """The BMv2 table match type simple_switch_CLI prints: range > ternary > lpm > exact."""
    kinds = {f.match_type for f in table.match_fields}
    for kind in ("range", "ternary", "lpm"):
        if kind in kinds or (kind == "ternary" and "optional" in kinds):
            return kind
    return "exact"


def _param_kind(field) -> str:
    return {"optional": "TERNARY"}.get(field.match_type, field.match_type.upper())


def _action(session: Session, table, name: str):
    try:
        return table.actions.get(name)
    except Exception:
        raise CliError(f"Table {table.name} has no action {name}") from None


def _runtime_data(action, params: list[str]) -> tuple[dict, list[str]]:
    """Action parameters by name, and their printable forms."""
    if len(params) != len(action.params):
        raise CliError(f"Action {action.name} needs {len(action.params)} parameters")
    values, shown = {}, []
    for p, text in zip(action.params, params):
        try:
            values[p.name] = parse_param(text, p.bitwidth, "parameter")
        except CliError as exc:
            raise CliError(f"Invalid runtime data: {exc}") from None
        shown.append(byte_str(values[p.name], p.bitwidth))
    return values, shown


def _keys(table, texts: list[str]) -> dict:
    fields = list(table.match_fields)
    if len(texts) != len(fields):
        raise CliError(f"Table {table.name} needs {len(fields)} key fields")
    match = {}
    for f, text in zip(fields, texts):
        try:
            value = parse_key(text, f)
        except CliError as exc:
            raise CliError(f"Invalid match key: {exc}") from None
        if value is not None:
            match[f.id] = value
    return match


def _priority(table, args: list[str]) -> int:
    """Pop the trailing CLI priority of a table that needs one; the P4Runtime priority."""
    if not table.needs_priority:
        return 0
    try:
        prio = int(args.pop(-1), 0)
    except (ValueError, IndexError):
        raise CliError("Table is ternary, but could not extract a valid priority from args") from None
    if not 0 <= prio < MAX_PRIORITY:
        raise CliError(f"priority {prio} is outside 0..{MAX_PRIORITY - 1}")
    return MAX_PRIORITY - prio


def _split_arrow(args: list[str]) -> tuple[list[str], list[str]]:
    if "=>" in args:
        i = args.index("=>")
        return args[:i], args[i + 1:]
    return args, []


def _match_line(table, match: dict) -> str:
    parts = []
    for f in table.match_fields:
        value = match.get(f.id)
        parts.append(f"{_param_kind(f)}-{key_str(value, f)}")
    return "\t".join(parts)


def _add(session: Session, table, entry: TableEntry) -> int:
    session.write("INSERT", entry)
    return session.entries[table.name].add(entry)


def table_add(s: Session, args: list[str]) -> None:
    """Add entry to a match table: table_add <table name> <action name> <match fields> => <action parameters> [priority]"""
    need_args(args, 2, at_least=True)
    table = s.table(args[0])
    if table.implementation_id:
        raise CliError(f"table {table.name} uses an action profile: create members with "
                       f"act_prof_create_member and add entries with table_indirect_add")
    action = _action(s, table, args[1])
    rest = args[2:]
    priority = _priority(table, rest)
    keys, params = _split_arrow(rest)
    values, shown = _runtime_data(action, params)
    match = _keys(table, keys)
    s.out(f"Adding entry to {match_type(table)} match table {table.name}")
    s.out(f"{'match key:':20} {_match_line(table, match)}")
    s.out(f"{'action:':20} {action.name}")
    s.out(f"{'runtime data:':20} {chr(9).join(shown)}")
    handle = _add(s, table, TableEntry(table.name, match, Action(action.name, values), priority=priority))
    s.out(f"Entry has been added with handle {handle}")


def table_modify(s: Session, args: list[str]) -> None:
    """Modify an entry's action: table_modify <table name> <action name> <entry handle> [action parameters]"""
    need_args(args, 3, at_least=True)
    table = s.table(args[0])
    action = _action(s, table, args[1])
    handle, old = s.entry(table, args[2])
    params = args[3:]
    if params[:1] == ["=>"]:
        params = params[1:]
    values, _ = _runtime_data(action, params)
    s.out(f"Modifying entry {handle} for {match_type(table)} match table {table.name}")
    new = TableEntry(table.name, old.match, Action(action.name, values), priority=old.priority)
    s.write("MODIFY", new)
    s.entries[table.name].set(handle, new)


def table_delete(s: Session, args: list[str]) -> None:
    """Delete entry from a match table: table_delete <table name> <entry handle>"""
    need_args(args, 2)
    table = s.table(args[0])
    handle, e = s.entry(table, args[1])
    s.out(f"Deleting entry {handle} from {table.name}")
    s.write("DELETE", TableEntry(table.name, e.match, priority=e.priority))
    s.entries[table.name].remove(handle)


def table_set_default(s: Session, args: list[str]) -> None:
    """Set default action for a match table: table_set_default <table name> <action name> <action parameters>"""
    need_args(args, 2, at_least=True)
    table = s.table(args[0])
    action = _action(s, table, args[1])
    values, shown = _runtime_data(action, args[2:])
    s.out(f"Setting default action of {table.name}")
    s.out(f"{'action:':20} {action.name}")
    s.out(f"{'runtime data:':20} {chr(9).join(shown)}")
    s.write("MODIFY", TableEntry(table.name, action=Action(action.name, values), is_default=True))


def table_reset_default(s: Session, args: list[str]) -> None:
    """Reset default entry for a match table: table_reset_default <table name>"""
    need_args(args, 1)
    table = s.table(args[0])
    s.write("MODIFY", TableEntry(table.name, is_default=True))


def table_clear(s: Session, args: list[str]) -> None:
    """Clear all entries in a match table (direct or indirect), but not the default entry: table_clear <table name>"""
    need_args(args, 1)
    table = s.table(args[0])
    entries = [e for e in s.read(TableEntry(table.name), f"read {table.name}")
               if isinstance(e, TableEntry) and not e.is_default and not e.is_const]
    if entries:
        s.write("DELETE", [TableEntry(table.name, e.match, priority=e.priority) for e in entries])
    s.entries[table.name].clear()


def table_num_entries(s: Session, args: list[str]) -> None:
    """Return the number of entries in a match table (direct or indirect): table_num_entries <table name>"""
    need_args(args, 1)
    table = s.table(args[0])
    entries = [e for e in s.read(TableEntry(table.name), f"read {table.name}")
               if isinstance(e, TableEntry) and not e.is_default]
    s.out(str(len(entries)))


# --- indirect tables (action profiles and selectors) ---------------------------------

def _profile_of(s: Session, table):
    if not table.implementation_id:
        raise CliError("Cannot run this command on non-indirect table")
    return s.schema.action_profile(table.implementation_id)


def _indirect_add(s: Session, args: list[str], group: bool) -> None:
    need_args(args, 3, at_least=True)
    table = s.table(args[0])
    prof = _profile_of(s, table)
    rest = args[1:]
    priority = _priority(table, rest)
    keys, ref = _split_arrow(rest)
    if len(ref) != 1:
        raise CliError("Invalid arguments, could not find handle")
    handle = parse_handle(ref[0], "handle")
    known = s.groups if group else s.members
    if handle not in known[prof.name]:
        raise CliError(f"Invalid table operation (INVALID_{'GRP' if group else 'MBR'}_HANDLE): "
                       f"{prof.name} has no {'group' if group else 'member'} {handle}")
    match = _keys(table, keys)
    entry = TableEntry(table.name, match, priority=priority)
    if group:
        entry.group_id = handle
    else:
        entry.member_id = handle
    s.out(f"Adding entry to {match_type(table)} match table {table.name}")
    h = _add(s, table, entry)
    s.out(f"Entry has been added with handle {h}")


def table_indirect_add(s: Session, args: list[str]) -> None:
    """Add entry to an indirect match table: table_indirect_add <table name> <match fields> => <member handle> [priority]"""
    _indirect_add(s, args, group=False)


def table_indirect_add_with_group(s: Session, args: list[str]) -> None:
    """Add entry to an indirect match table: table_indirect_add_with_group <table name> <match fields> => <group handle> [priority]"""
    _indirect_add(s, args, group=True)


def table_indirect_delete(s: Session, args: list[str]) -> None:
    """Delete entry from an indirect match table: table_indirect_delete <table name> <entry handle>"""
    table_delete(s, args)


def _indirect_default(s: Session, args: list[str], group: bool) -> None:
    need_args(args, 2)
    table = s.table(args[0])
    _profile_of(s, table)
    handle = parse_handle(args[1], "handle")
    entry = TableEntry(table.name, is_default=True)
    if group:
        entry.group_id = handle
    else:
        entry.member_id = handle
    s.write("MODIFY", entry)


def table_indirect_set_default(s: Session, args: list[str]) -> None:
    """Set default member for indirect match table: table_indirect_set_default <table name> <member handle>"""
    _indirect_default(s, args, group=False)


def table_indirect_set_default_with_group(s: Session, args: list[str]) -> None:
    """Set default group for indirect match table: table_indirect_set_default_with_group <table name> <group handle>"""
    _indirect_default(s, args, group=True)


def table_indirect_reset_default(s: Session, args: list[str]) -> None:
    """Reset default entry for indirect match table: table_indirect_reset_default <table name>"""
    table_reset_default(s, args)


def _profile_action(s: Session, prof, name: str):
    for tid in prof.table_ids:
        table = s.schema.table(tid)
        try:
            return table.actions.get(name)
        except Exception:
            continue
    raise CliError(f"Action profile '{prof.name}' has no action '{name}'")


def _lowest_free(used) -> int:
    n = 0
    while n in used:
        n += 1
    return n


def act_prof_create_member(s: Session, args: list[str]) -> None:
    """Add a member to an action profile: act_prof_create_member <action profile name> <action_name> [action parameters]"""
    need_args(args, 2, at_least=True)
    prof = s.profile(args[0])
    action = _profile_action(s, prof, args[1])
    values, _ = _runtime_data(action, args[2:])
    handle = _lowest_free(s.members[prof.name])
    member = ActionProfileMember(prof.name, handle, Action(action.name, values))
    s.write("INSERT", member)
    s.members[prof.name][handle] = member
    s.out(f"Member has been created with handle {handle}")


def act_prof_delete_member(s: Session, args: list[str]) -> None:
    """Delete a member in an action profile: act_prof_delete_member <action profile name> <member handle>"""
    need_args(args, 2)
    prof = s.profile(args[0])
    handle = parse_handle(args[1], "member handle")
    if handle not in s.members[prof.name]:
        raise CliError(f"Invalid table operation (INVALID_MBR_HANDLE): {prof.name} has no member {handle}")
    s.write("DELETE", ActionProfileMember(prof.name, handle))
    del s.members[prof.name][handle]


def act_prof_modify_member(s: Session, args: list[str]) -> None:
    """Modify member in an action profile: act_prof_modify_member <action profile name> <action_name> <member_handle> [action parameters]"""
    need_args(args, 3, at_least=True)
    prof = s.profile(args[0])
    action = _profile_action(s, prof, args[1])
    handle = parse_handle(args[2], "member handle")
    if handle not in s.members[prof.name]:
        raise CliError(f"Invalid table operation (INVALID_MBR_HANDLE): {prof.name} has no member {handle}")
    params = args[3:]
    if params[:1] == ["=>"]:
        params = params[1:]
    values, _ = _runtime_data(action, params)
    member = ActionProfileMember(prof.name, handle, Action(action.name, values))
    s.write("MODIFY", member)
    s.members[prof.name][handle] = member


def _selector(s: Session, name: str):
    prof = s.profile(name)
    if not prof.with_selector:
        raise CliError("Cannot run this command on an action profile without selector")
    return prof


def _group(s: Session, prof, text: str) -> ActionProfileGroup:
    handle = parse_handle(text, "group handle")
    g = s.groups[prof.name].get(handle)
    if g is None:
        raise CliError(f"Invalid table operation (INVALID_GRP_HANDLE): {prof.name} has no group {handle}")
    return g


def act_prof_create_group(s: Session, args: list[str]) -> None:
    """Add a group to an action profile: act_prof_create_group <action profile name>"""
    need_args(args, 1)
    prof = _selector(s, args[0])
    handle = _lowest_free(s.groups[prof.name])
    max_size = getattr(prof.pb, "max_group_size", 0) or prof.size
    group = ActionProfileGroup(prof.name, handle, [], max_size=max_size)
    s.write("INSERT", group)
    s.groups[prof.name][handle] = group
    s.out(f"Group has been created with handle {handle}")


def act_prof_delete_group(s: Session, args: list[str]) -> None:
    """Delete a group from an action profile: act_prof_delete_group <action profile name> <group handle>"""
    need_args(args, 2)
    prof = _selector(s, args[0])
    g = _group(s, prof, args[1])
    s.write("DELETE", ActionProfileGroup(prof.name, g.group_id))
    del s.groups[prof.name][g.group_id]


def _member_ids(g: ActionProfileGroup) -> list[int]:
    return [m if isinstance(m, int) else (m[0] if isinstance(m, tuple) else m.member_id) for m in g.members]


def _set_members(s: Session, prof, g: ActionProfileGroup, ids: list[int]) -> None:
    new = ActionProfileGroup(prof.name, g.group_id, list(ids), max_size=g.max_size)
    s.write("MODIFY", new)
    s.groups[prof.name][g.group_id] = new


def act_prof_add_member_to_group(s: Session, args: list[str]) -> None:
    """Add member to group in an action profile: act_prof_add_member_to_group <action profile name> <member handle> <group handle>"""
    need_args(args, 3)
    prof = _selector(s, args[0])
    member = parse_handle(args[1], "member handle")
    if member not in s.members[prof.name]:
        raise CliError(f"Invalid table operation (INVALID_MBR_HANDLE): {prof.name} has no member {member}")
    g = _group(s, prof, args[2])
    ids = _member_ids(g)
    if member in ids:
        raise CliError(f"Invalid table operation (MBR_ALREADY_IN_GRP): member {member} is in group {g.group_id}")
    _set_members(s, prof, g, ids + [member])


def act_prof_remove_member_from_group(s: Session, args: list[str]) -> None:
    """Remove member from group in action profile: act_prof_remove_member_from_group <action profile name> <member handle> <group handle>"""
    need_args(args, 3)
    prof = _selector(s, args[0])
    member = parse_handle(args[1], "member handle")
    g = _group(s, prof, args[2])
    ids = _member_ids(g)
    if member not in ids:
        raise CliError(f"Invalid table operation (MBR_NOT_IN_GRP): member {member} is not in group {g.group_id}")
    _set_members(s, prof, g, [m for m in ids if m != member])


def _legacy(name: str):
    """The deprecated table_indirect_* member/group commands: a table name for the profile."""
    def run(s: Session, args: list[str]) -> None:
        need_args(args, 1, at_least=True)
        table = s.table(args[0])
        prof = _profile_of(s, table)
        COMMANDS[name](s, [prof.name] + args[1:])
    run.__doc__ = f"[DEPRECATED] {name} with a table name: see {name}"
    return run


# --- dumps ---------------------------------------------------------------------------

def _as_int(value, bitwidth: int) -> int:
    return value if isinstance(value, int) else parse_param(str(value), bitwidth)


def _norm(value, field):
    """A read-back match value (p4rt may format addresses as text) as ints."""
    bw, kind = field.bitwidth, field.match_type
    if kind == "lpm":
        if isinstance(value, str):
            v, _, plen = value.partition("/")
            return (_as_int(v, bw), int(plen))
        return (_as_int(value[0], bw), value[1])
    if kind in ("ternary", "range"):
        if isinstance(value, str):
            sep = "&&&" if kind == "ternary" else ".."
            a, _, b = value.partition(sep)
            return (_as_int(a, bw), _as_int(b, bw))
        return (_as_int(value[0], bw), _as_int(value[1], bw))
    return _as_int(value, bw)


def _action_line(s: Session, e: TableEntry) -> str:
    if e.member_id is not None:
        return f"Index: member({e.member_id})"
    if e.group_id is not None:
        return f"Index: group({e.group_id})"
    if e.action is None:
        return "EMPTY"
    act = s.schema.actions.get(e.action.name if isinstance(e.action, Action) else e.action)
    params = e.action.params if isinstance(e.action, Action) else {}
    data = [byte_str(_as_int(params[p.name], p.bitwidth), p.bitwidth, "") for p in act.params]
    return f"Action entry: {act.name} - {', '.join(data)}"


def _dump_entry(s: Session, table, handle: int, e: TableEntry) -> None:
    fields = list(table.match_fields)
    width = max([20] + [len(f.name) for f in fields])
    by_name = {f.name: f for f in fields}
    match = {by_name[k].id if k in by_name else k: v for k, v in e.match.items()}
    s.out(f"Dumping entry {hex(handle)}")
    s.out("Match key:")
    for f in fields:
        value = match.get(f.id)
        if value is None and f.match_type in ("ternary", "optional"):
            shown = key_str(None, f, "")
        elif value is None and f.match_type == "lpm":
            shown = key_str((0, 0), f, "")
        elif value is None and f.match_type == "range":
            shown = key_str((0, (1 << f.bitwidth) - 1), f, "")
        else:
            v = _norm(value, f)
            if f.match_type == "optional":
                v = (v, (1 << f.bitwidth) - 1)
                shown = f"{byte_str(v[0], f.bitwidth, '')} &&& {byte_str(v[1], f.bitwidth, '')}"
            else:
                shown = key_str(v, f, "")
        s.out(f"* {f.name:{width}}: {_param_kind(f):10}{shown}")
    if table.needs_priority:
        s.out(f"Priority: {MAX_PRIORITY - e.priority}")
    s.out(_action_line(s, e))


def _handle_of(s: Session, table, e: TableEntry) -> int:
    """The session's handle of a read-back entry (adopting entries it did not know)."""
    key = _entry_key(s, table, e)
    for h, known in s.entries[table.name].items():
        if _entry_key(s, table, known) == key:
            return h
    return s.entries[table.name].add(e)


def _entry_key(s: Session, table, e: TableEntry):
    msg = TableEntry(table.name, e.match, priority=e.priority).encode_entry(s.schema)
    return (sorted(m.SerializeToString() for m in msg.match), msg.priority)


def table_dump(s: Session, args: list[str]) -> None:
    """Display entries in a match-table: table_dump <table name>"""
    need_args(args, 1)
    table = s.table(args[0])
    read = s.read(TableEntry(table.name), f"read {table.name}")
    s.out("==========")
    s.out("TABLE ENTRIES")
    for e in read:
        if isinstance(e, TableEntry) and not e.is_default:
            s.out("**********")
            _dump_entry(s, table, _handle_of(s, table, e), e)
    if table.implementation_id:
        _dump_profile(s, s.schema.action_profile(table.implementation_id))
    s.out("==========")
    s.out("Dumping default entry")
    default = [e for e in s.read(TableEntry(table.name, is_default=True), f"read {table.name}")
               if isinstance(e, TableEntry) and e.is_default]
    s.out(_action_line(s, default[0]) if default else "EMPTY")
    s.out("==========")


def table_dump_entry(s: Session, args: list[str]) -> None:
    """Display some information about a table entry: table_dump_entry <table name> <entry handle>"""
    need_args(args, 2)
    table = s.table(args[0])
    handle, e = s.entry(table, args[1])
    got = [x for x in s.read(TableEntry(table.name, e.match, priority=e.priority), f"read {table.name}")
           if isinstance(x, TableEntry)]
    if not got:
        raise CliError(f"Invalid table operation (INVALID_HANDLE): entry {handle} is no longer on the switch")
    _dump_entry(s, table, handle, got[0])


def table_dump_entry_from_key(s: Session, args: list[str]) -> None:
    """Display some information about a table entry: table_dump_entry_from_key <table name> <match fields> [priority]"""
    need_args(args, 1, at_least=True)
    table = s.table(args[0])
    rest = args[1:]
    priority = _priority(table, rest)
    match = _keys(table, rest)
    got = [x for x in s.read(TableEntry(table.name, match, priority=priority), f"read {table.name}")
           if isinstance(x, TableEntry)]
    if not got:
        raise CliError("Invalid table operation (BAD_MATCH_KEY): no entry with that key")
    _dump_entry(s, table, _handle_of(s, table, got[0]), got[0])


def _dump_member(s: Session, m: ActionProfileMember) -> None:
    s.out(f"Dumping member {m.member_id}")
    s.out(_action_line(s, TableEntry(action=m.action)))


def _dump_profile(s: Session, prof) -> None:
    s.out("==========")
    s.out("MEMBERS")
    for m in sorted(s.read_if_supported(ActionProfileMember(prof.name)), key=lambda m: m.member_id):
        s.out("**********")
        _dump_member(s, m)
    if prof.with_selector:
        s.out("==========")
        s.out("GROUPS")
        for g in sorted(s.read_if_supported(ActionProfileGroup(prof.name)), key=lambda g: g.group_id):
            s.out("**********")
            s.out(f"Dumping group {g.group_id}")
            s.out(f"Members: [{', '.join(str(m) for m in _member_ids(g))}]")


def act_prof_dump(s: Session, args: list[str]) -> None:
    """Display entries in an action profile: act_prof_dump <action profile name>"""
    need_args(args, 1)
    _dump_profile(s, s.profile(args[0]))


def act_prof_dump_member(s: Session, args: list[str]) -> None:
    """Display some information about a member: act_prof_dump_member <action profile name> <member handle>"""
    need_args(args, 2)
    prof = s.profile(args[0])
    handle = parse_handle(args[1], "member handle")
    got = [m for m in s.read_if_supported(ActionProfileMember(prof.name, handle))
           if m.member_id == handle]
    if not got:
        raise CliError(f"Invalid table operation (INVALID_MBR_HANDLE): {prof.name} has no member {handle}")
    _dump_member(s, got[0])


def act_prof_dump_group(s: Session, args: list[str]) -> None:
    """Display some information about a group: act_prof_dump_group <action profile name> <group handle>"""
    need_args(args, 2)
    prof = _selector(s, args[0])
    g = _group(s, prof, args[1])
    s.out(f"Dumping group {g.group_id}")
    s.out(f"Members: [{', '.join(str(m) for m in _member_ids(g))}]")


# --- what the program has ------------------------------------------------------------

def _table_str(table) -> str:
    keys = ", ".join(f"{f.name}({f.match_type}, {f.bitwidth})" for f in table.match_fields)
    impl = " [implementation=action profile]" if table.implementation_id else ""
    return f"{table.name:<40} [{keys}]{impl}"


def _action_str(action) -> str:
    params = ", ".join(f"{p.name}({p.bitwidth})" for p in action.params)
    return f"{action.name:<40} [{params}]"


def show_tables(s: Session, args: list[str]) -> None:
    """List tables defined in the P4 program: show_tables"""
    need_args(args, 0)
    for t in sorted(s.schema.tables, key=lambda t: t.name):
        s.out(_table_str(t))


def show_actions(s: Session, args: list[str]) -> None:
    """List actions defined in the P4 program: show_actions"""
    need_args(args, 0)
    for a in sorted(s.schema.actions, key=lambda a: a.name):
        s.out(_action_str(a))


def table_show_actions(s: Session, args: list[str]) -> None:
    """List one table's actions as per the P4 program: table_show_actions <table_name>"""
    need_args(args, 1)
    for a in sorted(s.table(args[0]).actions, key=lambda a: a.name):
        s.out(_action_str(a))


def table_info(s: Session, args: list[str]) -> None:
    """Show info about a table: table_info <table_name>"""
    need_args(args, 1)
    table = s.table(args[0])
    s.out(_table_str(table))
    s.out("*" * 80)
    for a in sorted(table.actions, key=lambda a: a.name):
        s.out(_action_str(a))


COMMANDS = {f.__name__: f for f in (
    table_add, table_modify, table_delete, table_set_default, table_reset_default, table_clear,
    table_num_entries, table_indirect_add, table_indirect_add_with_group, table_indirect_delete,
    table_indirect_set_default, table_indirect_set_default_with_group, table_indirect_reset_default,
    act_prof_create_member, act_prof_delete_member, act_prof_modify_member, act_prof_create_group,
    act_prof_delete_group, act_prof_add_member_to_group, act_prof_remove_member_from_group,
    table_dump, table_dump_entry, table_dump_entry_from_key, act_prof_dump, act_prof_dump_member,
    act_prof_dump_group, show_tables, show_actions, table_show_actions, table_info)}
for _old, _new in (("table_indirect_create_member", "act_prof_create_member"),
                   ("table_indirect_delete_member", "act_prof_delete_member"),
                   ("table_indirect_modify_member", "act_prof_modify_member"),
                   ("table_indirect_create_group", "act_prof_create_group"),
                   ("table_indirect_delete_group", "act_prof_delete_group"),
                   ("table_indirect_add_member_to_group", "act_prof_add_member_to_group"),
                   ("table_indirect_remove_member_from_group", "act_prof_remove_member_from_group"),
                   ("table_dump_member", "act_prof_dump_member"),
                   ("table_dump_group", "act_prof_dump_group")):
    COMMANDS[_old] = _legacy(_new)
