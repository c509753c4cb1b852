//! The threads sync tools run on: bounded, reused while busy, never shared by two calls at
//! once, and never waited for at exit.
//!
//! A sync tool runs on a thread of its own so it cannot stall the async runtime, and a
//! thread that hangs only loses that thread. Starting a thread per call costs tens of
//! microseconds, so finished threads wait for the next call (for up to 10 s) instead of
//! exiting. Unlike Tokio's blocking pool, these threads never hold up the runtime's shutdown.
//!
//! The pool holds at most `limit` threads. A call whose caller stopped waiting (a timeout, a
//! cancellation) keeps its thread until the tool returns, and counts against the limit as
//! *abandoned*: a tool that ignores its cancellation can exhaust the pool, but never the
//! process. When every thread is busy, a call waits for one (within its own timeout).

use std::sync::atomic::{AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// How long an idle thread waits for another call before it exits.
const IDLE_TIMEOUT: Duration = Duration::from_secs(10);

/// The default most threads for sync tools, per executor.
pub(crate) const DEFAULT_SYNC_THREADS: usize = 64;

/// A job, and the slot it holds until its worker is idle again: released only then, so the
/// next caller finds that worker idle instead of starting a thread past the limit.
struct Job {
    run: Box<dyn FnOnce() + Send + 'static>,
    slot: OwnedSemaphorePermit,
}

/// An idle worker, by the channel that hands it its next job.
struct Idle {
    id: u64,
    jobs: Sender<Job>,
}

/// What the pool of sync-tool threads is doing, as
/// [`Executor::metrics`](crate::executor::Executor::metrics) reports it.
///
/// ```
/// # use std::sync::Arc;
/// # use toolwright_runtime::{Executor, ToolRegistry};
/// let executor = Executor::builder(Arc::new(ToolRegistry::new())).max_sync_threads(4).build();
/// let threads = executor.metrics().sync_threads;
/// assert_eq!((threads.limit, threads.busy, threads.abandoned), (4, 0, 0));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncThreadStats {
    /// The most threads the pool starts
    /// ([`ExecutorBuilder::max_sync_threads`](crate::executor::ExecutorBuilder::max_sync_threads)).
    pub limit: usize,
    /// Threads alive now, busy or idle.
    pub threads: usize,
    /// Threads running a call now.
    pub busy: usize,
    /// Of the busy threads, those whose caller stopped waiting (timed out or cancelled) while
    /// the tool still runs: a tool that ignores its cancellation shows here.
    pub abandoned: usize,
}

/// A bounded pool of threads for sync tools.
pub(crate) struct Pool {
    idle: Mutex<Vec<Idle>>,
    next_id: AtomicU64,
    /// One permit per thread the pool may have busy; a job holds one while it runs.
    permits: Arc<Semaphore>,
    limit: usize,
    threads: AtomicUsize,
    busy: AtomicUsize,
    abandoned: AtomicUsize,
}

/// A job's state, shared by the job and the caller waiting for it.
const RUNNING: u8 = 0;
const DONE: u8 = 1;
const ABANDONED: u8 = 2;

/// The caller's side of a running job: dropping it before the job is done marks the job
/// abandoned, until it returns.
pub(crate) struct JobHandle {
    pool: Arc<Pool>,
    state: Arc<AtomicU8>,
}

impl JobHandle {
    /// The caller got the job's result: the tool has returned, so the job is not abandoned
    /// even if its thread has not finished its bookkeeping yet.
    pub(crate) fn completed(&self) {
        let _ = self
            .state
            .compare_exchange(RUNNING, DONE, Ordering::SeqCst, Ordering::SeqCst);
    }
}

impl Drop for JobHandle {
    fn drop(&mut self) {
        // Counted first, so the job's decrement (which can only follow the swap) never
        // comes before it.
        self.pool.abandoned.fetch_add(1, Ordering::SeqCst);
        if self
            .state
            .compare_exchange(RUNNING, ABANDONED, Ordering::SeqCst, Ordering::SeqCst)
            .is_err()
        {
            self.pool.abandoned.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

impl Pool {
    /// A pool of at most `limit` threads (at least 1).
    pub(crate) fn new(limit: usize) -> Arc<Pool> {
        let limit = limit.max(1);
        Arc::new(Pool {
            idle: Mutex::new(Vec::new()),
            next_id: AtomicU64::new(0),
            permits: Arc::new(Semaphore::new(limit)),
            limit,
            threads: AtomicUsize::new(0),
            busy: AtomicUsize::new(0),
            abandoned: AtomicUsize::new(0),
        })
    }

    /// Waits until a thread is free for one more job.
    pub(crate) async fn slot(&self) -> OwnedSemaphorePermit {
        // The semaphore is never closed, so this cannot fail; if it ever did, a permit from
        // a fresh semaphore keeps the call going rather than failing it.
        match Arc::clone(&self.permits).acquire_owned().await {
            Ok(permit) => permit,
            Err(_) => Arc::new(Semaphore::new(1))
                .try_acquire_owned()
                .unwrap_or_else(|_| unreachable!("a new semaphore has its permit")),
        }
    }

    /// What the pool is doing now.
    pub(crate) fn stats(&self) -> SyncThreadStats {
        SyncThreadStats {
            limit: self.limit,
            threads: self.threads.load(Ordering::SeqCst),
            busy: self.busy.load(Ordering::SeqCst),
            abandoned: self.abandoned.load(Ordering::SeqCst),
        }
    }

    /// Runs `job` on an idle worker thread, or on a new one, holding `slot` until it returns.
    pub(crate) fn run(
        self: &Arc<Self>,
        slot: OwnedSemaphorePermit,
        job: impl FnOnce() + Send + 'static,
    ) -> std::io::Result<JobHandle> {
        let state = Arc::new(AtomicU8::new(RUNNING));
        let handle = JobHandle {
            pool: Arc::clone(self),
            state: Arc::clone(&state),
        };
        let pool = Arc::clone(self);
        pool.busy.fetch_add(1, Ordering::SeqCst);
        let job_state = Arc::clone(&state);
        let wrapped = Job {
            run: Box::new(move || {
                job();
                if job_state.swap(DONE, Ordering::SeqCst) == ABANDONED {
                    pool.abandoned.fetch_sub(1, Ordering::SeqCst);
                }
                pool.busy.fetch_sub(1, Ordering::SeqCst);
            }),
            slot,
        };
        match self.hand_over(wrapped) {
            Ok(()) => Ok(handle),
            Err(error) => {
                self.busy.fetch_sub(1, Ordering::SeqCst);
                // Not abandoned: it never ran.
                handle.completed();
                Err(error)
            }
        }
    }

    fn hand_over(self: &Arc<Self>, mut job: Job) -> std::io::Result<()> {
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

    fn spawn(self: &Arc<Self>, first: Job) -> std::io::Result<()> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let pool = Arc::clone(self);
        self.threads.fetch_add(1, Ordering::SeqCst);
        let spawned = std::thread::Builder::new()
            .name(format!("tool-sync-{id}"))
            .spawn(move || {
                pool.work(id, first);
                pool.threads.fetch_sub(1, Ordering::SeqCst);
            });
        if let Err(error) = spawned {
            self.threads.fetch_sub(1, Ordering::SeqCst);
            return Err(error);
        }
        Ok(())
    }

    fn work(&self, id: u64, first: Job) {
        let (sender, receiver): (Sender<Job>, Receiver<Job>) = mpsc::channel();
        let mut job = first;
        loop {
            let Job { run, slot } = job;
            run();
            self.idle
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(Idle {
                    id,
                    jobs: sender.clone(),
                });
            drop(slot);
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

    fn block_on<F: std::future::Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(future)
    }

    #[test]
    fn threads_are_reused_and_a_hung_job_does_not_block_others() {
        let pool = Pool::new(4);
        let (done, finished) = mpsc::channel();
        // A job that never finishes holds its own thread only.
        let slot = block_on(pool.slot());
        let _hung = pool
            .run(slot, || {
                loop {
                    std::thread::park();
                }
            })
            .unwrap();
        let mut names = std::collections::BTreeSet::new();
        for i in 0..20 {
            let done = done.clone();
            let slot = block_on(pool.slot());
            let _handle = pool
                .run(slot, move || {
                    let _ = done.send((i, std::thread::current().name().map(str::to_owned)));
                })
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
        assert_eq!(pool.stats().threads, 2);
    }

    #[test]
    fn the_limit_holds_and_abandoned_jobs_count_against_it() {
        let pool = Pool::new(2);
        let (release, released) = mpsc::channel::<()>();
        let released = Arc::new(Mutex::new(released));
        let mut handles = Vec::new();
        for _ in 0..2 {
            let released = Arc::clone(&released);
            let slot = block_on(pool.slot());
            handles.push(
                pool.run(slot, move || {
                    let _ = released.lock().unwrap().recv();
                })
                .unwrap(),
            );
        }
        // Both threads busy: no slot for a third job.
        assert!(Arc::clone(&pool.permits).try_acquire_owned().is_err());
        assert_eq!(
            pool.stats(),
            SyncThreadStats {
                limit: 2,
                threads: 2,
                busy: 2,
                abandoned: 0
            }
        );
        // The callers stop waiting: the jobs are abandoned, and still hold their threads.
        handles.clear();
        assert_eq!(pool.stats().abandoned, 2);
        assert!(Arc::clone(&pool.permits).try_acquire_owned().is_err());
        // One returns: its slot is free again and it is no longer abandoned.
        release.send(()).unwrap();
        let slot = block_on(pool.slot());
        assert_eq!(pool.stats().abandoned, 1);
        drop(slot);
        release.send(()).unwrap();
        let _both = block_on(async { (pool.slot().await, pool.slot().await) });
        assert_eq!(pool.stats().abandoned, 0);
        assert_eq!(pool.stats().busy, 0);
    }
}
