//! How every example connects, as an application does: a plain
//! `mongodb::Client` built from `MONGODB_URI`.
//!
//! Only when `MONGODB_URI` is unset does an example fall back to the local
//! test server (the workspace's test support, `odm-testing`: it installs
//! SecantusDB with pip on first use and starts it, printing its progress,
//! and stops it at exit), and it says so. In an application, build the
//! client from your own configuration and leave this fallback out.

// Each example uses what it needs of this module.
#![allow(dead_code)]

/// The connection string: `MONGODB_URI`, else the local test server's.
pub fn uri() -> String {
    match std::env::var("MONGODB_URI") {
        Ok(uri) if !uri.is_empty() => {
            println!("using MONGODB_URI ({})", odm_testing::redacted(&uri));
            uri
        }
        _ => {
            println!(
                "MONGODB_URI is not set: falling back to the local test server \
                 (installed and started by odm-testing, the workspace's test support)"
            );
            let uri = odm_testing::uri();
            println!("using the local test server at {uri}");
            uri
        }
    }
}

/// A plain driver client for [`uri()`].
pub async fn client() -> mongodb::error::Result<mongodb::Client> {
    mongodb::Client::with_uri_str(uri()).await
}
