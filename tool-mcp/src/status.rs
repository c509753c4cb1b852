//! Parts of the serving program that report their own state on the HTTP server's `/readyz`
//! and `/metrics` ([`StatusSource`]): an embedder registers one with
//! `HttpOptions::status_source` (a gateway's upstreams, say), and the server asks it at each
//! request. The server knows nothing of what the source reports; it only shows it.

/// A part of the serving program that says whether it is ready and what it measures.
///
/// ```
/// use toolwright_mcp::status::{MetricKind, Readiness, Sample, StatusMetric, StatusSource};
///
/// struct Database;
///
/// impl StatusSource for Database {
///     fn readiness(&self) -> Readiness {
///         Readiness::ready().detail("database: up")
///     }
///     fn metrics(&self) -> Vec<StatusMetric> {
///         vec![StatusMetric::new("database_up", "1 while the database answers", MetricKind::Gauge)
///             .sample(Sample::new(1.0))]
///     }
/// }
///
/// assert!(Database.readiness().is_ready());
/// ```
pub trait StatusSource: Send + Sync + 'static {
    /// Whether this part lets the server take requests, with lines of detail for `/readyz`.
    fn readiness(&self) -> Readiness;

    /// Metrics shown on `/metrics` (feature `metrics`), each name under the server's `mcp_`
    /// prefix; none by default.
    fn metrics(&self) -> Vec<StatusMetric> {
        Vec::new()
    }
}

/// What a [`StatusSource`] says to `/readyz`: ready or not, and lines of detail (shown
/// either way, one per line, after the server's own word).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Readiness {
    ready: bool,
    detail: Vec<String>,
}

impl Readiness {
    /// Ready, without detail.
    pub fn ready() -> Self {
        Readiness {
            ready: true,
            detail: Vec::new(),
        }
    }

    /// Not ready: `/readyz` answers `503`.
    pub fn not_ready() -> Self {
        Readiness {
            ready: false,
            detail: Vec::new(),
        }
    }

    /// Adds a line of detail (a line break in it is shown as a space).
    pub fn detail(mut self, line: impl Into<String>) -> Self {
        self.detail.push(line.into().replace(['\n', '\r'], " "));
        self
    }

    /// Whether the part is ready.
    pub fn is_ready(&self) -> bool {
        self.ready
    }

    /// The lines of detail.
    pub fn lines(&self) -> &[String] {
        &self.detail
    }
}

/// How a [`StatusMetric`] is shown: a counter only grows (shown as `NAME_total`), a gauge
/// is a value now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricKind {
    /// Grows only (calls, restarts).
    Counter,
    /// A value now (up or not, calls in flight).
    Gauge,
}

/// One metric family of a [`StatusSource`]: its name (without the `mcp_` prefix, nor
/// `_total` for a counter), help text, kind, and one sample per label set.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusMetric {
    /// The name, `[a-z_]` words.
    pub name: String,
    /// What it counts or measures.
    pub help: String,
    /// Counter or gauge.
    pub kind: MetricKind,
    /// Its values, one per label set.
    pub samples: Vec<Sample>,
}

impl StatusMetric {
    /// A metric without samples yet.
    pub fn new(name: impl Into<String>, help: impl Into<String>, kind: MetricKind) -> Self {
        StatusMetric {
            name: name.into(),
            help: help.into(),
            kind,
            samples: Vec::new(),
        }
    }

    /// Adds a sample.
    pub fn sample(mut self, sample: Sample) -> Self {
        self.samples.push(sample);
        self
    }
}

/// One value of a [`StatusMetric`], with its labels.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// Label names and values (`[("upstream", "github")]`).
    pub labels: Vec<(String, String)>,
    /// The value.
    pub value: f64,
}

impl Sample {
    /// A sample without labels.
    pub fn new(value: f64) -> Self {
        Sample {
            labels: Vec::new(),
            value,
        }
    }

    /// Adds a label.
    pub fn label(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.labels.push((name.into(), value.into()));
        self
    }
}
