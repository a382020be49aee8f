//! The derive crate's modules form one-way layers: utilities (`case`,
//! `ctxt`, `symbol`) → parse (`attr`, `ast`) → check → expand. This test
//! reads every `crate::` path (and `super::` path that leaves its
//! top-level module) of `odm-derive/src`, outside comments and string
//! literals, and fails when two top-level modules import each other
//! through any chain (naming the cycle), when a module imports a higher
//! layer, or when a top-level module has no layer yet.

use crate::layering;

use std::collections::BTreeSet;
use std::path::Path;

use layering::{code_only, graph, targets, Graph};

/// The layers, lowest first. A module may import its own layer and those
/// below it, never one above.
const LAYERS: &layering::Layers = &[
    ("utilities", &["case", "ctxt", "symbol"]),
    ("parse", &["attr", "ast"]),
    ("check", &["check"]),
    ("expand", &["expand"]),
];

fn problems(graph: &Graph) -> Vec<String> {
    layering::problems(
        graph,
        LAYERS,
        "odm-derive's modules",
        "tests/layers_derive.rs",
    )
}

#[test]
fn derive_modules_form_one_way_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("odm-derive/src");
    let graph = graph(&src);
    for module in ["attr", "ast", "check", "expand"] {
        assert!(
            graph.contains_key(module),
            "no module `{module}` in {graph:?}"
        );
    }
    assert!(graph["expand"].contains("check"), "{graph:?}");
    let found = problems(&graph);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

fn synthetic(edges: &[(&str, &[&str])]) -> Graph {
    edges
        .iter()
        .map(|(from, tos)| {
            (
                from.to_string(),
                tos.iter().map(|t| t.to_string()).collect(),
            )
        })
        .collect()
}

#[test]
fn a_cycle_and_an_upward_import_are_named() {
    let graph = synthetic(&[
        ("attr", &["ctxt"]),
        ("ast", &["attr", "check"]),
        ("check", &["ast"]),
        ("ctxt", &[]),
        ("expand", &["check"]),
    ]);
    let found = problems(&graph);
    assert_eq!(
        found,
        [
            "import cycle among odm-derive's modules: ast <-> check",
            "`ast` (parse layer) imports `check` (check layer): imports go only down, \
             utilities <- parse <- check <- expand",
        ],
    );
    let unknown = synthetic(&[("attr_extra", &[])]);
    assert!(problems(&unknown)[0].contains("`attr_extra` is in no layer"));
}

#[test]
fn paths_are_read_from_code_only() {
    let src = r##"
        // use crate::expand;
        /* crate::check /* nested */ still a comment */
        use crate::{ast::Container, ctxt::{self, Ctxt}, self};
        const S: &str = "crate::symbol";
        const R: &str = r#"crate::case "quoted""#;
        let q = '"'; let e = '\''; fn f<'a>(x: &'a str) {}
        let p = crate::attr::paths::Seg;
        use super::super::check::Thing;
        use super::sibling;
    "##;
    let found = targets(&code_only(src), &["expand".into(), "meta".into()]);
    let expected: BTreeSet<String> = ["ast", "ctxt", "attr", "check"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(found, expected);
}
