//! The relay of a confined program that may reach named hosts: inside its network
//! namespace, a process that listens on the namespace's loopback and passes every
//! connection to the egress proxy's UNIX socket (in the program's view). It runs confined
//! like the program (it is forked after Landlock and seccomp), between fork and exec, so it
//! only makes system calls on data prepared before the fork, and never allocates.

use std::io;
use std::os::fd::RawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The port the relay listens on, on the namespace's own `127.0.0.1` (which holds nothing
/// else); the only TCP port Landlock lets the program connect to.
pub(super) const PORT: u16 = 3128;

/// The proxy's address, in the form `connect(2)` takes.
pub(super) struct Relay {
    address: libc::sockaddr_un,
    length: libc::socklen_t,
}

impl Relay {
    /// The relay to the proxy listening at `socket`.
    pub(super) fn new(socket: &Path) -> Result<Relay, String> {
        // SAFETY: `sockaddr_un` is plain data; all zeroes is a valid (empty) address.
        let mut address: libc::sockaddr_un = unsafe { std::mem::zeroed() };
        address.sun_family = libc::AF_UNIX as libc::sa_family_t;
        let bytes = socket.as_os_str().as_bytes();
        if bytes.len() >= address.sun_path.len() || bytes.contains(&0) {
            return Err(format!(
                "the egress proxy's socket path `{}` is longer than a UNIX socket's {} bytes; \
                 set TMPDIR to a shorter directory",
                socket.display(),
                address.sun_path.len() - 1
            ));
        }
        for (slot, byte) in address.sun_path.iter_mut().zip(bytes) {
            *slot = *byte as libc::c_char;
        }
        let length = std::mem::size_of::<libc::sa_family_t>() + bytes.len() + 1;
        Ok(Relay {
            address,
            length: length as libc::socklen_t,
        })
    }

    /// In the command, while it still holds its capabilities in its namespaces: brings the
    /// loopback up and listens on `127.0.0.1:PORT`. The listener's descriptor.
    pub(super) fn listen(&self) -> io::Result<RawFd> {
        loopback_up()?;
        // SAFETY: socket with integer arguments.
        let listener =
            unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
        check(listener)?;
        let address = libc::sockaddr_in {
            sin_family: libc::AF_INET as libc::sa_family_t,
            sin_port: PORT.to_be(),
            sin_addr: libc::in_addr {
                s_addr: u32::from_be_bytes([127, 0, 0, 1]).to_be(),
            },
            sin_zero: [0; 8],
        };
        // SAFETY: a valid `sockaddr_in` of the length given.
        let bound = unsafe {
            libc::bind(
                listener,
                (&address as *const libc::sockaddr_in).cast(),
                std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
            )
        };
        // SAFETY: listen with integer arguments.
        let listening = check(bound).and_then(|()| check(unsafe { libc::listen(listener, 128) }));
        if let Err(error) = listening {
            close(listener);
            return Err(error);
        }
        Ok(listener)
    }

    /// In the command, after Landlock and seccomp: forks the relay, which serves `listener`
    /// until the namespace ends (when the program, its PID 1, exits). The command keeps no
    /// copy of the listener.
    pub(super) fn spawn(&self, listener: RawFd) -> io::Result<()> {
        // SAFETY: fork in a single-threaded process; the child only makes system calls.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            let error = io::Error::last_os_error();
            close(listener);
            return Err(error);
        }
        if pid > 0 {
            close(listener);
            return Ok(());
        }
        // The relay holds nothing of the program's: not its output (which would keep a
        // reader waiting), nor `std`'s exec-error pipe (which would keep `spawn` waiting).
        close_all_except(listener);
        // SAFETY: setting dispositions: connection processes are reaped by the kernel, and
        // a peer that went away is an error, not a signal.
        unsafe {
            libc::signal(libc::SIGCHLD, libc::SIG_IGN);
            libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        }
        loop {
            // SAFETY: accept4 without an address.
            let client = unsafe {
                libc::accept4(
                    listener,
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                    libc::SOCK_CLOEXEC,
                )
            };
            if client < 0 {
                let error = io::Error::last_os_error().raw_os_error();
                if matches!(error, Some(libc::EINTR | libc::ECONNABORTED)) {
                    continue;
                }
                // SAFETY: `_exit` does not return.
                unsafe { libc::_exit(1) };
            }
            // SAFETY: as above.
            let child = unsafe { libc::fork() };
            if child == 0 {
                close(listener);
                self.pump(client);
                // SAFETY: as above.
                unsafe { libc::_exit(0) };
            }
            // Also when the fork failed (the task limit): the client sees the connection
            // close.
            close(client);
        }
    }

    /// Connects to the proxy and copies bytes both ways until both sides are done.
    fn pump(&self, client: RawFd) {
        // SAFETY: socket with integer arguments.
        let proxy =
            unsafe { libc::socket(libc::AF_UNIX, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
        if proxy < 0 {
            return;
        }
        // SAFETY: a valid `sockaddr_un` of the length given.
        let connected = unsafe {
            libc::connect(
                proxy,
                (&self.address as *const libc::sockaddr_un).cast(),
                self.length,
            )
        };
        if connected != 0 {
            return;
        }
        let mut buffer = [0u8; 16 * 1024];
        // Each direction: (from, to, still open).
        let mut ways = [(client, proxy, true), (proxy, client, true)];
        while ways.iter().any(|way| way.2) {
            let mut polls = [
                libc::pollfd {
                    fd: if ways[0].2 { client } else { -1 },
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: if ways[1].2 { proxy } else { -1 },
                    events: libc::POLLIN,
                    revents: 0,
                },
            ];
            // SAFETY: two valid `pollfd`s; a negative descriptor is ignored.
            let ready = unsafe { libc::poll(polls.as_mut_ptr(), 2, -1) };
            if ready < 0 {
                if io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                return;
            }
            for (way, poll) in ways.iter_mut().zip(polls) {
                if !way.2 || poll.revents == 0 {
                    continue;
                }
                // SAFETY: `buffer` is valid for its length.
                let read =
                    unsafe { libc::recv(way.0, buffer.as_mut_ptr().cast(), buffer.len(), 0) };
                if read <= 0 {
                    way.2 = false;
                    // SAFETY: shutdown with integer arguments.
                    unsafe { libc::shutdown(way.1, libc::SHUT_WR) };
                    continue;
                }
                if !send_all(way.1, &buffer[..read as usize]) {
                    return;
                }
            }
        }
    }
}

/// Sends all of `data`; `false` when the peer is gone.
fn send_all(fd: RawFd, mut data: &[u8]) -> bool {
    while !data.is_empty() {
        // SAFETY: `data` is valid for its length.
        let sent = unsafe { libc::send(fd, data.as_ptr().cast(), data.len(), libc::MSG_NOSIGNAL) };
        if sent < 0 {
            if io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                continue;
            }
            return false;
        }
        data = &data[sent as usize..];
    }
    true
}

/// Brings the namespace's loopback up (it starts down).
fn loopback_up() -> io::Result<()> {
    // SAFETY: socket with integer arguments.
    let socket = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    check(socket)?;
    // SAFETY: `ifreq` is plain data; all zeroes is valid.
    let mut request: libc::ifreq = unsafe { std::mem::zeroed() };
    for (slot, byte) in request.ifr_name.iter_mut().zip(b"lo") {
        *slot = *byte as libc::c_char;
    }
    // SAFETY: SIOCGIFFLAGS and SIOCSIFFLAGS read and write a valid `ifreq`.
    let done = unsafe {
        check(libc::ioctl(socket, libc::SIOCGIFFLAGS, &mut request)).and_then(|()| {
            request.ifr_ifru.ifru_flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
            check(libc::ioctl(socket, libc::SIOCSIFFLAGS, &request))
        })
    };
    close(socket);
    done
}

/// Closes every descriptor but `keep`.
fn close_all_except(keep: RawFd) {
    let last = keep as libc::c_uint;
    // SAFETY: close_range with integer arguments.
    let done = unsafe {
        (last == 0 || libc::syscall(libc::SYS_close_range, 0, last - 1, 0) == 0)
            && libc::syscall(libc::SYS_close_range, last + 1, libc::c_uint::MAX, 0) == 0
    };
    if !done {
        // Kernels before 5.9: one by one, up to a generous bound.
        for fd in (0..65_536).filter(|fd| *fd != keep) {
            close(fd);
        }
    }
}

fn close(fd: RawFd) {
    // SAFETY: closing a descriptor this process owns.
    unsafe { libc::close(fd) };
}

fn check(result: libc::c_int) -> io::Result<()> {
    if result < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}
