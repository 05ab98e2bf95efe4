"""Consistency checks of a BMv2 JSON document: every reference resolves.

Used by the tests on every compiled program, so that a lowering bug shows up as a
named dangling reference rather than as a switch that refuses the JSON."""
from __future__ import annotations


def problems(j: dict) -> list[str]:
    out: list[str] = []
    htypes = {t["name"]: t for t in j["header_types"]}
    headers = {h["name"]: h for h in j["headers"]}
    for h in j["headers"]:
        if h["header_type"] not in htypes:
            out.append(f"header {h['name']}: unknown type {h['header_type']}")
    stacks = {s["name"] for s in j["header_stacks"]}
    unions = {u["name"] for u in j["header_unions"]}
    union_stacks = {u["name"] for u in j["header_union_stacks"]}
    named = {
        "calculation": {c["name"] for c in j["calculations"]},
        "register_array": {r["name"] for r in j["register_arrays"]},
        "counter_array": {c["name"] for c in j["counter_arrays"]},
        "meter_array": {m["name"] for m in j["meter_arrays"]},
        "header": set(headers), "header_stack": stacks, "header_union": unions,
        "header_union_stack": union_stacks, "extern": {e["name"] for e in j["extern_instances"]},
    }

    # BMv2 refuses two objects of one kind with the same name ("Duplicate objects of type ...")
    for key in ("header_types", "headers", "header_stacks", "header_unions", "header_union_stacks", "calculations",
                "register_arrays", "counter_arrays", "meter_arrays", "extern_instances", "actions", "learn_lists",
                "field_lists", "parse_vsets"):
        seen: set = set()
        for obj in j.get(key, []):
            if obj["name"] in seen and key != "actions":
                out.append(f"{key}: duplicate name {obj['name']}")
            seen.add(obj["name"])

    def field_ok(h, f, where):
        if h not in headers:
            out.append(f"{where}: unknown header {h}")
            return
        names = [x[0] for x in htypes[headers[h]["header_type"]]["fields"]]
        if f != "$valid$" and f not in names:
            out.append(f"{where}: {h} has no field {f}")

    def walk(x, where, nrt=None):
        if isinstance(x, dict):
            t = x.get("type")
            v = x.get("value")
            if t == "field" and isinstance(v, list):
                field_ok(v[0], v[1], where)
            elif t in named and isinstance(v, str):
                if v not in named[t]:
                    out.append(f"{where}: unknown {t} {v}")
            elif t == "runtime_data" and nrt is not None and not (0 <= v < nrt):
                out.append(f"{where}: runtime_data {v} out of range")
            elif t == "stack_field" and v[0] not in stacks:
                out.append(f"{where}: unknown stack {v[0]}")
            for k, y in x.items():
                walk(y, where, nrt)
        elif isinstance(x, list):
            for y in x:
                walk(y, where, nrt)

    actions = {a["id"]: a for a in j["actions"]}
    for a in j["actions"]:
        n = len(a["primitives"])
        for i, p in enumerate(a["primitives"]):
            walk(p["parameters"], f"action {a['name']}[{i}]", len(a["runtime_data"]))
            if p["op"] in ("_jump", "_jump_if_zero"):
                tgt = int(p["parameters"][-1]["value"], 16)
                if not 0 <= tgt <= n:
                    out.append(f"action {a['name']}: jump target {tgt} out of range")
    for p in j["parsers"]:
        states = {s["name"] for s in p["parse_states"]}
        if p["init_state"] not in states:
            out.append(f"parser: init state {p['init_state']} missing")
        for s in p["parse_states"]:
            walk(s["parser_ops"], f"state {s['name']}")
            walk(s["transition_key"], f"state {s['name']}")
            for tr in s["transitions"]:
                if tr["next_state"] is not None and tr["next_state"] not in states:
                    out.append(f"state {s['name']}: unknown next state {tr['next_state']}")
    for pl in j["pipelines"]:
        nodes = {t["name"] for t in pl["tables"]} | {c["name"] for c in pl["conditionals"]}
        if len(nodes) != len(pl["tables"]) + len(pl["conditionals"]):
            out.append(f"pipeline {pl['name']}: duplicate node names")
        profiles = {p["name"] for p in pl["action_profiles"]}

        def node_ok(n, where):
            if n is not None and n not in nodes:
                out.append(f"{where}: unknown next node {n}")
        node_ok(pl["init_table"], f"pipeline {pl['name']}")
        for t in pl["tables"]:
            where = f"table {t['name']}"
            walk(t["key"], where)
            for aid, an in zip(t["action_ids"], t["actions"]):
                if aid not in actions or actions[aid]["name"] != an:
                    out.append(f"{where}: action id {aid} is not {an}")
            for k, n in t["next_tables"].items():
                if k not in t["actions"] and k not in ("__HIT__", "__MISS__"):
                    out.append(f"{where}: next_tables key {k} is not an action")
                node_ok(n, where)
            node_ok(t["base_default_next"], where)
            de = t.get("default_entry")
            if de is not None:
                if de["action_id"] not in t["action_ids"]:
                    out.append(f"{where}: default action {de['action_id']} not in the table's actions")
                elif len(de["action_data"]) != len(actions[de["action_id"]]["runtime_data"]):
                    out.append(f"{where}: default action data has the wrong length")
            for e in t.get("entries", []):
                if len(e["match_key"]) != len(t["key"]):
                    out.append(f"{where}: entry key length")
            if t["type"] != "simple" and t.get("action_profile") not in profiles:
                out.append(f"{where}: action profile missing from the pipeline")
        for c in pl["conditionals"]:
            walk(c["expression"], f"conditional {c['name']}")
            node_ok(c["true_next"], f"conditional {c['name']}")
            node_ok(c["false_next"], f"conditional {c['name']}")
    for c in j["calculations"]:
        walk(c["input"], f"calculation {c['name']}")
    for c in j["checksums"]:
        field_ok(c["target"][0], c["target"][1], f"checksum {c['name']}")
        if c["calculation"] not in named["calculation"]:
            out.append(f"checksum {c['name']}: unknown calculation")
        walk(c["if_cond"], f"checksum {c['name']}")
    for d in j["deparsers"]:
        for h in d["order"]:
            if h not in headers:
                out.append(f"deparser: unknown header {h}")
    for fl in j["field_lists"] + j["learn_lists"]:
        walk(fl["elements"], f"list {fl['name']}")
    for m in j["meter_arrays"] + j["counter_arrays"]:
        if m.get("is_direct") and m.get("binding") is None:
            pass
    for ht in j["header_types"]:
        for f in ht["fields"]:
            if f[1] != "*" and f[1] <= 0:
                out.append(f"header type {ht['name']}: field {f[0]} has width {f[1]}")
    return out
