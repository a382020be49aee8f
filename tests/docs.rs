//! The repository carries every document it names: a relative link in a
//! Markdown file leads to a file of the repository, no file points outside
//! it, and the public documentation (README, the crate docs, the documents
//! under `odm/docs/`) speaks to users, not in the project's own words.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Every file of the repository with one of `extensions`, build outputs
/// and local installs left out.
fn files(extensions: &[&str]) -> Vec<PathBuf> {
    fn walk(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if path.is_dir() {
                // `node_modules`: what `npm ci` installs for the Mongoose
                // benchmark (benches/mongoose), not the repository's.
                if !name.starts_with('.') && name != "target" && name != "node_modules" {
                    walk(&path, extensions, out);
                }
            } else if extensions
                .iter()
                .any(|ext| name.ends_with(&format!(".{ext}")))
            {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root(), extensions, &mut out);
    out.sort();
    out
}

/// The targets of the inline Markdown links `[text](target)` in `text`.
fn link_targets(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        if let Some(end) = rest.find(')') {
            targets.push(rest[..end].trim().to_string());
        }
    }
    targets
}

fn is_external(target: &str) -> bool {
    target.contains("://") || target.starts_with('#') || target.starts_with("mailto:")
}

/// A rustdoc intra-doc link (`Doc::save`, `crate::rules`) in a Markdown
/// file included as crate documentation (odm/docs/guide.md): rustdoc
/// resolves it, and the doc build (`-D warnings`) fails on a broken one.
fn is_rust_path(target: &str) -> bool {
    target.contains("::") && !target.contains('/')
}

#[test]
fn every_relative_link_in_a_markdown_file_leads_to_a_file_of_the_repository() {
    let mut broken = Vec::new();
    for file in files(&["md"]) {
        let text = std::fs::read_to_string(&file).unwrap();
        for target in link_targets(&text) {
            if is_external(&target) || is_rust_path(&target) || target.is_empty() {
                continue;
            }
            let path = target.split('#').next().unwrap_or_default();
            let resolved = file.parent().unwrap().join(path);
            if !resolved.exists() {
                broken.push(format!("{}: {target}", file.display()));
            }
        }
    }
    assert!(broken.is_empty(), "links to nothing: {broken:#?}");
}

/// Words that point at documents the repository does not carry, spelled
/// in pieces so that this file does not name them itself.
const OUTSIDE: &[&str] = &[
    concat!("..", "/shared"),
    concat!("shared", "/design"),
    concat!("design", " notes"),
    concat!("SHAPES", ".md"),
    concat!("SEMANTICS", ".md"),
];

#[test]
fn no_file_points_outside_the_repository() {
    let names: Vec<String> = files(&["md"])
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().to_string())
        .collect();
    let mut found = Vec::new();
    for file in files(&["md", "rs", "toml", "sh"]) {
        if file.ends_with("tests/docs.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for word in OUTSIDE {
            if word.ends_with(".md") && names.iter().any(|n| n == word) {
                continue;
            }
            for (n, line) in text.lines().enumerate() {
                if line.contains(word) {
                    found.push(format!("{}:{}: {word}", file.display(), n + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "names of documents outside the repository: {found:#?}"
    );
}

/// The public text of a file: a Markdown file whole, the doc comments of a
/// Rust file.
fn public_text(file: &Path) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    if file.extension().is_some_and(|e| e == "md") {
        return text;
    }
    text.lines()
        .map(str::trim_start)
        .filter(|line| line.starts_with("//!") || line.starts_with("///"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Words of the project's own process, meaningless to a user.
const INTERNAL: &[&str] = &[
    "seed 00",
    "wave 3",
    "issue 1",
    "issue 2",
    "helper session",
    "the lead",
];

#[test]
fn the_public_documentation_uses_no_project_internal_word() {
    let root = root();
    let mut public = vec![root.join("README.md")];
    public.extend(
        files(&["rs", "md"]).into_iter().filter(|f| {
            f.starts_with(root.join("odm/src")) || f.starts_with(root.join("odm/docs"))
        }),
    );
    let mut found = Vec::new();
    for file in public {
        let text = public_text(&file).to_lowercase();
        for word in INTERNAL {
            if text.contains(word) {
                found.push(format!("{}: {word}", file.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "project-internal words in public docs: {found:#?}"
    );
}

/// The local test server lives in the test support (`odm-testing`), not in
/// the runtime: odm has no feature or dependency for it, and no file points
/// users at a module of odm that no longer exists.
#[test]
fn the_runtime_carries_no_test_server() {
    let manifest = std::fs::read_to_string(root().join("odm/Cargo.toml")).unwrap();
    for word in ["libc", "testing = ["] {
        assert!(
            !manifest
                .lines()
                .any(|l| !l.starts_with('#') && l.contains(word)),
            "odm/Cargo.toml still has {word:?}"
        );
    }
    let old = concat!("odm::", "testing");
    let mut found = Vec::new();
    for file in files(&["md", "rs", "toml"]) {
        let text = std::fs::read_to_string(&file).unwrap();
        if text.contains(old) {
            found.push(file.display().to_string());
        }
    }
    assert!(found.is_empty(), "files naming {old}: {found:#?}");
}
