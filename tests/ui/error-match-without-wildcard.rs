// odm::Error is #[non_exhaustive]: a match must keep a wildcard arm, so a
// new variant is not a breaking change.
fn text(e: &odm::Error) -> &'static str {
    match e {
        odm::Error::Version(_) => "stale copy",
        odm::Error::NotFound(_) => "gone",
        odm::Error::Validation(_) => "invalid",
        odm::Error::DuplicateKey(_) => "taken",
        odm::Error::Index(_) => "index",
        odm::Error::Deserialize(_) => "unreadable",
        odm::Error::Serialize(_) => "unwritable",
        odm::Error::LeaseLost(_) => "lease lost",
        odm::Error::LeaseTimeout(_) => "lease busy",
        odm::Error::Fenced(_) => "fenced",
        odm::Error::ShardKey(_) => "shard key",
        odm::Error::Hook(_) => "hook",
        odm::Error::Application(_) => "application",
        odm::Error::Driver(_) => "driver",
    }
}

fn main() {
    let _ = text;
}
