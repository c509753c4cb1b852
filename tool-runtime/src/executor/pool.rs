//! The threads sync tools run on: reused while busy, never shared by two calls at once, and
//! never waited for at exit.
//!
//! A sync tool runs on a thread of its own so it cannot stall the async runtime, and a
//! thread that hangs only loses that thread. Starting a thread per call costs tens of
//! microseconds, so finished threads wait for the next call (for up to 10 s) instead of
//! exiting. Unlike Tokio's blocking pool, these threads never hold up the runtime's shutdown.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{LazyLock, Mutex, PoisonError};
use std::time::Duration;

/// How long an idle thread waits for another call before it exits.
const IDLE_TIMEOUT: Duration = Duration::from_secs(10);

type Job = Box<dyn FnOnce() + Send + 'static>;

/// An idle worker, by the channel that hands it its next job.
struct Idle {
    id: u64,
    jobs: Sender<Job>,
}

#[derive(Default)]
struct Pool {
    idle: Mutex<Vec<Idle>>,
    next_id: std::sync::atomic::AtomicU64,
}

static POOL: LazyLock<Pool> = LazyLock::new(Pool::default);

/// Runs `job` on an idle worker thread, or on a new one.
pub(crate) fn run(job: impl FnOnce() + Send + 'static) -> std::io::Result<()> {
    POOL.run(Box::new(job))
}

impl Pool {
    fn run(&'static self, mut job: Job) -> std::io::Result<()> {
        loop {
            let idle = self
                .idle
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .pop();
            match idle {
                Some(worker) => match worker.jobs.send(job) {
                    Ok(()) => return Ok(()),
                    // The worker exited in between; try the next one.
                    Err(mpsc::SendError(returned)) => job = returned,
                },
                None => return self.spawn(job),
            }
        }
    }

    fn spawn(&'static self, first: Job) -> std::io::Result<()> {
        let id = self
            .next_id
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        std::thread::Builder::new()
            .name(format!("tool-sync-{id}"))
            .spawn(move || self.work(id, first))?;
        Ok(())
    }

    fn work(&self, id: u64, first: Job) {
        let (sender, receiver): (Sender<Job>, Receiver<Job>) = mpsc::channel();
        let mut job = first;
        loop {
            job();
            self.idle
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(Idle {
                    id,
                    jobs: sender.clone(),
                });
            match receiver.recv_timeout(IDLE_TIMEOUT) {
                Ok(next) => job = next,
                Err(RecvTimeoutError::Timeout) => {
                    let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
                    match idle.iter().position(|worker| worker.id == id) {
                        Some(position) => {
                            idle.swap_remove(position);
                            return;
                        }
                        // A caller took this worker just now and is sending it a job.
                        None => {
                            drop(idle);
                            match receiver.recv() {
                                Ok(next) => job = next,
                                Err(_) => return,
                            }
                        }
                    }
                }
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
    }

    #[cfg(test)]
    fn idle_workers(&self) -> usize {
        self.idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_are_reused_and_a_hung_job_does_not_block_others() {
        // A pool of the test's own, so no other test's jobs take or add workers.
        let pool: &'static Pool = Box::leak(Box::default());
        let (done, finished) = mpsc::channel();
        // A job that never finishes holds its own thread only.
        pool.run(Box::new(|| {
            loop {
                std::thread::park();
            }
        }))
        .unwrap();
        let mut names = std::collections::BTreeSet::new();
        for i in 0..20 {
            let done = done.clone();
            pool.run(Box::new(move || {
                let _ = done.send((i, std::thread::current().name().map(str::to_owned)));
            }))
            .unwrap();
            // Wait for the event (the job ran), however long the machine takes...
            let (ran, name) = finished.recv().unwrap();
            assert_eq!(ran, i);
            names.insert(name);
            // ...and for its worker to be idle again, which it does right after the job.
            while pool.idle_workers() == 0 {
                std::thread::yield_now();
            }
        }
        // Every job after the first found the first one's thread idle: one thread for all,
        // besides the hung one, whatever the load.
        assert_eq!(names.len(), 1, "threads were not reused: {names:?}");
        assert_eq!(pool.idle_workers(), 1);
    }
}
