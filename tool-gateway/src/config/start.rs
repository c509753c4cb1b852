//! Starting a loaded configuration's upstreams: each connected as its kind says (a
//! confined child process, or HTTP with its token source) and mounted into a registry with
//! the options the file gives.

use std::sync::Arc;

use toolwright_runtime::ToolRegistry;

use crate::upstream::{Mount, MountOptions, MountUpstream, Upstream, UpstreamError};

use super::confine::{confine, confinement_hint};
use super::error::StartError;
use super::file::{GatewayConfig, UpstreamConfig};
use super::load::options;

impl GatewayConfig {
    /// Connects to every upstream, in the file's order, and mounts its tools into
    /// `registry`. The mounts must be kept for [`Mount::follow`]; what a mount could not do
    /// is in its [`report`](Mount::report). To say each report as it comes, mount the
    /// [`upstreams`](Self::upstreams) one by one with [`UpstreamConfig::mount`].
    ///
    /// # Errors
    ///
    /// The first upstream that does not start or cannot be listed ([`StartError`]).
    pub async fn mount_all(
        &self,
        registry: &Arc<ToolRegistry>,
    ) -> Result<Vec<Arc<Mount>>, StartError> {
        let mut mounts = Vec::new();
        for upstream in self.upstreams() {
            mounts.push(Arc::new(upstream.mount(registry).await?));
        }
        Ok(mounts)
    }
}

impl UpstreamConfig {
    /// The options its tools are mounted with (namespace, safety, trust, pins, limits).
    ///
    /// # Errors
    ///
    /// [`StartError::Options`] for settings [`GatewayConfig::load`] would have refused.
    pub fn mount_options(&self) -> Result<MountOptions, StartError> {
        options(self).map_err(|message| StartError::Options {
            namespace: self.namespace.clone(),
            message,
        })
    }

    /// Connects (a stdio server started, confined unless `unconfined`; an HTTP one with its
    /// token or OAuth client credentials) and mounts its tools into `registry`.
    ///
    /// # Errors
    ///
    /// [`StartError::Connect`] (with what a confined server could see),
    /// [`StartError::Mount`], [`StartError::Feature`].
    pub async fn mount(&self, registry: &Arc<ToolRegistry>) -> Result<Mount, StartError> {
        let connected = self.connect().await?;
        let options = self.mount_options()?;
        registry
            .mount(&connected, options)
            .await
            .map_err(|source| StartError::Mount {
                namespace: self.namespace.clone(),
                source: Box::new(source),
            })
    }

    /// Connects to the upstream.
    ///
    /// # Errors
    ///
    /// [`StartError::Connect`], [`StartError::Feature`].
    pub async fn connect(&self) -> Result<Upstream, StartError> {
        let failed = |source: UpstreamError| StartError::Connect {
            namespace: self.namespace.clone(),
            source: Box::new(source),
            hint: confinement_hint(self),
        };
        if let Some(url) = &self.url {
            return self.connect_http(url).await?.map_err(failed);
        }
        let command = self.command.clone().unwrap_or_default();
        // The session's own bound is the configured one: the runner's timeout around
        // the whole start would otherwise never be reached past the library's default.
        let mut upstream = Upstream::stdio(command, self.args.clone())
            .protocol(self.era)
            .handshake_timeout(self.supervision().handshake_timeout);
        for (key, value) in &self.env {
            upstream = upstream.env(key, value);
        }
        if let Some(cwd) = &self.cwd {
            upstream = upstream.cwd(cwd.clone());
        }
        confine(upstream, self).connect().await.map_err(failed)
    }

    /// Connects over HTTP: `Err` when this build cannot, else the connection's outcome.
    #[cfg(feature = "http")]
    async fn connect_http(&self, url: &str) -> Result<Result<Upstream, UpstreamError>, StartError> {
        let mut upstream = Upstream::http(url)
            .protocol(self.era)
            .handshake_timeout(self.supervision().handshake_timeout);
        if let Some(max) = self.max_message_bytes {
            upstream = upstream.max_message_bytes(max);
        }
        if let Some(file) = &self.token_file {
            upstream = upstream.bearer_token_file(file.clone());
        }
        if let Some(var) = &self.token_env {
            upstream = upstream.bearer_token_env(var.clone());
        }
        if let Some(oauth) = &self.oauth {
            #[cfg(feature = "oauth")]
            {
                upstream = upstream.client_credentials(credentials(oauth.get_ref()));
            }
            #[cfg(not(feature = "oauth"))]
            {
                let _ = oauth;
                return Err(StartError::Feature {
                    namespace: self.namespace.clone(),
                    feature: "oauth",
                });
            }
        }
        if let Some(callers) = &self.callers {
            upstream = callers_of(upstream, callers.get_ref(), &self.namespace)?;
        }
        Ok(upstream.connect().await)
    }

    /// Without the `http` feature an HTTP upstream cannot be reached.
    #[cfg(not(feature = "http"))]
    async fn connect_http(
        &self,
        _url: &str,
    ) -> Result<Result<Upstream, UpstreamError>, StartError> {
        Err(StartError::Feature {
            namespace: self.namespace.clone(),
            feature: "http",
        })
    }
}

/// `upstream` called as each caller, as its `callers` table says.
#[cfg(feature = "http")]
fn callers_of(
    mut upstream: crate::upstream::HttpUpstream,
    callers: &super::file::CallersConfig,
    namespace: &str,
) -> Result<crate::upstream::HttpUpstream, StartError> {
    if let Some(file) = &callers.principal_tokens {
        upstream = upstream.principal_tokens(file.clone());
    }
    if let Some(name) = &callers.identity_header {
        upstream = upstream.identity_header(name.clone());
    }
    if let Some(max) = callers.max_sessions {
        upstream = upstream.max_caller_sessions(max);
    }
    if let Some(exchange) = &callers.token_exchange {
        #[cfg(feature = "oauth")]
        {
            use crate::upstream::TokenExchange;
            let mut built = match (&exchange.client_secret_file, &exchange.client_secret_env) {
                (Some(file), _) => TokenExchange::secret_file(&exchange.client_id, file),
                (None, Some(var)) => TokenExchange::secret_env(&exchange.client_id, var),
                // `load` refuses a `token_exchange` without its secret.
                (None, None) => TokenExchange::secret_env(&exchange.client_id, ""),
            }
            .scopes(exchange.scopes.iter().cloned());
            if let Some(audience) = &exchange.audience {
                built = built.audience(audience);
            }
            if let Some(resource) = &exchange.resource {
                built = built.resource(resource);
            }
            if let Some(token_url) = &exchange.token_url {
                built = built.token_url(token_url);
            }
            for issuer in &exchange.authorization_servers {
                built = built.authorization_server(issuer);
            }
            if let Some(max) = exchange.max_cached_tokens {
                built = built.max_cached_tokens(max);
            }
            upstream = upstream.token_exchange(built);
        }
        #[cfg(not(feature = "oauth"))]
        {
            let _ = exchange;
            return Err(StartError::Feature {
                namespace: namespace.to_owned(),
                feature: "oauth",
            });
        }
    }
    let _ = namespace;
    Ok(upstream)
}

/// The OAuth client credentials of an upstream's `oauth` table.
#[cfg(feature = "oauth")]
fn credentials(oauth: &super::file::OAuthConfig) -> crate::upstream::ClientCredentials {
    use crate::upstream::ClientCredentials;
    let mut credentials = match (&oauth.client_secret_file, &oauth.client_secret_env) {
        (Some(file), _) => ClientCredentials::secret_file(&oauth.client_id, file),
        (None, Some(var)) => ClientCredentials::secret_env(&oauth.client_id, var),
        // `load` refuses an `oauth` without its secret.
        (None, None) => ClientCredentials::secret_env(&oauth.client_id, ""),
    }
    .scopes(oauth.scopes.iter().cloned());
    if let Some(resource) = &oauth.resource {
        credentials = credentials.resource(resource);
    }
    if let Some(token_url) = &oauth.token_url {
        credentials = credentials.token_url(token_url);
    }
    for issuer in &oauth.authorization_servers {
        credentials = credentials.authorization_server(issuer);
    }
    credentials
}
