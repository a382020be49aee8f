//! Field names checked by the compiler: typed paths for queries, and
//! nested paths in `optimistic_concurrency(include(..))`.
//!
//! `Ticket::fields().customer().email_address()` is `"customer.emailAddress"`:
//! serde's renames applied, through the embedded `Customer`, computed at
//! compile time. A misspelled field does not compile, where a string key
//! would silently match nothing. The same paths work as keys of filters,
//! sorts and updates in `find`, `count`, `upsert` and `claim`.
//!
//! The model checks the version only for changes touching `status` or the
//! customer's email (a nested path): two agents working on one ticket
//! can both count views, but a stale copy cannot overwrite the email the
//! other agent just corrected.

use odm::prelude::*;
use serde::{Deserialize, Serialize};

/// Embedded in a ticket; `#[derive(Fields)]` gives it typed paths.
#[derive(Debug, Clone, Serialize, Deserialize, Fields)]
#[serde(rename_all = "camelCase")]
pub struct Customer {
    pub display_name: String,
    pub email_address: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, Fields)]
pub struct Reply {
    pub by: String,
    pub text: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, Document)]
#[odm(
    collection = "tickets",
    optimistic_concurrency(include(status, customer.email_address))
)]
#[serde(rename_all = "camelCase")]
pub struct Ticket {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub status: String,
    pub priority: i32,
    pub assignee: Option<String>,
    pub customer: Customer,
    pub replies: Vec<Reply>,
    pub view_count: i32,
}

/// What happened, for the caller to check.
#[derive(Debug)]
pub struct Outcome {
    /// The typed paths the example used, as stored names.
    pub paths: Vec<&'static str>,
    /// Priorities of the open tickets, highest first.
    pub open_priorities: Vec<i32>,
    /// Tickets with a reply by "ann".
    pub answered_by_ann: u64,
    /// The priority of the ticket the agent claimed.
    pub claimed_priority: Option<i32>,
    /// The paths of the stale copy's refused email change.
    pub stale_refused_paths: Vec<String>,
    /// The stored ticket at the end: email, views (the stale copy's view
    /// landed beside the other agent's change), version.
    pub stored: (String, i32, Option<i64>),
}

/// One ticket per customer email: an upsert keyed by a nested typed path.
async fn open_ticket(
    tickets: &Model<Ticket>,
    email: &str,
    priority: i32,
    reply_by: &str,
) -> odm::Result<Doc<Ticket>> {
    let f = Ticket::fields();
    tickets
        .upsert(doc! { f.customer().email_address(): email })
        .set(doc! { f.status(): "OPEN", f.priority(): priority })
        .set_on_insert(doc! {
            f.id(): ObjectId::new(),
            f.customer().display_name(): email.split('@').next().unwrap_or(email),
            f.assignee(): null,
            f.replies(): [{ "by": reply_by, "text": "looking into it" }],
            f.view_count(): 0,
        })
        .await
}

pub async fn run(db: &mongodb::Database) -> odm::Result<Outcome> {
    let tickets = Ticket::model(db);
    let f = Ticket::fields();
    let paths = vec![
        f.customer().email_address().as_str(),
        f.replies().by().as_str(),
        f.view_count().as_str(),
    ];
    println!("typed paths: {}", paths.join(", "));

    open_ticket(&tickets, "ann@example.com", 2, "ann").await?;
    open_ticket(&tickets, "bob@example.com", 5, "cid").await?;
    let carl = open_ticket(&tickets, "carl@example.com", 1, "ann").await?;

    // Open tickets, highest priority first.
    let open = tickets
        .find(doc! { f.status(): "OPEN" })
        .sort(doc! { f.priority(): -1 })
        .await?;
    let open_priorities: Vec<i32> = open.iter().map(|t| t.priority).collect();
    println!("open tickets by priority: {open_priorities:?}");

    // A filter through an array of sub-documents.
    let answered_by_ann = tickets.count(doc! { f.replies().by(): "ann" }).await?;
    println!("tickets answered by ann: {answered_by_ann}");

    // An agent claims the most urgent open ticket.
    let claimed = tickets
        .claim(
            doc! { f.status(): "OPEN" },
            doc! { "$set": { f.status(): "ASSIGNED", f.assignee(): "dora" } },
        )
        .sort(doc! { f.priority(): -1 })
        .await?;
    let claimed_priority = claimed.as_ref().map(|t| t.priority);
    println!("dora claimed the ticket of priority {claimed_priority:?}");

    // Two agents load Carl's ticket at the same version.
    let mut first = tickets.find_by_id(carl.id).await?.expect("stored");
    let mut stale = tickets.find_by_id(carl.id).await?.expect("stored");

    // The first corrects the email: a checked change (`customer.email_address`).
    first.customer.email_address = "carl@example.org".into();
    first.save().await?;
    println!("agent 1 corrected the email: version {:?}", first.version());

    // The stale copy counts a view: not a listed path, so it is not checked.
    stale.view_count += 1;
    stale.save().await?;
    println!("agent 2 counted a view on its stale copy: saved");

    // The stale copy also changes the email: checked, and refused.
    stale.customer.email_address = "carl@example.net".into();
    let stale_refused_paths = match stale.save().await {
        Err(Error::Version(e)) => {
            println!("agent 2's stale email change refused: {e}");
            e.modified_paths
        }
        other => {
            other?;
            Vec::new()
        }
    };

    let stored = tickets.find_by_id(carl.id).await?.expect("stored");
    println!(
        "stored: email {}, views {}, version {:?}",
        stored.customer.email_address,
        stored.view_count,
        stored.version()
    );
    Ok(Outcome {
        paths,
        open_priorities,
        answered_by_ann,
        claimed_priority,
        stale_refused_paths,
        stored: (
            stored.customer.email_address.clone(),
            stored.view_count,
            stored.version(),
        ),
    })
}
