//! The error a tool returns, written for the model that called it.

use std::error::Error as StdError;
use std::fmt;

use crate::args::InvalidArguments;

/// Why a tool call failed, in words a model can act on.
///
/// Tool authors build one with [`ToolError::new`] (or `?` on an I/O or JSON error); the
/// handler builds [`ToolError::InvalidArguments`] when the model's arguments do not fit the
/// tool's parameters. Its `Display` text is what the model reads.
///
/// ```
/// use toolwright_core::ToolError;
///
/// fn check(n: i64) -> Result<i64, ToolError> {
///     if n < 0 {
///         return Err(ToolError::new(format!("`n` must be >= 0, got {n}")));
///     }
///     Ok(n)
/// }
/// assert_eq!(check(-1).unwrap_err().to_string(), "`n` must be >= 0, got -1");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// The arguments did not match the tool's parameters; every problem is listed.
    #[error(transparent)]
    InvalidArguments(#[from] InvalidArguments),
    /// The tool ran and failed.
    #[error("{message}")]
    Failed {
        /// What went wrong, for the model.
        message: String,
        /// The underlying error, for the application's logs.
        #[source]
        source: Option<Box<dyn StdError + Send + Sync + 'static>>,
    },
    /// A resource read named a URI no resource has (MCP's resource-not-found, -32002).
    #[error(
        "no resource has the URI `{uri}`; list the resources and resource templates to see what exists"
    )]
    ResourceNotFound {
        /// The URI asked for.
        uri: String,
    },
}

impl ToolError {
    /// A failure with a message for the model.
    ///
    /// ```
    /// use toolwright_core::ToolError;
    /// let err = ToolError::new("file `a.txt` not found; list the directory to see what exists");
    /// assert!(err.to_string().starts_with("file `a.txt` not found"));
    /// ```
    pub fn new(message: impl fmt::Display) -> Self {
        ToolError::Failed {
            message: message.to_string(),
            source: None,
        }
    }

    /// A failure caused by `error`: its `Display` text is the message and it stays reachable
    /// through [`std::error::Error::source`].
    ///
    /// ```
    /// use std::error::Error as _;
    /// use toolwright_core::ToolError;
    /// let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
    /// let err = ToolError::from_error(io);
    /// assert_eq!(err.to_string(), "no such file");
    /// assert!(err.source().is_some());
    /// ```
    pub fn from_error(error: impl StdError + Send + Sync + 'static) -> Self {
        ToolError::Failed {
            message: error.to_string(),
            source: Some(Box::new(error)),
        }
    }

    /// The failure caused by `error`, with `context` in front of its message.
    ///
    /// ```
    /// use toolwright_core::ToolError;
    /// let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
    /// let err = ToolError::with_context("cannot read `a.txt`", io);
    /// assert_eq!(err.to_string(), "cannot read `a.txt`: no such file");
    /// ```
    pub fn with_context(
        context: impl fmt::Display,
        error: impl StdError + Send + Sync + 'static,
    ) -> Self {
        ToolError::Failed {
            message: format!("{context}: {error}"),
            source: Some(Box::new(error)),
        }
    }

    /// The failure of a read that names no resource: servers answer MCP's
    /// resource-not-found (-32002) for it.
    ///
    /// ```
    /// use toolwright_core::ToolError;
    /// let err = ToolError::resource_not_found("notes://404");
    /// assert!(err.is_resource_not_found());
    /// assert!(err.to_string().contains("notes://404"));
    /// ```
    pub fn resource_not_found(uri: impl Into<String>) -> Self {
        ToolError::ResourceNotFound { uri: uri.into() }
    }

    /// Whether the failure is [`ToolError::ResourceNotFound`].
    pub fn is_resource_not_found(&self) -> bool {
        matches!(self, ToolError::ResourceNotFound { .. })
    }

    /// Whether the failure is about the arguments (the model can fix it by retrying).
    ///
    /// ```
    /// use toolwright_core::ToolError;
    /// assert!(!ToolError::new("boom").is_invalid_arguments());
    /// ```
    pub fn is_invalid_arguments(&self) -> bool {
        matches!(self, ToolError::InvalidArguments(_))
    }
}

impl From<String> for ToolError {
    fn from(message: String) -> Self {
        ToolError::new(message)
    }
}

impl From<&str> for ToolError {
    fn from(message: &str) -> Self {
        ToolError::new(message)
    }
}

impl From<std::io::Error> for ToolError {
    fn from(error: std::io::Error) -> Self {
        ToolError::from_error(error)
    }
}

impl From<serde_json::Error> for ToolError {
    fn from(error: serde_json::Error) -> Self {
        ToolError::from_error(error)
    }
}
