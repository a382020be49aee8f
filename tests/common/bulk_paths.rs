//! The two ways a batch goes to the server (`bulkWrite`, or the `insert` /
//! `update` commands of servers before MongoDB 8.0), for tests that run
//! each batch both ways.

use odm::__private::BulkPath;

/// Runs each named test (an `async fn(BulkPath)` of the test file) both
/// ways, as `<name>::bulk_write` and `<name>::commands`.
#[macro_export]
macro_rules! both_paths {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test]
            async fn bulk_write() {
                super::$name(odm::__private::BulkPath::BulkWrite).await
            }

            #[tokio::test]
            async fn commands() {
                super::$name(odm::__private::BulkPath::Commands).await
            }
        }
    )*};
}

/// The command a batch of updates is sent as, the way `path` says.
pub fn update_command(path: BulkPath) -> &'static str {
    match path {
        BulkPath::Commands => "update",
        _ => "bulkWrite",
    }
}

/// Whether `e` is how `bulk_save` tells a statement in doubt whose outcome
/// the `update` command's count (and the read back that settles it)
/// cannot tell: the driver's error, with odm's text.
pub fn in_doubt(e: &odm::Error) -> bool {
    const UNTOLD: &str = "the server's answer does not tell whether this statement was applied";
    matches!(e, odm::Error::Driver(_)) && e.to_string().starts_with(UNTOLD)
}
