//! Name resolution for the proxy: the system's resolver, or one with fixed answers (tests,
//! and operators who pin names to addresses).

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

/// What resolving a name returns: its addresses, or why there are none.
pub type Resolution<'a> = Pin<Box<dyn Future<Output = io::Result<Vec<IpAddr>>> + Send + 'a>>;

/// Resolves the names a confined program asks its proxy for. The proxy checks every address
/// it gets and connects only to one it checked, so a resolver that answers differently the
/// second time (DNS rebinding) changes nothing.
pub trait Resolve: Send + Sync + 'static {
    /// The addresses of `host` (a normalised name: lower case, no trailing dot).
    fn resolve<'a>(&'a self, host: &'a str) -> Resolution<'a>;
}

/// The system's resolver (`getaddrinfo`, on a blocking thread).
///
/// ```
/// use toolwright_std::egress::{Resolve, SystemResolver};
///
/// # tokio_test_block(async {
/// let addresses = SystemResolver.resolve("localhost").await.unwrap();
/// assert!(addresses.iter().all(|ip| ip.is_loopback()));
/// # });
/// # fn tokio_test_block(f: impl std::future::Future<Output = ()>) {
/// #     tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
/// # }
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

impl Resolve for SystemResolver {
    fn resolve<'a>(&'a self, host: &'a str) -> Resolution<'a> {
        Box::pin(async move {
            let found = tokio::net::lookup_host((host, 0)).await?;
            Ok(found.map(|address| address.ip()).collect())
        })
    }
}

/// A resolver with fixed answers: a name it was not given does not exist. It remembers
/// every question, so a test can tell that a refusal came from checking its answer.
///
/// ```
/// use toolwright_std::egress::{FixedResolver, Resolve};
///
/// let resolver = FixedResolver::new().answer("api.example.test", ["127.0.0.1".parse()?]);
/// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
/// let local: std::net::IpAddr = "127.0.0.1".parse().unwrap();
/// assert_eq!(resolver.resolve("api.example.test").await?, [local]);
/// assert!(resolver.resolve("other.test").await.is_err());
/// # Ok::<(), std::io::Error>(())
/// # })?;
/// assert_eq!(resolver.asked(), ["api.example.test", "other.test"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct FixedResolver {
    answers: HashMap<String, Vec<IpAddr>>,
    asked: Arc<Mutex<Vec<String>>>,
}

impl FixedResolver {
    /// A resolver that knows no name.
    pub fn new() -> FixedResolver {
        FixedResolver::default()
    }

    /// Answers `host` (any case) with `addresses`.
    pub fn answer(
        mut self,
        host: &str,
        addresses: impl IntoIterator<Item = IpAddr>,
    ) -> FixedResolver {
        let host = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
        self.answers.insert(host, addresses.into_iter().collect());
        self
    }

    /// The names asked so far, in order (shared by clones).
    pub fn asked(&self) -> Vec<String> {
        self.asked
            .lock()
            .map(|asked| asked.clone())
            .unwrap_or_default()
    }
}

impl Resolve for FixedResolver {
    fn resolve<'a>(&'a self, host: &'a str) -> Resolution<'a> {
        if let Ok(mut asked) = self.asked.lock() {
            asked.push(host.to_owned());
        }
        let answer = self.answers.get(host).cloned().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                format!("`{host}` has no answer in this resolver"),
            )
        });
        Box::pin(async move { answer })
    }
}
