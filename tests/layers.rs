//! The runtime's top-level modules depend only downward (see
//! ARCHITECTURE.md): this test reads every `crate::` path in the code of
//! `odm/src` (comments and string literals left out) and fails on an
//! import cycle between top-level modules, on an import from a lower layer
//! into a higher one, and on a top-level module that no layer lists.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The layers, lowest first. A module may use modules of its own layer
/// (without a cycle) and of any layer below it.
const LAYERS: &[(&str, &[&str])] = &[
    ("bson release", &["bson_release"]),
    ("errors", &["error"]),
    ("codec: bytes <-> values", &["codec", "fields"]),
    ("schema: what the derive records", &["schema", "validate"]),
    (
        "plan: the pure rules of a write (time: the date-time field types)",
        &["plan", "time"],
    ),
    ("wire: sending a command", &["wire"]),
    ("locks and leases", &["lock"]),
    ("surface: Model, Doc and their operations", &["model"]),
    (
        "surface: more operations",
        &[
            "aggregate",
            "atomic",
            "bulk",
            "index",
            "many",
            "page",
            "typed",
            "watch",
        ],
    ),
    ("for generated code", &["__private"]),
];

/// An import: the file and line that make `from` use `to`.
struct Use {
    file: PathBuf,
    line: usize,
}

#[test]
fn top_level_modules_depend_only_downward() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("odm/src");
    let modules = top_level_modules(&src);
    let graph = imports(&modules);

    let mut problems = Vec::new();
    let layer_of: BTreeMap<&str, usize> = LAYERS
        .iter()
        .enumerate()
        .flat_map(|(i, (_, mods))| mods.iter().map(move |m| (*m, i)))
        .collect();
    for name in modules.keys() {
        if !layer_of.contains_key(name.as_str()) {
            problems.push(format!(
                "top-level module `{name}` is in no layer: add it to LAYERS in tests/layers.rs \
                 (and to ARCHITECTURE.md)"
            ));
        }
    }
    for (from, uses) in &graph {
        for (to, at) in uses {
            let (Some(&lf), Some(&lt)) = (layer_of.get(from.as_str()), layer_of.get(to.as_str()))
            else {
                continue;
            };
            if lt > lf {
                problems.push(format!(
                    "upward import: `{from}` (layer \"{}\") uses `{to}` (layer \"{}\") at {}:{}",
                    LAYERS[lf].0,
                    LAYERS[lt].0,
                    at.file.display(),
                    at.line
                ));
            }
        }
    }
    for cycle in cycles(&graph) {
        let mut text = format!("import cycle: {}", cycle.join(" -> "));
        for pair in cycle.windows(2) {
            let at = &graph[&pair[0]][&pair[1]];
            text.push_str(&format!(
                "\n    {} -> {} at {}:{}",
                pair[0],
                pair[1],
                at.file.display(),
                at.line
            ));
        }
        problems.push(text);
    }
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

#[test]
fn the_reader_sees_comments_and_strings_as_no_imports() {
    let code = strip("use crate::a; // crate::b\n/* crate::c /* nested */ crate::d */\nlet s = \"crate::e\"; let r = r#\"crate::f\"#; let c = '\"'; fn f<'a>() { crate::g::h() }");
    assert_eq!(paths(&code), ["a", "g"]);
    assert_eq!(
        paths(&strip("use crate::{a::X, b, c::{d, e}};")),
        ["a", "b", "c"]
    );
}

#[test]
fn a_cycle_is_named() {
    let mut graph: BTreeMap<String, BTreeMap<String, Use>> = BTreeMap::new();
    for (a, b) in [("x", "y"), ("y", "z"), ("z", "x"), ("z", "w")] {
        graph.entry(a.into()).or_default().insert(
            b.into(),
            Use {
                file: PathBuf::new(),
                line: 1,
            },
        );
    }
    graph.entry("w".into()).or_default();
    assert_eq!(cycles(&graph), [vec!["x", "y", "z", "x"]]);
}

/// Top-level module name -> its files.
fn top_level_modules(src: &Path) -> BTreeMap<String, Vec<PathBuf>> {
    let mut modules: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for entry in fs::read_dir(src).expect("odm/src is readable") {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            let files = modules.entry(name).or_default();
            rust_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") && name != "lib" {
            modules.entry(name).or_default().push(path);
        }
    }
    modules
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// module -> (used module -> first place it is used).
fn imports(modules: &BTreeMap<String, Vec<PathBuf>>) -> BTreeMap<String, BTreeMap<String, Use>> {
    let mut graph = BTreeMap::new();
    for (name, files) in modules {
        let uses: &mut BTreeMap<String, Use> = graph.entry(name.clone()).or_default();
        for file in files {
            let code = strip(&fs::read_to_string(file).unwrap());
            for (i, line) in code.lines().enumerate() {
                for used in paths(line) {
                    if used != *name && modules.contains_key(&used) {
                        uses.entry(used).or_insert(Use {
                            file: file.clone(),
                            line: i + 1,
                        });
                    }
                }
            }
        }
    }
    graph
}

/// The first segment of every `crate::` path in `code` (of each path of a
/// `crate::{..}` group).
fn paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `my_crate::`, not `crate::`
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut segment_start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => segment_start = true,
                    c if segment_start && (c.is_alphanumeric() || c == '_') => {
                        segment_start = false;
                        out.push(ident(&group[i..]));
                    }
                    _ => {}
                }
            }
        } else {
            out.push(ident(rest));
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

fn ident(s: &str) -> String {
    s.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// `code` with comments, string literals and char literals blanked out
/// (newlines kept, so line numbers stay right).
fn strip(code: &str) -> String {
    let chars: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(code.len());
    let mut i = 0;
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('#') || next == Some('"')) && !prev_is_ident(&chars, i)
        {
            let mut hashes = 0;
            let mut j = i + 1;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            i = j + 1;
            while i < chars.len() {
                if chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
                    i += 1 + hashes;
                    break;
                }
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                if let Some(&c) = chars.get(i) {
                    blank(&mut out, c);
                }
                i += 1;
            }
            i += 1;
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{..}'), or a lifetime ('a).
            if next == Some('\\') {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                out.push(c);
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn prev_is_ident(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// Every strongly connected component of more than one module, as a cycle
/// through it (`a -> b -> .. -> a`), in a stable order.
fn cycles(graph: &BTreeMap<String, BTreeMap<String, Use>>) -> Vec<Vec<String>> {
    // Tarjan's algorithm.
    struct State<'g> {
        graph: &'g BTreeMap<String, BTreeMap<String, Use>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        components: Vec<Vec<&'g str>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph[v].keys() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack.remove(w);
                component.push(w);
                if w == v {
                    break;
                }
            }
            s.components.push(component);
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        components: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    let mut out = Vec::new();
    for component in s.components.into_iter().filter(|c| c.len() > 1) {
        let members: BTreeSet<&str> = component.iter().copied().collect();
        // A cycle through the component: from its first module, a
        // breadth-first search inside it back to that module.
        let start = *members.iter().next().unwrap();
        let mut parent: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        let mut end = None;
        'search: while let Some(v) = queue.pop_front() {
            for w in graph[v].keys().map(String::as_str) {
                if !members.contains(w) {
                    continue;
                }
                if w == start {
                    end = Some(v);
                    break 'search;
                }
                if !parent.contains_key(w) {
                    parent.insert(w, v);
                    queue.push_back(w);
                }
            }
        }
        let mut back = Vec::new();
        let mut v = end.expect("a component of several modules has a cycle");
        while v != start {
            back.push(v.to_string());
            v = parent[v];
        }
        let mut cycle = vec![start.to_string()];
        cycle.extend(back.into_iter().rev());
        cycle.push(start.to_string());
        out.push(cycle);
    }
    out.sort();
    out
}
