//! The runtime's top-level modules depend only downward (see
//! ARCHITECTURE.md): this test reads every `crate::` path (and `super::`
//! path that leaves its top-level module) in the code of `odm/src`
//! (comments and string literals left out) and fails on an import cycle
//! between top-level modules (naming it), on an import from a lower layer
//! into a higher one, and on a top-level module that no layer lists.

use crate::layering;

use std::path::Path;

/// The layers, lowest first. A module may use modules of its own layer
/// (without a cycle) and of any layer below it.
const LAYERS: &layering::Layers = &[
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
            "migrate",
            "page",
            "typed",
            "variant",
            "watch",
        ],
    ),
    (
        "references: links between models and their rules",
        &["refs"],
    ),
    ("for generated code", &["__private"]),
];

#[test]
fn top_level_modules_depend_only_downward() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("odm/src");
    let graph = layering::graph(&src);
    for module in ["codec", "schema", "plan", "wire", "model"] {
        assert!(
            graph.contains_key(module),
            "no module `{module}` in {graph:?}"
        );
    }
    assert!(graph["model"].contains("plan") && graph["model"].contains("wire"));
    let found = layering::problems(&graph, LAYERS, "odm's modules", "tests/layers.rs");
    assert!(found.is_empty(), "\n{}\n", found.join("\n"));
}

#[test]
fn an_upward_import_and_a_cycle_are_named() {
    let graph: layering::Graph = [
        ("codec", vec!["error"]),
        ("error", vec![]),
        ("plan", vec!["codec", "wire"]),
        ("wire", vec!["plan"]),
        ("model", vec!["plan"]),
    ]
    .into_iter()
    .map(|(from, to)| (from.to_string(), to.into_iter().map(String::from).collect()))
    .collect();
    let found = layering::problems(&graph, LAYERS, "odm's modules", "tests/layers.rs");
    assert_eq!(found[0], "import cycle among odm's modules: plan <-> wire");
    assert!(
        found[1].starts_with("`plan` (plan: the pure rules of a write"),
        "{found:?}"
    );
    assert!(found[1].contains("imports `wire` (wire: sending a command layer)"));
    assert_eq!(found.len(), 2, "{found:?}");
}
