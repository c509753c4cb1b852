//! What the kernel's resource limits cost per confined program: `ROUNDS` rounds, each
//! spawning `/bin/true` confined with no limits of ours, with the sandbox's default (a
//! processes limit: a cgroup made, joined and removed where the host allows), and with every
//! limit (memory, processes, cpu, cpu time, write: more cgroups and a `tmpfs`), interleaved so
//! that the machine's load falls on all three alike. Prints the median and the ratios.
//!
//! `cargo run --release -p benches --bin limits_spawn [ROUNDS]`

use std::process::Command;
use std::time::{Duration, Instant};

use toolwright_std::limits::Limits;
use toolwright_std::sandbox::{Sandbox, limit_mechanisms};

fn spawn(limits: Limits) -> Duration {
    let started = Instant::now();
    let mut command = Command::new("/bin/true");
    let confined = Sandbox::new()
        .limits(limits)
        .confine(&mut command)
        .expect("the sandbox confines /bin/true");
    let status = command.status().expect("/bin/true starts");
    drop(confined);
    assert!(status.success());
    started.elapsed()
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(200);
    println!("mechanisms: {}", limit_mechanisms());
    let every = Limits::none()
        .memory(512 << 20)
        .processes(256)
        .cpu(1.0)
        .cpu_time(60)
        .write(256 << 20);
    let cases = [
        ("no limits", Limits::none()),
        ("processes only", Limits::sandbox_default()),
        ("every limit", every),
    ];
    let mut times = vec![Vec::new(); cases.len()];
    for _ in 0..rounds {
        for (i, (_, limits)) in cases.iter().enumerate() {
            times[i].push(spawn(*limits));
        }
    }
    let medians: Vec<Duration> = times.into_iter().map(median).collect();
    for ((name, _), median) in cases.iter().zip(&medians) {
        let ratio = median.as_secs_f64() / medians[0].as_secs_f64();
        println!("{name:>15}: median {median:?} over {rounds} spawns ({ratio:.2}x no limits)");
    }
}
