//! Building the view on a `tmpfs`: [`Plan`] turns the list of [`view`](super::view) into
//! the system calls that make it, prepared before the fork so that the supervisor, after it,
//! only makes system calls on prepared data.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use super::view::{Access, Item};

/// `MOUNT_ATTR_RDONLY`, `MOUNT_ATTR_NOSUID`, `MOUNT_ATTR_NODEV` of `mount_setattr(2)`.
const MOUNT_ATTR_RDONLY: u64 = 0x1;
const MOUNT_ATTR_NOSUID: u64 = 0x2;
const MOUNT_ATTR_NODEV: u64 = 0x4;
/// `AT_RECURSIVE`.
const AT_RECURSIVE: libc::c_uint = 0x8000;

/// `struct mount_attr`.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// One system call of the view's construction.
enum Op {
    /// `mkdir` (an existing one is fine).
    Dir(CString),
    /// An empty file to bind a file on.
    File(CString),
    Link {
        target: CString,
        at: CString,
    },
    Bind {
        source: CString,
        target: CString,
        access: Access,
        /// The flags a read-only remount keeps, where `mount_setattr` is missing.
        remount_flags: libc::c_ulong,
    },
}

/// The view of one command, as system calls on prepared paths (no allocation after the fork).
pub(crate) struct Plan {
    /// The empty directory the view is built on (a `tmpfs`), then the command's root.
    stage: CString,
    /// Where the command mounts its own `/proc`, before it makes the stage its root.
    proc: CString,
    ops: Vec<Op>,
}

impl Plan {
    /// The system calls that build `items` on `stage` (an empty directory).
    pub(crate) fn new(stage: &Path, items: &[Item]) -> io::Result<Plan> {
        let c = |path: &Path| {
            CString::new(path.as_os_str().as_bytes())
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))
        };
        let staged = |path: &Path| -> PathBuf {
            let relative: PathBuf = path
                .components()
                .filter(|part| matches!(part, Component::Normal(_)))
                .collect();
            stage.join(relative)
        };
        let mut ops = Vec::new();
        // Binds made so far: beneath one, paths exist on the host and are not created.
        let mut bound: Vec<&Path> = Vec::new();
        let mut made: Vec<PathBuf> = Vec::new();
        for item in items {
            let path = item.path();
            let inside_bind = bound.iter().any(|b| path.starts_with(b) && path != *b);
            if !inside_bind {
                // Every ancestor that the stage does not hold yet.
                let ancestors: Vec<&Path> = path
                    .ancestors()
                    .skip(1)
                    .filter(|a| a.parent().is_some())
                    .collect();
                for ancestor in ancestors.into_iter().rev() {
                    if !made.iter().any(|m| m == ancestor) {
                        ops.push(Op::Dir(c(&staged(ancestor))?));
                        made.push(ancestor.to_path_buf());
                    }
                }
            }
            match item {
                Item::Empty { path } => {
                    if !inside_bind {
                        ops.push(Op::Dir(c(&staged(path))?));
                        made.push(path.clone());
                    }
                }
                Item::Link { path, target } => {
                    if !inside_bind {
                        ops.push(Op::Link {
                            target: c(target)?,
                            at: c(&staged(path))?,
                        });
                    }
                }
                Item::Bind {
                    path,
                    source,
                    access,
                    dir,
                } => {
                    let target = staged(path);
                    if !inside_bind {
                        ops.push(if *dir {
                            Op::Dir(c(&target)?)
                        } else {
                            Op::File(c(&target)?)
                        });
                        made.push(path.clone());
                    }
                    let source = c(source)?;
                    let remount_flags = remount_flags(&source);
                    ops.push(Op::Bind {
                        source,
                        target: c(&target)?,
                        access: *access,
                        remount_flags,
                    });
                    bound.push(path);
                }
            }
        }
        Ok(Plan {
            stage: c(stage)?,
            proc: c(&stage.join("proc"))?,
            ops,
        })
    }

    /// Builds the view on the stage: a `tmpfs`, every item on it, then the `tmpfs` made
    /// read-only. In the supervisor, in its private mount namespace, after the fork: only
    /// system calls on prepared data.
    pub(crate) fn build(&self) -> io::Result<()> {
        // SAFETY: NUL-terminated strings; the data is tmpfs's option string.
        check(unsafe {
            libc::mount(
                c"tmpfs".as_ptr(),
                self.stage.as_ptr(),
                c"tmpfs".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV,
                c"mode=0755,size=1m,nr_inodes=4096".as_ptr().cast(),
            )
        })?;
        for op in &self.ops {
            match op {
                Op::Dir(path) => {
                    // SAFETY: a NUL-terminated path.
                    if unsafe { libc::mkdir(path.as_ptr(), 0o755) } != 0
                        && io::Error::last_os_error().raw_os_error() != Some(libc::EEXIST)
                    {
                        return Err(io::Error::last_os_error());
                    }
                }
                Op::File(path) => {
                    // SAFETY: a NUL-terminated path, with a mode for O_CREAT.
                    let fd = unsafe {
                        libc::open(
                            path.as_ptr(),
                            libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC | libc::O_NOFOLLOW,
                            0o644 as libc::c_uint,
                        )
                    };
                    check(fd)?;
                    // SAFETY: the descriptor just opened.
                    unsafe { libc::close(fd) };
                }
                Op::Link { target, at } => {
                    // SAFETY: NUL-terminated paths.
                    check(unsafe { libc::symlink(target.as_ptr(), at.as_ptr()) })?;
                }
                Op::Bind {
                    source,
                    target,
                    access,
                    remount_flags,
                } => bind(source, target, *access, *remount_flags)?,
            }
        }
        // The stage itself: read-only (only its mounts may be written).
        set_attributes(&self.stage, false, MOUNT_ATTR_RDONLY, || {
            remount_read_only(&self.stage, libc::MS_NOSUID | libc::MS_NODEV)
        })
    }

    /// In the command (PID 1 of its namespace), before [`Plan::enter`]: mounts the `/proc` of
    /// its PID namespace in the view. The kernel allows that only while a full `/proc` is
    /// visible, so before the old root goes. Where it fails (a container that hides parts of
    /// its `/proc`), the host's is bound instead, read-only under Landlock.
    pub(crate) fn mount_proc(&self) -> io::Result<()> {
        // SAFETY: NUL-terminated strings or null, as mount(2) allows.
        let mounted = unsafe {
            libc::mount(
                c"proc".as_ptr(),
                self.proc.as_ptr(),
                c"proc".as_ptr(),
                // Read-only: `/proc/sys` and `/proc/sysrq-trigger` check only the user, and
                // the host's root may write them without a capability (Landlock, which
                // grants `/proc` only reading, is the other wall).
                libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC | libc::MS_RDONLY,
                std::ptr::null(),
            )
        } == 0;
        if mounted {
            return Ok(());
        }
        // SAFETY: as above.
        check(unsafe {
            libc::mount(
                c"/proc".as_ptr(),
                self.proc.as_ptr(),
                std::ptr::null(),
                libc::MS_BIND | libc::MS_REC,
                std::ptr::null(),
            )
        })?;
        // Read-only too, where the kernel lets us (Landlock holds either way).
        let _ = set_attributes(&self.proc, true, MOUNT_ATTR_RDONLY, || {
            remount_read_only(&self.proc, remount_flags(&self.proc))
        });
        Ok(())
    }

    /// Makes the view the root of the command's mount namespace and lets go of the host's:
    /// nothing outside the view can be reached by any path afterwards.
    pub(crate) fn enter(&self, cwd: &CString) -> io::Result<()> {
        // SAFETY: NUL-terminated paths; pivot_root(".", ".") stacks the old root on the new
        // one, and the detaching unmount removes it (as runc does).
        unsafe {
            check(libc::chdir(self.stage.as_ptr()))?;
            if libc::syscall(libc::SYS_pivot_root, c".".as_ptr(), c".".as_ptr()) != 0 {
                return Err(io::Error::last_os_error());
            }
            check(libc::umount2(c".".as_ptr(), libc::MNT_DETACH))?;
            check(libc::chdir(c"/".as_ptr()))?;
            check(libc::chdir(cwd.as_ptr()))
        }
    }
}

/// Binds `source` at `target` with the rights of `access`.
fn bind(
    source: &CString,
    target: &CString,
    access: Access,
    remount_flags: libc::c_ulong,
) -> io::Result<()> {
    let recursive = if access == Access::Device {
        0
    } else {
        libc::MS_REC
    };
    // SAFETY: NUL-terminated strings or null, as mount(2) allows.
    check(unsafe {
        libc::mount(
            source.as_ptr(),
            target.as_ptr(),
            std::ptr::null(),
            libc::MS_BIND | recursive,
            std::ptr::null(),
        )
    })?;
    match access {
        // Read-only as a mount (the device is still read and written: a mount's flag does
        // not reach a device's data), so that its mode and times cannot change: as the
        // host's root, its owner, a process needs no capability for `chmod 0 /dev/null`,
        // and Landlock does not cover a file's metadata.
        Access::Device => {
            set_attributes(target, false, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID, || {
                remount_read_only(target, remount_flags)
            })
        }
        Access::Write => {
            // Best effort: no set-user-id programs or devices in the workspace.
            let _ = set_attributes(
                target,
                true,
                MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
                || Ok(()),
            );
            Ok(())
        }
        Access::Execute | Access::Read => set_attributes(
            target,
            true,
            MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
            || remount_read_only(target, remount_flags),
        ),
    }
}

/// Sets mount attributes on `target` (and every mount beneath it when `recursive`) with
/// `mount_setattr` (Linux 5.12); `fallback` where the kernel has no such call.
fn set_attributes(
    target: &CString,
    recursive: bool,
    attributes: u64,
    fallback: impl FnOnce() -> io::Result<()>,
) -> io::Result<()> {
    let attr = MountAttr {
        attr_set: attributes,
        attr_clr: 0,
        propagation: 0,
        userns_fd: 0,
    };
    let flags = if recursive { AT_RECURSIVE } else { 0 };
    // SAFETY: a NUL-terminated path and a valid `mount_attr` of the size given.
    let done = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            target.as_ptr(),
            flags,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    if done == 0 {
        return Ok(());
    }
    if io::Error::last_os_error().raw_os_error() == Some(libc::ENOSYS) {
        return fallback();
    }
    Err(io::Error::last_os_error())
}

/// Remounts the mount at `target` read-only, keeping `flags` (a user namespace may not change
/// them). Only that mount, not those beneath it: the fallback for kernels before 5.12.
pub(crate) fn remount_read_only(target: &CString, flags: libc::c_ulong) -> io::Result<()> {
    // SAFETY: a NUL-terminated path, null otherwise, as mount(2) allows.
    check(unsafe {
        libc::mount(
            std::ptr::null(),
            target.as_ptr(),
            std::ptr::null(),
            libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | flags,
            std::ptr::null(),
        )
    })
}

/// The flags to remount `path`'s mount read-only with, keeping the others (a user namespace
/// may not change them).
pub(crate) fn remount_flags(path: &CString) -> libc::c_ulong {
    let mut stat = std::mem::MaybeUninit::<libc::statvfs>::zeroed();
    // SAFETY: `path` is NUL-terminated and `stat` is a valid place for a `statvfs`.
    if unsafe { libc::statvfs(path.as_ptr(), stat.as_mut_ptr()) } != 0 {
        return 0;
    }
    // SAFETY: `statvfs` succeeded, so it filled `stat`.
    let flags = unsafe { stat.assume_init() }.f_flag;
    let mut mount_flags = 0;
    for (statvfs_flag, mount_flag) in [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
    ] {
        if flags & statvfs_flag != 0 {
            mount_flags |= mount_flag;
        }
    }
    mount_flags
        | if flags & libc::ST_NOATIME != 0 {
            libc::MS_NOATIME
        } else if flags & libc::ST_RELATIME != 0 {
            libc::MS_RELATIME
        } else {
            libc::MS_STRICTATIME
        }
}

fn check(result: libc::c_int) -> io::Result<()> {
    if result < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}
