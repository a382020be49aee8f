//! The one-way layers of a crate's modules, read from its sources: the
//! graph of its top-level modules (through `crate::` paths, and `super::`
//! paths that leave their top-level module, outside comments and string
//! literals), its import cycles, and what breaks a layer table. Shared by
//! tests/layers.rs (odm) and tests/layers_derive.rs (odm-derive).

// Each test uses a part of it.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A layer table: the layers, lowest first, each a name and its top-level
/// modules. A module may import its own layer and those below it.
pub type Layers = [(&'static str, &'static [&'static str])];

pub type Graph = BTreeMap<String, BTreeSet<String>>;

/// `src` with comments and the contents of string and char literals blanked
/// (newlines kept), so only code is searched.
pub fn code_only(src: &str) -> String {
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
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && (i == 0 || !(b[i - 1].is_alphanumeric() || b[i - 1] == '_'))
        {
            // A raw string `r#".."#`.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                blank(&mut out, b[j]);
                j += 1;
            }
            i = j;
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    blank(&mut out, b[i]);
                    i += 1;
                }
                if i < b.len() {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
            i += 1;
        } else if c == '\'' {
            // A char literal (`'x'`, `'\n'`, `'"'`) or a lifetime (`'a`).
            if next == Some('\\') {
                i += 2;
                while i < b.len() && b[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if b.get(i + 2) == Some(&'\'') {
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

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The first segment after `crate::` in `rest`: one name, or each name of a
/// `{a, b::c}` group.
fn first_segments(rest: &str) -> Vec<String> {
    let rest = rest.trim_start();
    if let Some(group) = rest.strip_prefix('{') {
        let mut names = Vec::new();
        let (mut depth, mut cur) = (0, String::new());
        for c in group.chars() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => break,
                '}' => depth -= 1,
                ',' if depth == 0 => names.push(std::mem::take(&mut cur)),
                _ if depth == 0 => cur.push(c),
                _ => {}
            }
        }
        names.push(cur);
        names
            .iter()
            .map(|n| n.trim().split("::").next().unwrap_or("").trim().to_string())
            .filter(|n| !n.is_empty() && n != "self")
            .collect()
    } else {
        let name: String = rest.chars().take_while(|c| is_ident(*c)).collect();
        vec![name]
    }
}

/// The top-level modules `code` (of the file at module path `at`, e.g.
/// `["attr", "index"]`) reaches through `crate::` and `super::` paths.
pub fn targets(code: &str, at: &[String]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let chars: Vec<(usize, char)> = code.char_indices().collect();
    for (k, &(pos, _)) in chars.iter().enumerate() {
        let before = if k == 0 { ' ' } else { chars[k - 1].1 };
        if is_ident(before) || before == ':' {
            continue;
        }
        let rest = &code[pos..];
        if let Some(after) = rest.strip_prefix("crate::") {
            out.extend(first_segments(after));
        } else if rest.starts_with("super::") {
            let mut path = at.to_vec();
            let mut after = rest;
            while let Some(next) = after.strip_prefix("super::") {
                path.pop();
                after = next.trim_start();
            }
            if path.is_empty() {
                out.extend(first_segments(after));
            }
        }
    }
    out
}

/// Every top-level module of `src` (a file or a folder, not `lib.rs`) with
/// the top-level modules it imports.
pub fn graph(src: &Path) -> Graph {
    fn files(dir: &Path, at: Vec<String>, out: &mut Vec<(PathBuf, Vec<String>)>) {
        for entry in std::fs::read_dir(dir).expect("read the crate's src") {
            let path = entry.expect("dir entry").path();
            let stem = path.file_stem().unwrap().to_string_lossy().to_string();
            if path.is_dir() {
                let mut inner = at.clone();
                inner.push(stem);
                files(&path, inner, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let mut module = at.clone();
                let root = at.is_empty() && stem == "lib";
                if stem != "mod" && !root {
                    module.push(stem);
                }
                out.push((path, module));
            }
        }
    }
    let mut all = Vec::new();
    files(src, Vec::new(), &mut all);
    let mut graph = Graph::new();
    for (_, module) in &all {
        if let Some(top) = module.first() {
            graph.entry(top.clone()).or_default();
        }
    }
    for (path, module) in &all {
        let Some(top) = module.first() else {
            continue; // lib.rs: the root, which declares every module.
        };
        let code = code_only(&std::fs::read_to_string(path).expect("read source"));
        let to: Vec<String> = targets(&code, module)
            .into_iter()
            .filter(|t| t != top && graph.contains_key(t))
            .collect();
        graph.get_mut(top).unwrap().extend(to);
    }
    graph
}

/// The strongly connected components with more than one module (Tarjan).
pub fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g Graph,
        next: usize,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in &s.graph[v] {
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
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        next: 0,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.found
}

fn layer_of(layers: &Layers, module: &str) -> Option<(usize, &'static str)> {
    layers
        .iter()
        .enumerate()
        .find(|(_, (_, members))| members.contains(&module))
        .map(|(rank, (name, _))| (rank, *name))
}

/// Every problem with `graph` under `layers`: cycles, upward imports,
/// modules in no layer. `what` names the modules in the messages (e.g.
/// "odm-derive's modules"), `table` the file holding the layer table.
pub fn problems(graph: &Graph, layers: &Layers, what: &str, table: &str) -> Vec<String> {
    let order: Vec<&str> = layers.iter().map(|(name, _)| *name).collect();
    let order = order.join(" <- ");
    let mut out: Vec<String> = cycles(graph)
        .into_iter()
        .map(|c| format!("import cycle among {what}: {}", c.join(" <-> ")))
        .collect();
    for (from, tos) in graph {
        let Some((from_rank, from_layer)) = layer_of(layers, from) else {
            out.push(format!(
                "top-level module `{from}` is in no layer; add it to LAYERS in {table} \
                 (or move it into the folder of the layer it belongs to)"
            ));
            continue;
        };
        for to in tos {
            if let Some((to_rank, to_layer)) = layer_of(layers, to) {
                if to_rank > from_rank {
                    out.push(format!(
                        "`{from}` ({from_layer} layer) imports `{to}` ({to_layer} layer): \
                         imports go only down, {order}"
                    ));
                }
            }
        }
    }
    out
}
