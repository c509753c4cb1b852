//! How each upstream is supervised: the `[supervise]` table of the file (every upstream's
//! defaults) and an upstream's own `supervise = { ... }` over it, resolved at load into a
//! [`Supervision`] with the defaults filled in and every value checked.

use std::time::Duration;

use serde::Deserialize;

/// How an upstream is supervised (`[supervise]` for all, `supervise = { ... }` for one):
/// durations in seconds (fractions allowed); see [`Supervision`] for the defaults.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SuperviseConfig {
    /// Starting (spawn or connect, `initialize`, the first listing) may take this long.
    pub(crate) handshake_timeout: Option<f64>,
    /// One call of its tools may take this long.
    pub(crate) call_timeout: Option<f64>,
    /// The first wait before a restart.
    pub(crate) backoff_initial: Option<f64>,
    /// The longest wait before a restart.
    pub(crate) backoff_max: Option<f64>,
    /// Up this long, the next failure waits `backoff_initial` again.
    pub(crate) healthy_after: Option<f64>,
    /// Removed or changed by a reload: its calls in flight may finish for this long.
    pub(crate) drain_timeout: Option<f64>,
    /// Whether `/readyz` answers 503 while it is not up.
    pub(crate) required: Option<bool>,
}

/// How one upstream is supervised, resolved from the file: each value its own, else the
/// file's `[supervise]`, else the default named on each field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Supervision {
    /// How long starting may take: spawning or connecting, `initialize`, and listing its
    /// tools (default 60 s, at most 3600 s: a server that installs itself first, `npx` or
    /// `uvx` on a cold cache, may take minutes).
    pub handshake_timeout: Duration,
    /// How long one call of its tools may take (default: none of its own, the serving
    /// program's `--timeout`).
    pub call_timeout: Option<Duration>,
    /// The first wait before restarting it (default 1 s); each failure in a row doubles it.
    pub backoff_initial: Duration,
    /// The longest wait before restarting it (default 60 s).
    pub backoff_max: Duration,
    /// Up this long, its next failure waits `backoff_initial` again (default 60 s).
    pub healthy_after: Duration,
    /// When a reload removes or changes it, how long its calls in flight may finish
    /// before it is stopped (default 30 s).
    pub drain_timeout: Duration,
    /// Whether `/readyz` answers `503` while it is not up (default false: the gateway is
    /// ready while it serves, and the detail says which upstreams are down).
    pub required: bool,
}

/// The most `handshake_timeout` may be: an hour. The session's own bound follows the
/// configured value (`StdioUpstream::handshake_timeout`); the cap only catches a value
/// that is surely a mistake (minutes for milliseconds), since a start that long holds
/// `list`, `call` and a stdio `serve` waiting.
const MAX_HANDSHAKE: f64 = 3600.0;

/// The most any duration of `supervise` may be: a day.
const MAX_SECONDS: f64 = 86_400.0;

impl Default for Supervision {
    fn default() -> Self {
        Supervision {
            handshake_timeout: Duration::from_secs(60),
            call_timeout: None,
            backoff_initial: Duration::from_secs(1),
            backoff_max: Duration::from_secs(60),
            healthy_after: Duration::from_secs(60),
            drain_timeout: Duration::from_secs(30),
            required: false,
        }
    }
}

impl Supervision {
    /// The wait before restart number `failures` in a row (from 1): `backoff_initial`
    /// doubled for each failure before it, at most `backoff_max`.
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolwright_gateway::config::Supervision;
    ///
    /// let supervision = Supervision::default();
    /// assert_eq!(supervision.backoff(1), Duration::from_secs(1));
    /// assert_eq!(supervision.backoff(3), Duration::from_secs(4));
    /// assert_eq!(supervision.backoff(40), Duration::from_secs(60));
    /// ```
    pub fn backoff(&self, failures: u32) -> Duration {
        let doublings = failures.saturating_sub(1).min(32);
        self.backoff_initial
            .saturating_mul(1u32 << doublings.min(31))
            .min(self.backoff_max)
    }
}

/// `own` over `file` over the defaults, or what is wrong (naming the key).
pub(crate) fn resolve(
    file: Option<&SuperviseConfig>,
    own: Option<&SuperviseConfig>,
) -> Result<Supervision, String> {
    let defaults = Supervision::default();
    let pick =
        |get: fn(&SuperviseConfig) -> Option<f64>| own.and_then(get).or_else(|| file.and_then(get));
    let seconds = |key: &str, value: Option<f64>, max: f64| -> Result<Option<Duration>, String> {
        let Some(value) = value else {
            return Ok(None);
        };
        if !value.is_finite() || value <= 0.0 || value > max {
            return Err(format!(
                "`supervise.{key}` is {value}; give seconds above 0 and at most {max} \
                 (fractions allowed)"
            ));
        }
        Ok(Some(Duration::from_secs_f64(value)))
    };
    let handshake_timeout = seconds(
        "handshake_timeout",
        pick(|c| c.handshake_timeout),
        MAX_HANDSHAKE,
    )?
    .unwrap_or(defaults.handshake_timeout);
    let call_timeout = seconds("call_timeout", pick(|c| c.call_timeout), MAX_SECONDS)?;
    let backoff_initial = seconds("backoff_initial", pick(|c| c.backoff_initial), MAX_SECONDS)?
        .unwrap_or(defaults.backoff_initial);
    let backoff_max = seconds("backoff_max", pick(|c| c.backoff_max), MAX_SECONDS)?
        .unwrap_or(defaults.backoff_max.max(backoff_initial));
    if backoff_max < backoff_initial {
        return Err(format!(
            "`supervise.backoff_max` ({} s) is below `backoff_initial` ({} s)",
            backoff_max.as_secs_f64(),
            backoff_initial.as_secs_f64()
        ));
    }
    let healthy_after = seconds("healthy_after", pick(|c| c.healthy_after), MAX_SECONDS)?
        .unwrap_or(defaults.healthy_after);
    let drain_timeout = seconds("drain_timeout", pick(|c| c.drain_timeout), MAX_SECONDS)?
        .unwrap_or(defaults.drain_timeout);
    let required = own
        .and_then(|c| c.required)
        .or_else(|| file.and_then(|c| c.required))
        .unwrap_or(defaults.required);
    Ok(Supervision {
        handshake_timeout,
        call_timeout,
        backoff_initial,
        backoff_max,
        healthy_after,
        drain_timeout,
        required,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_upstreams_own_value_wins_over_the_files() {
        let file = SuperviseConfig {
            backoff_initial: Some(2.0),
            required: Some(true),
            ..SuperviseConfig::default()
        };
        let own = SuperviseConfig {
            backoff_initial: Some(0.01),
            ..SuperviseConfig::default()
        };
        let resolved = resolve(Some(&file), Some(&own)).expect("valid");
        assert_eq!(resolved.backoff_initial, Duration::from_millis(10));
        assert!(resolved.required);
        assert_eq!(resolved.handshake_timeout, Duration::from_secs(60));
    }

    #[test]
    fn nonsense_values_are_refused_by_name() {
        for (config, key) in [
            (
                SuperviseConfig {
                    handshake_timeout: Some(3601.0),
                    ..SuperviseConfig::default()
                },
                "handshake_timeout",
            ),
            (
                SuperviseConfig {
                    call_timeout: Some(f64::NAN),
                    ..SuperviseConfig::default()
                },
                "call_timeout",
            ),
            (
                SuperviseConfig {
                    drain_timeout: Some(-1.0),
                    ..SuperviseConfig::default()
                },
                "drain_timeout",
            ),
            (
                SuperviseConfig {
                    backoff_initial: Some(5.0),
                    backoff_max: Some(1.0),
                    ..SuperviseConfig::default()
                },
                "backoff_max",
            ),
        ] {
            let error = resolve(None, Some(&config)).expect_err(key);
            assert!(error.contains(key), "{error}");
        }
    }

    #[test]
    fn a_slow_installers_handshake_is_allowed_and_the_refusal_says_the_range() {
        // `npx -y` on a cold cache: ten minutes is an operator's value, not a mistake.
        let slow = SuperviseConfig {
            handshake_timeout: Some(600.0),
            ..SuperviseConfig::default()
        };
        let resolved = resolve(Some(&slow), None).expect("ten minutes is allowed");
        assert_eq!(resolved.handshake_timeout, Duration::from_secs(600));
        let refused = resolve(
            None,
            Some(&SuperviseConfig {
                handshake_timeout: Some(0.0),
                ..SuperviseConfig::default()
            }),
        )
        .expect_err("zero");
        assert!(
            refused.contains("above 0 and at most 3600"),
            "the refusal says the allowed range: {refused}"
        );
    }

    #[test]
    fn backoff_doubles_up_to_its_cap() {
        let supervision = Supervision {
            backoff_initial: Duration::from_millis(10),
            backoff_max: Duration::from_millis(35),
            ..Supervision::default()
        };
        let waits: Vec<u128> = (1..=5)
            .map(|n| supervision.backoff(n).as_millis())
            .collect();
        assert_eq!(waits, [10, 20, 35, 35, 35]);
        assert_eq!(supervision.backoff(u32::MAX), Duration::from_millis(35));
    }
}
