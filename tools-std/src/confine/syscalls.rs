//! The system-call policy of a confined command (seccomp).
//!
//! A deny-list on top of the other walls, not an allow-list: the command has no capability
//! in any namespace but its own, so most of what a list would forbid the kernel refuses
//! already; the filter takes away what an unprivileged process could still do to the person
//! or the host, and the attack surface build toolchains never need. An allow-list that keeps
//! cargo, rustc, cc, git, python and node working is long and differs by libc version and
//! architecture; one system call missing breaks a build in ways nobody can diagnose from the
//! error. The denied calls fail with `EPERM` (`clone3` with `ENOSYS`, so that the C library
//! falls back to `clone`, whose flags the filter can see). A system call of another
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
/// console's `TIOCLINUX` (which can also push input) and changing the line discipline.
const DENIED_IOCTLS: &[libc::c_ulong] = &[libc::TIOCSTI, libc::TIOCLINUX, libc::TIOCSETD];

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

/// The filters of a command, installed in this order: the main policy, then `clone3`'s.
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
    Ok(vec![
        program(rules, libc::EPERM)?,
        program(clone3, libc::ENOSYS)?,
    ])
}

#[cfg(test)]
mod tests {
    #[test]
    fn both_policies_compile() {
        assert_eq!(super::filters(false).unwrap().len(), 2);
        assert_eq!(super::filters(true).unwrap().len(), 2);
    }
}
