//! `--audit-log FILE`: a JSON line for every cautious and dangerous call (the runtime's
//! `AuditLog`), and for every connection an egress proxy refused, appended to a file only
//! its owner can read.

use std::path::Path;

use std::io::Write;

use toolwright_runtime::executor::AuditLog;
use toolwright_std::egress::Refusal;

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

/// Where the egress proxies' refusals go: one JSON line each in the audit log at `path`
/// (`{"time", "event": "egress_refused", "program", "target", "reason"}`), written with one
/// `write` on a descriptor of its own opened for appending, so lines never mix with the
/// calls'. `None` without an audit log (refusals are still logged).
pub(crate) fn egress_sink(
    path: Option<&Path>,
) -> Result<Option<impl Fn(&Refusal) + Send + Sync + 'static>, UsageError> {
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
    let file = std::sync::Mutex::new(file);
    Ok(Some(move |refusal: &Refusal| {
        let line = serde_json::json!({
            "time": jiff::Timestamp::now().to_string(),
            "event": "egress_refused",
            "program": refusal.program,
            "target": refusal.target,
            "reason": refusal.reason,
        });
        let mut text = line.to_string();
        text.push('\n');
        let mut file = file
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Err(error) = file.write_all(text.as_bytes()) {
            tracing::warn!(%error, "could not write the audit log");
        }
    }))
}
