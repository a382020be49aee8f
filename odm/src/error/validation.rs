//! Validation failures: [`ValidationError`] and [`ValidationErrors`].

use std::fmt;

use super::values::{self, Value};

/// One failed validation: where, why, and (kept apart from the reason, so
/// the text shows it only when [values are shown](crate::values_shown))
/// the value that was refused.
///
/// ```
/// use odm::ValidationError;
/// let e = ValidationError::new("age", "must be at least 18").with_value(16);
/// assert_eq!((e.path(), e.message(), e.value()), ("age", "must be at least 18", Some("16")));
/// assert_eq!(e.to_string(), "age: must be at least 18 (is ?)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ValidationError {
    path: String,
    message: String,
    value: Option<String>,
}

impl ValidationError {
    /// A failure at `path` (a BSON path such as `avatar` or
    /// `comments.3.text`). Keep values out of `message`; attach the
    /// refused value with [`with_value`](ValidationError::with_value).
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ValidationError {
            path: path.into(),
            message: message.into(),
            value: None,
        }
    }

    /// The same failure, naming the refused value (or a measure of it,
    /// such as a length): the text shows it as `(is <value>)` when values
    /// are shown, and as `(is ?)` otherwise.
    pub fn with_value(mut self, value: impl fmt::Display) -> Self {
        self.value = Some(value.to_string());
        self
    }

    /// Dotted BSON path of the failing value (`""` for the whole document).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What is wrong with it.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The refused value, when the validator named it.
    pub fn value(&self) -> Option<&str> {
        self.value.as_deref()
    }

    /// The same failure at `prefix.path` (used when a nested value is
    /// validated as part of its parent).
    pub(crate) fn under(mut self, prefix: impl FnOnce(&str) -> String) -> Self {
        self.path = prefix(&self.path);
        self
    }

    fn write(&self, f: &mut fmt::Formatter<'_>, values: bool) -> fmt::Result {
        if !self.path.is_empty() {
            write!(f, "{}: ", self.path)?;
        }
        f.write_str(&self.message)?;
        if let Some(value) = &self.value {
            write!(f, " (is {})", Value(value.as_str(), values))?;
        }
        Ok(())
    }
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, values::values_shown())
    }
}

impl std::error::Error for ValidationError {}

/// Every validation failure of one write.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ValidationErrors {
    errors: Vec<ValidationError>,
}

impl ValidationErrors {
    /// No failures yet.
    pub fn new() -> Self {
        Self::default()
    }
    /// Adds one failure.
    pub fn push(&mut self, error: ValidationError) {
        self.errors.push(error);
    }
    /// The failures, in the order the validators ran.
    pub fn errors(&self) -> &[ValidationError] {
        &self.errors
    }
    /// The failing paths, in order.
    pub fn paths(&self) -> Vec<&str> {
        self.errors.iter().map(|e| e.path.as_str()).collect()
    }
    /// `true` when nothing failed.
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }
    /// `Ok(())` when nothing failed, else `Err(self)`.
    pub fn into_result(self) -> Result<(), ValidationErrors> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(self)
        }
    }
}

impl From<ValidationError> for ValidationErrors {
    fn from(e: ValidationError) -> Self {
        ValidationErrors { errors: vec![e] }
    }
}

impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let values = values::values_shown();
        f.write_str("validation failed: ")?;
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            e.write(f, values)?;
        }
        Ok(())
    }
}

impl std::error::Error for ValidationErrors {}
