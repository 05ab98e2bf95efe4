//! The engine's modules depend one way (issue 16, Must 1): each module may
//! import (`crate::x`) only modules of a lower layer, so no import circle can
//! form again. The map below is the allowed order; a new module must be
//! placed in it, and an import that runs up (or sideways) fails this test
//! with the file and the module it names.
//!
//! Test code (`#[cfg(test)]` items and the `*_tests.rs` files) is left out:
//! a test may drive a module through the ones above it.

use std::collections::BTreeMap;
use std::path::Path;

/// Layer of each top-level module (a module's files: `x.rs` and `x/*.rs`).
const LAYERS: &[(&str, u32)] = &[
    // leaves: the shared vocabulary and self-contained helpers
    ("types", 0),
    ("bits", 0),
    ("hash", 0),
    ("stats", 0),
    ("lpm_trie", 0),
    ("small_scan", 0),
    // JSON reading, the loaded program (pure data), extern cells
    ("json", 1),
    ("program", 1),
    ("externs", 1),
    // the BMv2 checks over the JSON; expression trees; match tables; which
    // registers each action locks (derived from the program)
    ("bmv2_shapes", 2),
    ("eval", 2),
    ("table", 2),
    ("action_locks", 2),
    // the loader (runs the BMv2 checks first); compiled from the program
    // (shortcuts, step array, layouts)
    ("loader", 3),
    ("plan", 3),
    // table and extern state of a loaded program (holds its plan)
    ("runtime", 4),
    // per packet: given program, plan, runtime state and a small host
    ("exec", 5),
    // the contract on top, imported by nothing below
    ("api", 6),
    ("lib", 7),
];

/// Replaces comments, string and char literals by spaces (keeps lines).
fn strip(src: &str) -> String {
    let b: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
        } else if (c == 'r' || (c == 'b' && next == Some('r')))
            && !b.get(i.wrapping_sub(1)).is_some_and(|p| p.is_alphanumeric() || *p == '_')
            && {
                let s = if c == 'b' { i + 2 } else { i + 1 };
                let mut j = s;
                while b.get(j) == Some(&'#') {
                    j += 1;
                }
                b.get(j) == Some(&'"')
            }
        {
            // raw string: r"…", r#"…"#, br#"…"#
            i += if c == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while b[i] == '#' {
                hashes += 1;
                i += 1;
            }
            i += 1;
            loop {
                if i >= b.len() {
                    break;
                }
                if b[i] == '"' && (1..=hashes).all(|k| b.get(i + k) == Some(&'#')) {
                    i += 1 + hashes;
                    break;
                }
                blank(&mut out, b[i]);
                i += 1;
            }
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                if let Some(&x) = b.get(i) {
                    blank(&mut out, x);
                }
                i += 1;
            }
            i += 1;
        } else if c == '\'' && next == Some('\\') {
            // escaped char literal: '\n', '\'', '\u{7f}'
            i += 2;
            while i < b.len() && b[i] != '\'' {
                i += 1;
            }
            i += 1;
        } else if c == '\'' && b.get(i + 2) == Some(&'\'') {
            i += 3; // 'x' (a lifetime has no closing quote)
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Removes every item marked `#[cfg(test)]` (up to its `;` or its matching `}`).
fn without_tests(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(p) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..p]);
        let after = &rest[p..];
        let end = match (after.find('{'), after.find(';')) {
            (_, Some(semi)) if after.find('{').is_none_or(|b| semi < b) => semi + 1,
            (Some(open), _) => {
                let mut depth = 0;
                let mut end = after.len();
                for (k, ch) in after[open..].char_indices() {
                    match ch {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = open + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            _ => after.len(),
        };
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// Per byte offset of `s`: how many inline `mod x { … }` blocks enclose it.
fn inline_mod_depth(s: &str) -> Vec<u32> {
    let mut depth = Vec::with_capacity(s.len());
    let mut stack: Vec<bool> = Vec::new(); // per open brace: opened a `mod`?
    let mut now = 0;
    for (p, ch) in s.char_indices() {
        match ch {
            '{' => {
                let before: Vec<&str> = s[..p].split_whitespace().rev().take(2).collect();
                let is_mod = before.len() == 2 && before[1] == "mod";
                stack.push(is_mod);
                now += is_mod as u32;
            }
            '}' => now -= stack.pop().unwrap_or(false) as u32,
            _ => {}
        }
        depth.extend(std::iter::repeat_n(now, ch.len_utf8()));
    }
    depth
}

/// The first name of each top-level item of a `{…}` group (`rest` starts
/// after the `{`); `*` stands for the glob.
fn group_names(group: &str, found: &mut Vec<String>) {
    let is_id = |c: char| c.is_alphanumeric() || c == '_' || c == '*';
    let mut depth = 0;
    let mut name = String::new();
    let mut at_start = true;
    for ch in group.chars() {
        if depth == 0 && at_start {
            if is_id(ch) {
                name.push(ch);
                continue;
            }
            if ch.is_whitespace() && name.is_empty() {
                continue;
            }
            if !name.is_empty() {
                found.push(std::mem::take(&mut name));
            }
            at_start = false;
        }
        match ch {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => at_start = true,
            _ => {}
        }
    }
    if !name.is_empty() {
        found.push(name);
    }
}

/// The crate modules a source at `path` names: `crate::x…`, `crate::{x, y::z}`,
/// and `super::x` where that reaches the crate root (in a top-level module
/// file, or `super::super::` one level down). A glob of the crate root
/// (`crate::*`) names the root itself, `lib`.
fn imports(path: &str, src: &str) -> Vec<String> {
    let s = without_tests(&strip(src));
    let mod_depth = inline_mod_depth(&s);
    // Module depth of the file: lib.rs 0, x.rs 1, x/y.rs 2, …
    let file_depth = if path == "lib.rs" { 0 } else { path.matches('/').count() as u32 + 1 };
    let mut found = Vec::new();
    let is_id = |c: char| c.is_alphanumeric() || c == '_';
    let mut at = 0;
    while at < s.len() {
        let rest = &s[at..];
        let (Some(p), skip) = (match (rest.find("crate::"), rest.find("super::")) {
            (Some(c), Some(u)) => (Some(c.min(u)), if c < u { 7 } else { 0 }),
            (Some(c), None) => (Some(c), 7),
            (None, Some(u)) => (Some(u), 0),
            (None, None) => (None, 0),
        }) else {
            break;
        };
        let p = at + p;
        if s[..p].chars().next_back().is_some_and(is_id) {
            at = p + 7; // e.g. `my_crate::`, `not_super::`
            continue;
        }
        let mut q = p + skip;
        if skip == 0 {
            // `super::` repeated k times: the crate root if k reaches it
            let mut k = 0;
            while s[q..].starts_with("super::") {
                k += 1;
                q += 7;
                q += s[q..].len() - s[q..].trim_start().len();
            }
            if k < file_depth + mod_depth[p] {
                at = q;
                continue; // inside this file's own module
            }
        }
        let rest = s[q..].trim_start();
        if let Some(group) = rest.strip_prefix('{') {
            group_names(group, &mut found);
        } else if rest.starts_with('*') {
            found.push("*".into());
        } else {
            let name: String = rest.chars().take_while(|c| is_id(*c)).collect();
            if !name.is_empty() {
                found.push(name);
            }
        }
        at = q.max(p + 1);
    }
    found.retain(|n| n != "self");
    for n in &mut found {
        if n == "*" {
            *n = "lib".into();
        }
    }
    found
}

/// Every violation: (file, its module, the module it imports).
fn violations(files: &[(String, String)]) -> Vec<String> {
    let layer: BTreeMap<&str, u32> = LAYERS.iter().copied().collect();
    let mut bad = Vec::new();
    for (path, src) in files {
        let module = path.split('/').next().unwrap_or("").trim_end_matches(".rs");
        let Some(&mine) = layer.get(module) else {
            bad.push(format!("{path}: module `{module}` is not in the layer map of tests/layers.rs"));
            continue;
        };
        for dep in imports(path, src) {
            if dep == module {
                continue;
            }
            match layer.get(dep.as_str()) {
                None => bad.push(format!("{path}: imports `crate::{dep}`, which is not in the layer map")),
                Some(&theirs) if theirs >= mine => bad.push(format!(
                    "{path}: `{module}` (layer {mine}) imports `{dep}` (layer {theirs}): imports must go to a lower layer"
                )),
                _ => {}
            }
        }
    }
    bad
}

fn sources(dir: &Path, rel: &str, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("src dir").flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let path = if rel.is_empty() { name.clone() } else { format!("{rel}/{name}") };
        if e.path().is_dir() {
            sources(&e.path(), &path, out);
        } else if name.ends_with(".rs") && !name.ends_with("_tests.rs") {
            out.push((path, std::fs::read_to_string(e.path()).expect("read source")));
        }
    }
}

#[test]
fn modules_depend_one_way() {
    let mut files = Vec::new();
    sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), "", &mut files);
    assert!(files.len() > 20, "found only {} source files", files.len());
    let bad = violations(&files);
    assert!(bad.is_empty(), "layer violations:\n{}", bad.join("\n"));
}

/// The checker itself: it sees an upward import in each written form, and
/// not in comments, strings or test items.
#[test]
fn the_checker_catches_upward_imports() {
    let f = |path: &str, src: &str| violations(&[(path.to_string(), src.to_string())]);
    assert_eq!(f("eval.rs", "use crate::plan::fast::Fast;").len(), 1);
    assert_eq!(f("plan/fast.rs", "fn x() { crate::exec::go() }").len(), 1);
    assert_eq!(f("program.rs", "use crate::{bits, api::Switch};").len(), 1);
    assert_eq!(f("program.rs", "use crate::{\n    bits::{a, b},\n    runtime::R,\n};").len(), 1);
    assert_eq!(f("table.rs", "use crate::runtime as r;").len(), 1);
    assert_eq!(f("lpm_trie.rs", "use crate::table::Entry;").len(), 1, "sideways or up");
    assert_eq!(f("newmod.rs", "").len(), 1, "unmapped module");
    assert!(f("eval.rs", "// crate::api\n/* crate::exec */ let s = \"crate::api\"; let r = r#\"crate::api\"#;").is_empty());
    assert!(f("eval.rs", "use crate::bits;\n#[cfg(test)]\nmod tests { use crate::api::*; fn f() { let x = '{'; } }\nfn g() {}").is_empty());
    assert!(f("eval.rs", "#[cfg(test)]\nuse crate::api::Switch;\nuse crate::program::*;").is_empty());
    assert!(f("api.rs", "use crate::{exec, runtime::Runtime, types::*};").is_empty());
    assert_eq!(f("eval.rs", "fn f<'a>(x: &'a u8) -> char { let _ = crate::plan::X; 'x' }").len(), 1);
}

/// A glob of the crate root, and `super::` where it reaches the crate root,
/// are imports like `crate::x`; `super::` within a module's own files is not.
#[test]
fn the_checker_sees_globs_and_super() {
    let f = |path: &str, src: &str| violations(&[(path.to_string(), src.to_string())]);
    assert_eq!(f("eval.rs", "use crate::*;").len(), 1, "the root is above every module");
    assert_eq!(f("table.rs", "use crate::{bits, *};").len(), 1);
    assert!(f("lib.rs", "use crate::*;").is_empty());
    assert_eq!(f("eval.rs", "use super::table::Entry;").len(), 1, "sideways");
    assert_eq!(f("eval.rs", "fn f() { super::plan::go() }").len(), 1, "up");
    assert_eq!(f("eval.rs", "use super::{bits, runtime::R};").len(), 1);
    assert!(f("eval.rs", "use super::bits;").is_empty());
    assert!(f("plan/fast.rs", "use super::layout::L;").is_empty(), "own module");
    assert_eq!(f("plan/fast.rs", "use super::super::exec::X;").len(), 1);
    assert!(f("plan/fast.rs", "use super::super::bits;").is_empty());
    assert!(f("eval.rs", "mod inner { use super::Thing; }\nuse super::bits;").is_empty(), "inner's super is eval");
    assert_eq!(f("eval.rs", "mod inner { fn g() {} use super::super::api::X; }").len(), 1);
    assert!(f("eval.rs", "fn f() { not_super::api::x(); }").is_empty());
}
