//! How the expansion runs a plain handler: on threads of the crate's own,
//! which the process does not wait for as it exits.

use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

use crate::error::McpError;

/// Run a plain (`fn`, not `async fn`) handler on a thread of its own, so a
/// handler that computes for seconds holds no worker thread that reads
/// requests or runs other calls. `#[mcp_tool]` wraps every `fn` handler in it.
///
/// The thread comes from a pool of the crate's own rather than tokio's
/// blocking pool: a runtime waits for its blocking tasks as it is dropped (as
/// `#[tokio::main]` returns), so a handler still computing when the shutdown's
/// grace period ended, its call answered with the shutdown's error already,
/// held the process until it returned. The handler runs inside the runtime's
/// context, as on tokio's pool (`Handle::current`, `tokio::spawn` work).
///
/// Outside a tokio runtime the handler runs in place. A panic in the handler
/// resumes in the caller (the server turns it into an internal error result).
/// A blocking handler cannot be aborted when the client cancels its call: a
/// long one checks [`Context::is_cancelled`](crate::call::Context::is_cancelled) now and then.
pub async fn run_blocking<T, F>(handler: F) -> Result<T, McpError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, McpError> + Send + 'static,
{
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return handler();
    };
    let (answer, answered) = tokio::sync::oneshot::channel();
    Threads::get().run(Box::new(move || {
        let _entered = runtime.enter();
        // The caller may be gone (its call cancelled): nobody to answer then.
        let _ = answer.send(std::panic::catch_unwind(AssertUnwindSafe(handler)));
    }));
    match answered.await {
        Ok(Ok(result)) => result,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(_) => {
            Err(McpError::internal_error("The tool call could not start: the server has no thread to run it on."))
        }
    }
}

type Job = Box<dyn FnOnce() + Send>;

/// The most threads the pool starts (tokio's blocking pool has as many); past
/// them, a handler waits for one to be free.
const MAX_THREADS: usize = 512;
/// How long a thread with nothing to do waits for a handler before it ends.
const KEEP_ALIVE: Duration = Duration::from_secs(10);

/// The threads plain handlers run on: started as needed, ended after
/// [`KEEP_ALIVE`] idle, never joined.
struct Threads {
    queue: Mutex<Queue>,
    ready: Condvar,
}

struct Queue {
    /// Handlers waiting for a thread: each has one in `waiting` (woken for
    /// it) unless [`MAX_THREADS`] run.
    jobs: VecDeque<Job>,
    /// Threads waiting for a handler.
    waiting: usize,
    threads: usize,
}

impl Threads {
    fn get() -> &'static Self {
        static THREADS: OnceLock<Threads> = OnceLock::new();
        THREADS.get_or_init(|| Self {
            queue: Mutex::new(Queue { jobs: VecDeque::new(), waiting: 0, threads: 0 }),
            ready: Condvar::new(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Run `job` on a waiting thread no other job claimed, else on a new one,
    /// else (at [`MAX_THREADS`]) on the first that is free. A thread that
    /// cannot be started drops `job`, which its caller sees as no answer.
    fn run(&'static self, job: Job) {
        let mut queue = self.lock();
        if queue.waiting > queue.jobs.len() || queue.threads >= MAX_THREADS {
            queue.jobs.push_back(job);
            self.ready.notify_one();
            return;
        }
        queue.threads += 1;
        drop(queue);
        let started = std::thread::Builder::new().name("mcp-blocking".to_owned()).spawn(move || self.work(job));
        if started.is_err() {
            self.lock().threads -= 1;
        }
    }

    fn work(&self, first: Job) {
        first();
        let mut queue = self.lock();
        loop {
            if let Some(job) = queue.jobs.pop_front() {
                drop(queue);
                job();
                queue = self.lock();
                continue;
            }
            queue.waiting += 1;
            let (woken, waited) = self.ready.wait_timeout(queue, KEEP_ALIVE).unwrap_or_else(PoisonError::into_inner);
            queue = woken;
            queue.waiting -= 1;
            if waited.timed_out() && queue.jobs.is_empty() {
                queue.threads -= 1;
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::run_blocking;
    use crate::error::McpError;

    #[tokio::test]
    async fn a_handler_runs_on_a_thread_of_the_pool_and_gives_its_result() {
        let sum = run_blocking(|| Ok::<_, McpError>((1..=100u32).sum::<u32>())).await;
        assert_eq!(sum.unwrap(), 5050);
        let thread = run_blocking(|| Ok::<_, McpError>(std::thread::current().name().map(str::to_owned))).await;
        assert_eq!(thread.unwrap().as_deref(), Some("mcp-blocking"));
    }

    #[tokio::test]
    async fn a_handler_runs_in_the_runtimes_context() {
        let spawned = run_blocking(|| {
            let handle = tokio::runtime::Handle::current();
            Ok::<_, McpError>(handle.block_on(tokio::spawn(async { 7 })).unwrap())
        });
        assert_eq!(spawned.await.unwrap(), 7);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn handlers_at_once_each_get_a_thread() {
        // Eight handlers that each wait for all eight: one left queued behind
        // another would never start.
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(8));
        let calls: Vec<_> = (0..8)
            .map(|n| {
                let barrier = std::sync::Arc::clone(&barrier);
                tokio::spawn(run_blocking(move || {
                    barrier.wait();
                    Ok::<_, McpError>(n)
                }))
            })
            .collect();
        let all = tokio::time::timeout(std::time::Duration::from_secs(10), async {
            let mut sum = 0;
            for call in calls {
                sum += call.await.unwrap().unwrap();
            }
            sum
        });
        assert_eq!(all.await.expect("every handler ran at once"), 28);
    }

    #[test]
    fn a_panic_resumes_in_the_caller() {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let panicked = std::panic::catch_unwind(|| {
            runtime.block_on(run_blocking(|| -> Result<(), McpError> { panic!("the handler's own") }))
        });
        let message = panicked.expect_err("the panic resumed");
        assert_eq!(message.downcast_ref::<&str>(), Some(&"the handler's own"));
    }

    /// Regression: on tokio's blocking pool, a handler still computing when
    /// the shutdown's grace period ended held the process (the runtime waits
    /// for its blocking tasks as it is dropped) until it returned.
    #[test]
    fn the_runtime_does_not_wait_for_a_handler_as_it_is_dropped() {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).build().unwrap();
        let (started, running) = std::sync::mpsc::channel();
        runtime.spawn(run_blocking(move || {
            let _ = started.send(());
            std::thread::sleep(std::time::Duration::from_secs(5));
            Ok::<_, McpError>(())
        }));
        running.recv().expect("the handler started");
        let dropping = std::time::Instant::now();
        drop(runtime);
        assert!(dropping.elapsed() < std::time::Duration::from_secs(2), "dropped after {:?}", dropping.elapsed());
    }

    #[test]
    fn outside_a_runtime_the_handler_runs_in_place() {
        let mut call = std::pin::pin!(run_blocking(|| Ok::<_, McpError>(42)));
        let mut context = std::task::Context::from_waker(std::task::Waker::noop());
        let std::task::Poll::Ready(answer) = call.as_mut().poll(&mut context) else {
            panic!("the handler ran in place, so the first poll finishes")
        };
        assert_eq!(answer.unwrap(), 42);
    }
}
