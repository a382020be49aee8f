//! The README's program is `examples/readme.rs`, word for word, and it runs:
//! a reader who pastes it gets a created, changed, saved and conflicting
//! document, and a duplicate refused.

mod readme {
    include!("../examples/readme.rs");

    /// The program's `main`, for the test to call.
    pub fn run() -> odm::Result<()> {
        main()
    }
}

/// The first Rust code block of README.md.
fn readme_program() -> String {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let start = readme
        .find("```rust\n")
        .expect("README.md has a ```rust block")
        + "```rust\n".len();
    let len = readme[start..].find("```").expect("the block ends");
    readme[start..start + len].to_string()
}

#[test]
fn the_readme_program_is_the_readme_example() {
    let example =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/readme.rs"))
            .expect("examples/readme.rs");
    assert_eq!(
        readme_program(),
        example,
        "README.md's program and examples/readme.rs differ: change both"
    );
}

#[test]
fn the_readme_program_runs() {
    // The program reads MONGODB_URI: point it at the server under test.
    let uri = odm_testing::uri();
    // SAFETY: the only test of this binary that reads the environment.
    unsafe { std::env::set_var("MONGODB_URI", &uri) };
    let outcome = readme::run();
    odm_testing::stop();
    outcome.expect("the README program runs");
}
