//! Validators against the server: every built-in passing and failing,
//! custom field and container validators, every failure reported at once
//! with BSON paths (renames, nested structs, array elements, map keys), and
//! nothing sent when validation fails.
//!
//! The model and its validators are here, with the tests under their
//! names; their bodies are in `rules.rs` (built-in and custom validators),
//! `reports.rs` (every failure at once, at its path), `sending.rs` (nothing
//! sent, raw access) and `raw_idents.rs` (raw identifiers, flatten, boxes,
//! embedded documents).

use crate::common;
mod raw_idents;
mod reports;
mod rules;
mod sending;

use std::collections::BTreeMap;

use odm::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
#[odm(collection = "accounts", validate = Self::score_rule, validate = Self::name_rule)]
#[serde(rename_all = "camelCase")]
struct Account {
    #[serde(rename = "_id")]
    id: i64,
    #[odm(min = 18, max = 130)]
    age: i32,
    #[odm(min = 0, max = 1.5)]
    ratio: f64,
    #[odm(min_len = 3, max_len = 12)]
    user_name: String,
    #[odm(max_len = 3)]
    tags: Vec<String>,
    #[odm(one_of("PENDING", "APPROVED", "BANNED"))]
    status: String,
    #[odm(required, validate = https_url, validate = no_spaces)]
    avatar: Option<String>,
    #[odm(min = -10)]
    score: Option<i64>,
    #[odm(nested)]
    address: Option<Address>,
    #[odm(nested)]
    comments: Vec<Comment>,
    #[odm(nested)]
    pinned: BTreeMap<String, Comment>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Validate)]
struct Address {
    #[odm(min_len = 1)]
    city: String,
    #[serde(rename = "zipCode")]
    #[odm(validate = five_digits)]
    zip: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Validate)]
#[odm(validate = Self::liked_needs_author)]
struct Comment {
    #[odm(min_len = 1, max_len = 20)]
    text: String,
    author: Option<String>,
    #[odm(min = 0)]
    likes: u32,
}

impl Comment {
    fn new(text: &str) -> Comment {
        Comment {
            text: text.into(),
            author: Some("ann".into()),
            likes: 0,
        }
    }

    fn liked_needs_author(&self) -> Result<(), ValidationError> {
        if self.likes > 0 && self.author.is_none() {
            return Err(ValidationError::new(
                "author",
                "required on a liked comment",
            ));
        }
        Ok(())
    }
}

impl Account {
    fn score_rule(&self) -> Result<(), ValidationError> {
        if self.status == "BANNED" && self.score.is_some() {
            return Err(ValidationError::new("score", "must be empty when BANNED"));
        }
        Ok(())
    }

    fn name_rule(&self) -> Result<(), ValidationError> {
        if self.user_name == "admin" {
            return Err(ValidationError::new("", "the name `admin` is reserved"));
        }
        Ok(())
    }
}

fn https_url(v: &Option<String>) -> Result<(), String> {
    match v {
        Some(url) if !url.starts_with("https://") => Err("must be an https URL".into()),
        _ => Ok(()),
    }
}

fn no_spaces(v: &Option<String>) -> Result<(), String> {
    match v {
        Some(url) if url.contains(' ') => Err("must not contain spaces".into()),
        _ => Ok(()),
    }
}

fn five_digits(v: &String) -> Result<(), String> {
    if v.len() == 5 && v.bytes().all(|b| b.is_ascii_digit()) {
        Ok(())
    } else {
        Err(format!("`{v}` is not a five-digit zip code"))
    }
}

fn valid(id: i64) -> Account {
    Account {
        id,
        age: 30,
        ratio: 0.5,
        user_name: "ann".into(),
        tags: vec!["a".into()],
        status: "PENDING".into(),
        avatar: Some("https://img/a.png".into()),
        score: None,
        address: Some(Address {
            city: "Oslo".into(),
            zip: "01500".into(),
        }),
        comments: vec![Comment::new("hi")],
        pinned: BTreeMap::new(),
    }
}

fn failures(result: odm::Result<()>) -> Vec<(String, String)> {
    match result {
        Err(Error::Validation(e)) => e
            .errors()
            .iter()
            .map(|e| {
                // The refused value, as the text shows it when values are on.
                let value = e.value().map(|v| format!(" (is {v})"));
                (
                    e.path().to_string(),
                    format!("{}{}", e.message(), value.unwrap_or_default()),
                )
            })
            .collect(),
        other => panic!("expected a validation error, got {other:?}"),
    }
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(p, m)| (p.to_string(), m.to_string()))
        .collect()
}

// ---------------------------------------------------------------------------
// Built-in, custom field and container validators (rules.rs)

#[tokio::test]
async fn each_builtin_passes_at_its_bound_and_fails_past_it() {
    rules::each_builtin_passes_at_its_bound_and_fails_past_it().await;
}

#[tokio::test]
async fn custom_field_and_container_validators_run() {
    rules::custom_field_and_container_validators_run().await;
}

// ---------------------------------------------------------------------------
// Every failure at once, with its BSON path (reports.rs)

#[tokio::test]
async fn every_failure_is_reported_together() {
    reports::every_failure_is_reported_together().await;
}

#[tokio::test]
async fn nested_and_array_paths_on_update() {
    reports::nested_and_array_paths_on_update().await;
}

// ---------------------------------------------------------------------------
// Nothing sent when validation fails; raw access not validated (sending.rs)

#[tokio::test]
async fn nothing_is_sent_when_validation_fails() {
    sending::nothing_is_sent_when_validation_fails().await;
}

#[tokio::test]
async fn raw_collection_access_is_not_validated() {
    sending::raw_collection_access_is_not_validated().await;
}

// ---------------------------------------------------------------------------
// Raw identifiers, flatten, boxes and embedded documents (raw_idents.rs)

#[tokio::test]
async fn raw_idents_flatten_boxes_and_embedded_documents() {
    raw_idents::raw_idents_flatten_boxes_and_embedded_documents().await;
}
