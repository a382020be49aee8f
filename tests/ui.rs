//! Compile-time safety: every misuse in `tests/ui/` must fail to compile
//! with exactly the message in its `.stderr` file, and nothing else.
//!
//! Regenerate after a deliberate message change with
//! `TRYBUILD=overwrite cargo test --test ui`, then read every changed
//! `.stderr`. The toolchain is pinned in `rust-toolchain.toml`, so the
//! rustc-owned messages (borrow errors) hold.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
