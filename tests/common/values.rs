//! Values in odm's texts, switched on as a user debugging would: a
//! `tracing` subscriber enabled at `TRACE` for `odm::command`.

/// Runs `f` with values shown (a subscriber at `TRACE` that writes
/// nowhere, set for this thread only).
pub fn with_values<R>(f: impl FnOnce() -> R) -> R {
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(std::io::sink)
        .finish();
    tracing::subscriber::with_default(subscriber, f)
}
