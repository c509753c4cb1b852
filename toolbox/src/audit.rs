//! `--audit-log FILE`: a JSON line for every cautious and dangerous call (the runtime's
//! `AuditLog`), appended to a file only its owner can read.

use std::path::Path;

use toolwright_runtime::executor::AuditLog;

use crate::ending::UsageError;

/// The audit log at `path`, opened for appending (created with mode 0600), or `None`.
pub(crate) fn open(path: Option<&Path>) -> Result<Option<AuditLog>, UsageError> {
    let Some(path) = path else {
        return Ok(None);
    };
    let mut options = std::fs::OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let file = options.open(path).map_err(|error| {
        UsageError(format!(
            "cannot open the audit log `{}`: {error}",
            path.display()
        ))
    })?;
    Ok(Some(AuditLog::new(file)))
}
