//! Every example is run by the test suite, found by listing `examples/`,
//! so an example added later cannot be left out: each example target
//! (`examples/NAME.rs`) keeps its logic in a module it includes with
//! `#[path = "..."]` (`examples/features/NAME.rs`, `examples/demo/`), and
//! a test in `tests/` includes that same module and asserts its outcome
//! (`tests/examples_run.rs`, `tests/demo_runs.rs`). CI also runs every
//! example's `main` as a user does (`.ci/run`).

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .collect();
    files.sort();
    files
}

/// The `#[path = "..."]` and `include!("...")` targets in `source`.
fn paths(source: &str) -> Vec<String> {
    source
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            line.strip_prefix("#[path = \"")
                .or_else(|| line.strip_prefix("include!(\""))
        })
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_string)
        .collect()
}

/// `examples/features/retry.rs` as every file names it, from the root.
fn normalized(from: &Path, relative: &str) -> PathBuf {
    let mut out = PathBuf::new();
    for part in from.join(relative).components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[test]
fn every_example_is_run_by_a_test() {
    let root = root();
    let included_by_tests: Vec<PathBuf> = rust_files(&root.join("tests"))
        .iter()
        .flat_map(|test| {
            let source = std::fs::read_to_string(test).unwrap();
            paths(&source)
                .into_iter()
                .map(|p| normalized(&root.join("tests"), &p))
                .collect::<Vec<_>>()
        })
        .collect();
    let examples = rust_files(&root.join("examples"));
    assert!(!examples.is_empty(), "no examples found");
    let mut missing = Vec::new();
    for example in &examples {
        let source = std::fs::read_to_string(example).unwrap();
        let modules: Vec<PathBuf> = paths(&source)
            .iter()
            .map(|p| normalized(&root.join("examples"), p))
            .collect();
        // An example is run either through a module it includes or whole
        // (`include!`, as tests/readme.rs does with examples/readme.rs).
        let whole = included_by_tests.contains(example);
        if !whole && !modules.iter().any(|m| included_by_tests.contains(m)) {
            missing.push(example.strip_prefix(&root).unwrap().display().to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "examples not run by the test suite: {missing:?}. Keep an example's logic in a module it \
         includes with #[path] (e.g. examples/features/NAME.rs) and include that module in a test \
         that asserts what it does (see tests/examples_run.rs)"
    );
    println!("{} examples, each run by a test", examples.len());
}
