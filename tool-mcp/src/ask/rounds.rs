//! Asking the caller of MCP's 2026-07-28 revision: multi round-trip requests (SEP-2322).
//!
//! A client of that revision is never sent a request while a call runs. When a call needs
//! the person's approval, or the tool asks a question (`ToolContext::elicit`,
//! `ToolContext::sample`), the call ends at once with an `InputRequiredResult`: the
//! questions (`inputRequests`, keyed) and an opaque `requestState`. The client answers them
//! and repeats the same call with `inputResponses` and the `requestState`. The repeated call
//! runs the policy and the tool again from the start; each question finds its answer under
//! its key, so the run gets past it.
//!
//! - **Answers are bound to the questions.** A question's identity is a digest of exactly
//!   what the person is shown (the form and its message; for an approval the tool, its
//!   arguments and the preview), plus how many times the run asked the same question
//!   before. Its key on the wire is that identity, or the key the tool named
//!   (`Ask::key`); the sealed state maps each key it asked to the identity, and an answer
//!   is kept under the identity. An answer therefore answers only the question it was given
//!   for: an approval answered for one preview does not approve another (a file that
//!   changed between the rounds is asked about again), and a key the tool reuses for a
//!   different question is asked again, not answered with the old answer.
//! - **`requestState` is sealed** with HMAC-SHA256 (rmcp's `RequestStateCodec`) under a key
//!   the replicas share ([`McpServer::request_state_key`](crate::McpServer::request_state_key)),
//!   and bound to the caller, the method, the tool, prompt or resource URI and a digest of
//!   the arguments ([`Binding`]), with an expiry. It holds the answers of the earlier
//!   rounds (a tool that asks twice gets the first answer back on the third round) and the
//!   keys asked in the last one: answers to anything else are ignored. A state that was
//!   changed, expired, or is presented by another caller, for another tool, prompt or URI,
//!   or for other arguments is refused.
//! - **Prompts and resource reads ask the same way** (`prompts/get`, `resources/read`):
//!   their states are bound to their method, so none opens for a tool call or the other.
//! - **Each state is good for one retry.** Its nonce is claimed when it is used
//!   ([`StateClaims`]; shared by the replicas through Redis with the `redis` feature), so a
//!   replayed approval does not run the tool a second time.

// rmcp marks sampling deprecated (SEP-2577); the 2026-07-28 revision still carries it in
// input requests, and clients answer it.
#![allow(deprecated)]

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use toolwright_core::encoding::{canonical_json, hex};

use rmcp::model::{
    CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitRequestParams, ElicitResult,
    InputRequest, InputRequests, InputResponses, ListRootsRequest, ListRootsResult,
    RequestStateCodec, SealOptions,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use toolwright_core::client::Root;
use toolwright_core::{BoxFuture, ClientError, Elicitation};
use toolwright_runtime::{ApprovalDecision, ApprovalHandler, ApprovalRequest};

// The binding is its own module; callers name it here, beside the seal that uses it.
pub(crate) use crate::ask::binding::Binding;

/// How long a `requestState` may be presented after it was issued (a person answering a
/// question may take a while; an approval should not wait for days).
pub(crate) const DEFAULT_STATE_TTL: Duration = Duration::from_secs(15 * 60);
/// The most answers one call carries from round to round.
const MAX_ANSWERS: usize = 64;
/// The most bytes of answers one call carries (the state travels in every retry).
const MAX_ANSWER_BYTES: usize = 256 * 1024;
/// The most `requestState` bytes read (a bigger one was not made here).
const MAX_STATE_BYTES: usize = 512 * 1024;
/// The most unexpired claims the memory store keeps unless [`MemoryClaims::max_total`] says
/// otherwise; past it, states are refused (fail closed) until older claims expire.
pub const DEFAULT_MAX_MEMORY_CLAIMS: usize = 100_000;
/// The most unexpired claims of one caller the memory store keeps unless
/// [`MemoryClaims::max_per_owner`] says otherwise: past it, that caller's states are refused
/// until its older claims expire, and nobody else's are.
pub const DEFAULT_MAX_CLAIMS_PER_OWNER: usize = 1_000;

/// What the sealed `requestState` holds.
#[derive(Serialize, Deserialize)]
struct SealedState {
    /// Random: the state is claimed once under it.
    nonce: String,
    /// The answers of earlier rounds, by question key.
    answers: BTreeMap<String, Value>,
    /// The keys of the questions the last round asked, each with the identity of its
    /// question: only their answers are read, and each is kept under its question's identity.
    asked: BTreeMap<String, String>,
}

/// Why a call's `requestState` or `inputResponses` were refused. The message is for the
/// client (a JSON-RPC error): it says what to do.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RoundError {
    #[error(
        "the requestState of this request was not issued for it here (changed, expired, \
         issued for another caller, another tool, prompt or resource, other arguments, or \
         under another key): send the request again without requestState and inputResponses \
         to be asked again"
    )]
    Unverified,
    #[error(
        "this requestState was already used once: send the request again without \
         requestState and inputResponses to be asked again"
    )]
    Replayed,
    #[error("the requestState was not accepted: {0}")]
    Claims(String),
    #[error(
        "the answers of this call are too large (at most {MAX_ANSWERS} answers and \
         {MAX_ANSWER_BYTES} bytes)"
    )]
    TooLarge,
}

/// Remembers which sealed states were used, so each is used once. The memory store
/// ([`MemoryClaims`]) serves one process; replicas share one through Redis
/// (`RedisSessionStore` implements it with the `redis` feature).
///
/// Each claim is its caller's (`owner`: the [`Principal::owner`](crate::Principal::owner) of
/// an authenticated caller, `""` for the local user): a state opens only for the caller it
/// was sealed for, so a store may keep nonces per owner, and bound each owner's claims.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use std::time::Duration;
/// use toolwright_mcp::{MemoryClaims, StateClaims};
///
/// let claims = MemoryClaims::default();
/// assert!(claims.claim("alice", "nonce-1".into(), Duration::from_secs(60)).await.unwrap());
/// assert!(!claims.claim("alice", "nonce-1".into(), Duration::from_secs(60)).await.unwrap());
/// # }
/// ```
pub trait StateClaims: Send + Sync + 'static {
    /// Claims `nonce` of `owner` for `ttl`: `true` the first time, `false` if it was claimed
    /// before.
    ///
    /// # Errors
    ///
    /// When the store cannot be reached or is full (in all, or for this owner): the state is
    /// then refused, with this message, which names the limit.
    fn claim(&self, owner: &str, nonce: String, ttl: Duration) -> BoxFuture<Result<bool, String>>;
}

/// The claims of one process, in memory: enough for a single server, not for replicas.
/// Bounded in all ([`max_total`](Self::max_total)) and per caller
/// ([`max_per_owner`](Self::max_per_owner)), so one caller that sends states back without
/// answers (each use claims one, and is answered with a new one) exhausts only its own share.
///
/// ```
/// use toolwright_mcp::MemoryClaims;
///
/// let claims = MemoryClaims::default().max_per_owner(200).max_total(20_000);
/// # let _ = claims;
/// ```
pub struct MemoryClaims {
    claimed: Mutex<Claimed>,
    per_owner: usize,
    total: usize,
}

/// The unexpired claims, by owner, and how many there are in all.
#[derive(Default)]
struct Claimed {
    by_owner: HashMap<String, HashMap<String, Instant>>,
    total: usize,
}

impl Claimed {
    /// Drops `owner`'s expired claims (every owner's with `None`).
    fn forget_expired(&mut self, owner: Option<&str>, now: Instant) {
        let mut dropped = 0;
        for (name, claims) in &mut self.by_owner {
            if owner.is_none_or(|owner| owner == name) {
                let before = claims.len();
                claims.retain(|_, until| *until > now);
                dropped += before - claims.len();
            }
        }
        self.by_owner.retain(|_, claims| !claims.is_empty());
        self.total = self.total.saturating_sub(dropped);
    }
}

impl Default for MemoryClaims {
    fn default() -> Self {
        MemoryClaims {
            claimed: Mutex::default(),
            per_owner: DEFAULT_MAX_CLAIMS_PER_OWNER,
            total: DEFAULT_MAX_MEMORY_CLAIMS,
        }
    }
}

impl MemoryClaims {
    /// The most unexpired claims one caller has (default [`DEFAULT_MAX_CLAIMS_PER_OWNER`],
    /// 1,000; each lives the request state's TTL): past it, that caller's states are refused.
    #[must_use]
    pub fn max_per_owner(mut self, limit: usize) -> Self {
        self.per_owner = limit;
        self
    }

    /// The most unexpired claims in all (default [`DEFAULT_MAX_MEMORY_CLAIMS`], 100,000):
    /// past it, every state is refused until claims expire.
    #[must_use]
    pub fn max_total(mut self, limit: usize) -> Self {
        self.total = limit;
        self
    }

    fn try_claim(&self, owner: &str, nonce: String, ttl: Duration) -> Result<bool, String> {
        let now = Instant::now();
        let mut claimed = self.claimed.lock().unwrap_or_else(PoisonError::into_inner);
        if claimed
            .by_owner
            .get(owner)
            .and_then(|claims| claims.get(&nonce))
            .is_some_and(|until| *until > now)
        {
            return Ok(false);
        }
        let mine = |claimed: &Claimed| claimed.by_owner.get(owner).map_or(0, HashMap::len);
        if mine(&claimed) >= self.per_owner {
            claimed.forget_expired(Some(owner), now);
            if mine(&claimed) >= self.per_owner {
                return Err(format!(
                    "you already have {} multi round-trip requests in flight on this server, \
                     the most one caller may have (`MemoryClaims::max_per_owner`); each counts \
                     until its requestState expires, so wait, then call again",
                    self.per_owner
                ));
            }
        }
        if claimed.total >= self.total {
            claimed.forget_expired(None, now);
            if claimed.total >= self.total {
                return Err(format!(
                    "this server already has {} multi round-trip requests in flight, the most \
                     it keeps (`MemoryClaims::max_total`); try again later",
                    self.total
                ));
            }
        }
        let previous = claimed
            .by_owner
            .entry(owner.to_owned())
            .or_default()
            .insert(nonce, now + ttl);
        if previous.is_none() {
            claimed.total += 1;
        }
        Ok(true)
    }
}

impl StateClaims for MemoryClaims {
    fn claim(&self, owner: &str, nonce: String, ttl: Duration) -> BoxFuture<Result<bool, String>> {
        let result = self.try_claim(owner, nonce, ttl);
        Box::pin(async move { result })
    }
}

/// How a server seals and checks `requestState`: the key and the claims.
#[derive(Clone)]
pub(crate) struct StateSeal {
    /// `None` when the system had no randomness for a key: every state is then refused.
    pub(crate) codec: Option<Arc<RequestStateCodec>>,
    pub(crate) claims: Arc<dyn StateClaims>,
    pub(crate) ttl: Duration,
}

impl StateSeal {
    /// A seal under a random key of this process (states do not survive a restart and are
    /// not accepted by another replica), with memory claims.
    pub(crate) fn random() -> StateSeal {
        let mut key = [0u8; 32];
        // Without randomness no key is safe (zeros would let anyone forge states): no codec,
        // and every question fails closed.
        let codec = getrandom::fill(&mut key)
            .ok()
            .and_then(|()| RequestStateCodec::try_new(key.to_vec()).ok())
            .map(Arc::new);
        StateSeal {
            codec,
            claims: Arc::new(MemoryClaims::default()),
            ttl: DEFAULT_STATE_TTL,
        }
    }

    /// The round of one call: `request_state` opened and checked against the caller, the
    /// tool and the arguments; the answers it carries and those of `responses` it asked for.
    pub(crate) async fn open(
        &self,
        binding: &Binding,
        request_state: Option<&str>,
        responses: Option<&InputResponses>,
    ) -> Result<Round, RoundError> {
        let Some(sealed) = request_state else {
            // A first round: answers without a state answer nothing that was asked.
            return Ok(Round::new(binding.clone(), BTreeMap::new()));
        };
        if sealed.len() > MAX_STATE_BYTES {
            return Err(RoundError::Unverified);
        }
        let codec = self.codec.as_ref().ok_or(RoundError::Unverified)?;
        let state: SealedState = codec
            .open_json_with(sealed, binding.associated_data.as_bytes())
            .map_err(|_| RoundError::Unverified)?;
        match self
            .claims
            .claim(&binding.owner, state.nonce.clone(), self.ttl)
            .await
        {
            Ok(true) => {}
            Ok(false) => return Err(RoundError::Replayed),
            Err(error) => return Err(RoundError::Claims(error)),
        }
        let mut answers = state.answers;
        if let Some(responses) = responses {
            for (key, question) in &state.asked {
                if let Some(answer) = responses.get(key) {
                    answers.insert(question.clone(), answer.clone());
                }
            }
        }
        let size: usize = answers
            .iter()
            .map(|(key, value)| key.len() + value.to_string().len())
            .sum();
        if answers.len() > MAX_ANSWERS || size > MAX_ANSWER_BYTES {
            return Err(RoundError::TooLarge);
        }
        Ok(Round::new(binding.clone(), answers))
    }

    /// The `requestState` for the next round of `round`: its answers, and the keys of the
    /// questions it asked.
    pub(crate) fn seal(&self, round: &Round, asked: &InputRequests) -> Option<String> {
        let mut nonce = [0u8; 16];
        getrandom::fill(&mut nonce).ok()?;
        let identities = round
            .asked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .identities
            .clone();
        let state = SealedState {
            nonce: hex(&nonce),
            answers: round.answers.clone(),
            asked: asked
                .keys()
                .map(|key| {
                    let question = identities.get(key).cloned().unwrap_or_else(|| key.clone());
                    (key.clone(), question)
                })
                .collect(),
        };
        let options = SealOptions::new()
            .associated_data(round.binding.associated_data.as_bytes())
            .ttl(self.ttl);
        self.codec.as_ref()?.seal_json_with(&state, &options).ok()
    }
}

/// One call's round: the answers it has, and the questions it asked that have none.
pub(crate) struct Round {
    binding: Binding,
    answers: BTreeMap<String, Value>,
    asked: Mutex<Asked>,
}

#[derive(Default)]
struct Asked {
    requests: InputRequests,
    /// Each key of `requests` with the identity of its question.
    identities: HashMap<String, String>,
    /// How often each question was asked in this run (the same question twice is two).
    times: HashMap<String, u32>,
}

impl Round {
    fn new(binding: Binding, answers: BTreeMap<String, Value>) -> Self {
        Round {
            binding,
            answers,
            asked: Mutex::default(),
        }
    }

    /// A round with this one's answers and nothing asked yet: for a task that starts from
    /// this call (`#[tool(ask_first)]`), whose run asks its first question again and finds
    /// the answer.
    pub(crate) fn carried(&self) -> Arc<Round> {
        Arc::new(Round::new(self.binding.clone(), self.answers.clone()))
    }

    /// The answer this round holds for an elicitation, if it holds one (a question without
    /// one is noted as asked, which a carried round never sends).
    pub(crate) fn answered_elicitation(
        &self,
        params: ElicitRequestParams,
        key: Option<&str>,
    ) -> Option<Result<Elicitation<Value>, ClientError>> {
        let request = InputRequest::Elicitation(ElicitRequest::new(params));
        self.answer_or_ask("elicit", request, key)
            .map(crate::ask::answers::read_elicitation)
    }

    /// The questions this run asked that have no answer yet.
    pub(crate) fn questions(&self) -> InputRequests {
        self.asked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .requests
            .clone()
    }

    /// The answer to `request` (of `kind`), or `None` after adding it to the questions under
    /// `key` (the tool's, made unique in the round) or, without one, its identity.
    fn answer_or_ask(&self, kind: &str, request: InputRequest, key: Option<&str>) -> Option<Value> {
        let shown = serde_json::to_value(&request).unwrap_or_default();
        let question = format!("{kind}-{}", &digest(&canonical_json(&shown))[..32]);
        let mut asked = self.asked.lock().unwrap_or_else(PoisonError::into_inner);
        let times = asked.times.entry(question.clone()).or_default();
        let identity = if *times == 0 {
            question
        } else {
            format!("{question}-{times}")
        };
        *times += 1;
        if let Some(answer) = self.answers.get(&identity) {
            return Some(answer.clone());
        }
        // The wire key: the tool's, unless another question of this round has it already.
        let named = key.unwrap_or(&identity);
        let mut wire = named.to_owned();
        let mut n = 1;
        while asked.requests.contains_key(&wire) {
            n += 1;
            wire = format!("{named}-{n}");
        }
        asked.identities.insert(wire.clone(), identity);
        asked.requests.insert(wire, request);
        None
    }

    /// A tool's elicitation: the answer, or the question for the caller.
    pub(crate) fn elicit(
        &self,
        params: ElicitRequestParams,
        key: Option<&str>,
    ) -> Result<Elicitation<Value>, ClientError> {
        let request = InputRequest::Elicitation(ElicitRequest::new(params));
        let answer = self
            .answer_or_ask("elicit", request, key)
            .ok_or(ClientError::InputRequired)?;
        crate::ask::answers::read_elicitation(answer)
    }

    /// A tool's sampling request: the client's message, or the question for the caller.
    pub(crate) fn sample(
        &self,
        request: CreateMessageRequest,
        key: Option<&str>,
    ) -> Result<CreateMessageResult, ClientError> {
        let answer = self
            .answer_or_ask("sample", InputRequest::CreateMessage(request), key)
            .ok_or(ClientError::InputRequired)?;
        if let Some(message) = answer.get("message").and_then(Value::as_str)
            && answer.get("code").is_some()
        {
            // The client answered with an error (its user refused the request).
            return Err(ClientError::Declined {
                what: "sampling",
                reason: Some(message.to_owned()),
            });
        }
        serde_json::from_value(answer).map_err(|error| {
            ClientError::InvalidAnswer(format!("the answer is not a sampling result ({error})"))
        })
    }

    /// A tool's request for the client's roots: the roots, or the question for the caller.
    pub(crate) fn list_roots(&self, key: Option<&str>) -> Result<Vec<Root>, ClientError> {
        let answer = self
            .answer_or_ask(
                "roots",
                InputRequest::ListRoots(ListRootsRequest::default()),
                key,
            )
            .ok_or(ClientError::InputRequired)?;
        let result: ListRootsResult = serde_json::from_value(answer).map_err(|error| {
            ClientError::InvalidAnswer(format!("the answer is not a roots/list result ({error})"))
        })?;
        Ok(result
            .roots
            .into_iter()
            .map(|root| {
                let mine = Root::new(root.uri);
                match root.name {
                    Some(name) => mine.with_name(name),
                    None => mine,
                }
            })
            .collect())
    }
}

/// Approves through the caller: the approval form (the same as over a session) is a
/// question of the call's round.
pub(crate) struct RoundApproval {
    pub(crate) round: Arc<Round>,
}

impl ApprovalHandler for RoundApproval {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<ApprovalDecision> {
        let decision = match crate::ask::approval::Form::for_request(&request) {
            Err(error) => ApprovalDecision::Denied {
                reason: format!("could not ask the user: {error}"),
            },
            Ok(form) => {
                let question = InputRequest::Elicitation(ElicitRequest::new(form.params()));
                match self.round.answer_or_ask("approval", question, None) {
                    None => ApprovalDecision::InputRequired,
                    Some(answer) => match serde_json::from_value::<ElicitResult>(answer) {
                        Ok(result) => form.read(&result),
                        Err(_) => ApprovalDecision::Denied {
                            reason: "the client's answer to the approval request is not an \
                                     elicitation result"
                                .to_owned(),
                        },
                    },
                }
            }
        };
        Box::pin(async move { decision })
    }
}

/// SHA-256 of `text`, hex.
fn digest(text: &str) -> String {
    hex(&Sha256::digest(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, json};

    use super::*;

    fn seal() -> StateSeal {
        StateSeal::random()
    }

    fn binding(owner: &str, arguments: Value) -> Binding {
        let Value::Object(arguments) = arguments else {
            unreachable!()
        };
        Binding::new(Some(owner), "deploy", &arguments)
    }

    fn form(message: &str) -> ElicitRequestParams {
        serde_json::from_value(json!({
            "mode": "form", "message": message,
            "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
        }))
        .unwrap()
    }

    fn accepted(content: Value) -> Value {
        json!({"action": "accept", "content": content})
    }

    #[tokio::test]
    async fn answers_reach_the_question_they_were_given_for_across_rounds() {
        let seal = seal();
        let bound = binding("alice", json!({"region": "eu", "n": [1, 2]}));
        // Round 1: the first question is asked.
        let round = seal.open(&bound, None, None).await.unwrap();
        assert!(matches!(
            round.elicit(form("first?"), None),
            Err(ClientError::InputRequired)
        ));
        let asked = round.questions();
        let state = seal.seal(&round, &asked).unwrap();
        let first = asked.keys().next().unwrap().clone();

        // Round 2: answered; the second question is asked. Key order does not matter.
        let same = binding("alice", json!({"n": [1, 2], "region": "eu"}));
        let responses = InputResponses::from([(first.clone(), accepted(json!({"ok": true})))]);
        let round = seal
            .open(&same, Some(&state), Some(&responses))
            .await
            .unwrap();
        assert_eq!(
            round.elicit(form("first?"), None).unwrap(),
            Elicitation::Accepted(json!({"ok": true}))
        );
        assert!(round.elicit(form("second?"), None).is_err());
        let asked = round.questions();
        assert_eq!(asked.len(), 1);
        let state_2 = seal.seal(&round, &asked).unwrap();
        let second = asked.keys().next().unwrap().clone();

        // Round 3: both answers, the first carried in the state.
        let responses = InputResponses::from([(second, json!({"action": "decline"}))]);
        let round = seal
            .open(&same, Some(&state_2), Some(&responses))
            .await
            .unwrap();
        assert!(round.elicit(form("first?"), None).is_ok());
        assert_eq!(
            round.elicit(form("second?"), None).unwrap(),
            Elicitation::Declined
        );
        assert!(round.questions().is_empty());

        // Every state is good once.
        assert!(matches!(
            seal.open(&same, Some(&state), Some(&responses)).await,
            Err(RoundError::Replayed)
        ));
    }

    #[tokio::test]
    async fn a_state_is_refused_for_another_caller_tool_arguments_key_or_when_changed() {
        let seal = seal();
        let bound = binding("alice", json!({"region": "eu"}));
        let round = seal.open(&bound, None, None).await.unwrap();
        let _ = round.elicit(form("sure?"), None);
        let state = seal.seal(&round, &round.questions()).unwrap();

        for other in [
            binding("bob", json!({"region": "eu"})),
            binding("alice", json!({"region": "us"})),
            Binding::new(Some("alice"), "destroy", &Map::new()),
            Binding::new(None, "deploy", &Map::new()),
        ] {
            assert!(matches!(
                seal.open(&other, Some(&state), None).await,
                Err(RoundError::Unverified)
            ));
        }
        let mut changed = state.clone().into_bytes();
        let at = changed.len() / 2;
        changed[at] = if changed[at] == b'A' { b'B' } else { b'A' };
        let changed = String::from_utf8(changed).unwrap();
        assert!(matches!(
            seal.open(&bound, Some(&changed), None).await,
            Err(RoundError::Unverified)
        ));
        assert!(matches!(
            StateSeal::random().open(&bound, Some(&state), None).await,
            Err(RoundError::Unverified)
        ));
        assert!(matches!(
            seal.open(&bound, Some(&"x".repeat(MAX_STATE_BYTES + 1)), None)
                .await,
            Err(RoundError::Unverified)
        ));
        // Unchanged, for the same caller: accepted.
        assert!(seal.open(&bound, Some(&state), None).await.is_ok());
    }

    #[tokio::test]
    async fn a_prompts_or_a_reads_state_opens_only_for_its_method_target_and_caller() {
        let seal = seal();
        let Value::Object(tone) = json!({"tone": "kind"}) else {
            unreachable!()
        };
        let prompt = Binding::for_prompt(Some("alice"), "review", &tone);
        let read = Binding::for_resource(Some("alice"), "vault://7");
        for (bound, others) in [
            (
                &prompt,
                vec![
                    Binding::for_prompt(Some("bob"), "review", &tone),
                    Binding::for_prompt(None, "review", &tone),
                    Binding::for_prompt(Some("alice"), "summary", &tone),
                    Binding::for_prompt(Some("alice"), "review", &Map::new()),
                    Binding::for_resource(Some("alice"), "review"),
                    Binding::new(Some("alice"), "review", &tone),
                ],
            ),
            (
                &read,
                vec![
                    Binding::for_resource(Some("bob"), "vault://7"),
                    Binding::for_resource(Some("alice"), "vault://8"),
                    Binding::for_prompt(Some("alice"), "vault://7", &Map::new()),
                    Binding::new(Some("alice"), "vault://7", &Map::new()),
                ],
            ),
        ] {
            let round = seal.open(bound, None, None).await.unwrap();
            let _ = round.elicit(form("sure?"), Some("k"));
            let state = seal.seal(&round, &round.questions()).unwrap();
            for other in &others {
                assert!(matches!(
                    seal.open(other, Some(&state), None).await,
                    Err(RoundError::Unverified)
                ));
            }
            assert!(seal.open(bound, Some(&state), None).await.is_ok());
        }
    }

    #[tokio::test]
    async fn an_expired_state_is_refused() {
        let mut seal = seal();
        seal.ttl = Duration::from_millis(1);
        let bound = binding("alice", json!({}));
        let round = seal.open(&bound, None, None).await.unwrap();
        let _ = round.elicit(form("sure?"), None);
        let issued = std::time::SystemTime::now();
        let state = seal.seal(&round, &round.questions()).unwrap();
        // The codec stamps the expiry in whole milliseconds: wait until it is surely past
        // (only the clock is waited for; a busy machine waits longer, never shorter).
        while issued.elapsed().unwrap_or_default() < Duration::from_millis(5) {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        assert!(matches!(
            seal.open(&bound, Some(&state), None).await,
            Err(RoundError::Unverified)
        ));
    }

    #[tokio::test]
    async fn answers_to_questions_not_asked_are_ignored_and_the_same_question_twice_is_two() {
        let seal = seal();
        let bound = binding("alice", json!({}));
        let planted = InputResponses::from([("elicit-made-up".to_owned(), accepted(json!({})))]);
        let round = seal.open(&bound, None, Some(&planted)).await.unwrap();
        assert!(round.elicit(form("again?"), None).is_err());
        assert!(round.elicit(form("again?"), None).is_err());
        let asked = round.questions();
        assert_eq!(asked.len(), 2, "{asked:?}");
        let keys: Vec<&String> = asked.keys().collect();
        assert!(keys[1].starts_with(keys[0].as_str()), "{keys:?}");
        let state = seal.seal(&round, &asked).unwrap();
        let mut responses = planted.clone();
        responses.insert(keys[0].clone(), accepted(json!({"ok": true})));
        responses.insert(keys[1].clone(), accepted(json!({"ok": false})));
        let round = seal
            .open(&bound, Some(&state), Some(&responses))
            .await
            .unwrap();
        assert_eq!(
            round.elicit(form("again?"), None).unwrap(),
            Elicitation::Accepted(json!({"ok": true}))
        );
        assert_eq!(
            round.elicit(form("again?"), None).unwrap(),
            Elicitation::Accepted(json!({"ok": false}))
        );
        assert_eq!(round.answers.len(), 2, "the planted answer was kept");
    }

    #[tokio::test]
    async fn two_questions_under_one_key_in_one_round_get_keys_of_their_own() {
        let seal = seal();
        let bound = binding("alice", json!({}));
        let round = seal.open(&bound, None, None).await.unwrap();
        assert!(round.elicit(form("first?"), Some("k")).is_err());
        assert!(round.elicit(form("second?"), Some("k")).is_err());
        let asked = round.questions();
        assert_eq!(asked.keys().collect::<Vec<_>>(), ["k", "k-2"]);
        let state = seal.seal(&round, &asked).unwrap();
        let responses = InputResponses::from([
            ("k".to_owned(), accepted(json!({"ok": true}))),
            ("k-2".to_owned(), accepted(json!({"ok": false}))),
        ]);
        let round = seal
            .open(&bound, Some(&state), Some(&responses))
            .await
            .unwrap();
        assert_eq!(
            round.elicit(form("first?"), Some("k")).unwrap(),
            Elicitation::Accepted(json!({"ok": true}))
        );
        assert_eq!(
            round.elicit(form("second?"), Some("k")).unwrap(),
            Elicitation::Accepted(json!({"ok": false}))
        );
    }
}
