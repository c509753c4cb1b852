//! How much of an upstream the gateway's callers may use: calls at once (`max_concurrent`)
//! and calls per period (`rate`), each with a per-caller share below it, so one caller
//! cannot take an upstream from the others. A call over either is refused at once, before
//! anything is sent upstream, with a message that names the upstream, the limit and its
//! value (and, for a rate, when to try again), so a model can retry later.
//!
//! What a caller reads of the upstream takes a place in the same pool: a mounted prompt's
//! `prompts/get`, a mounted resource's `resources/read` and a completion of either
//! (`mountable`), so reads cannot flood an upstream the calls are limited on. A refused
//! read gets the same error; a refused completion completes to nothing (it has no error
//! to give).
//!
//! The caller is the authenticated subject of the call
//! ([`ToolContext::caller`](toolwright_core::ToolContext::caller)); calls without one (the
//! local user: stdio, the CLI) count only against the upstream's own limits.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;
use toolwright_core::ToolError;

/// A rate: at most [`calls`](Self::calls) calls every [`per`](Self::per), written
/// `"50/s"`, `"600/min"` or `"1000/h"`. Enforced as a token bucket: up to `calls` at once
/// after a quiet spell, then one every `per / calls`.
///
/// ```
/// use std::time::Duration;
/// use toolwright_gateway::upstream::Rate;
///
/// let rate: Rate = "600/min".parse().unwrap();
/// assert_eq!((rate.calls(), rate.per()), (600, Duration::from_secs(60)));
/// assert_eq!(rate.to_string(), "600/min");
/// assert!("0/s".parse::<Rate>().is_err());
/// assert!("fast".parse::<Rate>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    calls: u32,
    unit: Unit,
}

/// The period of a [`Rate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Second,
    Minute,
    Hour,
}

impl Unit {
    fn duration(self) -> Duration {
        Duration::from_secs(match self {
            Unit::Second => 1,
            Unit::Minute => 60,
            Unit::Hour => 3600,
        })
    }

    fn suffix(self) -> &'static str {
        match self {
            Unit::Second => "s",
            Unit::Minute => "min",
            Unit::Hour => "h",
        }
    }
}

/// Why a text is not a [`Rate`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a rate: {reason} (write it as `50/s`, `600/min` or `1000/h`)")]
pub struct RateParseError {
    text: String,
    reason: &'static str,
}

impl Rate {
    /// `calls` calls a second; `None` for zero.
    ///
    /// ```
    /// use toolwright_gateway::upstream::Rate;
    /// assert_eq!(Rate::per_second(50).unwrap().to_string(), "50/s");
    /// ```
    pub fn per_second(calls: u32) -> Option<Rate> {
        (calls > 0).then_some(Rate {
            calls,
            unit: Unit::Second,
        })
    }

    /// `calls` calls a minute; `None` for zero.
    pub fn per_minute(calls: u32) -> Option<Rate> {
        (calls > 0).then_some(Rate {
            calls,
            unit: Unit::Minute,
        })
    }

    /// `calls` calls an hour; `None` for zero.
    pub fn per_hour(calls: u32) -> Option<Rate> {
        (calls > 0).then_some(Rate {
            calls,
            unit: Unit::Hour,
        })
    }

    /// The most calls in one period (and at once after a quiet spell).
    pub fn calls(&self) -> u32 {
        self.calls
    }

    /// The period.
    pub fn per(&self) -> Duration {
        self.unit.duration()
    }

    /// Half of it, rounded up (at least one call): the default per-caller share.
    fn half(self) -> Rate {
        Rate {
            calls: self.calls.div_ceil(2),
            unit: self.unit,
        }
    }

    /// Whether it allows more calls than `other` over a long run.
    fn exceeds(self, other: Rate) -> bool {
        let per_hour = |rate: Rate| u64::from(rate.calls) * (3600 / rate.unit.duration().as_secs());
        per_hour(self) > per_hour(other)
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.calls, self.unit.suffix())
    }
}

impl FromStr for Rate {
    type Err = RateParseError;

    fn from_str(text: &str) -> Result<Rate, RateParseError> {
        let refused = |reason| RateParseError {
            text: toolwright_names::escape::escape(text).into_owned(),
            reason,
        };
        let (calls, unit) = text
            .split_once('/')
            .ok_or_else(|| refused("no `/` between the calls and the period"))?;
        let calls: u32 = calls
            .trim()
            .parse()
            .map_err(|_| refused("the calls are not a whole number"))?;
        if calls == 0 {
            return Err(refused("zero calls would refuse every call"));
        }
        let unit = match unit.trim() {
            "s" | "sec" | "second" => Unit::Second,
            "min" | "minute" => Unit::Minute,
            "h" | "hour" => Unit::Hour,
            _ => return Err(refused("the period is not `s`, `min` or `h`")),
        };
        Ok(Rate { calls, unit })
    }
}

/// The limits of one upstream, as [`MountOptions`](super::MountOptions) holds them: all
/// off by default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct UpstreamLimits {
    pub(super) max_concurrent: Option<usize>,
    pub(super) max_concurrent_per_caller: Option<usize>,
    pub(super) rate: Option<Rate>,
    pub(super) rate_per_caller: Option<Rate>,
}

impl UpstreamLimits {
    /// What is wrong with them, if anything: a zero, or a caller's share over the
    /// upstream's limit.
    pub(super) fn check(&self) -> Result<(), String> {
        if self.max_concurrent == Some(0) || self.max_concurrent_per_caller == Some(0) {
            return Err(
                "`max_concurrent` and `max_concurrent_per_caller` must be at least 1 (zero \
                 would refuse every call)"
                    .to_owned(),
            );
        }
        if let (Some(limit), Some(share)) = (self.max_concurrent, self.max_concurrent_per_caller)
            && share > limit
        {
            return Err(format!(
                "`max_concurrent_per_caller` ({share}) is over `max_concurrent` ({limit}): a \
                 caller's share is part of the upstream's limit"
            ));
        }
        if let (Some(rate), Some(share)) = (self.rate, self.rate_per_caller)
            && share.exceeds(rate)
        {
            return Err(format!(
                "`rate_per_caller` ({share}) is over `rate` ({rate}): a caller's share is \
                 part of the upstream's limit"
            ));
        }
        Ok(())
    }

    /// A caller's share of the calls at once: as given, else half the upstream's limit
    /// (rounded up).
    fn concurrent_share(&self) -> Option<usize> {
        self.max_concurrent_per_caller
            .or(self.max_concurrent.map(|limit| limit.div_ceil(2)))
    }

    /// A caller's share of the rate: as given, else half the upstream's.
    fn rate_share(&self) -> Option<Rate> {
        self.rate_per_caller.or(self.rate.map(Rate::half))
    }

    pub(super) fn is_off(&self) -> bool {
        *self == UpstreamLimits::default()
    }
}

/// A token bucket.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Bucket {
    fn full(rate: Rate, now: Instant) -> Bucket {
        Bucket {
            tokens: f64::from(rate.calls),
            at: now,
        }
    }

    /// Refilled up to `now`.
    fn refill(&mut self, rate: Rate, now: Instant) {
        let per_call = rate.per().as_secs_f64() / f64::from(rate.calls);
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        self.tokens = (self.tokens + elapsed / per_call).min(f64::from(rate.calls));
        self.at = now;
    }

    /// `None` when a call may go now, else how long until one may.
    fn wait(&self, rate: Rate) -> Option<Duration> {
        if self.tokens >= 1.0 {
            return None;
        }
        let per_call = rate.per().as_secs_f64() / f64::from(rate.calls);
        Some(Duration::from_secs_f64((1.0 - self.tokens) * per_call))
    }

    fn is_full(&self, rate: Rate) -> bool {
        self.tokens >= f64::from(rate.calls)
    }
}

/// Callers' buckets kept before full ones (which say nothing a missing one does not) are
/// dropped.
const PRUNE_AT: usize = 4096;

#[derive(Debug, Default)]
struct State {
    in_flight: usize,
    by_caller: HashMap<Arc<str>, usize>,
    bucket: Option<Bucket>,
    buckets: HashMap<Arc<str>, Bucket>,
}

/// The limits of one mounted upstream, shared by all its tools; made at mount.
#[derive(Debug)]
pub(super) struct Limiter {
    namespace: String,
    limits: UpstreamLimits,
    state: Mutex<State>,
}

/// One admitted call: its place in the counts of calls at once, given back when dropped.
#[derive(Debug)]
pub(super) struct Permit {
    limiter: Arc<Limiter>,
    caller: Option<Arc<str>>,
}

impl Limiter {
    pub(super) fn new(namespace: &str, limits: UpstreamLimits) -> Arc<Limiter> {
        Arc::new(Limiter {
            namespace: toolwright_names::escape::escape(namespace).into_owned(),
            limits,
            state: Mutex::new(State::default()),
        })
    }

    /// Admits a call of `caller` (`None`: the local user), or refuses it at once with
    /// what to do. Nothing is counted for a refused call.
    pub(super) fn admit(
        self: &Arc<Self>,
        caller: Option<&str>,
    ) -> Result<Option<Permit>, ToolError> {
        if self.limits.is_off() {
            return Ok(None);
        }
        let limits = &self.limits;
        let now = Instant::now();
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(limit) = limits.max_concurrent
            && state.in_flight >= limit
        {
            return Err(self.refused(
                "its limit",
                "max_concurrent",
                &format!("{limit} calls at once"),
                "try again when one of its calls has ended",
            ));
        }
        if let (Some(caller), Some(share)) = (caller, limits.concurrent_share())
            && state.by_caller.get(caller).copied().unwrap_or(0) >= share
        {
            return Err(self.refused(
                "your share of its calls",
                "max_concurrent_per_caller",
                &format!("{share} calls at once"),
                "try again when one of your calls to it has ended",
            ));
        }
        if let Some(rate) = limits.rate {
            let bucket = state.bucket.get_or_insert(Bucket::full(rate, now));
            bucket.refill(rate, now);
            if let Some(wait) = bucket.wait(rate) {
                return Err(self.refused(
                    "its limit",
                    "rate",
                    &rate.to_string(),
                    &format!("try again in {}", seconds(wait)),
                ));
            }
        }
        if let (Some(caller), Some(share)) = (caller, limits.rate_share()) {
            let bucket = state
                .buckets
                .entry(Arc::from(caller))
                .or_insert(Bucket::full(share, now));
            bucket.refill(share, now);
            if let Some(wait) = bucket.wait(share) {
                return Err(self.refused(
                    "your share of its calls",
                    "rate_per_caller",
                    &share.to_string(),
                    &format!("try again in {}", seconds(wait)),
                ));
            }
        }
        // Admitted: every count moves together, under the one lock.
        if let Some(bucket) = state.bucket.as_mut() {
            bucket.tokens -= 1.0;
        }
        let caller: Option<Arc<str>> = caller.map(Arc::from);
        if let Some(caller) = &caller {
            if let Some(bucket) = state.buckets.get_mut(caller) {
                bucket.tokens -= 1.0;
            }
            *state.by_caller.entry(caller.clone()).or_insert(0) += 1;
        }
        state.in_flight += 1;
        if state.buckets.len() > PRUNE_AT
            && let Some(share) = limits.rate_share()
        {
            state.buckets.retain(|_, bucket| {
                bucket.refill(share, now);
                !bucket.is_full(share)
            });
        }
        Ok(Some(Permit {
            limiter: Arc::clone(self),
            caller,
        }))
    }

    fn refused(&self, whose: &str, key: &str, value: &str, then: &str) -> ToolError {
        ToolError::new(format!(
            "the call was not sent: the upstream MCP server mounted as `{}` is at {whose}: \
             `{key}` = {value}; {then}",
            self.namespace
        ))
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut state = self
            .limiter
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        state.in_flight = state.in_flight.saturating_sub(1);
        if let Some(caller) = &self.caller
            && let Some(count) = state.by_caller.get_mut(caller)
        {
            *count = count.saturating_sub(1);
            if *count == 0 {
                state.by_caller.remove(caller);
            }
        }
    }
}

/// `0.25 s`, `12 s`: a wait as a model reads it (rounded up to the millisecond).
fn seconds(wait: Duration) -> String {
    let millis = wait.as_nanos().div_ceil(1_000_000);
    if millis >= 1000 && millis.is_multiple_of(1000) {
        format!("{} s", millis / 1000)
    } else {
        format!("{:.3} s", millis as f64 / 1000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limiter(limits: UpstreamLimits) -> Arc<Limiter> {
        Limiter::new("up", limits)
    }

    #[test]
    fn rates_parse_and_print() {
        for (text, calls, secs, shown) in [
            ("50/s", 50, 1, "50/s"),
            ("600/min", 600, 60, "600/min"),
            (" 7 / hour ", 7, 3600, "7/h"),
        ] {
            let rate: Rate = text.parse().unwrap();
            assert_eq!((rate.calls(), rate.per().as_secs()), (calls, secs));
            assert_eq!(rate.to_string(), shown);
        }
        for bad in ["", "5", "0/s", "-1/s", "5/day", "x/s", "5/"] {
            assert!(bad.parse::<Rate>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_share_over_the_limit_is_refused() {
        let limits = UpstreamLimits {
            max_concurrent: Some(2),
            max_concurrent_per_caller: Some(3),
            ..UpstreamLimits::default()
        };
        assert!(
            limits
                .check()
                .unwrap_err()
                .contains("max_concurrent_per_caller")
        );
        let limits = UpstreamLimits {
            rate: Rate::per_minute(60),
            rate_per_caller: Rate::per_second(2),
            ..UpstreamLimits::default()
        };
        assert!(limits.check().unwrap_err().contains("rate_per_caller"));
        let zero = UpstreamLimits {
            max_concurrent: Some(0),
            ..UpstreamLimits::default()
        };
        assert!(zero.check().is_err());
    }

    #[tokio::test(start_paused = true)]
    async fn the_rate_refuses_the_excess_and_says_when() {
        let limiter = limiter(UpstreamLimits {
            rate: Rate::per_second(4),
            ..UpstreamLimits::default()
        });
        for _ in 0..4 {
            drop(limiter.admit(None).unwrap());
        }
        let refused = limiter.admit(None).unwrap_err().to_string();
        assert!(refused.contains("`up`"), "{refused}");
        assert!(refused.contains("`rate` = 4/s"), "{refused}");
        assert!(refused.contains("try again in 0.250 s"), "{refused}");
        // The paused clock moves only here: a quarter second gives back one call.
        tokio::time::advance(Duration::from_millis(250)).await;
        drop(limiter.admit(None).unwrap());
        assert!(limiter.admit(None).is_err());
    }

    #[tokio::test(start_paused = true)]
    async fn a_callers_rate_share_leaves_the_rest_to_others() {
        let limiter = limiter(UpstreamLimits {
            rate: Rate::per_minute(10),
            ..UpstreamLimits::default()
        });
        let admitted = (0..10)
            .filter(|_| limiter.admit(Some("alice")).is_ok())
            .count();
        assert_eq!(admitted, 5, "alice's share is half of 10/min");
        let refused = limiter.admit(Some("alice")).unwrap_err().to_string();
        assert!(refused.contains("`rate_per_caller` = 5/min"), "{refused}");
        let bob = (0..10)
            .filter(|_| limiter.admit(Some("bob")).is_ok())
            .count();
        assert_eq!(bob, 5);
        // The upstream's own bucket is empty now: the local user is refused too.
        assert!(limiter.admit(None).is_err());
    }

    #[test]
    fn permits_give_their_place_back() {
        let limiter = limiter(UpstreamLimits {
            max_concurrent: Some(3),
            ..UpstreamLimits::default()
        });
        let first = limiter.admit(Some("alice")).unwrap();
        let second = limiter.admit(Some("alice")).unwrap();
        let refused = limiter.admit(Some("alice")).unwrap_err().to_string();
        assert!(
            refused.contains("`max_concurrent_per_caller` = 2 calls at once"),
            "{refused}"
        );
        let third = limiter.admit(Some("bob")).unwrap();
        let refused = limiter.admit(Some("carol")).unwrap_err().to_string();
        assert!(
            refused.contains("`max_concurrent` = 3 calls at once"),
            "{refused}"
        );
        drop((first, second, third));
        let state = limiter.state.lock().unwrap();
        assert_eq!(state.in_flight, 0);
        assert!(state.by_caller.is_empty());
    }
}
