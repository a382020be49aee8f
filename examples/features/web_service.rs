//! A web service on odm that never loses an edit between its users.
//!
//! Two people open the same article in two browser tabs and both press
//! "save": with a handler that loads, changes and replaces, the second PUT
//! silently undoes the first. HTTP's answer is the `ETag` and `If-Match`;
//! odm's version key is exactly what an ETag needs:
//!
//! - `GET /articles/{id}` answers the article with `ETag: "<id>-v<version>"`.
//! - `PUT` (the whole article) and `PATCH` (some of its fields) require
//!   `If-Match` with that ETag: `428 Precondition Required` without one,
//!   `412 Precondition Failed` with the current ETag when the article
//!   changed since, so the client reloads and decides; `200` with the new
//!   ETag when the edit is stored.
//! - The check is the save's own: an `optimistic_concurrency` model's
//!   save matches only the version it loaded, so an edit that raced
//!   between the handler's load and its save is refused too (no window).
//! - A `PATCH` whose fields another writer did not touch in that window
//!   is merged with [`Doc::rebase`] instead of refused.
//!
//! Beside it, [`naive_router`]: load, change, `replace_one`, If-Match
//! ignored, as services without an ODM's versioning are written.
//! [`race`] runs clients against either and counts the edits lost.
//!
//! The HTTP client is a minimal HTTP/1.1 over `tokio`'s `TcpStream`
//! ([`request`]), on loopback only.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{Path, State};
use axum::http::header::{ETAG, IF_MATCH};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use odm::prelude::*;
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "articles", optimistic_concurrency)]
pub struct Article {
    #[serde(rename = "_id")]
    pub id: i64,
    pub title: String,
    pub body: String,
    pub tags: Vec<String>,
}

/// A `PUT`'s body: the whole editable article.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Edit {
    pub title: String,
    pub body: String,
    pub tags: Vec<String>,
}

/// A `PATCH`'s body: the fields to change (a JSON merge patch).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Patch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
}

/// The ETag of a stored article: its id and its version, as a strong tag.
pub fn etag(doc: &Doc<Article>) -> String {
    format!("\"{}-v{}\"", doc.id, doc.version().unwrap_or(0))
}

/// Whether `If-Match` (one tag, a list, or `*`) names `doc` as stored.
fn matches(if_match: &HeaderValue, doc: &Doc<Article>) -> bool {
    let Ok(tags) = if_match.to_str() else {
        return false;
    };
    let current = etag(doc);
    tags.split(',')
        .map(str::trim)
        .any(|tag| tag == "*" || tag == current)
}

/// The odm service over `articles`.
pub fn router(articles: Model<Article>) -> Router {
    Router::new()
        .route(
            "/articles/{id}",
            get(get_article).put(put_article).patch(patch_article),
        )
        .with_state(articles)
}

fn with_etag(status: StatusCode, doc: &Doc<Article>) -> Response {
    let tag = HeaderValue::from_str(&etag(doc)).expect("an ETag is ASCII");
    (status, [(ETAG, tag)], Json(&**doc)).into_response()
}

/// `412` with the current ETag (or `404` if the article is gone meanwhile).
async fn stale(articles: &Model<Article>, id: i64) -> Response {
    match articles.find_by_id(id).await {
        Ok(Some(current)) => {
            let tag = HeaderValue::from_str(&etag(&current)).expect("an ETag is ASCII");
            (StatusCode::PRECONDITION_FAILED, [(ETAG, tag)]).into_response()
        }
        Ok(None) => StatusCode::NOT_FOUND.into_response(),
        Err(e) => internal(e),
    }
}

fn internal(e: Error) -> Response {
    (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response()
}

async fn get_article(State(articles): State<Model<Article>>, Path(id): Path<i64>) -> Response {
    match articles.find_by_id(id).await {
        Ok(Some(doc)) => with_etag(StatusCode::OK, &doc),
        Ok(None) => StatusCode::NOT_FOUND.into_response(),
        Err(e) => internal(e),
    }
}

/// Loads the article an edit with `headers` is for: `Err` is the answer
/// when there is none to edit (`428` without `If-Match`, `404`, `412`).
async fn load_for_edit(
    articles: &Model<Article>,
    id: i64,
    headers: &HeaderMap,
) -> Result<Doc<Article>, Response> {
    let Some(if_match) = headers.get(IF_MATCH) else {
        return Err((
            StatusCode::PRECONDITION_REQUIRED,
            "an edit needs If-Match with the article's ETag",
        )
            .into_response());
    };
    match articles.find_by_id(id).await {
        Ok(Some(doc)) if matches(if_match, &doc) => Ok(doc),
        Ok(Some(current)) => {
            let tag = HeaderValue::from_str(&etag(&current)).expect("an ETag is ASCII");
            Err((StatusCode::PRECONDITION_FAILED, [(ETAG, tag)]).into_response())
        }
        Ok(None) => Err(StatusCode::NOT_FOUND.into_response()),
        Err(e) => Err(internal(e)),
    }
}

async fn put_article(
    State(articles): State<Model<Article>>,
    Path(id): Path<i64>,
    headers: HeaderMap,
    Json(edit): Json<Edit>,
) -> Response {
    let mut doc = match load_for_edit(&articles, id, &headers).await {
        Ok(doc) => doc,
        Err(answer) => return answer,
    };
    doc.title = edit.title;
    doc.body = edit.body;
    doc.tags = edit.tags;
    // Checked against the version If-Match named: an edit that landed
    // since the load refuses this one.
    match doc.save().await {
        Ok(()) => with_etag(StatusCode::OK, &doc),
        Err(Error::Version(_)) => stale(&articles, id).await,
        Err(e) => internal(e),
    }
}

async fn patch_article(
    State(articles): State<Model<Article>>,
    Path(id): Path<i64>,
    headers: HeaderMap,
    Json(patch): Json<Patch>,
) -> Response {
    let mut doc = match load_for_edit(&articles, id, &headers).await {
        Ok(doc) => doc,
        Err(answer) => return answer,
    };
    if let Some(title) = patch.title {
        doc.title = title;
    }
    if let Some(body) = patch.body {
        doc.body = body;
    }
    if let Some(tags) = patch.tags {
        doc.tags = tags;
    }
    // An edit of other fields that landed since the load is merged; one
    // of the same fields refuses this patch.
    for _ in 0..3 {
        match doc.save().await {
            Ok(()) => return with_etag(StatusCode::OK, &doc),
            Err(Error::Version(_)) => match doc.rebase().await {
                Ok(()) => continue,
                Err(Error::Version(_) | Error::NotFound(_)) => break,
                Err(e) => return internal(e),
            },
            Err(e) => return internal(e),
        }
    }
    stale(&articles, id).await
}

/// The same routes written without versioning: `PUT` loads the document,
/// changes it and replaces it whole; `If-Match` is ignored.
pub fn naive_router(articles: Model<Article>) -> Router {
    Router::new()
        .route("/articles/{id}", get(get_article).put(naive_put))
        .with_state(articles)
}

async fn naive_put(
    State(articles): State<Model<Article>>,
    Path(id): Path<i64>,
    Json(edit): Json<Edit>,
) -> Response {
    let collection = articles.collection();
    let Ok(Some(mut stored)) = collection.find_one(doc! { "_id": id }).await else {
        return StatusCode::NOT_FOUND.into_response();
    };
    stored.insert("title", edit.title);
    stored.insert("body", edit.body);
    stored.insert("tags", edit.tags);
    match collection.replace_one(doc! { "_id": id }, stored).await {
        Ok(_) => StatusCode::OK.into_response(),
        Err(e) => internal(e.into()),
    }
}

/// Serves `router` on a free loopback port until the task is aborted.
pub async fn serve(router: Router) -> (SocketAddr, tokio::task::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let addr = listener.local_addr().expect("bound");
    let task = tokio::spawn(async move {
        axum::serve(listener, router).await.expect("served");
    });
    (addr, task)
}

/// An HTTP answer: status, `ETag` (if any) and body.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub etag: Option<String>,
    pub body: String,
}

/// One HTTP/1.1 request to `addr` on its own connection: `method` `path`
/// with `If-Match` when given and a JSON body when given.
pub async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    if_match: Option<&str>,
    json: Option<String>,
) -> std::io::Result<Answer> {
    let mut stream = TcpStream::connect(addr).await?;
    let body = json.unwrap_or_default();
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    if let Some(tag) = if_match {
        head.push_str(&format!("If-Match: {tag}\r\n"));
    }
    if !body.is_empty() {
        head.push_str("Content-Type: application/json\r\n");
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body.as_bytes()).await?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await?;
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let etag = lines.find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("etag")
            .then(|| value.trim().to_string())
    });
    Ok(Answer {
        status,
        etag,
        body: body.to_string(),
    })
}

/// `GET /articles/{id}`: the article and its ETag.
pub async fn fetch(addr: SocketAddr, id: i64) -> std::io::Result<(Article, Option<String>)> {
    let answer = request(addr, "GET", &format!("/articles/{id}"), None, None).await?;
    let article = serde_json::from_str(&answer.body)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
    Ok((article, answer.etag))
}

/// `PUT /articles/{id}` of `edit` with `If-Match: if_match`.
pub async fn put(
    addr: SocketAddr,
    id: i64,
    if_match: Option<&str>,
    edit: &Edit,
) -> std::io::Result<Answer> {
    let json = serde_json::to_string(edit).expect("an edit is JSON");
    request(
        addr,
        "PUT",
        &format!("/articles/{id}"),
        if_match,
        Some(json),
    )
    .await
}

/// `PATCH /articles/{id}` of `patch` with `If-Match: if_match`.
pub async fn patch(
    addr: SocketAddr,
    id: i64,
    if_match: Option<&str>,
    patch: &Patch,
) -> std::io::Result<Answer> {
    let json = serde_json::to_string(patch).expect("a patch is JSON");
    request(
        addr,
        "PATCH",
        &format!("/articles/{id}"),
        if_match,
        Some(json),
    )
    .await
}

/// What [`race`] counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Race {
    /// Edits the clients were told were stored (`200`).
    pub acknowledged: u64,
    /// Of those, the edits missing from the stored article.
    pub lost: u64,
    /// `412` answers (each followed by a fresh `GET`).
    pub refused: u64,
}

/// `clients` clients each make `edits` edits of article `id` at `addr`:
/// `GET`, append a line of their own to the body, `PUT` with `If-Match`;
/// on `412` they `GET` again and redo the edit. Bounded: each edit gives
/// up after `deadline`. Then the lines in the stored body are counted
/// against the edits acknowledged.
pub async fn race(addr: SocketAddr, id: i64, clients: u64, edits: u64, deadline: Duration) -> Race {
    let refused = Arc::new(AtomicU64::new(0));
    let acknowledged = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    for client in 0..clients {
        let refused = Arc::clone(&refused);
        let acknowledged = Arc::clone(&acknowledged);
        tasks.push(tokio::spawn(async move {
            for edit in 0..edits {
                let started = Instant::now();
                while started.elapsed() < deadline {
                    let Ok((article, tag)) = fetch(addr, id).await else {
                        continue;
                    };
                    let mut body = article.body;
                    body.push_str(&format!("c{client}e{edit}\n"));
                    let edit = Edit {
                        title: article.title,
                        body,
                        tags: article.tags,
                    };
                    match put(addr, id, tag.as_deref(), &edit).await.map(|a| a.status) {
                        Ok(200) => {
                            acknowledged.fetch_add(1, Ordering::SeqCst);
                            break;
                        }
                        Ok(412) => {
                            refused.fetch_add(1, Ordering::SeqCst);
                        }
                        _ => {}
                    }
                }
            }
        }));
    }
    for task in tasks {
        task.await.expect("a client");
    }
    let stored_lines = match fetch(addr, id).await {
        Ok((article, _)) => article.body.lines().count() as u64,
        Err(_) => 0,
    };
    let acknowledged = acknowledged.load(Ordering::SeqCst);
    Race {
        acknowledged,
        lost: acknowledged.saturating_sub(stored_lines),
        refused: refused.load(Ordering::SeqCst),
    }
}

/// What [`run`] found.
#[derive(Debug)]
pub struct Outcome {
    /// A `PUT` without `If-Match`.
    pub without_if_match: u16,
    /// Two clients with the same ETag: the first `PUT`'s status, the
    /// second's, and whether the second was told the first's new ETag.
    pub first: u16,
    pub second: u16,
    pub second_told_current: bool,
    /// A `PATCH` of another field with the stale ETag after a fresh `GET`
    /// (`200`), and one of the same field with a stale ETag (`412`).
    pub patch_fresh: u16,
    pub patch_stale: u16,
    /// The naive service's race and odm's.
    pub naive: Race,
    pub odm: Race,
}

/// The story, then the race with `clients` x `edits` on each service.
pub async fn run(db: &mongodb::Database, clients: u64, edits: u64) -> odm::Result<Outcome> {
    let articles = Article::model(db);
    for id in [1, 2] {
        articles
            .create(Article {
                id,
                title: "Draft".into(),
                body: String::new(),
                tags: vec![],
            })
            .await?;
    }
    let (addr, server) = serve(router(articles.clone())).await;
    let io = |e: std::io::Error| Error::Driver(mongodb::error::Error::custom(e.to_string()));

    let edit = |title: &str| Edit {
        title: title.into(),
        body: String::new(),
        tags: vec![],
    };
    let without_if_match = put(addr, 1, None, &edit("no tag"))
        .await
        .map_err(io)?
        .status;

    // Two tabs open the article: both hold the same ETag.
    let (_, tag) = fetch(addr, 1).await.map_err(io)?;
    let tag = tag.expect("GET answers an ETag");
    let first = put(addr, 1, Some(&tag), &edit("Ann's title"))
        .await
        .map_err(io)?;
    let second = put(addr, 1, Some(&tag), &edit("Bob's title"))
        .await
        .map_err(io)?;
    let second_told_current = second.etag.is_some() && second.etag == first.etag;

    // A patch with a fresh ETag lands; one with the stale ETag is refused.
    let (_, fresh) = fetch(addr, 1).await.map_err(io)?;
    let tags = Patch {
        tags: Some(vec!["news".into()]),
        ..Patch::default()
    };
    let patch_fresh = patch(addr, 1, fresh.as_deref(), &tags)
        .await
        .map_err(io)?
        .status;
    let retitle = Patch {
        title: Some("Bob's title".into()),
        ..Patch::default()
    };
    let patch_stale = patch(addr, 1, Some(&tag), &retitle)
        .await
        .map_err(io)?
        .status;
    server.abort();

    let deadline = Duration::from_secs(30);
    let (naive_addr, naive_server) = serve(naive_router(articles.clone())).await;
    let naive = race(naive_addr, 2, clients, edits, deadline).await;
    naive_server.abort();
    articles
        .collection()
        .update_one(doc! { "_id": 2 }, doc! { "$set": { "body": "" } })
        .await?;
    let (addr, server) = serve(router(articles.clone())).await;
    let odm = race(addr, 2, clients, edits, deadline).await;
    server.abort();
    Ok(Outcome {
        without_if_match,
        first: first.status,
        second: second.status,
        second_told_current,
        patch_fresh,
        patch_stale,
        naive,
        odm,
    })
}
