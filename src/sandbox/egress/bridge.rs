//! Inside a container, the way to its proxy: the CLI speaks HTTP proxy over TCP
//! (`HTTPS_PROXY=http://127.0.0.1:<port>`), the proxy listens on a Unix socket mounted at
//! [`PROXY_SOCKET`], so the launcher leaves a small relay behind before it becomes the CLI.
//! The relay is the CLI's child; it dies with it (and with the container's PID namespace).

use std::{
    io,
    net::{Ipv4Addr, Shutdown, TcpListener, TcpStream},
    os::unix::net::UnixStream,
    path::{Path, PathBuf},
};

/// Where a container finds its proxy's socket.
pub const PROXY_SOCKET: &str = "/run/ollim/egress.sock";

/// Starts the relay from a fresh loopback port to `socket` in a child process and returns the
/// port. Must run while the process has one thread (the launcher, before it execs).
pub fn start_bridge(socket: &Path) -> io::Result<u16> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    let port = listener.local_addr()?.port();
    let parent = std::process::id();
    // SAFETY: the launcher has a single thread here (it runs before anything could start
    // one), so the child may allocate, start threads and run normal code after `fork`.
    match unsafe { libc::fork() } {
        -1 => Err(io::Error::last_os_error()),
        0 => {
            // SAFETY: `prctl(PR_SET_PDEATHSIG, SIGKILL)` only sets a flag of this process.
            unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
            if std::os::unix::process::parent_id() != parent {
                std::process::exit(0);
            }
            detach_stdio();
            relay_all(&listener, socket);
            std::process::exit(0)
        }
        _ => Ok(port),
    }
}

/// Gives the relay `/dev/null` for stdin, stdout and stderr, so it never holds the pipes the
/// bot reads the CLI through (their end is how the bot sees the CLI end).
fn detach_stdio() {
    let Ok(null) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")
    else {
        return;
    };
    let null = std::os::fd::AsRawFd::as_raw_fd(&null);
    for fd in 0..3 {
        // SAFETY: `dup2` onto the standard descriptors of this single-threaded child.
        unsafe { libc::dup2(null, fd) };
    }
}

fn relay_all(listener: &TcpListener, socket: &Path) {
    for stream in listener.incoming() {
        let Ok(tcp) = stream else { continue };
        let socket = socket.to_path_buf();
        std::thread::spawn(move || relay(&tcp, &socket));
    }
}

/// Copies both ways between one client and one connection to the proxy, until both ends
/// are done.
fn relay(tcp: &TcpStream, socket: &PathBuf) {
    let Ok(unix) = UnixStream::connect(socket) else {
        return;
    };
    // Small writes (a request head, each streamed event) go out at once: with Nagle's
    // algorithm and the client's delayed ACKs each could wait ~40 ms.
    let _ = tcp.set_nodelay(true);
    let (Ok(mut from_client), Ok(mut to_proxy)) = (tcp.try_clone(), unix.try_clone()) else {
        return;
    };
    let upstream = std::thread::spawn(move || {
        let _ = io::copy(&mut from_client, &mut to_proxy);
        let _ = to_proxy.shutdown(Shutdown::Write);
    });
    let (mut from_proxy, mut to_client) = (&unix, tcp);
    let _ = io::copy(&mut from_proxy, &mut to_client);
    let _ = tcp.shutdown(Shutdown::Write);
    let _ = upstream.join();
}
