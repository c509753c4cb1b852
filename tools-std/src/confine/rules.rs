//! The Landlock rules of a confined program, from its view's list: the second wall, and the
//! only one where the kernel lets us make no mount namespace.

use std::ffi::{CString, OsStr};
use std::fs::File;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use landlock::{
    ABI, Access as _, AccessFs, AccessNet, BitFlags, NetPort, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreated, RulesetCreatedAttr, RulesetError, Scope,
};

use super::view::{Access, Item};

/// The file-system rights this code knows and asks for (newer kernels add
/// `ResolveUnix`, connecting to pathname UNIX sockets, which then are confined too).
const FS_ABI: ABI = ABI::V9;

/// Reading, as granted on `/proc` and `/sys`.
pub(super) const PROC_ACCESS: BitFlags<AccessFs> =
    landlock::make_bitflags!(AccessFs::{ReadFile | ReadDir});

/// Where a writable bind may be written.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Writable<'a> {
    /// All of each.
    Items,
    /// All of each but this root: there, every top-level entry but `.git`, as they are now
    /// (the root itself read-only).
    TopLevelExceptGit(&'a Path),
}

/// The Landlock ruleset for a command, from its view's `items`, or `None` when the kernel
/// has no Landlock.
///
/// `landlock`'s best-effort mode enforces what the kernel supports. The status it would
/// report from `restrict_self` is `NotEnforced` exactly when it created no kernel ruleset,
/// which is known here, before the fork: no file descriptor.
/// `connect_port`: without the network, the one TCP port it may connect to (its egress
/// relay's, on the loopback of its own namespace).
pub(super) fn landlock_ruleset(
    items: &[Item],
    network: bool,
    connect_port: Option<u16>,
    writable: Writable<'_>,
) -> Result<Option<OwnedFd>, RulesetError> {
    let all = AccessFs::from_all(FS_ABI);
    let read_exec = AccessFs::from_read(FS_ABI);
    let device = AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate | AccessFs::IoctlDev;
    let mut ruleset = Ruleset::default().handle_access(all)?;
    if !network {
        // Handled with no rule: every TCP bind and connect is denied.
        ruleset = ruleset.handle_access(AccessNet::from_all(ABI::V4))?;
    }
    let mut ruleset = ruleset.scope(Scope::from_all(ABI::V6))?.create()?;
    if let (false, Some(port)) = (network, connect_port) {
        ruleset = ruleset.add_rule(NetPort::new(port, AccessNet::ConnectTcp))?;
    }
    // Where there is no view, the host's `/proc` (mounted over in a view, with its rule).
    ruleset = grant(ruleset, Path::new("/proc"), PROC_ACCESS)?;
    for item in items {
        let Item::Bind { source, access, .. } = item else {
            continue;
        };
        if matches!(writable, Writable::TopLevelExceptGit(root) if source == root) {
            continue;
        }
        let rights = match access {
            Access::Execute => read_exec,
            Access::Read => PROC_ACCESS,
            Access::Write => all,
            Access::Device => device,
        };
        ruleset = grant(ruleset, source, rights)?;
    }
    if let Writable::TopLevelExceptGit(root) = writable {
        ruleset = grant(ruleset, root, read_exec)?;
        let entries = std::fs::read_dir(root).into_iter().flatten().flatten();
        for entry in entries {
            if entry.file_name() == OsStr::new(".git") {
                continue;
            }
            // Not followed: a symbolic link's target keeps its own rules.
            let Some(file) = open_no_follow(&entry.path()) else {
                continue;
            };
            let Ok(kind) = file.metadata().map(|m| m.file_type()) else {
                continue;
            };
            if kind.is_symlink() {
                continue;
            }
            let access = if kind.is_dir() {
                all
            } else {
                AccessFs::from_file(FS_ABI)
            };
            ruleset = ruleset.add_rule(PathBeneath::new(file, access))?;
        }
    }
    Ok(ruleset.into())
}

/// Adds a rule for `path`, when it exists (a grant that cannot be made is no grant).
fn grant(
    ruleset: RulesetCreated,
    path: &Path,
    access: BitFlags<AccessFs>,
) -> Result<RulesetCreated, RulesetError> {
    match PathFd::new(path) {
        Ok(fd) => {
            let is_dir = std::fs::metadata(path).is_ok_and(|m| m.is_dir());
            let access = if is_dir {
                access
            } else {
                access & AccessFs::from_file(FS_ABI)
            };
            ruleset.add_rule(PathBeneath::new(fd, access))
        }
        Err(_) => Ok(ruleset),
    }
}

/// An `O_PATH` descriptor of `path` itself, not following a symbolic link.
fn open_no_follow(path: &Path) -> Option<File> {
    let path = CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: `path` is NUL-terminated and outlives the call; these flags take no mode.
    let fd = unsafe {
        libc::open(
            path.as_ptr(),
            libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return None;
    }
    // SAFETY: `fd` was just opened, is valid, and nothing else owns it.
    Some(File::from(unsafe { OwnedFd::from_raw_fd(fd) }))
}
