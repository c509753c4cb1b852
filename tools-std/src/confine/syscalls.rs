//! The system-call policy of a confined command (seccomp).
//!
//! A deny-list on top of the other walls, not an allow-list: the command has no capability
//! in any namespace but its own, so most of what a list would forbid the kernel refuses
//! already; the filter takes away what an unprivileged process could still do to the person
//! or the host, and the attack surface build toolchains never need. An allow-list that keeps
//! cargo, rustc, cc, git, python and node working is long and differs by libc version and
//! architecture; one system call missing breaks a build in ways nobody can diagnose from the
//! error. The denied calls fail with `EPERM` (`clone3` and `openat2` with `ENOSYS`, so that
//! the C library falls back to `clone` and `openat`, whose arguments the filter can see).
//! No file the command writes gets a set-user-id or set-group-id bit: `chmod`, `mknod` and
//! a creating `open` with one fail, as systemd's `RestrictSUIDSGID` does. A system call of another
//! architecture (32-bit `int 0x80`) kills the process, as seccompiler's filters do.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// System calls that always fail: acting on the host (time, hostname, reboot, modules,
/// keyrings, mounts, new namespaces), opening files by handle (which bypasses paths and
/// mounts), reading the kernel log, and interfaces that bypass this filter (`io_uring`) or
/// help exploit the kernel (`userfaultfd`, `bpf`, `perf_event_open`).
const DENIED: &[libc::c_long] = &[
    libc::SYS_open_by_handle_at,
    libc::SYS_name_to_handle_at,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_sethostname,
    libc::SYS_setdomainname,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_reboot,
    libc::SYS_settimeofday,
    libc::SYS_clock_settime,
    libc::SYS_clock_adjtime,
    libc::SYS_adjtimex,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_chroot,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_userfaultfd,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_syslog,
    libc::SYS_acct,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_quotactl,
    libc::SYS_vhangup,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_iopl,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_ioperm,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_uselib,
];

/// `ioctl` requests that act on the person's terminal: pushing input (`TIOCSTI`), the
/// console's `TIOCLINUX` (which can also push input), changing the line discipline, and
/// everything that changes a terminal the program inherited (its session has none of its
/// own, and the view no `/dev/ptmx` to make one, so these reach only the person's): its
/// modes (echo off, a password typed next shows), its size, its flow (output stopped), its
/// queues (what the person typed thrown away), hanging it up, signalling its processes,
/// redirecting the console to it, taking it as a controlling terminal.
const DENIED_IOCTLS: &[libc::c_ulong] = &[
    libc::TIOCSTI,
    libc::TIOCLINUX,
    libc::TIOCSETD,
    libc::TCSETS,
    libc::TCSETSW,
    libc::TCSETSF,
    libc::TCSETA,
    libc::TCSETAW,
    libc::TCSETAF,
    libc::TCSETS2,
    libc::TCSETSW2,
    libc::TCSETSF2,
    libc::TCSETX,
    libc::TCSETXF,
    libc::TCSETXW,
    libc::TIOCSWINSZ,
    libc::TCXONC,
    libc::TCFLSH,
    libc::TIOCVHANGUP,
    libc::TIOCSIG,
    libc::TIOCCONS,
    libc::TIOCSCTTY,
    libc::TIOCEXCL,
];

/// The mode bits that make a program run as its file's owner or group: a confined program may
/// not set them on a file it writes, which a person or a service of the host could later run
/// (outside the view, where the workspace or a granted directory is not mounted `nosuid`).
const SET_ID_BITS: &[libc::mode_t] = &[libc::S_ISUID, libc::S_ISGID];

/// The `open` flags that create a file with a mode: `O_CREAT`, and `O_TMPFILE`'s own bit
/// (`O_TMPFILE` is that bit and `O_DIRECTORY`).
const CREATING_FLAGS: &[libc::c_int] = &[libc::O_CREAT, libc::O_TMPFILE & !libc::O_DIRECTORY];

/// System calls that set a mode, with the index of the mode argument and, for the `open`
/// family, of the flags argument (the mode counts only when the flags create a file).
#[cfg(target_arch = "x86_64")]
const MODE_SETTERS: &[(libc::c_long, u8, Option<u8>)] = &[
    (libc::SYS_chmod, 1, None),
    (libc::SYS_fchmod, 1, None),
    (libc::SYS_fchmodat, 2, None),
    (libc::SYS_fchmodat2, 2, None),
    (libc::SYS_mknod, 1, None),
    (libc::SYS_mknodat, 2, None),
    (libc::SYS_creat, 1, None),
    (libc::SYS_open, 2, Some(1)),
    (libc::SYS_openat, 3, Some(2)),
];
#[cfg(not(target_arch = "x86_64"))]
const MODE_SETTERS: &[(libc::c_long, u8, Option<u8>)] = &[
    (libc::SYS_fchmod, 1, None),
    (libc::SYS_fchmodat, 2, None),
    (libc::SYS_fchmodat2, 2, None),
    (libc::SYS_mknodat, 2, None),
    (libc::SYS_openat, 3, Some(2)),
];

/// `clone` flags that make new namespaces (where the command would hold capabilities again).
const NAMESPACE_FLAGS: &[libc::c_int] = &[
    libc::CLONE_NEWNS,
    libc::CLONE_NEWCGROUP,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWNET,
];

/// The filters of a command, installed in this order: the main policy, then the one that
/// answers `ENOSYS` (`clone3`, `openat2`).
/// `network`: whether IP sockets may be created.
pub(crate) fn filters(network: bool) -> Result<Vec<BpfProgram>, seccompiler::Error> {
    let arch = TargetArch::try_from(std::env::consts::ARCH)?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let mut clone3: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();

    // socket(): any family but UNIX sockets (and, with the network, IP and route netlink,
    // which name resolution reads).
    let mut allowed_families = vec![libc::AF_UNIX];
    if network {
        allowed_families.extend([libc::AF_INET, libc::AF_INET6, libc::AF_NETLINK]);
    }
    let other_family = SeccompRule::new(
        allowed_families
            .iter()
            .map(|family| {
                SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, *family as u64)
            })
            .collect::<Result<Vec<_>, _>>()?,
    )?;
    let ioctls = DENIED_IOCTLS
        .iter()
        .map(|request| {
            SeccompRule::new(vec![SeccompCondition::new(
                1,
                SeccompCmpArgLen::Dword,
                SeccompCmpOp::Eq,
                u64::from(*request as u32),
            )?])
        })
        .collect::<Result<Vec<_>, _>>()?;
    let new_namespace = NAMESPACE_FLAGS
        .iter()
        .map(|flag| {
            let flag = *flag as u64;
            SeccompRule::new(vec![SeccompCondition::new(
                0,
                SeccompCmpArgLen::Qword,
                SeccompCmpOp::MaskedEq(flag),
                flag,
            )?])
        })
        .collect::<Result<Vec<_>, _>>()?;

    // A set-user-id or set-group-id bit in the mode of a call that sets one (and, for
    // `open`, creates the file). `openat2` takes its mode in a structure the filter cannot
    // read: it fails with `ENOSYS`, and the C library falls back to `openat`.
    let set_id_rules =
        |mode: u8, flags: Option<u8>| -> Result<Vec<SeccompRule>, seccompiler::Error> {
            let mut rules = Vec::new();
            for bit in SET_ID_BITS {
                let bit = u64::from(*bit);
                let mode = SeccompCondition::new(
                    mode,
                    SeccompCmpArgLen::Dword,
                    SeccompCmpOp::MaskedEq(bit),
                    bit,
                )?;
                match flags {
                    None => rules.push(SeccompRule::new(vec![mode])?),
                    Some(flags) => {
                        for creating in CREATING_FLAGS {
                            let creating = *creating as u64;
                            rules.push(SeccompRule::new(vec![
                                SeccompCondition::new(
                                    flags,
                                    SeccompCmpArgLen::Dword,
                                    SeccompCmpOp::MaskedEq(creating),
                                    creating,
                                )?,
                                mode.clone(),
                            ])?);
                        }
                    }
                }
            }
            Ok(rules)
        };
    let mut mode_setters = Vec::new();
    for (call, mode, flags) in MODE_SETTERS {
        mode_setters.push((*call, set_id_rules(*mode, *flags)?));
    }

    // On x86_64 the x32 ABI reaches the same calls with bit 30 set.
    #[cfg(target_arch = "x86_64")]
    let abis: &[i64] = &[0, 0x4000_0000];
    #[cfg(not(target_arch = "x86_64"))]
    let abis: &[i64] = &[0];
    for abi in abis {
        for call in DENIED {
            rules.insert(call | abi, Vec::new());
        }
        rules.insert(libc::SYS_socket | abi, vec![other_family.clone()]);
        rules.insert(libc::SYS_ioctl | abi, ioctls.clone());
        rules.insert(libc::SYS_clone | abi, new_namespace.clone());
        clone3.insert(libc::SYS_clone3 | abi, Vec::new());
        clone3.insert(libc::SYS_openat2 | abi, Vec::new());
        for (call, rules_of_call) in &mode_setters {
            rules.insert(call | abi, rules_of_call.clone());
        }
    }
    let program = |rules, errno: i32| -> Result<BpfProgram, seccompiler::Error> {
        let filter = SeccompFilter::new(
            rules,
            SeccompAction::Allow,
            SeccompAction::Errno(errno as u32),
            arch,
        )?;
        Ok(BpfProgram::try_from(filter)?)
    };
    let mut programs = vec![program(rules, libc::EPERM)?, program(clone3, libc::ENOSYS)?];
    #[cfg(target_arch = "x86_64")]
    programs.push(no_x32());
    Ok(programs)
}

/// `__X32_SYSCALL_BIT`: an x32 system call's number has it.
#[cfg(target_arch = "x86_64")]
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

/// Every system call of the x32 ABI fails with `ENOSYS`. Its calls come with x86_64's
/// architecture and its own numbers, and a dozen of them (`ioctl`, `execve`, `ptrace`,
/// `setsockopt`, ... from 512 on) have no x86_64 twin the policy names: on a kernel built
/// with x32, `ioctl` 514 would take `TIOCSTI` past the `ioctl` rules. Nothing a confined
/// program needs is an x32 program.
#[cfg(target_arch = "x86_64")]
fn no_x32() -> BpfProgram {
    use seccompiler::sock_filter;
    // `BPF_LD | BPF_W | BPF_ABS`, `BPF_JMP | BPF_JEQ | BPF_K`, `BPF_JMP | BPF_JGE | BPF_K`,
    // `BPF_RET | BPF_K`.
    const LD_W_ABS: u16 = 0x20;
    const JEQ_K: u16 = 0x15;
    const JGE_K: u16 = 0x35;
    const RET_K: u16 = 0x06;
    /// `AUDIT_ARCH_X86_64`.
    const ARCH: u32 = 0xC000_003E;
    const ALLOW: u32 = 0x7fff_0000;
    const ERRNO: u32 = 0x0005_0000;
    let op = |code, jt, jf, k| sock_filter { code, jt, jf, k };
    vec![
        // `seccomp_data.arch`; other architectures are the first program's business.
        op(LD_W_ABS, 0, 0, 4),
        op(JEQ_K, 0, 3, ARCH),
        // `seccomp_data.nr`.
        op(LD_W_ABS, 0, 0, 0),
        op(JGE_K, 0, 1, X32_SYSCALL_BIT),
        op(RET_K, 0, 0, ERRNO | libc::ENOSYS as u32),
        op(RET_K, 0, 0, ALLOW),
    ]
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_policies_compile() {
        let expected = if cfg!(target_arch = "x86_64") { 3 } else { 2 };
        assert_eq!(super::filters(false).unwrap().len(), expected);
        assert_eq!(super::filters(true).unwrap().len(), expected);
    }

    /// What a classic BPF program of loads, jumps and returns answers for `nr` on `arch`.
    #[cfg(target_arch = "x86_64")]
    fn run(program: &[seccompiler::sock_filter], nr: u32, arch: u32) -> u32 {
        let (mut pc, mut acc) = (0usize, 0u32);
        loop {
            let op = &program[pc];
            pc += 1;
            match op.code {
                0x20 => acc = if op.k == 0 { nr } else { arch },
                0x15 | 0x35 => {
                    let taken = if op.code == 0x15 {
                        acc == op.k
                    } else {
                        acc >= op.k
                    };
                    pc += usize::from(if taken { op.jt } else { op.jf });
                }
                0x06 => return op.k,
                code => panic!("unexpected instruction {code:#x}"),
            }
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn every_x32_system_call_fails() {
        let program = super::no_x32();
        let x86_64 = 0xC000_003E;
        let enosys = 0x0005_0000 | libc::ENOSYS as u32;
        // x32's own ioctl (514) and execve (520), and an x32 read.
        for nr in [514, 520, 0] {
            assert_eq!(run(&program, super::X32_SYSCALL_BIT | nr, x86_64), enosys);
        }
        for nr in [0, 16, 59, 435] {
            assert_eq!(run(&program, nr, x86_64), 0x7fff_0000);
        }
        assert_eq!(run(&program, 0x4000_0202, 0x4000_0003), 0x7fff_0000);
    }
}
