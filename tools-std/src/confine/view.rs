//! The private view of the file system a confined command sees.
//!
//! [`items`] lists what the view holds, each at the same path as on the host: the system's
//! programs and libraries, an allow-list of `/etc`, the Rust toolchain (never cargo's
//! credentials or configuration), a few devices, the workspace, the command's temporary
//! directory, and empty `/proc` (its own is mounted there), `/run` and `/tmp`. Nothing else
//! exists in it: not `/etc/shadow`, not a server's token files, not the sockets under `/run`,
//! not the rest of the home directory.
//!
//! Of the allowed `/etc`, only what every user of the host may read: a command of the host's
//! root is root in its box too, so a file the host keeps from others (`/etc/ssl/private`,
//! mode `0710`, its keys `0640`) would be readable to it. A directory that holds such a
//! secret is not bound whole; it becomes an empty directory of the view in which each public
//! entry is bound (see [`public_tree`]).
//!
//! The same list gives the Landlock rules (the second wall, and the only one where the kernel
//! lets us make no mount namespace), and answers [`readable_by_commands`], which a server asks
//! before it starts with a secret file.
//!
//! `mount`'s `Plan` turns the list into the system calls that build the view on a `tmpfs`,
//! prepared before the fork so that the child only makes system calls.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::workspace::Workspace;

/// What a command may do with one thing of its view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// Read and execute (programs, libraries, toolchains); read-only.
    Execute,
    /// Read only (configuration, `/sys`, the workspace's `.git`).
    Read,
    /// Read and write (the workspace, the temporary directory).
    Write,
    /// A device node: read and write, no directory rights.
    Device,
}

/// One thing of the view, at `path`, the same path as on the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Item {
    /// The host's `source` (canonical) bound at `path`.
    Bind {
        path: PathBuf,
        source: PathBuf,
        access: Access,
        dir: bool,
    },
    /// A symbolic link at `path` to `target`, as on the host (`/bin -> usr/bin`).
    Link { path: PathBuf, target: PathBuf },
    /// An empty directory: a mount point, or nothing (`/run`).
    Empty { path: PathBuf },
}

impl Item {
    /// Which of two items at one path stays: a bind first.
    fn rank(&self) -> u8 {
        match self {
            Item::Bind { .. } => 0,
            Item::Link { .. } => 1,
            Item::Empty { .. } => 2,
        }
    }

    pub(super) fn path(&self) -> &Path {
        match self {
            Item::Bind { path, .. } | Item::Link { path, .. } | Item::Empty { path } => path,
        }
    }
}

/// The system's programs and libraries, where they exist (a link such as `/bin -> usr/bin`
/// stays a link).
const SYSTEM_DIRS: &[&str] = &[
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/opt",
    "/nix/store",
];

/// What of `/etc` a program needs to run: the loader, certificates (public: a private key is
/// never world-readable, and only the world-readable is bound), users and groups (`passwd`
/// and `group`, which hold no password hash), the name service, the time zone, git's system
/// configuration, alternatives, locales, the shells' and interpreters' own configuration.
/// Never `shadow`, `gshadow`, `sudoers`, `ssh`, a service's secrets or anything else not
/// listed. Names ending in `*` are prefixes. How names resolve is in [`ETC_NETWORK`].
const ETC_ALLOWED: &[&str] = &[
    "alternatives",
    "bash.bashrc",
    "ca-certificates",
    "ca-certificates.conf",
    "crypto-policies",
    "debian_version",
    "gitattributes",
    "gitconfig",
    "group",
    "inputrc",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "locale.alias",
    "locale.conf",
    "localtime",
    "magic",
    "magic.mime",
    "mime.types",
    "nsswitch.conf",
    "os-release",
    "passwd",
    "perl",
    "pki",
    "profile",
    "protocols",
    "python*",
    "services",
    "shells",
    "ssl",
    "terminfo",
    "timezone",
];

/// What of `/etc` only a command with the network sees: how names resolve (without the
/// network there is nothing to resolve, and the host's resolvers are its own business).
const ETC_NETWORK: &[&str] = &["gai.conf", "host.conf", "hosts", "resolv.conf"];

/// How many entries beneath one allowed name of `/etc` are looked at for a secret: a tree
/// with more is left out of the view (the allowed ones hold a few hundred).
const ETC_SCAN_LIMIT: usize = 20_000;

/// Devices a command may read and write. No terminal: not `/dev/tty`, no pseudo-terminals.
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

/// The links of `/dev` that programs expect, into the command's own `/proc`.
const DEV_LINKS: &[(&str, &str)] = &[
    ("/dev/fd", "/proc/self/fd"),
    ("/dev/stdin", "/proc/self/fd/0"),
    ("/dev/stdout", "/proc/self/fd/1"),
    ("/dev/stderr", "/proc/self/fd/2"),
];

/// The parts of cargo's home a build reads; never its `credentials*` or `config*` files.
const CARGO_HOME_DIRS: &[&str] = &["bin", "registry", "git"];

/// What the view of a command in `ws` binds beyond the system: the workspace (writable),
/// the command's temporary directory `temp`, and the workspace's `.git` entries `git`
/// (read-only).
pub(crate) fn workspace_binds(
    ws: &Workspace,
    temp: Option<&Path>,
    git: &[PathBuf],
) -> Vec<(PathBuf, Access)> {
    let mut binds = vec![(ws.root().to_path_buf(), Access::Write)];
    binds.extend(temp.map(|temp| (temp.to_path_buf(), Access::Write)));
    binds.extend(git.iter().map(|entry| (entry.clone(), Access::Read)));
    binds
}

/// Everything a view holds, parents before children: the system's programs and libraries,
/// the allowed `/etc` (its public part; name resolution only with the `network`), the
/// devices, empty `/proc`, `/run` and `/tmp`, the Rust toolchain when `toolchain`, and each
/// of `binds` (a path that does not exist is left out).
pub(crate) fn items(binds: &[(PathBuf, Access)], toolchain: bool, network: bool) -> Vec<Item> {
    let mut items = Vec::new();
    for dir in SYSTEM_DIRS {
        system_item(&mut items, Path::new(dir));
    }
    items.push(Item::Empty {
        path: PathBuf::from("/etc"),
    });
    for name in etc_entries(Path::new("/etc"), network) {
        let path = Path::new("/etc").join(name);
        public_tree(&mut items, &path, &path);
    }
    if toolchain {
        for (dir, access) in toolchain_dirs() {
            bind_existing(&mut items, &dir, access);
        }
    }
    items.push(Item::Empty {
        path: PathBuf::from("/dev"),
    });
    for device in DEVICES {
        bind_existing(&mut items, Path::new(device), Access::Device);
    }
    for (link, target) in DEV_LINKS {
        items.push(Item::Link {
            path: PathBuf::from(link),
            target: PathBuf::from(target),
        });
    }
    for empty in ["/proc", "/run", "/tmp"] {
        items.push(Item::Empty {
            path: PathBuf::from(empty),
        });
    }
    bind_existing(&mut items, Path::new("/sys"), Access::Read);
    for (path, access) in binds {
        bind_existing(&mut items, path, *access);
    }
    // Parents before children: a path sorts after each of its ancestors. Of two items at one
    // path (a workspace at `/tmp`), the bind wins over an empty directory or a link; of two
    // binds at one path, the first given.
    items.sort_by(|a, b| a.path().cmp(b.path()).then(a.rank().cmp(&b.rank())));
    items.dedup_by(|later, first| later.path() == first.path());
    items
}

/// The names of `etc` that [`ETC_ALLOWED`] lets in, and [`ETC_NETWORK`] with the `network`.
fn etc_entries(etc: &Path, network: bool) -> Vec<std::ffi::OsString> {
    let network_names: &[&str] = if network { ETC_NETWORK } else { &[] };
    let mut names: Vec<_> = std::fs::read_dir(etc)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.file_name())
        .filter(|name| {
            let name = name.as_bytes();
            ETC_ALLOWED
                .iter()
                .chain(network_names)
                .any(|allowed| match allowed.strip_suffix('*') {
                    Some(prefix) => name.starts_with(prefix.as_bytes()),
                    None => name == allowed.as_bytes(),
                })
        })
        .collect();
    names.sort();
    names
}

/// Whether the host keeps this file or directory from its other users: a file not readable
/// by all, a directory not both readable and searchable by all, anything but a file, a
/// directory or a link (a socket, a device). A command of the host's root would be root in
/// its box too and read it, so it is never in a view of `/etc`.
fn is_secret(name: &std::ffi::OsStr, meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    if is_private_name(name, meta.is_dir()) {
        return true;
    }
    let mode = meta.mode();
    let kind = meta.file_type();
    if kind.is_dir() {
        mode & 0o005 != 0o005
    } else if kind.is_file() {
        mode & 0o004 == 0
    } else {
        !kind.is_symlink()
    }
}

/// Whether a name says "private key" whatever its mode: containers and Kubernetes secret
/// volumes often leave keys world-readable (`defaultMode: 0644`), so `/etc/ssl/private`,
/// `/etc/pki/*/private` and key files stay out of the view by name as well as by mode.
fn is_private_name(name: &std::ffi::OsStr, is_dir: bool) -> bool {
    let name = name.to_string_lossy().to_ascii_lowercase();
    if is_dir {
        return name == "private";
    }
    const KEY_SUFFIXES: [&str; 7] = [
        ".key",
        "-key.pem",
        "_key.pem",
        ".p12",
        ".pfx",
        ".jks",
        ".keystore",
    ];
    KEY_SUFFIXES.iter().any(|suffix| name.ends_with(suffix))
}

/// Whether anything beneath the directory `dir` (links not followed) is a secret
/// ([`is_secret`]); `None` when that cannot be told: a directory that cannot be read, or more
/// than [`ETC_SCAN_LIMIT`] entries.
fn holds_secret(dir: &Path) -> Option<bool> {
    let mut budget = ETC_SCAN_LIMIT;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).ok()? {
            let entry = entry.ok()?;
            budget = budget.checked_sub(1)?;
            // `DirEntry::metadata` does not follow a link.
            let meta = entry.metadata().ok()?;
            if is_secret(&entry.file_name(), &meta) {
                return Some(true);
            }
            if meta.is_dir() {
                stack.push(entry.path());
            }
        }
    }
    Some(false)
}

/// Puts the host's `host` at `path` of the view (read-only), without anything the host keeps
/// from its other users: a secret is left out; a directory that holds one becomes an empty
/// directory of the view, its links links as on the host, each of its other entries put
/// there the same way. What cannot be looked at is left out.
fn public_tree(items: &mut Vec<Item>, path: &Path, host: &Path) {
    let (Ok(source), Ok(meta)) = (std::fs::canonicalize(host), std::fs::metadata(host)) else {
        return;
    };
    if is_secret(host.file_name().unwrap_or_default(), &meta) || !path.is_absolute() {
        return;
    }
    if meta.is_file() {
        items.push(Item::Bind {
            path: path.to_path_buf(),
            source,
            access: Access::Read,
            dir: false,
        });
        return;
    }
    match holds_secret(&source) {
        Some(false) => items.push(Item::Bind {
            path: path.to_path_buf(),
            source,
            access: Access::Read,
            dir: true,
        }),
        Some(true) => {
            items.push(Item::Empty {
                path: path.to_path_buf(),
            });
            for entry in std::fs::read_dir(&source).into_iter().flatten().flatten() {
                let (child, child_host) = (path.join(entry.file_name()), entry.path());
                let is_link = entry.file_type().is_ok_and(|kind| kind.is_symlink());
                if !is_link {
                    public_tree(items, &child, &child_host);
                } else if let Ok(target) = std::fs::read_link(&child_host) {
                    items.push(Item::Link {
                        path: child,
                        target,
                    });
                }
            }
        }
        None => {}
    }
}

/// The Rust toolchain: all of rustup's home, the parts of cargo's home a build reads.
fn toolchain_dirs() -> Vec<(PathBuf, Access)> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let dir = |variable: &str, default: &str| {
        std::env::var_os(variable)
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|home| home.join(default)))
    };
    let mut dirs = Vec::new();
    if let Some(rustup) = dir("RUSTUP_HOME", ".rustup") {
        dirs.push((rustup, Access::Execute));
    }
    if let Some(cargo) = dir("CARGO_HOME", ".cargo") {
        for sub in CARGO_HOME_DIRS {
            dirs.push((cargo.join(sub), Access::Execute));
        }
    }
    dirs
}

/// A system directory: a link stays a link, a directory is bound read-only.
fn system_item(items: &mut Vec<Item>, path: &Path) {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            if let Ok(target) = std::fs::read_link(path) {
                items.push(Item::Link {
                    path: path.to_path_buf(),
                    target,
                });
            }
        }
        Ok(_) => bind_existing(items, path, Access::Execute),
        Err(_) => {}
    }
}

/// Binds `path` (its canonical target) when it exists and is a directory or a regular file
/// (or a device, for [`Access::Device`]).
fn bind_existing(items: &mut Vec<Item>, path: &Path, access: Access) {
    let (Ok(source), Ok(meta)) = (std::fs::canonicalize(path), std::fs::metadata(path)) else {
        return;
    };
    let kind = meta.file_type();
    let usable = kind.is_dir() || kind.is_file() || access == Access::Device;
    if usable && path.is_absolute() {
        items.push(Item::Bind {
            path: path.to_path_buf(),
            source,
            access,
            dir: kind.is_dir(),
        });
    }
}

/// Whether a confined command of `ws` could read `path` (through its view, or Landlock's
/// rules where there is no view): the item that lets it, or `None`.
pub(crate) fn readable_by_commands(ws: &Workspace, path: &Path) -> Option<PathBuf> {
    readable_through(&workspace_binds(ws, None, &[]), true, path)
}

/// Whether a program whose view holds `binds` (and the toolchain when `toolchain`) could
/// read `path`: the bound directory or file that lets it, or `None`.
pub(crate) fn readable_through(
    binds: &[(PathBuf, Access)],
    toolchain: bool,
    path: &Path,
) -> Option<PathBuf> {
    let path = std::fs::canonicalize(path).ok()?;
    // With the network: what could be read at all.
    items(binds, toolchain, true)
        .into_iter()
        .find_map(|item| match item {
            Item::Bind { source, .. } if path.starts_with(&source) => Some(source),
            _ => None,
        })
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    use super::*;

    #[test]
    fn the_view_holds_no_secret_of_etc_and_no_cargo_credentials() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let items = items(&workspace_binds(&ws, None, &[]), true, false);
        let paths: Vec<&Path> = items.iter().map(Item::path).collect();
        for secret in ["/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/ssh"] {
            assert!(!paths.contains(&Path::new(secret)), "{secret} in the view");
            assert!(readable_by_commands(&ws, Path::new(secret)).is_none());
        }
        assert!(
            !paths.contains(&Path::new("/etc")) || {
                // `/etc` itself is only an empty directory of the view.
                items
                    .iter()
                    .any(|i| matches!(i, Item::Empty { path } if path == Path::new("/etc")))
            }
        );
        assert!(
            paths
                .iter()
                .all(|p| !p.ends_with(OsStr::new("credentials.toml")))
        );
        assert!(readable_by_commands(&ws, ws.root()).is_some());
        let mut sorted = paths.clone();
        sorted.sort();
        assert_eq!(paths, sorted, "parents before children");
    }

    #[test]
    fn a_workspace_where_the_view_has_an_empty_directory_is_bound() {
        let ws = Workspace::new("/tmp").unwrap();
        let items = items(&workspace_binds(&ws, None, &[]), true, false);
        let at_tmp: Vec<&Item> = items
            .iter()
            .filter(|item| item.path() == Path::new("/tmp"))
            .collect();
        assert!(
            matches!(
                at_tmp[..],
                [Item::Bind {
                    access: Access::Write,
                    ..
                }]
            ),
            "{at_tmp:?}"
        );
    }

    #[test]
    fn a_directory_of_etc_that_holds_a_secret_is_bound_without_it() {
        use std::os::unix::fs::{PermissionsExt, symlink};
        let etc = tempfile::tempdir().unwrap();
        let ssl = etc.path().join("ssl");
        for dir in ["private", "certs", "nested/deeper"] {
            std::fs::create_dir_all(ssl.join(dir)).unwrap();
        }
        for file in [
            "certs/ca.pem",
            "openssl.cnf",
            "private/key.pem",
            "loose.key",
            "nested/deeper/x",
            "nested/y",
        ] {
            std::fs::write(ssl.join(file), "x").unwrap();
        }
        symlink("certs/ca.pem", ssl.join("cert.pem")).unwrap();
        let mode = |path: &str, mode: u32| {
            std::fs::set_permissions(ssl.join(path), std::fs::Permissions::from_mode(mode))
                .unwrap();
        };
        mode(".", 0o755);
        mode("private", 0o710);
        mode("private/key.pem", 0o640);
        mode("loose.key", 0o600);
        mode("nested/deeper", 0o700);
        for public in ["certs/ca.pem", "openssl.cnf", "nested/y"] {
            mode(public, 0o644);
        }
        let mut items = Vec::new();
        public_tree(&mut items, Path::new("/etc/ssl"), &ssl);
        items.sort_by(|a, b| a.path().cmp(b.path()));
        let seen: Vec<(&str, &str)> = items
            .iter()
            .map(|item| {
                let kind = match item {
                    Item::Bind { dir: true, .. } => "dir",
                    Item::Bind { dir: false, .. } => "file",
                    Item::Link { .. } => "link",
                    Item::Empty { .. } => "empty",
                };
                (item.path().to_str().unwrap(), kind)
            })
            .collect();
        assert_eq!(
            seen,
            [
                ("/etc/ssl", "empty"),
                ("/etc/ssl/cert.pem", "link"),
                ("/etc/ssl/certs", "dir"),
                ("/etc/ssl/nested", "empty"),
                ("/etc/ssl/nested/y", "file"),
                ("/etc/ssl/openssl.cnf", "file"),
            ]
        );
        // A tree without a secret is bound whole.
        let mut items = Vec::new();
        public_tree(&mut items, Path::new("/etc/certs"), &ssl.join("certs"));
        assert!(matches!(&items[..], [Item::Bind { dir: true, .. }]));
    }

    #[test]
    fn a_world_readable_key_stays_out_by_its_name() {
        use std::os::unix::fs::PermissionsExt;
        // As a Kubernetes secret volume leaves them: mode 0644, in a 0755 directory.
        let etc = tempfile::tempdir().unwrap();
        let pki = etc.path().join("pki");
        std::fs::create_dir_all(pki.join("tls/private")).unwrap();
        std::fs::create_dir_all(pki.join("tls/certs")).unwrap();
        for file in [
            "tls/private/tls.pem",
            "tls/server.key",
            "tls/client-key.pem",
            "tls/certs/ca.pem",
        ] {
            std::fs::write(pki.join(file), "x").unwrap();
            std::fs::set_permissions(pki.join(file), std::fs::Permissions::from_mode(0o644))
                .unwrap();
        }
        let mut items = Vec::new();
        public_tree(&mut items, Path::new("/etc/pki"), &pki);
        let paths: Vec<&Path> = items.iter().map(Item::path).collect();
        assert!(
            paths.contains(&Path::new("/etc/pki/tls/certs")),
            "{paths:?}"
        );
        for hidden in ["tls/private", "tls/server.key", "tls/client-key.pem"] {
            let hidden = Path::new("/etc/pki").join(hidden);
            assert!(
                !paths.iter().any(|p| p.starts_with(&hidden)),
                "{hidden:?} in {paths:?}"
            );
        }
    }

    #[test]
    fn no_private_key_of_the_host_is_in_the_view() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        for private in [
            "/etc/ssl/private",
            "/etc/pki/tls/private",
            "/etc/pki/CA/private",
        ] {
            let Ok(read) = std::fs::read_dir(private) else {
                continue;
            };
            assert!(readable_by_commands(&ws, Path::new(private)).is_none());
            for key in read.flatten() {
                assert!(
                    readable_by_commands(&ws, &key.path()).is_none(),
                    "{} is readable",
                    key.path().display()
                );
            }
        }
        let paths: Vec<PathBuf> = items(&workspace_binds(&ws, None, &[]), true, true)
            .iter()
            .map(|item| item.path().to_path_buf())
            .collect();
        assert!(!paths.iter().any(|p| p.ends_with("private")), "{paths:?}");
        // Name resolution only with the network.
        let offline = items(&workspace_binds(&ws, None, &[]), true, false);
        assert!(
            !offline
                .iter()
                .any(|i| i.path() == Path::new("/etc/resolv.conf"))
        );
    }
}
