//! A secret kept off the command line (the arguments of a process are visible to every user
//! of the machine): in a file only its owner can read, or in an environment variable.

use std::path::{Path, PathBuf};

/// Where a secret (a token, a key, a client secret, a URL with a password) is read from.
///
/// ```
/// use toolwright_mcp::secret::SecretSource;
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("token");
/// std::fs::write(&path, "  s3cret\n")?;
/// assert_eq!(SecretSource::File(path).read()?, "s3cret");
///
/// let missing = SecretSource::Env("NO_SUCH_VARIABLE_HERE".into()).read().unwrap_err();
/// assert!(missing.to_string().contains("the environment variable NO_SUCH_VARIABLE_HERE"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SecretSource {
    /// The content of this file, read when needed.
    File(PathBuf),
    /// The value of this environment variable, read when needed.
    Env(String),
}

/// A secret that could not be read, or was empty; the message names where it was looked for.
#[derive(Debug, thiserror::Error)]
#[error("cannot read the secret from {from}: {reason}")]
pub struct SecretError {
    /// Where the secret was looked for (`the file PATH`, `the environment variable NAME`).
    pub from: String,
    /// Why it could not be read (`it is empty` for a secret of nothing but whitespace).
    pub reason: String,
}

impl SecretSource {
    /// Where the secret is, in words: `the file PATH` or `the environment variable NAME`.
    ///
    /// ```
    /// let source = toolwright_mcp::secret::SecretSource::Env("API_TOKEN".into());
    /// assert_eq!(source.describe(), "the environment variable API_TOKEN");
    /// ```
    pub fn describe(&self) -> String {
        match self {
            SecretSource::File(path) => format!("the file {}", path.display()),
            SecretSource::Env(name) => format!("the environment variable {name}"),
        }
    }

    /// The secret without its surrounding whitespace. A file readable by every user of the
    /// machine is read, with a warning (see [`warn_if_readable_by_others`]).
    ///
    /// # Errors
    ///
    /// When the file cannot be read, the variable is not set or not Unicode, or the secret
    /// is empty.
    pub fn read(&self) -> Result<String, SecretError> {
        let read = match self {
            SecretSource::File(path) => {
                let text = std::fs::read_to_string(path).map_err(|e| e.to_string());
                if text.is_ok() {
                    warn_if_readable_by_others(path, "a secret");
                }
                text
            }
            SecretSource::Env(name) => std::env::var(name).map_err(|e| e.to_string()),
        };
        let secret = read.map(|text| text.trim().to_owned()).and_then(|secret| {
            if secret.is_empty() {
                Err("it is empty".to_owned())
            } else {
                Ok(secret)
            }
        });
        secret.map_err(|reason| SecretError {
            from: self.describe(),
            reason,
        })
    }
}

/// Logs a warning when the file at `path`, which holds `what` (`"a secret"`, `"the token
/// file"`), can be read by every user of this machine; says how to fix it. Nothing on a
/// platform without Unix permissions.
///
/// ```
/// toolwright_mcp::secret::warn_if_readable_by_others(
///     std::path::Path::new("/no/such/file"),
///     "the token file",
/// );
/// ```
pub fn warn_if_readable_by_others(path: &Path, what: &str) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(metadata) = std::fs::metadata(path)
            && metadata.permissions().mode() & 0o004 != 0
        {
            tracing::warn!(
                path = %path.display(),
                "{what} is in a file readable by every user of this machine; `chmod 600` it"
            );
        }
    }
    #[cfg(not(unix))]
    let _ = (path, what);
}
