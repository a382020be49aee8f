//! Compile errors for misused index attributes, above all the partial-filter
//! operators MongoDB cannot use in a partial index.

#[test]
fn index_attribute_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/index-*.rs");
}
